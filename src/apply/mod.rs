//! Carrying out a plan: the journal of originals, atomic durable writes, service actions and
//! commands in plan order, and rollback on failure.
//!
//! The caller holds the device lock ([`lock::DeviceLock`]) from before it planned until this
//! returns. Each file change is re-checked against the state it expects to replace right before
//! it is written; a runtime that rewrote its own file in between stops the run (everything is
//! rolled back) instead of being overwritten blindly.
//!
//! **The cheapest durable write that is still all or nothing.** A plan that changes one file and
//! runs no command or service action keeps no journal: its one atomic write is all or nothing
//! already (a kill leaves the old file or the new one). Every plan writes and fsyncs each file,
//! renames it into place, and fsyncs each distinct folder it changed once, before its first
//! service action or command and at its end, before the journal is marked done
//! ([`journal`] costs four fsyncs to begin and one to finish, whatever the plan's size).
//!
//! Every change runs on one engine, [`transaction`]: [`apply`] is a transaction of one plan,
//! committed at its last write; `osctl switch` is one transaction of several plans, committed
//! after config.json.

pub(crate) mod atomic;
pub(crate) mod journal;
pub mod lock;
pub(crate) mod stage;
pub(crate) mod state;
pub(crate) mod transaction;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Exit, Result};
use crate::output::Printer;
use crate::path::DevPath;
use crate::plan::{CommandAction, FileChange, FileState, Plan, Step};
use crate::system::fs::{Kind, RootFs};
use crate::system::interrupt;
use crate::system::process::{self, Run};
use crate::system::services::Services;

use atomic::Syncs;
use journal::{Journal, Touch};
use transaction::{Stage, Systemctl, Transaction};

/// What an apply did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Applied {
    pub files: usize,
    pub service_actions: usize,
    pub commands: usize,
    /// Actions not run because there is no systemd under this root.
    pub skipped_offline: Vec<String>,
    pub warnings: Vec<String>,
}

/// Where and how a plan is applied.
pub struct Target<'a> {
    pub fs: &'a RootFs,
    pub services: &'a Services,
    pub out: &'a Printer,
    /// The command line (secrets masked), recorded in the journal.
    pub command: &'a str,
}

/// Whether `plan` needs a journal: anything but one file change (not a folder removed whole)
/// with no service action or command that will run here.
pub fn needs_journal(plan: &Plan, fs: &RootFs, services: &Services) -> bool {
    if !plan.undo.is_empty() && !services.is_offline() {
        // Its units are put back from the journal should it be killed.
        return true;
    }
    let mut files = plan.file_changes();
    let Some(first) = files.next() else {
        return false;
    };
    if files.next().is_some() || matches!(first.before, FileState::Tree { .. }) {
        return true;
    }
    plan.steps.iter().any(|s| match s {
        Step::Service(_) => !services.is_offline(),
        Step::Command(_) => fs.is_live(),
        Step::File(_) => false,
    })
}

