//! The one boundary that talks to systemd, by calling `systemctl`.
//!
//! On the live device (`--root /`) actions run. With any other root (an offline image, a fixture
//! tree) there is no systemd to talk to: actions are planned and printed, never executed, and
//! unit states are unknown. `OSCTL_SYSTEMCTL` names another `systemctl` (a test double); setting
//! it also lets actions run under a non-`/` root, which is how the fast switch tests drive a fake;
//! `OSCTL_JOURNALCTL` names another `journalctl` the same way (both are read once, with the other
//! settings, by the command context).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::{Error, Exit, Result};
use crate::system::process::{self, Run};

/// How long one `systemctl` call may take (a `disable --now` waits for the unit to stop).
const SYSTEMCTL_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether osctl can reach a systemd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Services {
    /// Calls this `systemctl`, and this `journalctl` for a unit's journal.
    Live {
        systemctl: String,
        journalctl: String,
        /// Whether this is the device's own systemd (`--root /`), whose journal osctl may write
        /// to; false for a test double driving a fixture root, whose switches belong to no
        /// journal (they would land in the developer's own).
        own_journal: bool,
    },
    /// No systemd: actions are printed, not run.
    Offline,
}

/// A service action, one step of a plan. They all go through this boundary; with `--root` other
/// than `/` they are printed, never run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "action", content = "unit", rename_all = "kebab-case")]
pub enum ServiceAction {
    DaemonReload,
    EnableNow(String),
    DisableNow(String),
    Start(String),
    Stop(String),
    Restart(String),
    /// Restart only when the unit is active (a config change for a running runtime).
    RestartIfActive(String),
    ResetFailed(String),
    /// Enable without starting (a rollback gives back the enablement of a unit that was
    /// enabled but not running).
    Enable(String),
    Disable(String),
    /// `systemctl reboot` (a reset with `--reboot` runs it after its journal is committed, never
    /// as a step of a plan: a reboot mid-plan would leave the journal for the next boot to undo).
    Reboot,
}

impl ServiceAction {
    /// The `systemctl` arguments for this action.
    pub fn systemctl_args(&self) -> Vec<String> {
        // A bare name is a service; a timer (`osctl setup` starts its skills timer) keeps its suffix.
        let unit = |u: &String| {
            if u.ends_with(".timer") {
                u.clone()
            } else {
                format!("{}.service", u.trim_end_matches(".service"))
            }
        };
        match self {
            ServiceAction::DaemonReload => vec!["daemon-reload".into()],
            ServiceAction::EnableNow(u) => vec!["enable".into(), "--now".into(), unit(u)],
            ServiceAction::DisableNow(u) => vec!["disable".into(), "--now".into(), unit(u)],
            ServiceAction::Start(u) => vec!["start".into(), unit(u)],
            ServiceAction::Stop(u) => vec!["stop".into(), unit(u)],
            ServiceAction::Restart(u) => vec!["restart".into(), unit(u)],
            ServiceAction::RestartIfActive(u) => vec!["try-restart".into(), unit(u)],
            ServiceAction::ResetFailed(u) => vec!["reset-failed".into(), unit(u)],
            ServiceAction::Enable(u) => vec!["enable".into(), unit(u)],
            ServiceAction::Disable(u) => vec!["disable".into(), unit(u)],
            ServiceAction::Reboot => vec!["reboot".into()],
        }
    }

    pub fn describe(&self) -> String {
        format!("systemctl {}", self.systemctl_args().join(" "))
    }
}

/// What happened to one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ran {
    Done,
    /// Not run, because there is no systemd under this root.
    SkippedOffline,
}

/// The state of one unit as systemd reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UnitState {
    pub unit: String,
    /// `loaded`, `not-found`, …
    pub load: String,
    /// `active`, `inactive`, `failed`, `activating`, …
    pub active: String,
    pub sub: String,
    /// `enabled`, `disabled`, `static`, …
    pub file: String,
    pub restarts: u64,
}

impl Services {
    /// Live on the device or with `OSCTL_SYSTEMCTL` (`systemctl_override`); offline otherwise.
    /// `journalctl_override` (`OSCTL_JOURNALCTL`) replaces `journalctl`.
    pub fn new(
        live_root: bool,
        systemctl_override: Option<String>,
        journalctl_override: Option<String>,
    ) -> Services {
        let journalctl = journalctl_override
            .filter(|j| !j.is_empty())
            .unwrap_or_else(|| "journalctl".into());
        match systemctl_override {
            Some(systemctl) if !systemctl.is_empty() => Services::Live {
                systemctl,
                journalctl,
                own_journal: live_root,
            },
            _ if live_root => Services::Live {
                systemctl: "systemctl".into(),
                journalctl,
                own_journal: true,
            },
            _ => Services::Offline,
        }
    }

    pub fn is_offline(&self) -> bool {
        matches!(self, Services::Offline)
    }

    /// Whether this is the device's own systemd, whose journal osctl writes its switches to.
    fn owns_journal(&self) -> bool {
        matches!(
            self,
            Services::Live {
                own_journal: true,
                ..
            }
        )
    }

