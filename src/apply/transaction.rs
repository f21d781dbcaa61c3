//! The one transaction engine every change runs on: the journals of the originals it replaces,
//! kept open until its commit point; the step loop (files, service actions, commands, in plan
//! order, a safe point before each step up to the commit point); the folders' fsyncs batched
//! until something outside osctl could look at the files; and the restore of every journal.
//!
//! [`super::apply`] opens a transaction for one plan and commits it at the plan's last write.
//! `osctl switch` opens one for its whole run: each phase (osctl's embedded files, presync,
//! presync again on a retry) is a plan run into the same transaction, journaling only the paths
//! no earlier phase journaled (so every original kept is from before the switch), and the
//! transaction commits after config.json is written. Who carries out the service actions is the
//! caller's: systemctl once per action for every command ([`Systemctl`]), the switch's unit
//! driver (which logs each one for its report) for the switch.

use std::collections::HashMap;

use super::{Applied, Target, Work, apply_file_in, run_command};
use crate::error::Result;
use crate::path::DevPath;
use crate::plan::{ServiceAction, Step};
use crate::system::interrupt;
use crate::system::services::{Ran, Services};

use super::journal::{self, Journal, Touch};

/// Carries out a plan's service actions for the transaction.
pub(crate) trait ServiceRunner {
    /// Runs `action`: done, or not run because no systemd runs under this root.
    fn run(&self, action: &ServiceAction) -> Result<Ran>;
}

/// systemctl, once per action; each action done is printed under `-v`.
pub(crate) struct Systemctl<'a> {
    pub(crate) services: &'a Services,
    pub(crate) out: &'a crate::output::Printer,
}

impl ServiceRunner for Systemctl<'_> {
    fn run(&self, action: &ServiceAction) -> Result<Ran> {
        let ran = self.services.run(action)?;
        if matches!(ran, Ran::Done) {
            self.out.detail(&action.describe());
        }
        Ok(ran)
    }
}

/// Where a run of steps stands against the commit point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Stage {
    /// Before it: each step is a safe point, where a pending interrupt stops the run (and the
    /// caller rolls the transaction back).
    BeforeCommit,
    /// Past it: the change is finished whatever arrives.
    PastCommit,
}

/// An open transaction (see the module doc).
pub(crate) struct Transaction<'a> {
    target: &'a Target<'a>,
    journals: Vec<Journal>,
    /// Path → index of the journal that holds its original.
    journaled: HashMap<DevPath, usize>,
    work: Work,
    applied: Applied,
}

/// What rolling a transaction back did.
pub(crate) struct Restored {
    /// Whether any journal was open (if not, the run's one atomic write did not happen, and the
    /// folders made for it were removed).
    pub(crate) journaled: bool,
    /// Each journal's restore, newest first: what it put back, or the error naming what it
    /// could not.
    pub(crate) journals: Vec<(DevPath, Result<journal::Outcome>)>,
    /// The service actions the journals recorded to put the units back after the files.
    pub(crate) undo: Vec<Vec<String>>,
}

impl<'a> Transaction<'a> {
    pub(crate) fn open(target: &'a Target<'a>) -> Self {
        Transaction {
            target,
            journals: Vec::new(),
            journaled: HashMap::new(),
            work: Work::default(),
            applied: Applied::default(),
        }
    }

    /// Opens a journal of its own for the originals in `touches` that no journal of this
    /// transaction holds yet, recording `undo` (the actions that put the units back after a
    /// restore, should the run be killed). Nothing new to journal and nothing to undo: no
    /// journal.
    pub(crate) fn journal(
        &mut self,
        mut touches: Vec<Touch>,
        undo: &[ServiceAction],
    ) -> Result<()> {
        touches.retain(|t| !self.journaled.contains_key(&t.path));
        if touches.is_empty() && undo.is_empty() {
            return Ok(());
        }
        let journal = Journal::begin_undoable(self.target.fs, self.target.command, &touches, undo)?;
        let i = self.journals.len();
        for t in touches {
            self.journaled.insert(t.path, i);
        }
        self.journals.push(journal);
        Ok(())
    }

    /// Whether a journal is open.
    pub(crate) fn is_journaled(&self) -> bool {
        !self.journals.is_empty()
    }