/// Applies `plan` step by step. On failure every file is restored from the journal and the error
/// says so (exit 4), or names what could not be put back and where its original is kept
/// (exit 5); the plan's [`Plan::undo`] actions then put the units back. A journal that cannot
/// be removed after a successful run is a warning.
///
/// Once the last file step has landed, and before the service actions and commands after it,
/// the journal records that every write landed ([`Journal::written`]): a kill from there on is
/// rolled forward by the next run, not back.
pub fn apply(target: &Target<'_>, plan: &Plan) -> Result<Applied> {
    // A signal from here on is deferred to the safe points below (system::interrupt).
    let _change = interrupt::Change::begin();
    let units = Systemctl {
        services: target.services,
        out: target.out,
    };
    let mut txn = Transaction::open(target);
    if needs_journal(plan, target.fs, target.services) {
        let touches: Vec<Touch> = plan.file_changes().map(Touch::of).collect();
        txn.journal(touches, &plan.undo)?;
    }
    // The commit point is the last write: up to it an interrupt rolls the change back; after
    // it, the journal says every write landed, and the change is finished.
    let last_write = plan.steps.iter().rposition(|s| matches!(s, Step::File(_)));
    let (before, after) = plan.steps.split_at(last_write.map_or(0, |last| last + 1));
    let forward = txn
        .run(before, &units, Stage::BeforeCommit)
        .and_then(|()| {
            if txn.is_journaled() && !after.is_empty() {
                txn.written(after)
            } else {
                Ok(())
            }
        })
        .and_then(|()| txn.run(after, &units, Stage::PastCommit))
        .and_then(|()| txn.flush());
    if let Err(err) = forward {
        return Err(roll_back(target, txn, err));
    }
    let mut warnings = Vec::new();
    if let Some(sig) = interrupt::pending() {
        warnings.push(format!(
            "{} arrived after every write had landed: the change was finished, not rolled back",
            interrupt::signal_name(sig)
        ));
    }
    match txn.commit() {
        Ok(cleanup) => warnings.extend(cleanup),
        Err(err) => return Err(roll_back(target, txn, err)),
    }
    let mut applied = txn.into_applied();
    for warning in warnings {
        target.out.warn(&warning);
        applied.warnings.push(warning);
    }
    Ok(applied)
}

/// The folders a plan's writes changed (synced together), and the ones it created on the way.
#[derive(Default)]
struct Work {
    syncs: Syncs,
    created: Vec<PathBuf>,
}

impl Work {
    fn flush(&mut self) -> Result<()> {
        self.syncs.flush().map_err(|e| {
            Error::new(
                Exit::RolledBack,
                "io_error",
                "cannot make the changes durable (fsync of their folders failed)",
            )
            .cause(e.to_string())
        })
    }
}

/// Rolls a failed run back and says how that went: exit 4 (or 130) when every file is as it
/// was, 5 naming what is left and where its original is kept; then the journal's undo actions
/// put the units back.
fn roll_back(target: &Target<'_>, txn: Transaction<'_>, err: Error) -> Error {
    let restored = txn.roll_back();
    if !restored.journaled {
        // One atomic write, which did not happen.
        let exit = rolled_back_exit(&err);
        let mut e = err.with_exit(exit);
        e.causes.push("nothing was changed".into());
        return e;
    }
    let mut notes = Vec::new();
    let mut hint = None;
    let mut complete = true;
    for (dir, outcome) in restored.journals {
        match outcome {
            Ok(outcome) => {
                if !outcome.left.is_empty() {
                    complete = false;
                    hint = Some(match &outcome.kept {
                        Some(kept) => format!(
                            "the originals of what was left are kept in {kept}; put back what is needed by hand"
                        ),
                        None => format!("the originals are in {dir}"),
                    });
                }
                notes.extend(outcome.left);
                notes.extend(outcome.cleanup);
            }
            Err(rollback_err) => {
                complete = false;
                notes.extend(rollback_err.causes.iter().cloned());
                hint = rollback_err.hint.clone();
            }
        }
    }
    let mut e = if complete {
        let exit = rolled_back_exit(&err);
        let mut e = err.with_exit(exit);
        e.causes
            .push("every file osctl had changed was restored".into());
        e
    } else {
        let mut e = err.with_exit(Exit::PartlyApplied);
        e.code = "rollback_incomplete";
        e.hint = hint;
        e
    };
    e.causes.extend(notes);
    // The files first: a unit started again reads them.
    put_units_back(target, restored.undo, e)
}

/// The exit of a run that was rolled back whole: 130 if a signal stopped it, else 4.
pub fn rolled_back_exit(err: &Error) -> Exit {
    match err.exit {
        Exit::Interrupted => Exit::Interrupted,
        _ => Exit::RolledBack,
    }
}

/// Runs the journal's undo actions after a failed run (they are recorded for a kill as well):
/// what could not be run joins the error's causes.
fn put_units_back(target: &Target<'_>, undo: Vec<Vec<String>>, mut err: Error) -> Error {
    let (ran, not_run) = journal::run_actions(target.services, &undo);
    for r in ran {
        target.out.detail(&r);
    }
    err.causes.extend(not_run);
    err
}

