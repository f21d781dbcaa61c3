//! Starting the new unit and telling whether it stayed up and became ready.

use super::*;

impl Txn<'_> {
    /// Starts the new unit and waits for it to settle. `Ok(Err(why))`: it did not. A unit that
    /// is missing, failed at its start limit or stale makes `enable --now` fail, which counts as
    /// not settled (and earns the one reinstall); right before the first start both units are
    /// read in one `systemctl show`, as they were, for the rollback.
    pub(super) fn start(&mut self) -> Result<std::result::Result<(), String>> {
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
            self.record_old()?;
        }
        // Should this run be killed from here on, the next run restores its journals, which
        // deletes the unit file osctl wrote for the new runtime; the new unit must be disabled
        // before that, while its file is still there (killed-switch-leaves-both-running).
        if let Some(before) = &self.to_before
            && !before.is_enabled()
            && !before.is_running()
        {
            self.txn
                .undo_first(&ServiceAction::DisableNow(unit.clone()))?;
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

    /// Records the old unit's state in the switch record (`from_was`), before the first thing
    /// that may change it (an installer, the new unit's start), and the new unit's once it has
    /// been read (`to_was`, right before its start): a convergence after a kill gives both back,
    /// and a record without `from_was` says no unit was touched yet.
    pub(super) fn record_old(&mut self) -> Result<()> {
        let was = |s: &Sample| super::record::Was {
            running: s.is_running(),
            enabled: s.is_enabled(),
        };
        if let Some(old) = &self.from_before {
            self.record.from_was = Some(was(old));
            self.record.to_was = self.to_before.as_ref().map(was);
            record::write(self.t.fs, &self.record)?;
        }
        Ok(())
    }

    /// Reads the old unit's state once, before anything may change it.
    pub(super) fn note_old(&mut self) -> Result<()> {
        if self.from_before.is_none() {
            self.from_before = Some(self.units.sample(&self.record.from_unit)?);
        }
        Ok(())
    }

    pub(super) fn reload(&mut self) -> Result<()> {
        if let Err(why) = self.units.act(&ServiceAction::DaemonReload)? {
            return Err(Error::new(Exit::RolledBack, "service_action_failed", why));
        }
        self.need_reload = false;
        Ok(())
    }

    pub(super) fn wait_ready(&mut self) -> Result<()> {
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
}
