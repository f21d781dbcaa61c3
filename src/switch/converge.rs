//! After a switch was killed: bring the services in line with config.json.
//!
//! The lock's recovery has already put back every file the killed switch changed (its journals),
//! so config.json names the runtime that should run: the old one, unless the switch died after
//! its commit point. Of the two units the record names, the one config.json's runtime uses is
//! enabled and started (its failed state reset first); the other is stopped and disabled (the new
//! unit, when the record holds its state from before the switch, is given that state back: one
//! that already ran keeps running, as after an in-process rollback), and
//! stopped even when its unit file is gone (the restore removes the unit file a switch wrote for
//! its new runtime, and systemd keeps running a unit whose file was deleted). Then
//! the record goes. When part of that fails, the record stays, `status` keeps reporting it and
//! the next `osctl switch` or `osctl reconcile` tries again. A runtime in config.json without a
//! unit file has nothing to start: a warning, not a failure to retry (no retry could change it).

use std::time::Duration;

use super::STOP_TRIES;
use super::record::{self, Phase, Record};
use super::units::{Units, Verdict};
use crate::apply::Target;
use crate::device::Device;
use crate::error::Result;
use crate::plan::ServiceAction;
use crate::runtime::{RuntimeId, install};

/// What convergence did.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Converged {
    pub record: Record,
    /// The runtime config.json names (the one left running).
    pub runtime: RuntimeId,
    pub actions: Vec<String>,
    /// What could not be done (empty: converged, record removed).
    pub problems: Vec<String>,
    /// What was found and needs no retry (the unit config.json names has no unit file).
    pub notes: Vec<String>,
    /// The unit config.json names was not running before the switch, and is left so.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub left_stopped: bool,
    /// The switch was stopped before it touched a unit: the services are left as they were.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untouched: bool,
    /// The new unit was given back the state it had before the switch (not just stopped).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new_as_before: bool,
}

/// Whether the switch `rec` was killed before it touched a unit (no installer ran, the new unit
/// was not started: the record holds no `from_was`). Its services are then as they were before
/// it, and once its files are back they are left so: converging them to config.json would start
/// a runtime that need not have run (config.json may name another runtime than the one running).
/// A record of an older osctl (schema 1) held no `from_was` after an installer either, which
/// may have stopped the old unit: it counts as untouched only while osctl was writing its files.
pub(crate) fn untouched(rec: &Record) -> bool {
    if rec.from_was.is_some() {
        return false;
    }
    match rec.phase {
        Phase::Materializing => true,
        Phase::Presync => rec.schema >= record::SCHEMA,
        _ => false,
    }
}

/// Converges the services after the interrupted switch `rec`. The caller holds the lock.
pub(crate) fn converge(t: &Target<'_>, device: &Device, rec: Record) -> Result<Converged> {
    let units = Units::new(t.services, t.out);
    let runtime = device.active()?;
    let keep = install::unit_name(t.fs, runtime.spec())?;
    let mut done = Converged {
        record: rec.clone(),
        runtime,
        actions: Vec::new(),
        problems: Vec::new(),
        notes: Vec::new(),
        left_stopped: false,
        untouched: false,
        new_as_before: false,
    };
    if t.services.is_offline() {
        done.problems
            .push("there is no systemd under this root".to_string());
        return done.close(t, &units);
    }
    // Unit files may just have been restored from the journal.
    if let Err(why) = units.act(&ServiceAction::DaemonReload)? {
        done.problems.push(why);
    }
    if untouched(&rec) {
        done.untouched = true;
        return done.close(t, &units);
    }
    let mut others = vec![rec.from_unit.clone(), rec.to_unit.clone()];
    others.dedup();
    for unit in others.iter().filter(|u| **u != keep) {
        let s = units.sample(unit)?;
        let as_before = rec.to_was.filter(|_| *unit == rec.to_unit && s.exists());
        if as_before.is_some() {
            done.new_as_before = true;
        }
        let stopped = if let Some(was) = as_before {
            // The new unit goes back to how it was before the switch, as the in-process
            // rollback leaves it: one that already ran (config.json named another runtime)
            // keeps running, one that was only enabled stays enabled.
            match (was.running, was.enabled) {
                (true, true) => Ok(()),
                (true, false) if s.is_enabled() => {
                    units.act(&ServiceAction::Disable(unit.clone()))?
                }
                (true, false) => Ok(()),
                (false, true) if s.is_running() => {
                    units.stop_keeping_enablement(unit, STOP_TRIES)?
                }
                (false, true) => Ok(()),
                (false, false) if s.is_running() || s.is_enabled() => {
                    units.stop(unit, STOP_TRIES)?
                }
                (false, false) => Ok(()),
            }
        } else if s.exists() {
            if s.is_running() || s.is_enabled() {
                units.stop(unit, STOP_TRIES)?
            } else {
                Ok(())
            }
        } else if s.is_running() {
            // The journal restore has just removed the unit file the killed switch wrote for
            // its new runtime, and systemd keeps running a unit whose file is gone: stop it by
            // name (without a file there is nothing to disable).
            units.stop_fileless(unit, STOP_TRIES)?
        } else {
            Ok(())
        };
        if let Err(why) = stopped {
            done.problems
                .push(format!("{unit}.service did not stop: {why}"));
        }
    }
    let s = units.sample(&keep)?;
    if !s.exists() {
        // Nothing to start, as before the switch began: that is the state config.json asks
        // for, and no retry could change it (a kept record would be retried at every boot and
        // keep `status` reporting an interrupted switch for good).
        done.notes.push(format!(
            "{keep}.service, the unit of {runtime} (config.json), does not exist: nothing to start"
        ));
        return done.close(t, &units);
    }
    if s.active == "failed" {
        let _ = units.act(&ServiceAction::ResetFailed(keep.clone()))?;
    }
    // Back to the old runtime: give its unit the state it had before the switch (it need not
    // have run: config.json may name a runtime other than the one that ran).
    let bring = match rec.from_was {
        Some(was) if keep == rec.from_unit => match (was.running, was.enabled) {
            (true, true) => Some(ServiceAction::EnableNow(keep.clone())),
            (true, false) => Some(ServiceAction::Start(keep.clone())),
            (false, true) if !s.is_enabled() => Some(ServiceAction::Enable(keep.clone())),
            (false, _) => None,
        },
        _ => Some(ServiceAction::EnableNow(keep.clone())),
    };
    let Some(bring) = bring else {
        done.left_stopped = true;
        return done.close(t, &units);
    };
    let starts = !matches!(bring, ServiceAction::Enable(_));
    match units.act(&bring)? {
        Ok(()) if !starts => {}
        Err(why) => done
            .problems
            .push(format!("{keep}.service did not start: {why}")),
        Ok(()) => {
            if let Verdict::Failed { why, .. } = units.settle(&keep, Duration::ZERO)? {
                done.problems
                    .push(format!("{keep}.service did not start: {why}"));
            }
        }
    }
    done.close(t, &units)
}