fn run_command(target: &Target<'_>, cmd: &CommandAction, applied: &mut Applied) -> Result<()> {
    if !target.fs.is_live() {
        applied
            .skipped_offline
            .push(format!("run {} ({})", cmd.argv.join(" "), cmd.label));
        return Ok(());
    }
    let mut spec = Run::new(&cmd.argv, Duration::from_secs(cmd.timeout_secs));
    spec.env = &cmd.env;
    spec.clean_env = true;
    let out = match process::run(&spec) {
        Ok(out) => out,
        Err(e) if cmd.optional => {
            let message = format!("{} could not start: {e}", cmd.label);
            target.out.warn(&message);
            applied.warnings.push(message);
            return Ok(());
        }
        Err(e) => return Err(e.with_exit(Exit::RolledBack)),
    };
    applied.commands += 1;
    if out.success() {
        return Ok(());
    }
    let message = format!("{} failed ({})", cmd.label, out.describe());
    if cmd.optional {
        target.out.warn(&message);
        applied.warnings.push(message);
        return Ok(());
    }
    Err(Error::new(Exit::RolledBack, "command_failed", message)
        .cause(out.stderr_text().trim().to_string()))
}

/// What is at `path` now, for the re-check (following a final link for writes).
fn observe(fs: &RootFs, path: &DevPath, follow: bool) -> Result<Option<(Kind, Option<Vec<u8>>)>> {
    let meta = if follow {
        fs.stat(path)?
    } else {
        fs.lstat(path)?
    };
    Ok(match meta {
        None => None,
        Some(m) if m.kind == Kind::File => Some((Kind::File, fs.read(path)?)),
        Some(m) => Some((m.kind, None)),
    })
}

fn expected_matches(before: &FileState, now: &Option<(Kind, Option<Vec<u8>>)>) -> bool {
    match (before, now) {
        (FileState::Absent, None) => true,
        (FileState::File { content, .. }, Some((Kind::File, Some(bytes)))) => content == bytes,
        (FileState::Dir { .. } | FileState::Tree { .. }, Some((Kind::Dir, _))) => true,
        (FileState::Symlink { .. }, Some((Kind::Symlink, _))) => true,
        _ => false,
    }
}

/// One file change applied and made durable on its own (tests drive the journal with it).
#[cfg(test)]
pub(crate) fn apply_file(
    fs: &RootFs,
    journal: Option<&Journal>,
    change: &FileChange,
) -> Result<()> {
    let mut work = Work::default();
    apply_file_in(fs, journal, change, &mut work)?;
    work.flush()
}

