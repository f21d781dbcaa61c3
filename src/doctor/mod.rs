//! `osctl doctor`: the facts gathered about a device ([`Facts`], by [`gather`]) judged into
//! findings ([`Finding`]) and the one next command to run ([`Report::next`]).
//!
//! The rules here (what counts as a problem, how bad it is, which fix comes first) read nothing
//! and write nothing, so every rule is unit-tested on plain data. The gathering (parsers,
//! planners, `systemctl show`, `journalctl`) is `gather.rs`, which goes through the existing
//! loaders and planners; the text form of the report is `render.rs`.
//!
//! Order of importance, which decides `next`: a run that holds the device lock now (everything
//! else may be mid-change), journals left by interrupted runs (every writer restores them first),
//! files that do not parse or lead out of their tree (nothing can be planned on them), an
//! interrupted switch, failed units, reconcile markers behind, presync out of sync (in the order
//! the device itself runs them at boot: reconcile, then the runtime's `ExecStartPre=` presync,
//! which heals what reconcile carried), skills drift, then unit states that are merely
//! unexpected.

mod gather;
mod render;

pub(crate) use gather::gather;

use serde::Serialize;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    /// The device is broken or cannot be worked on until it is fixed.
    Error,
    /// The device works but is not where osctl would leave it.
    Warning,
}

impl Severity {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One thing the field engineer should look at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Finding {
    /// Which check found it: `files`, `lock`, `journals`, `switch`, `units`, `presync`,
    /// `reconcile`, `skills`.
    pub check: &'static str,
    pub severity: Severity,
    /// The file it is about, as the user can open it (under `--root`).
    pub path: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    /// Supporting lines: the paths a presync would change, a failed unit's last journal lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// What to do about it (a command, or an instruction naming the file).
    pub fix: String,
    /// Rank used to pick `next` (lower first); not part of the report.
    #[serde(skip)]
    rank: u8,
}

/// A file that could not be read or parsed, or a path that leads out of its tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The file, as the user can open it (under `--root`); `None` when the error named none.
    pub path: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// osctl's message (without the path, which is in `path`).
    pub message: String,
    /// osctl's hint for it, if it has one.
    pub hint: Option<String>,
}

/// The outcome of a check that may not have been possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Probe<T> {
    Done(T),
    /// The check itself failed on a file (that file is the finding).
    Failed(Problem),
    /// Not checked, and why (config.json unreadable, no systemd under this root).
    Skipped(String),
}

/// A journal left on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Journal {
    pub path: String,
    pub command: String,
    pub paths: usize,
    /// Why osctl will not restore it.
    pub refused: Option<String>,
}

/// Where a unit belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum UnitRole {
    /// The active runtime's unit: should be running.
    Active,
    /// Another installed runtime's unit: should not be running.
    Other,
    /// One of osctl's own units (oneshots and timers' services: inactive is normal).
    Osctl,
}

/// One unit as `systemctl show` reported it, with the last journal lines of a failed one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Unit {
    pub unit: String,
    pub role: UnitRole,
    pub load: String,
    pub active: String,
    pub sub: String,
    pub restarts: u64,
    /// The last journal lines, gathered for a failed unit only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<Vec<String>>,
}

/// A switch recorded as interrupted (no process holds the lock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Switch {
    pub from: String,
    pub to: String,
    pub phase: String,
}

/// A reconcile step that would run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub step: String,
    /// How a run would report it (`baseline recorded`, `reconciled`, ...).
    pub status: String,
    pub detail: String,
    /// It could not even be planned.
    pub failed: bool,
}

/// A skill (or hook) whose folder no longer matches what osctl installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Drift {
    pub name: String,
    pub kind: String,
    /// `modified` or `missing`.
    pub how: String,
}

