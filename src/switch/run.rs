//! Carrying out a switch, and rolling it back before its commit point (see the module doc of
//! [`super`]).
//!
//! Files: each phase (embedded files, presync, presync again on a retry) opens a journal of the
//! originals of the paths it is the first to touch, and keeps it open until the commit point,
//! so a crash anywhere before it lets the next run's recovery put every file back. The first
//! journal also holds config.json and is committed last, after config.json is written: a crash
//! between the two restores config.json too, so "config says old" and "services converge to
//! config" stay true together.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;

use super::installer::{self, Prepared};
use super::record::{self, Phase, Record};
use super::units::{Sample, Units, Verdict};
use super::{Options, STOP_TRIES, embedded, plan::is_unit_file};
use crate::apply::journal::{Journal, Touch};
use crate::apply::{Target, apply_file};
use crate::device::{Device, config};
use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::plan::{Draft, Plan, ServiceAction, Step};
use crate::runtime::{Loc, Runtime, RuntimeId, install, runtime_lib_dir};
use crate::system::interrupt;
use crate::system::process::{self, Run};

/// How long one run of the ready hook may take.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// A switch that reached its commit point.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
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
}

impl From<Error> for Failure {
    /// A failure before anything changed.
    fn from(error: Error) -> Self {
        Failure {
            error,
            rolled_back: false,
            actions: Vec::new(),
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
) -> std::result::Result<Outcome, Failure> {
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
    journals: Vec<Journal>,
    /// Path → index of the journal that holds its original.
    journaled: HashMap<DevPath, usize>,
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
                schema: 1,
                from,
                to: opts.to,
                from_unit,
                to_unit,
                pid: std::process::id(),
                started: crate::clock::now_secs(),
                phase: Phase::Materializing,
            },
            journals: Vec::new(),
            journaled: HashMap::new(),
            materialized: Vec::new(),
            prepared,
            need_reload: false,
            touched_units: false,
            new_started: false,
            installed: false,
            retried: false,
            warnings: Vec::new(),
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
                return Err(not_active(&self.to_unit(), &why));
            }
            if !self.opts.installer.available(self.to) {
                return Err(not_active(&self.to_unit(), &why).cause(format!(
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
                return Err(not_active(&self.to_unit(), &why));
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
        while let Some(j) = self.journals.pop() {
            let dir = j.dev_dir().clone();
            let cleanup = j.commit().map_err(|e| {
                let mut e = e.with_exit(Exit::PartlyApplied);
                e.message = format!(
                    "config.json names {} now, but the journal {dir} could not be marked done: {}",
                    self.to.name, e.message
                );
                e.hint("the next osctl run that changes the device restores that journal's files; then run `osctl switch` again")
            })?;
            if let Some(warning) = cleanup {
                self.warn(warning);
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

    fn outcome(&self) -> Outcome {
        Outcome {
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

    /// Journals the originals of the paths `plan` (and `extra`) touches that no journal of this
    /// switch holds yet, so every original kept is from before the switch (or, for files an
    /// installer made, from before osctl changed them).
    fn journal(&mut self, plan: &Plan, extra: &[DevPath]) -> Result<()> {
        let mut touches: Vec<Touch> = plan.file_changes().map(Touch::of).collect();
        touches.extend(extra.iter().cloned().map(Touch::later));
        touches.retain(|t| !self.journaled.contains_key(&t.path));
        if touches.is_empty() {
            return Ok(());
        }
        let journal = Journal::begin(self.t.fs, self.t.command, &touches)?;
        let i = self.journals.len();
        for t in &touches {
            self.journaled.insert(t.path.clone(), i);
        }
        self.journals.push(journal);
        Ok(())
    }

    /// Applies a plan's steps in order (files through the switch's journals).
    fn apply(&mut self, plan: &Plan) -> Result<()> {
        for step in &plan.steps {
            interrupt::check()?;
            match step {
                Step::File(change) => {
                    self.t
                        .out
                        .detail(&format!("{} {}", change.kind().as_str(), change.path));
                    let journal = self.journaled.get(&change.path).map(|&i| &self.journals[i]);
                    apply_file(self.t.fs, journal, change)?;
                    if is_unit_file(&change.path) {
                        self.need_reload = true;
                        self.touched_units = true;
                    }
                }
                Step::Service(action) => {
                    if let Err(why) = self.units.act(action)? {
                        return Err(Error::new(Exit::RolledBack, "service_action_failed", why));
                    }
                }
                Step::Command(cmd) => {
                    if !self.t.fs.is_live() {
                        self.status(&format!("not run (the root is not /): {}", cmd.label));
                        continue;
                    }
                    let mut spec = Run::new(&cmd.argv, Duration::from_secs(cmd.timeout_secs));
                    spec.env = &cmd.env;
                    spec.clean_env = true;
                    let out = process::run(&spec)?;
                    if !out.success() {
                        let msg = format!("{} failed ({})", cmd.label, out.describe());
                        if !cmd.optional {
                            return Err(Error::new(Exit::RolledBack, "command_failed", msg)
                                .cause(out.stderr_text().trim().to_string()));
                        }
                        self.warn(msg);
                    }
                }
            }
        }
        for w in &plan.warnings {
            self.warn(w.clone());
        }
        Ok(())
    }

    /// Re-reads the new runtime's unit name (an installer may declare another one).
    fn refresh_unit(&mut self) -> Result<()> {
        let unit = install::unit_name(self.t.fs, self.to)?;
        if unit != self.record.to_unit {
            self.record.to_unit = unit;
            record::write(self.t.fs, &self.record)?;
        }
        Ok(())
    }

    fn install(&mut self, why: &str) -> Result<()> {
        self.phase(Phase::Installing)?;
        self.note_old()?;
        let choice = &self.opts.installer;
        if !choice.available(self.to) {
            return Err(installer::Choice::unavailable(self.to, why).with_exit(Exit::RolledBack));
        }
        self.installed = true;
        self.need_reload = true;
        self.touched_units = true;
        if !self.t.fs.is_live() {
            self.status(&format!(
                "{} needs installing ({why}); not run (the root is not /): {}",
                self.to.name,
                choice.describe(self.to)
            ));
            return Ok(());
        }
        let prepared = match &self.prepared {
            Some(p) => p.clone(),
            None => installer::prepare(choice, self.to, self.fetch)?,
        };
        self.prepared = Some(prepared.clone());
        self.status(&format!("{} needs installing ({why})", self.to.name));
        let layout = &self.device.layout;
        let log = match self.to.install_log {
            Some(loc) => layout.path(loc),
            None => layout
                .path(Loc::abs("/var/log/osctl"))
                .join(format!("{}-install.log", self.to.name)),
        };
        let mut env = vec![
            ("OSCTL_RUNTIME".to_string(), self.to.name.to_string()),
            ("OSCTL_RUNTIME_DIR".to_string(), runtime_lib_dir(self.to.id)),
            (
                "OSCTL_RUNTIME_HOME".to_string(),
                layout.path(self.to.home).to_string(),
            ),
            ("OSCTL_UNIT".to_string(), self.to_unit()),
        ];
        env.extend(choice.env.iter().cloned());
        let ran = installer::run(
            self.t.fs,
            self.t.out,
            &prepared,
            self.to,
            env,
            choice.timeout,
            &log,
        )?;
        if !ran.output.success() {
            return Err(ran.failure(self.to));
        }
        self.status(&format!(
            "installed {} in {} s (log: {})",
            self.to.name,
            ran.output.elapsed.as_secs(),
            ran.log
        ));
        self.refresh_unit()
    }

    fn presync(&mut self) -> Result<()> {
        self.phase(Phase::Presync)?;
        let mut draft = Draft::new(self.t.fs);
        if let Err(e) = crate::presync::plan(&mut draft, self.device, self.to.id) {
            // Upstream's switch treats a failing presync as a warning, and so does osctl: the
            // runtime may still start, and `osctl presync` can be run again on its own.
            self.warn(format!(
                "presync for {} failed: {}; starting it anyway",
                self.to.name, e.message
            ));
            return Ok(());
        }
        let plan = draft.finish();
        self.journal(&plan, &[])?;
        self.apply(&plan)
    }

    /// Starts the new unit and waits for it to settle. `Ok(Err(why))`: it did not. A unit that
    /// is missing, failed at its start limit or stale makes `enable --now` fail, which counts as
    /// not settled (and earns the one reinstall); right before the first start both units are
    /// read in one `systemctl show`, as they were, for the rollback.
    fn start(&mut self) -> Result<std::result::Result<(), String>> {
        let unit = self.to_unit();
        if self.need_reload {
            self.reload()?;
        }
        let old = self.record.from_unit.clone();
        if self.to_before.is_none() && !self.t.services.is_offline() && old != unit {
            let mut both = self.units.sample_all(&[&unit, &old])?;
            let old_state = both.pop();
            self.to_before = both.pop();
            if self.from_before.is_none() {
                self.from_before = old_state;
            }
            if let Some(old) = &self.from_before {
                self.record.from_was = Some(super::record::Was {
                    running: old.is_running(),
                    enabled: old.is_enabled(),
                });
                record::write(self.t.fs, &self.record)?;
            }
        }
        // Should this run be killed from here on, the next run restores its journals, which
        // deletes the unit file osctl wrote for the new runtime; the new unit must be disabled
        // before that, while its file is still there (killed-switch-leaves-both-running).
        if let (Some(before), Some(journal)) = (&self.to_before, self.journals.last())
            && !before.is_enabled()
            && !before.is_running()
        {
            journal.undo_first(&ServiceAction::DisableNow(unit.clone()))?;
        }
        self.new_started = true;
        if let Err(why) = self.units.act(&ServiceAction::EnableNow(unit.clone()))? {
            self.note_old()?;
            return Ok(Err(why));
        }
        let companion = (self.from_before.is_none() && old != unit).then_some(old.as_str());
        let (verdict, old_state) = self.units.settle_with(&unit, self.opts.settle, companion)?;
        if let Some(s) = old_state {
            self.from_before = Some(s);
        }
        Ok(match verdict {
            Verdict::Settled(_) => Ok(()),
            Verdict::Failed { why, .. } => Err(why),
        })
    }

    /// Reads the old unit's state once, before anything may change it.
    fn note_old(&mut self) -> Result<()> {
        if self.from_before.is_none() {
            self.from_before = Some(self.units.sample(&self.record.from_unit)?);
        }
        Ok(())
    }

    fn reload(&mut self) -> Result<()> {
        if let Err(why) = self.units.act(&ServiceAction::DaemonReload)? {
            return Err(Error::new(Exit::RolledBack, "service_action_failed", why));
        }
        self.need_reload = false;
        Ok(())
    }

    fn wait_ready(&mut self) -> Result<()> {
        let hook = DevPath::new(runtime_lib_dir(self.to.id)).join("ready");
        if !self.t.fs.is_executable(&hook)? {
            self.status(&format!(
                "{} has no ready hook: active is enough",
                self.to.name
            ));
            return Ok(());
        }
        if !self.t.fs.is_live() {
            self.status(&format!("not run (the root is not /): {hook}"));
            return Ok(());
        }
        let argv = vec![self.t.fs.host(&hook)?.display().to_string()];
        let tries = self.opts.ready_tries.max(1);
        let mut last = String::new();
        for attempt in 1..=tries {
            let mut spec = Run::new(&argv, READY_TIMEOUT);
            spec.clean_env = true;
            spec.interruptible = true;
            let out = process::run(&spec)?;
            if out.success() {
                self.status(&format!(
                    "{} is ready ({hook} passed, try {attempt})",
                    self.to.name
                ));
                return Ok(());
            }
            let text = format!("{}{}", out.stdout_text(), out.stderr_text());
            last = format!(
                "{}{}",
                out.describe(),
                text.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            );
            self.t
                .out
                .detail(&format!("ready hook, try {attempt}/{tries}: {last}"));
            if attempt < tries {
                std::thread::sleep(self.opts.ready_interval);
                interrupt::check()?;
            }
        }
        Err(Error::new(
            Exit::RolledBack,
            "not_ready",
            format!(
                "{} did not become ready: {hook} failed {tries} times",
                self.to.name
            ),
        )
        .cause(last))
    }

    /// Puts the services and every file back as they were; the error says how that went.
    fn roll_back(mut self, err: Error) -> Failure {
        let _ = self.phase(Phase::RollingBack);
        let mut problems: Vec<String> = Vec::new();
        let mut kept: Vec<DevPath> = Vec::new();
        let to_unit = self.to_unit();
        if self.new_started {
            // Back to how the new unit was before the switch: a unit that already ran (config.json
            // named another runtime) keeps running; one that was only enabled stays enabled.
            let before = self.to_before.as_ref();
            let ran = before.is_some_and(Sample::is_running);
            let enabled = before.is_some_and(Sample::is_enabled);
            let undone = if ran {
                if enabled {
                    Ok(Ok(()))
                } else {
                    self.units.act(&ServiceAction::Disable(to_unit.clone()))
                }
            } else if enabled {
                self.units.stop_keeping_enablement(&to_unit, STOP_TRIES)
            } else {
                self.units.stop(&to_unit, STOP_TRIES)
            };
            match undone {
                Ok(Ok(())) => {}
                Ok(Err(why)) => problems.push(format!("{to_unit}.service: {why}")),
                Err(e) => problems.push(e.to_string()),
            }
        }
        while let Some(j) = self.journals.pop() {
            let dir = j.dev_dir().clone();
            if let Err(e) = j.rollback(self.t.fs) {
                problems.extend(e.causes.iter().cloned());
                kept.push(dir);
            }
        }
        if self.touched_units
            && let Err(e) = self
                .units
                .act(&ServiceAction::DaemonReload)
                .and_then(|r| r.map_err(|why| Error::input("service_action_failed", why)))
        {
            problems.push(e.to_string());
        }
        if let Err(e) = self.restore_old() {
            problems.push(e);
        }
        let actions = self.units.actions();
        if problems.is_empty() {
            let _ = record::remove(self.t.fs);
            let mut e = {
                let exit = crate::apply::rolled_back_exit(&err);
                err.with_exit(exit)
            };
            e.causes.push(format!(
                "rolled back: config.json still names {}, every file osctl wrote is as it was{}",
                self.from.name,
                if self.from_before.as_ref().is_some_and(Sample::is_running) {
                    format!(", and {}.service runs again", self.record.from_unit)
                } else {
                    String::new()
                }
            ));
            return Failure {
                error: e,
                rolled_back: true,
                actions,
            };
        }
        let mut e = err.with_exit(Exit::PartlyApplied);
        e.code = "rollback_incomplete";
        e.causes.push("the rollback is incomplete:".into());
        e.causes.extend(problems);
        let journals = kept
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        e.hint = Some(if kept.is_empty() {
            format!(
                "config.json still names {}; the next `osctl switch` or `osctl reconcile` converges the services to it",
                self.from.name
            )
        } else {
            format!(
                "the originals are kept in {journals}; the next osctl run that changes the device restores them, and `osctl switch` or `osctl reconcile` converges the services to config.json"
            )
        });
        Failure {
            error: e,
            rolled_back: false,
            actions,
        }
    }

    /// Brings the old unit back to how it was: enabled and started if it ran, enabled only if
    /// it was enabled and not running.
    fn restore_old(&self) -> std::result::Result<(), String> {
        let Some(before) = &self.from_before else {
            return Ok(());
        };
        let old = &self.record.from_unit;
        if self.from.id == self.to.id
            || old == &self.to_unit()
            || !before.exists()
            || !(before.is_running() || before.is_enabled())
        {
            return Ok(());
        }
        let err = |e: Error| e.to_string();
        let now = self.units.sample(old).map_err(err)?;
        if !before.is_running() {
            // Enabled but not running before the switch: give back the enablement only (it was
            // never started by the switch, so starting it now would change the device).
            if !now.is_enabled() {
                self.units
                    .act(&ServiceAction::Enable(old.clone()))
                    .map_err(err)?
                    .map_err(|why| format!("{old}.service was not enabled again: {why}"))?;
            }
            return Ok(());
        }
        if now.active == "failed" {
            self.units
                .act(&ServiceAction::ResetFailed(old.clone()))
                .map_err(err)?
                .ok();
        }
        self.units
            .act(&ServiceAction::EnableNow(old.clone()))
            .map_err(err)?
            .map_err(|why| format!("{old}.service did not start again: {why}"))?;
        match self.units.settle(old, Duration::ZERO).map_err(err)? {
            Verdict::Settled(_) => Ok(()),
            Verdict::Failed { why, .. } => Err(format!("{old}.service did not start again: {why}")),
        }
    }
}

fn not_active(unit: &str, why: &str) -> Error {
    Error::new(
        Exit::RolledBack,
        "unit_not_active",
        format!("{unit}.service did not stay active"),
    )
    .cause(why.to_string())
}