impl Converged {
    /// The end of a convergence: the actions it ran, and the record removed once nothing is
    /// left to retry.
    fn close(mut self, t: &Target<'_>, units: &Units<'_>) -> Result<Self> {
        self.actions = units.actions();
        if self.problems.is_empty() {
            record::remove(t.fs)?;
        }
        Ok(self)
    }
}

/// When an interrupted switch is recorded: converges (under the held lock) and reports it on
/// stderr. Returns what was done, if anything.
pub(crate) fn if_interrupted(t: &Target<'_>, device: &Device) -> Result<Option<Converged>> {
    let Some(rec) = record::read(t.fs)? else {
        return Ok(None);
    };
    t.out.warn(&format!(
        "a switch from {} to {} was interrupted (pid {}, during {}); bringing the services in line with config.json",
        rec.from,
        rec.to,
        rec.pid,
        rec.phase.as_str()
    ));
    let c = converge(t, device, rec)?;
    for n in &c.notes {
        t.out.warn(n);
    }
    let other = if c.new_as_before {
        format!(
            "{}.service is as it was before the switch",
            c.record.to_unit
        )
    } else {
        "the other unit is stopped".to_string()
    };
    if c.problems.is_empty() && c.untouched {
        t.out
            .status("services left as they were: the switch was stopped before it touched a unit");
    } else if c.problems.is_empty() && c.left_stopped {
        t.out.status(&format!(
            "services converged: {}.service (config.json names {}) was not running before the switch and is left so; {other}",
            install::unit_name(t.fs, c.runtime.spec())?,
            c.runtime
        ));
    } else if c.problems.is_empty() && c.notes.is_empty() {
        t.out.status(&format!(
            "services converged: {} runs ({}.service){}",
            c.runtime,
            install::unit_name(t.fs, c.runtime.spec())?,
            if c.new_as_before {
                format!("; {other}")
            } else {
                String::new()
            }
        ));
    } else if c.problems.is_empty() {
        t.out.status(&format!(
            "services converged: {} (config.json) has no unit to start; {other}",
            c.runtime
        ));
    } else {
        for p in &c.problems {
            t.out.warn(&format!("could not converge: {p}"));
        }
        t.out.warn(&format!(
            "{} is kept; the next `osctl switch` or `osctl reconcile` tries again",
            record::path()
        ));
    }
    Ok(Some(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::switch::record::Was;

    fn record(schema: u32, phase: Phase, from_was: Option<Was>) -> Record {
        Record {
            schema,
            from: RuntimeId::ALL[0],
            to: RuntimeId::ALL[1],
            from_unit: "old".into(),
            to_unit: "new".into(),
            pid: 1,
            started: 0,
            phase,
            from_was,
            to_was: None,
        }
    }

    /// A record without the old unit's state means "no unit touched" only where that is so:
    /// for this osctl up to presync (it records the state before an installer), for an older
    /// one (schema 1) only while it wrote its files, since its installer ran before presync
    /// without recording anything.
    #[test]
    fn untouched_depends_on_the_phase_and_on_which_osctl_wrote_the_record() {
        let was = Some(Was {
            running: true,
            enabled: true,
        });
        let cases = [
            (record::SCHEMA, Phase::Materializing, None, true),
            (record::SCHEMA, Phase::Presync, None, true),
            (record::SCHEMA, Phase::Installing, None, false),
            (record::SCHEMA, Phase::Starting, None, false),
            (record::SCHEMA, Phase::Presync, was, false),
            (1, Phase::Materializing, None, true),
            (1, Phase::Presync, None, false),
            (1, Phase::Installing, None, false),
        ];
        for (schema, phase, from_was, want) in cases {
            let rec = record(schema, phase, from_was);
            assert_eq!(
                untouched(&rec),
                want,
                "schema {schema}, {phase:?}, {from_was:?}"
            );
        }
    }
}
