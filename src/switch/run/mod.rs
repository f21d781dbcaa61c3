//! Carrying out a switch, and rolling it back before its commit point (see the module doc of
//! [`super`]).
//!
//! Files: the switch is one transaction of the apply engine ([`crate::apply::transaction`]).
//! Each phase (embedded files, presync, presync again on a retry) runs its plan into it, which
//! opens a journal of the originals of the paths that phase is the first to touch; every
//! journal stays open until the commit point, so a crash anywhere before it lets the next run's
//! recovery put every file back. The first journal also holds config.json and is committed
//! last, after config.json is written: a crash between the two restores config.json too, so
//! "config says old" and "services converge to config" stay true together.

mod rollback;
mod start;
mod steps;

use std::time::Duration;

use serde_json::Value;

use super::installer::{self, Prepared};
use super::record::{self, Phase, Record};
use super::units::{Sample, Units, Verdict};
use super::{Options, STOP_TRIES, embedded, plan::is_unit_file};
use crate::apply::Target;
use crate::apply::journal::Touch;
use crate::apply::transaction::{Stage, Transaction};
use crate::device::{Device, config};
use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::plan::{Draft, Plan, ServiceAction};
use crate::runtime::{Loc, Runtime, RuntimeId, install, runtime_lib_dir};
use crate::system::interrupt;
use crate::system::process::{self, Run};

/// How long one run of the ready hook may take.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// How many of a failed unit's journal lines a switch shows (`journalctl -u UNIT -n 20`).
const JOURNAL_LINES: usize = 20;

/// The last lines a new unit that did not stay active wrote to the journal: where the field
/// engineer looks first, shown with the error and in the `--json` document's `journal`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct UnitJournal {
    pub unit: String,
    /// The command that shows them, and more with a larger `-n`.
    pub command: String,
    pub lines: Vec<String>,
}

/// A switch that reached its commit point.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Landed {
    pub from: RuntimeId,
    pub to: RuntimeId,
    pub from_unit: String,
    pub to_unit: String,
    /// Embedded files written (bytes or mode differed).
    pub materialized: Vec<DevPath>,
    /// An installer ran (or was due, under a root where programs do not run).
    pub installed: bool,
    /// The start was retried after a reinstall.
    pub retried: bool,
    /// Service actions, in order.
    pub actions: Vec<String>,
    pub warnings: Vec<String>,
}

/// A switch that failed before its commit point.
#[derive(Debug)]
pub struct Failure {
    /// Exit 4 when the rollback was complete, 5 when not.
    pub error: Error,
    pub rolled_back: bool,
    pub actions: Vec<String>,
    /// The new unit's journal, when it did not stay active.
    pub journal: Option<UnitJournal>,
}

impl From<Error> for Failure {
    /// A failure before anything changed.
    fn from(error: Error) -> Self {
        Failure {
            error,
            rolled_back: false,
            actions: Vec::new(),
            journal: None,
        }
    }
}

/// Runs the switch `from` → `opts.to`. The caller holds the device lock and has checked that
/// the switch is not a no-op. `prepared`: an installer already fetched and checked up front.
pub(crate) fn run(
    t: &Target<'_>,
    device: &Device,
    from: RuntimeId,
    opts: &Options,
    prepared: Option<Prepared>,
    fetch: &dyn Fn(&str) -> Result<Vec<u8>>,
) -> std::result::Result<Landed, Failure> {
    // Signals are deferred to the safe points (each phase, each step) until the commit point.
    let _change = interrupt::Change::begin();
    let units = Units::new(t.services, t.out);
    let mut txn = match Txn::new(t, &units, device, from, opts, prepared, fetch) {
        Ok(txn) => txn,
        Err(error) => {
            return Err(Failure {
                error,
                rolled_back: false,
                actions: units.actions(),
                journal: None,
            });
        }
    };
    match txn.forward() {
        Ok(()) => {}
        Err(err) => return Err(txn.roll_back(err)),
    }
    match txn.finish() {
        Ok(()) => {
            if let Some(sig) = interrupt::pending() {
                txn.warn(format!(
                    "{} arrived after config.json was written: the switch was finished, not rolled back",
                    interrupt::signal_name(sig)
                ));
            }
            Ok(txn.outcome())
        }
        Err(error) => Err(Failure {
            error,
            rolled_back: false,
            actions: units.actions(),
            journal: None,
        }),
    }
}