/// Everything the command gathered. Paths are already shown as the user can open them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    /// How the fixes call osctl: `osctl` on the device, `osctl --root DIR` under another root.
    pub osctl: String,
    /// The active runtime, when it could be resolved.
    pub active: Option<String>,
    /// How many state and native files were read and parsed.
    pub files_checked: usize,
    /// Files that could not be read or parsed, and paths that lead out of their tree.
    pub file_problems: Vec<Problem>,
    /// The process that holds the device lock now (its note), if any.
    pub lock_holder: Option<String>,
    pub journals: Vec<Journal>,
    pub switch: Option<Switch>,
    /// The last switch osctl logged to the journal, when it failed and was rolled back.
    pub failed_switch: Option<crate::system::services::SwitchLog>,
    /// The paths presync would change for the active runtime (`path: kind`).
    pub presync: Option<Probe<Vec<String>>>,
    pub reconcile: Option<Probe<Vec<Step>>>,
    pub skills: Option<Probe<Vec<Drift>>>,
    pub units: Option<Probe<Vec<Unit>>>,
}

/// One check's one-line result, for the summary above the findings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct CheckLine {
    pub check: &'static str,
    /// `ok`, `findings` or `skipped`.
    pub status: &'static str,
    pub summary: String,
}

/// The report: what each check saw, the findings (most important first) and the next command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Report {
    pub active: Option<String>,
    pub healthy: bool,
    pub checks: Vec<CheckLine>,
    pub findings: Vec<Finding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<Vec<Unit>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock_holder: Option<String>,
    /// The most important finding's fix, or `nothing to do`.
    pub next: String,
}

/// What [`Report::next`] says on a healthy device.
pub(crate) const NOTHING_TO_DO: &str = "nothing to do";

const RANK_LOCK: u8 = 0;
const RANK_JOURNAL: u8 = 1;
const RANK_FILE: u8 = 2;
const RANK_SWITCH: u8 = 3;
const RANK_UNIT_FAILED: u8 = 4;
const RANK_RECONCILE: u8 = 5;
const RANK_PRESYNC: u8 = 6;
const RANK_SKILLS: u8 = 7;
const RANK_UNIT_STATE: u8 = 8;

fn finding(
    check: &'static str,
    severity: Severity,
    rank: u8,
    message: String,
    fix: String,
) -> Finding {
    Finding {
        check,
        severity,
        path: None,
        line: None,
        column: None,
        message,
        details: Vec::new(),
        fix,
        rank,
    }
}

/// A file's problem as a finding; the fix names the file and its line.
fn file_finding(check: &'static str, p: &Problem, osctl: &str) -> Finding {
    let at = match (&p.path, p.line) {
        (Some(path), Some(line)) => format!("{path} line {line}"),
        (Some(path), None) => path.clone(),
        (None, _) => "what the message names".to_string(),
    };
    let fix = format!("fix {at}, then run `{osctl} doctor` again");
    let mut f = finding(check, Severity::Error, RANK_FILE, p.message.clone(), fix);
    // osctl's hint for the file (what it is for, who owns it) stays with the finding.
    f.details
        .extend(p.hint.iter().map(|h| format!("hint: {h}")));
    f.path = p.path.clone();
    f.line = p.line;
    f.column = p.column;
    f
}

/// The summary of a check that may have been skipped or failed on a file.
fn probe_line<T>(
    check: &'static str,
    osctl: &str,
    probe: &Option<Probe<T>>,
    findings: &mut Vec<Finding>,
    done: impl FnOnce(&T, &mut Vec<Finding>) -> String,
) -> CheckLine {
    let before = findings.len();
    let summary = match probe {
        None => "not checked".to_string(),
        Some(Probe::Skipped(why)) => format!("not checked: {why}"),
        Some(Probe::Failed(p)) => {
            findings.push(file_finding(check, p, osctl));
            format!("cannot be checked: {}", p.message)
        }
        Some(Probe::Done(v)) => done(v, findings),
    };
    let status = if findings.len() > before {
        "findings"
    } else if matches!(probe, Some(Probe::Done(_))) {
        "ok"
    } else {
        "skipped"
    };
    CheckLine {
        check,
        status,
        summary,
    }
}