    /// Runs `steps` in order: a file through the journal that holds its original (re-checked
    /// against what the plan expects to replace, written atomically), a service action or a
    /// command only once every write before it is durable.
    pub(crate) fn run(
        &mut self,
        steps: &[Step],
        units: &dyn ServiceRunner,
        stage: Stage,
    ) -> Result<()> {
        for step in steps {
            if stage == Stage::BeforeCommit {
                interrupt::check()?;
            }
            match step {
                Step::File(change) => {
                    self.target
                        .out
                        .detail(&format!("{} {}", change.kind().as_str(), change.path));
                    let journal = self.journaled.get(&change.path).map(|&i| &self.journals[i]);
                    apply_file_in(self.target.fs, journal, change, &mut self.work)?;
                    self.applied.files += 1;
                }
                Step::Service(action) => {
                    self.work.flush()?;
                    match units.run(action)? {
                        Ran::Done => self.applied.service_actions += 1,
                        Ran::SkippedOffline => {
                            self.applied.skipped_offline.push(action.describe());
                        }
                    }
                }
                Step::Command(cmd) => {
                    self.work.flush()?;
                    run_command(self.target, cmd, &mut self.applied)?;
                }
            }
        }
        Ok(())
    }

    /// Makes every write so far durable (the fsyncs of the folders they changed).
    pub(crate) fn flush(&mut self) -> Result<()> {
        self.work.flush()
    }

    /// Records, durably, that every write has landed and only `rest` is left to run: a kill
    /// from here on is rolled forward by the next run, not back.
    pub(crate) fn written(&mut self, rest: &[Step]) -> Result<()> {
        self.work.flush()?;
        self.journals.iter().try_for_each(|j| j.written(rest))
    }

    /// The commit point is passed: marks each journal done, newest first (so the first, which
    /// may hold the commit point's own file, goes last), then removes it. An error leaves the
    /// journal that could not be marked done, and the older ones, open: the caller rolls them
    /// back, or the next run restores them. The result: journals done that could not be removed
    /// (the change stands; the next run finishes the cleanup).
    pub(crate) fn commit(&mut self) -> Result<Vec<String>> {
        self.work.flush()?;
        let mut warnings = Vec::new();
        while let Some(j) = self.journals.last() {
            j.done()?;
            if let Some(j) = self.journals.pop()
                && let Some(warning) = j.clean()
            {
                warnings.push(warning);
            }
        }
        self.journaled.clear();
        Ok(warnings)
    }

    /// Records, durably, in the newest journal an action that its restore (after a kill) runs
    /// before it puts the files back; with no journal open there is nothing to restore.
    pub(crate) fn undo_first(&self, action: &ServiceAction) -> Result<()> {
        match self.journals.last() {
            Some(journal) => journal.undo_first(action),
            None => Ok(()),
        }
    }

    /// The journal folder the next [`Transaction::commit`] marks done first.
    pub(crate) fn newest_journal(&self) -> Option<&DevPath> {
        self.journals.last().map(Journal::dev_dir)
    }

    /// The run failed before its commit point: puts every original back, newest journal first
    /// (with no journal, removes the folders made for the one write, which did not happen).
    pub(crate) fn roll_back(self) -> Restored {
        let journaled = !self.journals.is_empty();
        if !journaled {
            for dir in self.work.created.iter().rev() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        let mut undo = Vec::new();
        let mut restored = Vec::new();
        for j in self.journals.into_iter().rev() {
            let dir = j.dev_dir().clone();
            // A kill during this rollback must be finished by restoring, not by rolling
            // forward. (If the journal cannot be rewritten, the rollback goes ahead all the
            // same: failing here would leave the run's files without a rollback at all.)
            let _ = j.unwritten();
            undo.extend(j.undo());
            restored.push((dir, j.rollback(self.target.fs)));
        }
        Restored {
            journaled,
            journals: restored,
            undo,
        }
    }

    /// What the steps run so far did.
    pub(crate) fn applied(&self) -> &Applied {
        &self.applied
    }

    pub(crate) fn into_applied(self) -> Applied {
        self.applied
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::output::{ColorChoice, Printer};
    use crate::plan::draft::current;
    use crate::plan::{FileChange, Plan};
    use crate::system::fs::RootFs;

    struct Device {
        dir: tempfile::TempDir,
        fs: RootFs,
        services: Services,
        out: Printer,
    }

    fn device() -> Device {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("etc")).unwrap();
        std::fs::write(dir.path().join("etc/a.conf"), "a=1\n").unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let out = Printer::new(false, true, 0, ColorChoice::Never, true);
        Device {
            dir,
            fs,
            services: Services::Offline,
            out,
        }
    }

    impl Device {
        fn target(&self) -> Target<'_> {
            Target {
                fs: &self.fs,
                services: &self.services,
                out: &self.out,
                command: "osctl test",
            }
        }

        /// A plan writing `files`, planned against the tree as it is now.
        fn plan(&self, files: &[(&str, &str)]) -> Plan {
            let mut plan = Plan::new();
            for (path, content) in files {
                let p = DevPath::new(path);
                plan.file(FileChange::write(
                    p.clone(),
                    current(&self.fs, &p).unwrap(),
                    content.as_bytes().to_vec(),
                    0o644,
                    "test",
                ));
            }
            plan
        }

        fn read(&self, path: &str) -> Option<String> {
            std::fs::read_to_string(self.dir.path().join(path.trim_start_matches('/'))).ok()
        }

        /// Runs `plan` into `txn` as a phase of a switch runs: journal, then steps.
        fn phase(&self, txn: &mut Transaction<'_>, plan: &Plan) {
            let touches = plan.file_changes().map(Touch::of).collect();
            txn.journal(touches, &[]).unwrap();
            let units = Systemctl {
                services: &self.services,
                out: &self.out,
            };
            txn.run(&plan.steps, &units, Stage::BeforeCommit).unwrap();
            txn.flush().unwrap();
        }
    }

