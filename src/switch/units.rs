//! The switch's view of systemd: reading a unit's state, and the settle rule that decides
//! whether a freshly started unit really runs. Every call goes through
//! [`crate::system::services::Services`], the one systemctl boundary.
//!
//! Why a settle window: `systemctl enable --now` of a `Type=simple` unit returns 0 as soon as
//! the process is forked, even when its binary is missing, and a crash-looping unit flips between
//! `activating (auto-restart)` and a brief `active`. So one `is-active` read proves nothing. A
//! started unit has settled when it has been `active` for the whole window with `NRestarts`
//! unchanged; any other state seen after it started (failed, inactive, auto-restart, a restart)
//! ends the wait at once.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::apply::transaction::ServiceRunner;
use crate::error::{Error, Exit, Result};
use crate::output::Printer;
use crate::plan::ServiceAction;
use crate::system::services::{Ran, Services, unit_file_name};

/// How often a settling unit is sampled.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// How long a unit may stay `activating` (before it was ever active) after `enable --now`
/// returned. `Type=notify` units are waited for by `enable --now` itself.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(90);

/// The properties read for a unit.
const PROPS: &str =
    "--property=LoadState,ActiveState,SubState,Result,NRestarts,UnitFileState,NeedDaemonReload";

/// One reading of a unit.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Sample {
    /// `loaded`, `not-found`, …
    pub load: String,
    /// `active`, `inactive`, `failed`, `activating`, `deactivating`, `reloading`.
    pub active: String,
    pub sub: String,
    /// `success`, `exit-code`, `start-limit-hit`, …
    pub result: String,
    pub restarts: u64,
    /// `enabled`, `disabled`, `static`, …
    pub file: String,
    pub need_reload: bool,
}

impl Sample {
    /// Parses `systemctl show --property=...` output for one unit.
    pub(crate) fn parse(text: &str) -> Sample {
        let props: BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once('=')).collect();
        let get = |k: &str| props.get(k).copied().unwrap_or("").to_string();
        Sample {
            load: get("LoadState"),
            active: get("ActiveState"),
            sub: get("SubState"),
            result: get("Result"),
            restarts: props
                .get("NRestarts")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
            file: get("UnitFileState"),
            need_reload: props.get("NeedDaemonReload") == Some(&"yes"),
        }
    }

    /// Whether systemd knows a unit file for it.
    pub(crate) fn exists(&self) -> bool {
        !self.load.is_empty() && self.load != "not-found"
    }

    /// Running, or on its way up or down.
    pub(crate) fn is_running(&self) -> bool {
        matches!(
            self.active.as_str(),
            "active" | "activating" | "deactivating" | "reloading"
        )
    }

    pub(crate) fn is_enabled(&self) -> bool {
        self.file.starts_with("enabled")
    }

    /// `failed (result exit-code, 3 restarts)`.
    pub(crate) fn describe(&self) -> String {
        if !self.exists() {
            return "not found".into();
        }
        let mut s = self.active.clone();
        let mut extra = Vec::new();
        if !self.sub.is_empty() && self.sub != self.active {
            extra.push(self.sub.clone());
        }
        if !self.result.is_empty() && self.result != "success" {
            extra.push(format!("result {}", self.result));
        }
        if self.restarts > 0 {
            extra.push(format!(
                "{} restart{}",
                self.restarts,
                if self.restarts == 1 { "" } else { "s" }
            ));
        }
        if !extra.is_empty() {
            s.push_str(&format!(" ({})", extra.join(", ")));
        }
        s
    }
}

/// Reads a unit's state over time (systemd, or a script in the unit tests).
pub(crate) trait Probe {
    fn sample(&mut self) -> Result<Sample>;
    fn elapsed(&self) -> Duration;
    fn sleep(&mut self, d: Duration);
}

/// The outcome of a settle wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Active for the whole window, no restart.
    Settled(Sample),
    /// Why not, and the last state seen.
    Failed { why: String, last: Sample },
}