/// Judges the facts.
pub(crate) fn judge(facts: &Facts) -> Report {
    let mut findings = Vec::new();
    let mut checks = Vec::new();
    let active = facts.active.as_deref().unwrap_or("the active runtime");
    let osctl = if facts.osctl.is_empty() {
        "osctl"
    } else {
        facts.osctl.as_str()
    };

    // Files.
    for p in &facts.file_problems {
        findings.push(file_finding("files", p, osctl));
    }
    checks.push(CheckLine {
        check: "files",
        status: if facts.file_problems.is_empty() {
            "ok"
        } else {
            "findings"
        },
        summary: if facts.file_problems.is_empty() {
            format!("{} state and native files parse", facts.files_checked)
        } else {
            format!(
                "{} of {} files cannot be used",
                facts.file_problems.len(),
                facts.files_checked.max(facts.file_problems.len())
            )
        },
    });

    // The lock, and journals (which are the holder's own while it runs).
    match &facts.lock_holder {
        Some(h) => {
            findings.push(finding(
                "lock",
                Severity::Warning,
                RANK_LOCK,
                format!("{h} holds the device lock now; what follows may be mid-change"),
                format!("wait for it to finish, then run `{osctl} doctor` again"),
            ));
            checks.push(CheckLine {
                check: "lock",
                status: "findings",
                summary: format!("held by {h}"),
            });
        }
        None => checks.push(CheckLine {
            check: "lock",
            status: "ok",
            summary: "free".into(),
        }),
    }
    let leftover = facts.lock_holder.is_none() && !facts.journals.is_empty();
    if leftover {
        for j in &facts.journals {
            let mut f = match &j.refused {
                Some(why) => finding(
                    "journals",
                    Severity::Error,
                    RANK_JOURNAL,
                    format!("a journal osctl will not restore: {why}"),
                    format!(
                        "inspect {} by hand; every run that changes the device refuses to start while it is there",
                        j.path
                    ),
                ),
                None => finding(
                    "journals",
                    Severity::Error,
                    RANK_JOURNAL,
                    format!(
                        "an interrupted run left a journal ({}, {} path{})",
                        j.command,
                        j.paths,
                        if j.paths == 1 { "" } else { "s" }
                    ),
                    format!("{osctl} recover"),
                ),
            };
            f.path = Some(j.path.clone());
            findings.push(f);
        }
    }
    checks.push(CheckLine {
        check: "journals",
        status: if leftover { "findings" } else { "ok" },
        summary: match (facts.journals.len(), &facts.lock_holder) {
            (0, _) => "none left".into(),
            (n, Some(_)) => format!("{n} on disk, the lock holder's own"),
            (n, None) => format!("{n} left by interrupted runs"),
        },
    });

    // An interrupted switch.
    if let Some(s) = &facts.switch {
        findings.push(finding(
            "switch",
            Severity::Error,
            RANK_SWITCH,
            format!(
                "a switch from {} to {} was interrupted during {}",
                s.from, s.to, s.phase
            ),
            format!("{osctl} reconcile"),
        ));
    }
    // The last switch failed and was rolled back: every file and unit is as it was, so only
    // the journal (osctl logs each switch's end there) says that it failed and where to look.
    if let Some(f) = &facts.failed_switch {
        findings.push(finding(
            "switch",
            Severity::Warning,
            RANK_SWITCH,
            format!(
                "the last switch, {} -> {}, failed and was rolled back: {}",
                f.from, f.to, f.message
            ),
            format!("journalctl -u {} -n 50 --no-pager", f.unit),
        ));
    }
    checks.push(CheckLine {
        check: "switch",
        status: if facts.switch.is_some() || facts.failed_switch.is_some() {
            "findings"
        } else {
            "ok"
        },
        summary: match (&facts.switch, &facts.failed_switch) {
            (Some(s), _) => format!("interrupted: {} -> {}", s.from, s.to),
            (None, Some(f)) => format!("none interrupted; {} -> {} rolled back", f.from, f.to),
            (None, None) => "none interrupted".into(),
        },
    });

    // Units.
    checks.push(probe_line(
        "units",
        osctl,
        &facts.units,
        &mut findings,
        |units, out| {
            for u in units {
                out.extend(unit_finding(u, active, osctl));
            }
            let running = units.iter().filter(|u| u.active == "active").count();
            format!("{} units read, {running} running", units.len())
        },
    ));

    // Presync.
    checks.push(probe_line("presync", osctl, &facts.presync, &mut findings, |paths, out| {
        if paths.is_empty() {
            return format!("{active} in sync");
        }
        let mut f = finding(
            "presync",
            Severity::Warning,
            RANK_PRESYNC,
            format!(
                "the native configuration of {active} is not in sync: presync would change {} path{}",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" }
            ),
            format!("{osctl} presync"),
        );
        f.details = paths.clone();
        out.push(f);
        format!("{} path(s) out of sync", paths.len())
    }));

    // Reconcile.
    checks.push(probe_line(
        "reconcile",
        osctl,
        &facts.reconcile,
        &mut findings,
        |steps, out| {
            if steps.is_empty() {
                return format!("every step up to date for {active}");
            }
            for s in steps {
                let (severity, message) = if s.failed {
                    (
                        Severity::Error,
                        format!("reconcile step {} cannot be planned: {}", s.step, s.detail),
                    )
                } else {
                    (
                        Severity::Warning,
                        format!(
                            "reconcile step {} is behind; a run would report: {} ({})",
                            s.step, s.status, s.detail
                        ),
                    )
                };
                out.push(finding(
                    "reconcile",
                    severity,
                    RANK_RECONCILE,
                    message,
                    format!("{osctl} reconcile"),
                ));
            }
            let names: Vec<&str> = steps.iter().map(|s| s.step.as_str()).collect();
            format!("behind: {}", names.join(", "))
        },
    ));

    // Skills.
    checks.push(probe_line(
        "skills",
        osctl,
        &facts.skills,
        &mut findings,
        |drift, out| {
            if drift.is_empty() {
                return "no drift from what osctl installed".into();
            }
            for d in drift {
                out.push(finding(
                    "skills",
                    Severity::Warning,
                    RANK_SKILLS,
                    format!(
                        "{} {} is {} since osctl installed it",
                        d.kind, d.name, d.how
                    ),
                    match d.how.as_str() {
                        "missing" => format!("{osctl} skills sync"),
                        _ => format!(
                            "remove the {} folder {}, then run `{osctl} skills sync`",
                            d.kind, d.name
                        ),
                    },
                ));
            }
            format!("{} drifted", drift.len())
        },
    ));

    // Most important first; a stable sort keeps each check's own order.
    findings.sort_by_key(|f| (f.rank, f.severity));
    let next = findings
        .first()
        .map(|f| f.fix.clone())
        .unwrap_or_else(|| NOTHING_TO_DO.to_string());
    Report {
        active: facts.active.clone(),
        healthy: findings.is_empty(),
        checks,
        findings,
        units: match &facts.units {
            Some(Probe::Done(u)) => Some(u.clone()),
            _ => None,
        },
        lock_holder: facts.lock_holder.clone(),
        next,
    }
}