    /// Runs `systemctl ARGS`; `None` when offline.
    pub fn systemctl(&self, args: &[String]) -> Result<Option<process::Output>> {
        let Services::Live { systemctl, .. } = self else {
            return Ok(None);
        };
        let mut argv = vec![systemctl.clone()];
        argv.extend(args.iter().cloned());
        process::run(&Run::new(&argv, SYSTEMCTL_TIMEOUT)).map(Some)
    }

    /// Carries out one action; a non-zero exit is an error naming the command and its output.
    pub fn run(&self, action: &ServiceAction) -> Result<Ran> {
        let args = action.systemctl_args();
        match self.systemctl(&args)? {
            None => Ok(Ran::SkippedOffline),
            Some(out) if out.success() => Ok(Ran::Done),
            Some(out) => Err(Error::new(
                Exit::RolledBack,
                "service_action_failed",
                format!("{} failed ({})", action.describe(), out.describe()),
            )
            .cause(out.stderr_text().trim().to_string())),
        }
    }

    /// Unit states, one per unit, in order; `None` when offline.
    pub fn show(&self, units: &[String]) -> Result<Option<Vec<UnitState>>> {
        if units.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let mut args = vec![
            "show".to_string(),
            "--property=Id,LoadState,ActiveState,SubState,UnitFileState,NRestarts".to_string(),
        ];
        args.extend(units.iter().map(|u| unit_file_name(u)));
        let Some(out) = self.systemctl(&args)? else {
            return Ok(None);
        };
        if !out.success() {
            return Err(Error::input(
                "systemd_unreachable",
                format!("systemctl show failed ({})", out.describe()),
            )
            .cause(out.stderr_text().trim().to_string()));
        }
        let text = out.stdout_text();
        let mut states = Vec::new();
        for (block, unit) in text.split("\n\n").zip(units) {
            let props: BTreeMap<&str, &str> =
                block.lines().filter_map(|l| l.split_once('=')).collect();
            states.push(UnitState {
                unit: unit_file_name(unit),
                load: props.get("LoadState").unwrap_or(&"").to_string(),
                active: props.get("ActiveState").unwrap_or(&"").to_string(),
                sub: props.get("SubState").unwrap_or(&"").to_string(),
                file: props.get("UnitFileState").unwrap_or(&"").to_string(),
                restarts: props
                    .get("NRestarts")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0),
            });
        }
        Ok(Some(states))
    }
}

impl Services {
    /// The last `lines` lines a unit wrote to the journal (`journalctl -u UNIT -n LINES
    /// --no-pager`; `journalctl` on the device, a test double otherwise); `None` when offline.
    /// Read-only and bounded in time; a journalctl that fails is an error naming the command and
    /// its output.
    pub fn journal_tail(&self, unit: &str, lines: usize) -> Result<Option<Vec<String>>> {
        let Services::Live { journalctl, .. } = self else {
            return Ok(None);
        };
        let unit = unit_file_name(unit);
        let argv = vec![
            journalctl.clone(),
            "-u".to_string(),
            unit.clone(),
            "-n".to_string(),
            lines.to_string(),
            "--no-pager".to_string(),
        ];
        let out = process::run(&Run::new(&argv, JOURNALCTL_TIMEOUT))?;
        if !out.success() {
            return Err(Error::input(
                "journal_unreadable",
                format!("journalctl -u {unit} failed ({})", out.describe()),
            )
            .cause(out.stderr_text().trim().to_string()));
        }
        Ok(Some(
            out.stdout_text()
                .lines()
                .rev()
                .take(lines)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .map(str::to_string)
                .collect(),
        ))
    }
}

/// How a switch ended, as osctl logs it to the system journal (structured fields
/// `OSCTL_SWITCH`, `OSCTL_FROM`, `OSCTL_TO`, `OSCTL_UNIT` and the message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchLog {
    /// `landed` or `failed` (rolled back).
    pub outcome: String,
    pub from: String,
    pub to: String,
    /// The new runtime's unit, `<unit>.service`.
    pub unit: String,
    /// What happened, secrets masked.
    pub message: String,
}

impl SwitchLog {
    pub fn landed(from: impl ToString, to: impl ToString) -> SwitchLog {
        let (from, to) = (from.to_string(), to.to_string());
        SwitchLog {
            outcome: "landed".into(),
            message: format!("switched {from} -> {to}"),
            from,
            to,
            unit: String::new(),
        }
    }
}

/// journald's socket for native messages.
const JOURNAL_SOCKET: &str = "/run/systemd/journal/socket";