    /// The second phase rewrites a file the first wrote: its original is the one from before
    /// the transaction, so the rollback puts that back, and the new file goes away.
    #[test]
    fn a_rollback_after_two_phases_restores_what_was_there_before_the_first() {
        let d = device();
        let target = d.target();
        let mut txn = Transaction::open(&target);
        d.phase(
            &mut txn,
            &d.plan(&[("/etc/a.conf", "a=2\n"), ("/etc/b.conf", "b\n")]),
        );
        let second = d.plan(&[("/etc/a.conf", "a=3\n")]);
        d.phase(&mut txn, &second);
        assert_eq!(
            txn.journals.len(),
            1,
            "a.conf is journaled once, by the first phase"
        );
        assert_eq!(d.read("/etc/a.conf").as_deref(), Some("a=3\n"));
        let restored = txn.roll_back();
        assert!(restored.journaled);
        assert!(restored.journals.iter().all(|(_, r)| r.is_ok()));
        assert_eq!(d.read("/etc/a.conf").as_deref(), Some("a=1\n"));
        assert_eq!(d.read("/etc/b.conf"), None);
        assert!(journal::pending(&d.fs).unwrap().is_empty());
    }

    /// Each phase that touches new paths has a journal of its own; the commit marks them all
    /// done and removes them, and the files stay as the phases left them.
    #[test]
    fn a_commit_closes_every_journal_and_keeps_the_files() {
        let d = device();
        let target = d.target();
        let mut txn = Transaction::open(&target);
        d.phase(&mut txn, &d.plan(&[("/etc/a.conf", "a=2\n")]));
        d.phase(&mut txn, &d.plan(&[("/etc/c.conf", "c\n")]));
        assert_eq!(txn.journals.len(), 2);
        assert_eq!(journal::pending(&d.fs).unwrap().len(), 2);
        let warnings = txn.commit().unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(txn.newest_journal().is_none());
        assert!(journal::pending(&d.fs).unwrap().is_empty());
        assert_eq!(d.read("/etc/a.conf").as_deref(), Some("a=2\n"));
        assert_eq!(d.read("/etc/c.conf").as_deref(), Some("c\n"));
    }

    /// A transaction killed after two phases (its journals never committed) is put back whole
    /// by the next run's recovery, every journal of it.
    #[test]
    fn a_killed_transaction_is_restored_by_the_next_run() {
        let d = device();
        let target = d.target();
        let mut txn = Transaction::open(&target);
        d.phase(&mut txn, &d.plan(&[("/etc/a.conf", "a=2\n")]));
        d.phase(
            &mut txn,
            &d.plan(&[("/etc/a.conf", "a=3\n"), ("/etc/c.conf", "c\n")]),
        );
        drop(txn); // killed before its commit point
        assert_eq!(journal::pending(&d.fs).unwrap().len(), 2);
        let recovered = journal::recover_all(&d.fs, &Services::Offline).unwrap();
        assert_eq!(recovered.len(), 2);
        assert_eq!(d.read("/etc/a.conf").as_deref(), Some("a=1\n"));
        assert_eq!(d.read("/etc/c.conf"), None);
    }

    /// A step whose file changed after planning stops the run before it writes; the rollback
    /// restores the earlier phase's files too.
    #[test]
    fn a_file_changed_underfoot_stops_the_phase_and_the_rollback_covers_the_earlier_one() {
        let d = device();
        let target = d.target();
        let mut txn = Transaction::open(&target);
        d.phase(&mut txn, &d.plan(&[("/etc/b.conf", "b\n")]));
        let second = d.plan(&[("/etc/a.conf", "a=2\n")]);
        std::fs::write(d.dir.path().join("etc/a.conf"), "someone else\n").unwrap();
        txn.journal(second.file_changes().map(Touch::of).collect(), &[])
            .unwrap();
        let units = Systemctl {
            services: &d.services,
            out: &d.out,
        };
        let err = txn
            .run(&second.steps, &units, Stage::BeforeCommit)
            .unwrap_err();
        assert_eq!(err.code, "changed_underfoot");
        txn.roll_back();
        assert_eq!(d.read("/etc/a.conf").as_deref(), Some("someone else\n"));
        assert_eq!(d.read("/etc/b.conf"), None);
        assert!(journal::pending(&d.fs).unwrap().is_empty());
    }
}