/// A unit that is not as its role wants it.
fn unit_finding(u: &Unit, active: &str, osctl: &str) -> Option<Finding> {
    let journal = || format!("journalctl -u {} -n 50 --no-pager", u.unit);
    if u.active == "failed" || (u.restarts > 0 && u.active != "active") {
        let mut f = finding(
            "units",
            Severity::Error,
            RANK_UNIT_FAILED,
            format!(
                "{} is {} ({}, {} restart{})",
                u.unit,
                u.active,
                u.sub,
                u.restarts,
                if u.restarts == 1 { "" } else { "s" }
            ),
            journal(),
        );
        f.details = u.journal.clone().unwrap_or_default();
        return Some(f);
    }
    match u.role {
        UnitRole::Active if u.load == "not-found" => Some(finding(
            "units",
            Severity::Error,
            RANK_UNIT_STATE,
            format!("{}, the unit of {active}, is not installed", u.unit),
            format!("{osctl} switch {active}"),
        )),
        UnitRole::Active if u.active != "active" && u.active != "activating" => Some(finding(
            "units",
            Severity::Error,
            RANK_UNIT_STATE,
            format!(
                "{}, the unit of {active}, is {} ({})",
                u.unit, u.active, u.sub
            ),
            format!("systemctl start {}", u.unit),
        )),
        UnitRole::Other if u.active == "active" || u.active == "activating" => Some(finding(
            "units",
            Severity::Warning,
            RANK_UNIT_STATE,
            format!("{} runs although {active} is the active runtime", u.unit),
            format!("systemctl disable --now {}", u.unit),
        )),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn healthy() -> Facts {
        Facts {
            active: Some("hermes".into()),
            files_checked: 5,
            presync: Some(Probe::Done(vec![])),
            reconcile: Some(Probe::Done(vec![])),
            skills: Some(Probe::Done(vec![])),
            units: Some(Probe::Skipped("no systemd under this root".into())),
            ..Facts::default()
        }
    }

    fn unit(name: &str, role: UnitRole, active: &str) -> Unit {
        Unit {
            unit: name.into(),
            role,
            load: "loaded".into(),
            active: active.into(),
            sub: if active == "active" {
                "running"
            } else {
                "dead"
            }
            .into(),
            restarts: 0,
            journal: None,
        }
    }

    #[test]
    fn a_healthy_device_has_no_findings_and_nothing_to_do() {
        let r = judge(&healthy());
        assert!(r.healthy);
        assert_eq!(r.findings, vec![]);
        assert_eq!(r.next, NOTHING_TO_DO);
        let units = r.checks.iter().find(|c| c.check == "units").unwrap();
        assert_eq!(units.status, "skipped");
    }

    #[test]
    fn a_parse_failure_names_the_file_line_and_column_and_comes_before_presync() {
        let mut f = healthy();
        f.presync = Some(Probe::Done(vec!["/r/.hermes/.env: modify".into()]));
        f.file_problems.push(Problem {
            path: Some("/r/root/config/config.json".into()),
            line: Some(3),
            column: Some(7),
            message: "expected `,` or `}`".into(),
            hint: None,
        });
        let r = judge(&f);
        assert!(!r.healthy);
        let first = &r.findings[0];
        assert_eq!(first.check, "files");
        assert_eq!(first.severity, Severity::Error);
        assert_eq!(first.path.as_deref(), Some("/r/root/config/config.json"));
        assert_eq!((first.line, first.column), (Some(3), Some(7)));
        assert!(
            r.next.contains("/r/root/config/config.json line 3"),
            "{}",
            r.next
        );
        assert_eq!(r.findings[1].check, "presync");
    }

    #[test]
    fn leftover_journals_come_first_and_ask_for_recover() {
        let mut f = healthy();
        f.reconcile = Some(Probe::Done(vec![Step {
            step: "mcp".into(),
            status: "reconciled".into(),
            detail: "carry from openclaw".into(),
            failed: false,
        }]));
        f.journals.push(Journal {
            path: "/r/var/lib/osctl/journal/1-2".into(),
            command: "osctl presync".into(),
            paths: 2,
            refused: None,
        });
        let r = judge(&f);
        assert_eq!(r.findings[0].check, "journals");
        assert_eq!(r.next, "osctl recover");
        assert_eq!(r.findings[1].fix, "osctl reconcile");
    }

    #[test]
    fn journals_of_a_live_lock_holder_are_its_own_not_leftovers() {
        let mut f = healthy();
        f.lock_holder = Some("pid 7 (osctl switch codex)".into());
        f.journals.push(Journal {
            path: "/r/var/lib/osctl/journal/1-7".into(),
            command: "osctl switch codex".into(),
            paths: 1,
            refused: None,
        });
        let r = judge(&f);
        assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
        assert_eq!(r.findings[0].check, "lock");
        assert!(r.next.starts_with("wait for it"), "{}", r.next);
    }

    #[test]
    fn presync_and_reconcile_and_skills_each_name_their_fix() {
        let mut f = healthy();
        f.presync = Some(Probe::Done(vec!["a: modify".into(), "b: create".into()]));
        let r = judge(&f);
        assert_eq!(r.next, "osctl presync");
        assert_eq!(r.findings[0].details, vec!["a: modify", "b: create"]);

        let mut f = healthy();
        f.skills = Some(Probe::Done(vec![Drift {
            name: "audio".into(),
            kind: "skill".into(),
            how: "missing".into(),
        }]));
        assert_eq!(judge(&f).next, "osctl skills sync");
    }

    #[test]
    fn a_failed_unit_shows_its_journal_and_points_to_journalctl() {
        let mut f = healthy();
        let mut failed = unit("hermes-gateway.service", UnitRole::Active, "failed");
        failed.journal = Some(vec!["boom".into()]);
        f.units = Some(Probe::Done(vec![
            failed,
            unit("openclaw.service", UnitRole::Other, "inactive"),
            unit("osctl-boot.service", UnitRole::Osctl, "inactive"),
        ]));
        f.presync = Some(Probe::Done(vec!["x: modify".into()]));
        let r = judge(&f);
        assert_eq!(r.findings[0].check, "units");
        assert_eq!(r.findings[0].details, vec!["boom"]);
        assert_eq!(
            r.next,
            "journalctl -u hermes-gateway.service -n 50 --no-pager"
        );
        // The inactive oneshot and the stopped other runtime are as they should be.
        assert_eq!(r.findings.len(), 2);
    }

    #[test]
    fn a_stopped_active_unit_and_a_running_other_one_are_findings() {
        let mut f = healthy();
        f.units = Some(Probe::Done(vec![
            unit("hermes-gateway.service", UnitRole::Active, "inactive"),
            unit("openclaw.service", UnitRole::Other, "active"),
        ]));
        let r = judge(&f);
        assert_eq!(r.findings.len(), 2);
        assert_eq!(r.findings[0].fix, "systemctl start hermes-gateway.service");
        assert_eq!(
            r.findings[1].fix,
            "systemctl disable --now openclaw.service"
        );
    }

    #[test]
    fn an_interrupted_switch_asks_for_reconcile_before_presync() {
        let mut f = healthy();
        f.osctl = "osctl --root /img".into();
        f.presync = Some(Probe::Done(vec!["x: modify".into()]));
        f.switch = Some(Switch {
            from: "openclaw".into(),
            to: "hermes".into(),
            phase: "started".into(),
        });
        let r = judge(&f);
        assert_eq!(r.findings[0].check, "switch");
        assert_eq!(r.next, "osctl --root /img reconcile");
        assert_eq!(r.findings[1].fix, "osctl --root /img presync");
        let line = r.checks.iter().find(|c| c.check == "switch").unwrap();
        assert_eq!(line.summary, "interrupted: openclaw -> hermes");
    }

    #[test]
    fn a_check_that_failed_on_a_file_is_a_file_finding_of_that_check() {
        let mut f = healthy();
        f.skills = Some(Probe::Failed(Problem {
            path: Some("/r/var/lib/osctl/skills.json".into()),
            line: Some(1),
            column: Some(2),
            message: "EOF".into(),
            hint: None,
        }));
        let r = judge(&f);
        assert_eq!(r.findings[0].check, "skills");
        assert_eq!(r.findings[0].line, Some(1));
        let line = r.checks.iter().find(|c| c.check == "skills").unwrap();
        assert_eq!(line.status, "findings");
    }
}
