//! Rolling a switch back before its commit point: services first, then every file.

use super::*;

impl Txn<'_> {
    /// Puts the services and every file back as they were; the error says how that went.
    pub(super) fn roll_back(mut self, err: Error) -> Failure {
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
        let txn = std::mem::replace(&mut self.txn, Transaction::open(self.t));
        for (dir, restored) in txn.roll_back().journals {
            if let Err(e) = restored {
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
                journal: self.journal.take(),
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
            journal: self.journal.take(),
        }
    }

    /// Brings the old unit back to how it was: enabled and started if it ran, enabled only if
    /// it was enabled and not running.
    pub(super) fn restore_old(&self) -> std::result::Result<(), String> {
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