/// Waits until the unit has been active for `window` with `NRestarts` unchanged (one active
/// sample when `window` is zero), or until it shows that it does not run.
pub(crate) fn settle(
    probe: &mut dyn Probe,
    window: Duration,
    start_timeout: Duration,
) -> Result<Verdict> {
    // When the unit was first seen active, and its restart count then.
    let mut up: Option<(Duration, u64)> = None;
    loop {
        let s = probe.sample()?;
        let now = probe.elapsed();
        let fail = |why: String| {
            Ok(Verdict::Failed {
                why,
                last: s.clone(),
            })
        };
        match s.active.as_str() {
            _ if !s.exists() => return fail("the unit does not exist".into()),
            "active" | "reloading" => match up {
                None => up = Some((now, s.restarts)),
                Some((_, n)) if s.restarts != n => {
                    return fail(format!(
                        "it restarted while settling (NRestarts {n} -> {})",
                        s.restarts
                    ));
                }
                Some(_) => {}
            },
            "activating" if up.is_none() && s.sub != "auto-restart" => {
                if now >= start_timeout {
                    return fail(format!(
                        "it was still starting after {} s",
                        start_timeout.as_secs()
                    ));
                }
            }
            _ => {
                let when = if up.is_some() {
                    "it was active, then"
                } else {
                    "it did not come up:"
                };
                return fail(format!("{when} {}", s.describe()));
            }
        }
        if let Some((since, _)) = up {
            let stable = now.saturating_sub(since);
            if stable >= window {
                return Ok(Verdict::Settled(s));
            }
            probe.sleep(POLL.min(window - stable));
        } else {
            probe.sleep(POLL);
        }
    }
}

/// Service actions and unit reads for one run, each logged (for `-v` and `--json`).
pub(crate) struct Units<'a> {
    services: &'a Services,
    out: &'a Printer,
    /// Every action issued, in order, as `systemctl ...` lines.
    pub log: RefCell<Vec<String>>,
}

impl<'a> Units<'a> {
    pub(crate) fn new(services: &'a Services, out: &'a Printer) -> Self {
        Units {
            services,
            out,
            log: RefCell::new(Vec::new()),
        }
    }

    /// Runs one action; `Err(message)` when systemctl failed (the caller decides what that
    /// means). An unreachable systemd is an error of its own.
    pub(crate) fn act(&self, action: &ServiceAction) -> Result<std::result::Result<(), String>> {
        let line = action.describe();
        self.out.detail(&line);
        self.log.borrow_mut().push(line);
        match self.services.run(action) {
            Ok(Ran::Done) => Ok(Ok(())),
            Ok(Ran::SkippedOffline) => Err(Error::input(
                "systemd_unavailable",
                "there is no systemd under this root to run service actions",
            )),
            Err(e) => {
                let mut msg = e.message.clone();
                if let Some(c) = e.causes.iter().find(|c| !c.is_empty()) {
                    msg.push_str(&format!(": {c}"));
                }
                Ok(Err(msg))
            }
        }
    }

    /// The unit's state now.
    pub(crate) fn sample(&self, unit: &str) -> Result<Sample> {
        Ok(self.sample_all(&[unit])?.remove(0))
    }

    /// The states of several units, with one `systemctl show`, in order.
    pub(crate) fn sample_all(&self, units: &[&str]) -> Result<Vec<Sample>> {
        let mut args = vec!["show".to_string(), PROPS.to_string()];
        args.extend(units.iter().map(|u| unit_file_name(u)));
        let names = args[2..].join(" ");
        match self.services.systemctl(&args)? {
            None => Err(Error::input(
                "systemd_unavailable",
                "there is no systemd under this root to ask about units",
            )),
            Some(out) if out.success() => {
                let text = out.stdout_text();
                let mut blocks: Vec<Sample> = text.split("\n\n").map(Sample::parse).collect();
                blocks.resize(units.len(), Sample::default());
                blocks.truncate(units.len());
                Ok(blocks)
            }
            Some(out) => Err(Error::input(
                "systemd_unreachable",
                format!("systemctl show {names} failed ({})", out.describe()),
            )
            .cause(out.stderr_text().trim().to_string())),
        }
    }

    /// Waits for `unit` to settle (see the module doc).
    pub(crate) fn settle(&self, unit: &str, window: Duration) -> Result<Verdict> {
        Ok(self.settle_with(unit, window, None)?.0)
    }