struct Txn<'a> {
    t: &'a Target<'a>,
    units: &'a Units<'a>,
    device: &'a Device,
    opts: &'a Options,
    fetch: &'a dyn Fn(&str) -> Result<Vec<u8>>,
    from: &'static Runtime,
    to: &'static Runtime,
    /// The old unit as it was before anything could change it (what a rollback restores): read
    /// together with the new unit's state right before its start, or before an installer runs
    /// (an installer may stop it). `None`: nothing has touched it yet, so nothing to restore.
    from_before: Option<Sample>,
    /// The new unit as it was before the switch started it (read together with the old one,
    /// in one `systemctl show`): a rollback leaves a unit that already ran running.
    to_before: Option<Sample>,
    record: Record,
    /// The switch's files, from its first phase to its commit point.
    txn: Transaction<'a>,
    materialized: Vec<DevPath>,
    prepared: Option<Prepared>,
    /// Unit files changed since the last `daemon-reload`.
    need_reload: bool,
    /// Unit files changed at all (the rollback reloads systemd after restoring them).
    touched_units: bool,
    new_started: bool,
    installed: bool,
    retried: bool,
    warnings: Vec<String>,
    /// The new unit's journal, read when it did not stay active (before the rollback stops it).
    journal: Option<UnitJournal>,
}

impl<'a> Txn<'a> {
    fn new(
        t: &'a Target<'a>,
        units: &'a Units<'a>,
        device: &'a Device,
        from: RuntimeId,
        opts: &'a Options,
        prepared: Option<Prepared>,
        fetch: &'a dyn Fn(&str) -> Result<Vec<u8>>,
    ) -> Result<Self> {
        let from_unit = install::unit_name(t.fs, from.spec())?;
        let to = opts.to.spec();
        let to_unit = install::unit_name(t.fs, to)?;
        Ok(Txn {
            t,
            units,
            device,
            opts,
            fetch,
            from: from.spec(),
            to,
            from_before: None,
            to_before: None,
            record: Record {
                from_was: None,
                to_was: None,
                schema: record::SCHEMA,
                from,
                to: opts.to,
                from_unit,
                to_unit,
                pid: std::process::id(),
                started: crate::clock::now_secs(),
                phase: Phase::Materializing,
            },
            txn: Transaction::open(t),
            materialized: Vec::new(),
            prepared,
            need_reload: false,
            touched_units: false,
            new_started: false,
            installed: false,
            retried: false,
            warnings: Vec::new(),
            journal: None,
        })
    }

    /// Records the phase the switch enters. Every phase before the commit point is a safe point:
    /// an interrupt stops the switch there, and the rollback (a phase too) runs regardless.
    fn phase(&mut self, phase: Phase) -> Result<()> {
        if phase != Phase::RollingBack {
            interrupt::check()?;
        }
        self.record.phase = phase;
        record::write(self.t.fs, &self.record)
    }

    fn to_unit(&self) -> String {
        self.record.to_unit.clone()
    }

    fn status(&self, text: &str) {
        self.t.out.status(text);
    }

    fn warn(&mut self, text: String) {
        self.t.out.warn(&text);
        self.warnings.push(text);
    }