impl Services {
    /// Logs how a switch ended to the system journal, where `osctl doctor` reads the last one
    /// back ([`Services::last_switch`]): a rolled-back switch leaves every file and unit as it
    /// was, so the journal is the one place that keeps that it failed. Best effort and live
    /// devices only (`--root /`): a device without journald loses nothing but the note.
    pub fn log_switch(&self, log: &SwitchLog) {
        if !self.owns_journal() {
            return;
        }
        // journald's native protocol: one `FIELD=value` per line (values kept to one line).
        let one_line = |v: &str| v.replace('\n', " ");
        let priority = if log.outcome == "failed" { 4 } else { 6 };
        let message = format!(
            "MESSAGE=switch {} -> {} {}: {}\nPRIORITY={priority}\nSYSLOG_IDENTIFIER=osctl\nOSCTL_SWITCH={}\nOSCTL_FROM={}\nOSCTL_TO={}\nOSCTL_UNIT={}\n",
            one_line(&log.from),
            one_line(&log.to),
            log.outcome,
            one_line(&log.message),
            log.outcome,
            one_line(&log.from),
            one_line(&log.to),
            one_line(&log.unit),
        );
        if let Ok(socket) = std::os::unix::net::UnixDatagram::unbound() {
            let _ = socket.send_to(message.as_bytes(), JOURNAL_SOCKET);
        }
    }

    /// The last switch osctl logged ([`Services::log_switch`]); `None` offline, without one, or
    /// when the journal cannot be read (doctor's units check reports that).
    pub fn last_switch(&self) -> Option<SwitchLog> {
        let Services::Live { journalctl, .. } = self else {
            return None;
        };
        let argv: Vec<String> = [
            journalctl.as_str(),
            "-o",
            "json",
            "-n",
            "1",
            "--no-pager",
            "OSCTL_SWITCH=failed",
            "OSCTL_SWITCH=landed",
        ]
        .map(str::to_string)
        .into();
        let out = process::run(&Run::new(&argv, JOURNALCTL_TIMEOUT)).ok()?;
        let entry: serde_json::Value =
            serde_json::from_str(out.stdout_text().lines().last()?).ok()?;
        let field = |k: &str| entry[k].as_str().unwrap_or_default().to_string();
        let message = field("MESSAGE");
        Some(SwitchLog {
            outcome: field("OSCTL_SWITCH"),
            from: field("OSCTL_FROM"),
            to: field("OSCTL_TO"),
            unit: field("OSCTL_UNIT"),
            message: message
                .split_once(": ")
                .map_or(message.clone(), |(_, m)| m.to_string()),
        })
        .filter(|l| !l.outcome.is_empty())
    }
}

/// How long one `journalctl` read may take (a large journal is read from its end).
const JOURNALCTL_TIMEOUT: Duration = Duration::from_secs(20);

/// `hermes-gateway` → `hermes-gateway.service`.
pub fn unit_file_name(unit: &str) -> String {
    format!("{}.service", unit.trim_end_matches(".service"))
}

/// The systemd service this process runs in (`agent.service` for a unit's
/// `ExecStartPre=`), from `/proc/self/cgroup`; `None` outside a service: a login shell or an
/// SSH session sits in a session scope, a test in whatever started it.
pub(crate) fn own_unit() -> Option<String> {
    // The one read of this process's cgroup; the parse is pure.
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    unit_of_cgroup(&text)
}

/// The service named by a `/proc/self/cgroup` text: the unified hierarchy's line (`0::/…`) or
/// systemd's own on a v1 or hybrid host (`N:name=systemd:/…`), whichever ends in a `.service`.
fn unit_of_cgroup(text: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("0::")
                .or_else(|| l.split_once(":name=systemd:").map(|(_, p)| p))
        })
        .filter_map(|path| path.trim_end().rsplit('/').next())
        .find(|last| last.ends_with(".service"))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::{Services, unit_of_cgroup};

    #[test]
    fn a_units_process_knows_its_unit_and_a_session_does_not() {
        assert_eq!(
            unit_of_cgroup("0::/system.slice/agent.service\n").as_deref(),
            Some("agent.service")
        );
        // Without a cgroup namespace the path starts at the host's root.
        assert_eq!(
            unit_of_cgroup("0::/machine/payload/system.slice/agent.service\n").as_deref(),
            Some("agent.service")
        );
        // A hybrid host whose unified hierarchy systemd does not use.
        assert_eq!(
            unit_of_cgroup("12:pids:/x\n1:name=systemd:/system.slice/agent.service\n0::/\n")
                .as_deref(),
            Some("agent.service")
        );
        assert_eq!(
            unit_of_cgroup("12:pids:/x\n1:name=systemd:/system.slice/agent.service\n").as_deref(),
            Some("agent.service")
        );
        assert_eq!(
            unit_of_cgroup("0::/user.slice/user-0.slice/session-3.scope\n"),
            None
        );
        assert_eq!(unit_of_cgroup(""), None);
    }

    #[test]
    fn only_the_devices_own_systemd_gets_switches_in_its_journal() {
        let own = Services::owns_journal;
        assert!(own(&Services::new(true, None, None)));
        assert!(own(&Services::new(true, Some("fake".into()), None)));
        // A test double under a fixture root: its switches are no device's.
        let fake = Services::new(false, Some("fake".into()), None);
        assert!(!fake.is_offline() && !own(&fake));
        assert!(Services::new(false, None, None).is_offline());
    }
}