    /// [`Units::settle`], reading `companion`'s state too with the first read (one systemctl
    /// call instead of two).
    pub(crate) fn settle_with(
        &self,
        unit: &str,
        window: Duration,
        companion: Option<&str>,
    ) -> Result<(Verdict, Option<Sample>)> {
        let mut probe = LiveProbe {
            units: self,
            unit,
            companion,
            companion_state: None,
            started: crate::clock::monotonic(),
        };
        let verdict = settle(&mut probe, window, START_TIMEOUT)?;
        Ok((verdict, probe.companion_state))
    }

    /// `disable --now`, up to `tries` times (a second apart), until the unit no longer runs.
    /// `Err(why)` when it still runs after the last try.
    pub(crate) fn stop(&self, unit: &str, tries: u32) -> Result<std::result::Result<(), String>> {
        self.stop_by(unit, tries, ServiceAction::DisableNow(unit.to_string()))
    }

    /// Stops a unit that runs without a unit file (systemd keeps running a unit whose file was
    /// deleted, and refuses to `disable` it), with the same tries as [`Units::stop`].
    pub(crate) fn stop_fileless(
        &self,
        unit: &str,
        tries: u32,
    ) -> Result<std::result::Result<(), String>> {
        self.stop_by(unit, tries, ServiceAction::Stop(unit.to_string()))
    }

    /// Stops a unit and leaves its enablement as it is (a rollback of a unit that was enabled
    /// but not running before the switch), with the same tries as [`Units::stop`].
    pub(crate) fn stop_keeping_enablement(
        &self,
        unit: &str,
        tries: u32,
    ) -> Result<std::result::Result<(), String>> {
        self.stop_by(unit, tries, ServiceAction::Stop(unit.to_string()))
    }

    fn stop_by(
        &self,
        unit: &str,
        tries: u32,
        action: ServiceAction,
    ) -> Result<std::result::Result<(), String>> {
        let mut why = String::new();
        for attempt in 1..=tries {
            match self.act(&action)? {
                // systemctl waits for the stop job: done means the unit no longer runs.
                Ok(()) => return Ok(Ok(())),
                Err(e) => why = e,
            }
            let s = self.sample(unit)?;
            if !s.is_running() {
                return Ok(Ok(()));
            }
            if why.is_empty() {
                why = format!("it is still {}", s.describe());
            }
            if attempt < tries {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        Ok(Err(why))
    }

    /// Every action issued so far.
    pub(crate) fn actions(&self) -> Vec<String> {
        self.log.borrow().clone()
    }
}

struct LiveProbe<'u, 'a> {
    units: &'u Units<'a>,
    unit: &'u str,
    /// Read along with the first sample, then dropped.
    companion: Option<&'u str>,
    companion_state: Option<Sample>,
    started: Instant,
}

/// The switch's plans run their service actions through the driver, so each is logged for the
/// report; a failed one stops the switch, which rolls back.
impl ServiceRunner for Units<'_> {
    fn run(&self, action: &ServiceAction) -> Result<Ran> {
        match self.act(action)? {
            Ok(()) => Ok(Ran::Done),
            Err(why) => Err(Error::new(Exit::RolledBack, "service_action_failed", why)),
        }
    }
}

impl Probe for LiveProbe<'_, '_> {
    fn sample(&mut self) -> Result<Sample> {
        match self.companion.take() {
            Some(other) => {
                let mut both = self.units.sample_all(&[self.unit, other])?;
                self.companion_state = both.pop();
                Ok(both.remove(0))
            }
            None => self.units.sample(self.unit),
        }
    }
    fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    /// A scripted unit on a fake clock: each sample returns the next state (the last repeats).
    struct Script {
        states: Vec<(&'static str, &'static str, u64)>,
        i: usize,
        now: Duration,
    }

    impl Probe for Script {
        fn sample(&mut self) -> Result<Sample> {
            let (active, sub, restarts) = self.states[self.i.min(self.states.len() - 1)];
            self.i += 1;
            Ok(Sample {
                load: "loaded".into(),
                active: active.into(),
                sub: sub.into(),
                restarts,
                ..Sample::default()
            })
        }
        fn elapsed(&self) -> Duration {
            self.now
        }
        fn sleep(&mut self, d: Duration) {
            self.now += d;
        }
    }