/// Applies one file change: re-checks what it expects to replace, records in `journal` what it
/// is about to leave there, then writes atomically; the folder it changed joins `work`'s syncs
/// (the transaction flushes them before anything outside osctl could look). A folder removed
/// whole moves into `journal`, which must have recorded it.
fn apply_file_in(
    fs: &RootFs,
    journal: Option<&Journal>,
    change: &FileChange,
    work: &mut Work,
) -> Result<()> {
    let path = &change.path;
    // A removal and a link osctl makes act on the path itself, never on what a link there names.
    let at_path = matches!(change.after, FileState::Absent | FileState::Symlink { .. });
    let now = observe(fs, path, !at_path)?;
    if !expected_matches(&change.before, &now) {
        return Err(Error::new(
            Exit::RolledBack,
            "changed_underfoot",
            format!("{path} changed while osctl was working on it"),
        )
        .hint("something else wrote the file after osctl read it; run the command again"));
    }
    let io =
        |action: &str, e: std::io::Error| Error::io(action, path, &e).with_exit(Exit::RolledBack);
    crate::fault::before_write().map_err(|e| io("write", e))?;
    if let Some(j) = journal {
        j.intend(path, &change.after)?;
    }
    match &change.after {
        FileState::File { content, mode } => {
            let host = fs.host(path)?;
            ensure_parents(fs, path, work)?;
            let same_bytes =
                matches!(&change.before, FileState::File { content: c, .. } if c == content);
            let (action, written) = if same_bytes {
                ("change the mode of", atomic::chmod(&host, *mode))
            } else {
                (
                    "write",
                    atomic::write_file_in(&host, content, *mode, &mut work.syncs),
                )
            };
            written.map_err(|e| {
                let missing = e.kind() == std::io::ErrorKind::NotFound;
                let err = io(action, e);
                if missing {
                    explain_dangling_link(fs, path, err)
                } else {
                    err
                }
            })
        }
        FileState::Dir { mode } => {
            // A folder emptied by the plan: the old one goes to the journal, a new one is made.
            if matches!(change.before, FileState::Tree { .. }) {
                match journal {
                    Some(j) => j.take_tree_in(fs, path, &mut work.syncs)?,
                    None => return Err(Error::internal("a folder removal needs a journal")),
                }
            }
            ensure_parents(fs, path, work)?;
            let host = fs.host(path)?;
            atomic::mkdir_in(&host, *mode, &mut work.syncs).map_err(|e| io("create", e))
        }
        FileState::Absent => {
            let host = fs.host_nofollow(path)?;
            match &change.before {
                FileState::Tree { .. } => match journal {
                    Some(j) => j.take_tree_in(fs, path, &mut work.syncs),
                    None => Err(Error::internal("a folder removal needs a journal")),
                },
                FileState::Dir { .. } => {
                    atomic::remove_empty_dir_in(&host, &mut work.syncs).map_err(|e| io("remove", e))
                }
                _ => atomic::remove_file_in(&host, &mut work.syncs).map_err(|e| io("remove", e)),
            }
            // The path is the error's file: a reset that cannot remove it goes on without it.
            .map_err(|e| {
                e.at(crate::error::Location {
                    file: path.to_string(),
                    line: None,
                    column: None,
                })
            })
        }
        FileState::Symlink { target } => {
            // systemd's `[Install]` links (`osctl setup` enables its units in an image).
            ensure_parents(fs, path, work)?;
            atomic::symlink_in(target.as_ref(), &fs.host_nofollow(path)?, &mut work.syncs)
                .map_err(|e| io("link", e))
        }
        FileState::Tree { .. } => Err(Error::internal(format!(
            "a plan cannot create {path} as a whole tree"
        ))),
    }
}

/// A write through a symbolic link whose target's folder does not exist under the root fails
/// with a bare "No such file or directory": say which link, and where it points (links are
/// resolved inside `--root`, so a link to an absolute path names a path under the root).
fn explain_dangling_link(fs: &RootFs, path: &DevPath, err: Error) -> Error {
    let Ok(link) = fs.host_nofollow(path) else {
        return err;
    };
    match std::fs::read_link(&link) {
        Ok(target) => err.cause(format!(
            "{path} is a symbolic link to {}, which osctl resolves inside --root {}; its folder does not exist there",
            target.display(),
            fs.root().display()
        )),
        Err(_) => err,
    }
}

/// Creates the missing folders above `path` (mode 0755); their parents join `work`'s syncs.
fn ensure_parents(fs: &RootFs, path: &DevPath, work: &mut Work) -> Result<()> {
    let mut missing = Vec::new();
    let mut up = path.parent();
    while let Some(p) = up {
        if p.is_root() || fs.stat(&p)?.is_some() {
            break;
        }
        missing.push(p.clone());
        up = p.parent();
    }
    for dir in missing.into_iter().rev() {
        let host = fs.host(&dir)?;
        atomic::mkdir_in(&host, 0o755, &mut work.syncs)
            .map_err(|e| Error::io("create", &dir, &e).with_exit(Exit::RolledBack))?;
        work.created.push(host);
    }
    Ok(())
}

/// Permission bits of a host file (0 when it cannot be read).
pub fn mode_of(host: &std::path::Path) -> u32 {
    std::fs::metadata(host)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