    /// Everything up to and including the commit point's write of config.json.
    fn forward(&mut self) -> Result<()> {
        self.phase(Phase::Materializing)?;
        let mut draft = Draft::new(self.t.fs);
        self.materialized = embedded::plan(&mut draft, self.to)?;
        let plan = draft.finish();
        let config_json = self.device.config.path.clone();
        self.journal(&plan, &[config_json])?;
        self.apply(&plan)?;
        if !self.materialized.is_empty() {
            self.status(&format!(
                "wrote {} of osctl's files for {}",
                self.materialized.len(),
                self.to.name
            ));
        }
        self.refresh_unit()?;

        let state = install::inspect(self.t.fs, self.to)?;
        if !state.installed() {
            self.install(&state.reason())?;
        }
        self.presync()?;

        self.phase(Phase::Starting)?;
        if let Err(why) = self.start()? {
            if self.installed {
                return Err(self.not_active(&why));
            }
            if !self.opts.installer.available(self.to) {
                return Err(self.not_active(&why).cause(format!(
                    "osctl embeds no installer for {} to reinstall it with (--installer or --from-cdn would allow one reinstall)",
                    self.to.name
                )));
            }
            // Upstream's rule: a unit that does not come up, on a runtime that was not
            // (re)installed in this run, gets one reinstall. Stop first (a crash loop keeps
            // restarting), then reset-failed (a unit at its start limit refuses to start).
            self.status(&format!(
                "{}.service did not stay active ({why}); reinstalling {} once",
                self.to_unit(),
                self.to.name
            ));
            let unit = self.to_unit();
            let _ = self.units.act(&ServiceAction::Stop(unit.clone()))?;
            let _ = self.units.act(&ServiceAction::ResetFailed(unit))?;
            self.retried = true;
            self.install(&format!("it did not stay active: {why}"))?;
            self.presync()?;
            self.phase(Phase::Starting)?;
            if let Err(why) = self.start()? {
                return Err(self.not_active(&why));
            }
        }
        self.status(&format!("{}.service is active", self.to_unit()));
        if self.opts.wait_ready {
            self.wait_ready()?;
        }

        self.phase(Phase::StoppingOld)?;
        let old = self.record.from_unit.clone();
        let exists = self.from_before.as_ref().is_none_or(Sample::exists);
        if old != self.to_unit() && exists {
            if let Err(why) = self.units.stop(&old, STOP_TRIES)? {
                return Err(Error::new(
                    Exit::RolledBack,
                    "old_unit_still_running",
                    format!("{old}.service did not stop after {STOP_TRIES} tries"),
                )
                .cause(why));
            }
            self.status(&format!("stopped and disabled {old}.service"));
        }

        self.phase(Phase::Committing)?;
        let mut draft = Draft::new(self.t.fs);
        config::edit(
            &mut draft,
            &self.device.config.path,
            &[("agent_runtime", Some(Value::from(self.to.name)))],
            "switch: the commit point",
        )?;
        let plan = draft.finish();
        self.journal(&plan, &[])?;
        self.apply(&plan)
    }

    /// After config.json was written: make the file changes final, then forget the record.
    fn finish(&mut self) -> Result<()> {
        // Newest first: the first journal, which holds config.json, goes last.
        match self.txn.commit() {
            Ok(cleanup) => cleanup.into_iter().for_each(|w| self.warn(w)),
            Err(e) => {
                let dir = self
                    .txn
                    .newest_journal()
                    .map_or_else(String::new, |d| format!(" {d}"));
                let mut e = e.with_exit(Exit::PartlyApplied);
                e.message = format!(
                    "config.json names {} now, but the journal{dir} could not be marked done: {}",
                    self.to.name, e.message
                );
                return Err(e.hint("the next osctl run that changes the device restores that journal's files; then run `osctl switch` again"));
            }
        }
        if let Err(e) = record::remove(self.t.fs) {
            // Harmless: the next run converges the services to config.json, which they match.
            self.warn(format!("the switch is done, but {e}"));
        }
        self.status(&format!(
            "config.json: agent_runtime = {} (switched from {})",
            self.to.name, self.from.name
        ));
        Ok(())
    }

    fn outcome(&self) -> Landed {
        Landed {
            from: self.from.id,
            to: self.to.id,
            from_unit: self.record.from_unit.clone(),
            to_unit: self.to_unit(),
            materialized: self.materialized.clone(),
            installed: self.installed,
            retried: self.retried,
            actions: self.units.actions(),
            warnings: self.warnings.clone(),
        }
    }
}

impl Txn<'_> {
    /// The error of a new unit that did not stay active, with its journal read for the report
    /// (as doctor reads a failed unit's): the unit's own words on why, where the engineer looks.
    fn not_active(&mut self, why: &str) -> Error {
        let unit = self.to_unit();
        let command = format!("journalctl -u {unit}.service -n {JOURNAL_LINES} --no-pager");
        let lines = match self.t.services.journal_tail(&unit, JOURNAL_LINES) {
            Ok(lines) => lines,
            Err(e) => Some(vec![format!("(the journal cannot be read: {e})")]),
        };
        let mut err = Error::new(
            Exit::RolledBack,
            "unit_not_active",
            format!("{unit}.service did not stay active"),
        )
        .cause(why.to_string());
        if let Some(lines) = lines {
            err = err.hint(format!(
                "its last journal lines are above (`{command}`); `osctl doctor` shows the units' state"
            ));
            self.journal = Some(UnitJournal {
                unit: format!("{unit}.service"),
                command,
                lines,
            });
        }
        err
    }
}