    fn run(states: Vec<(&'static str, &'static str, u64)>, window_ms: u64) -> (Verdict, Duration) {
        let mut p = Script {
            states,
            i: 0,
            now: Duration::ZERO,
        };
        let v = settle(
            &mut p,
            Duration::from_millis(window_ms),
            Duration::from_secs(2),
        )
        .unwrap();
        (v, p.now)
    }

    #[test]
    fn a_unit_that_stays_active_settles_after_the_window() {
        let (v, t) = run(vec![("active", "running", 0)], 1000);
        assert!(matches!(v, Verdict::Settled(_)), "{v:?}");
        assert_eq!(t, Duration::from_millis(1000));
        let (v, t) = run(vec![("active", "running", 0)], 0);
        assert!(matches!(v, Verdict::Settled(_)));
        assert_eq!(t, Duration::ZERO);
    }

    #[test]
    fn starting_units_are_waited_for() {
        let (v, _) = run(
            vec![
                ("activating", "start", 0),
                ("activating", "start", 0),
                ("active", "running", 0),
            ],
            300,
        );
        assert!(matches!(v, Verdict::Settled(_)), "{v:?}");
        let (v, _) = run(vec![("activating", "start", 0)], 300);
        let Verdict::Failed { why, .. } = v else {
            panic!()
        };
        assert!(why.contains("still starting"), "{why}");
    }

    #[test]
    fn a_crash_loop_never_settles() {
        // active for a moment, then auto-restart: flips
        let (v, _) = run(
            vec![("active", "running", 0), ("activating", "auto-restart", 0)],
            5000,
        );
        let Verdict::Failed { why, .. } = v else {
            panic!()
        };
        assert!(
            why.contains("it was active, then activating (auto-restart)"),
            "{why}"
        );
        // caught between two samples: only NRestarts tells
        let (v, _) = run(
            vec![("active", "running", 0), ("active", "running", 1)],
            5000,
        );
        let Verdict::Failed { why, .. } = v else {
            panic!()
        };
        assert!(why.contains("NRestarts 0 -> 1"), "{why}");
        // first seen restarting
        let (v, t) = run(vec![("activating", "auto-restart", 2)], 5000);
        assert!(matches!(v, Verdict::Failed { .. }));
        assert_eq!(t, Duration::ZERO);
    }

    #[test]
    fn failed_and_missing_units_fail_at_once() {
        let (v, _) = run(vec![("failed", "failed", 0)], 5000);
        let Verdict::Failed { why, .. } = v else {
            panic!()
        };
        assert_eq!(why, "it did not come up: failed");
        let mut p = Script {
            states: vec![("inactive", "dead", 0)],
            i: 0,
            now: Duration::ZERO,
        };
        struct Missing<'a>(&'a mut Script);
        impl Probe for Missing<'_> {
            fn sample(&mut self) -> Result<Sample> {
                let mut s = self.0.sample()?;
                s.load = "not-found".into();
                Ok(s)
            }
            fn elapsed(&self) -> Duration {
                self.0.elapsed()
            }
            fn sleep(&mut self, d: Duration) {
                self.0.sleep(d)
            }
        }
        let v = settle(&mut Missing(&mut p), Duration::from_secs(1), START_TIMEOUT).unwrap();
        let Verdict::Failed { why, .. } = v else {
            panic!()
        };
        assert_eq!(why, "the unit does not exist");
    }

    #[test]
    fn parses_systemctl_show() {
        let s = Sample::parse(
            "LoadState=loaded\nActiveState=failed\nSubState=failed\nResult=start-limit-hit\nNRestarts=5\nUnitFileState=enabled\nNeedDaemonReload=no\n",
        );
        assert_eq!(s.describe(), "failed (result start-limit-hit, 5 restarts)");
        assert!(s.is_enabled() && !s.is_running() && !s.need_reload);
        assert!(!Sample::parse("LoadState=not-found\nActiveState=inactive\n").exists());
    }
}
