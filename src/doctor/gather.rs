//! The facts `osctl doctor` judges, gathered through the existing loaders, planners and the
//! Services door ([`gather`]); the rules that judge them are the module above. Read-only: it
//! plans but never applies, takes no lock (it reads the lock holder's note), writes nothing, and
//! every read is the bounded one the loaders use.

use std::path::Path;

use serde_json::Value;

use super::{Drift, Facts, Journal, Probe, Problem, Step, Switch, Unit, UnitRole};
use crate::apply::journal;
use crate::apply::lock::{self, STATE_DIR};
use crate::device::Device;
use crate::device::bootstrap::Bootstrap;
use crate::device::paths::DeviceEnv;
use crate::device::state::AgentState;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::format::dotenv::DotEnv;
use crate::path::DevPath;
use crate::plan::Draft;
use crate::presync::{self, Scope};
use crate::reconcile::{self, StepName};
use crate::runtime::{REGISTRY, RuntimeId, install, native};
use crate::system::fs::RootFs;
use crate::system::services::Services;

/// How many journal lines a failed unit shows.
const JOURNAL_LINES: usize = 10;

/// osctl's own units (the timer's service is the one that fails; the timer itself does not).
const OSCTL_UNITS: [&str; 2] = ["osctl-boot", "osctl-skills-sync"];

/// How device paths are shown: as the user can open them, under `--root` as they gave it
/// unless the root is `/`.
struct Shown {
    /// The prefix before a device path (`examples/device`; empty on the live device).
    prefix: String,
}

impl Shown {
    fn new(fs: &RootFs, root: &Path) -> Shown {
        let prefix = if fs.is_live() {
            String::new()
        } else {
            root.display().to_string().trim_end_matches('/').to_string()
        };
        Shown { prefix }
    }

    fn path(&self, dev: &str) -> String {
        if dev.starts_with('/') {
            format!("{}{dev}", self.prefix)
        } else {
            dev.to_string()
        }
    }

    /// How a fix calls osctl on this device.
    fn osctl(&self) -> String {
        if self.prefix.is_empty() {
            "osctl".to_string()
        } else {
            format!("osctl --root {}", self.prefix)
        }
    }
}

/// An osctl error about a file, as a problem: the path shown under `--root`, the line and
/// column, osctl's own message (the causes; the path is not repeated).
fn problem(at: &Shown, e: &Error) -> Problem {
    // The loaders' hints speak to a writer ("nothing was written; ..."): doctor writes nothing.
    let hint = e.hint.as_ref().map(|h| {
        h.strip_prefix("nothing was written; ")
            .unwrap_or(h)
            .to_string()
    });
    match &e.location {
        Some(loc) => Problem {
            path: Some(at.path(&loc.file)),
            line: loc.line,
            column: loc.column,
            message: if e.causes.is_empty() {
                e.message.clone()
            } else {
                e.causes.join(": ")
            },
            hint,
        },
        None => Problem {
            path: None,
            line: None,
            column: None,
            message: e.to_string(),
            hint,
        },
    }
}

/// Reads everything doctor judges. `root`: `--root` as the user gave it, so every path doctor
/// shows opens from where they are.
pub(crate) fn gather(
    fs: &RootFs,
    env: &DeviceEnv,
    services: &Services,
    root: &Path,
) -> Result<Facts> {
    let at = &Shown::new(fs, root);
    let mut facts = Facts {
        osctl: at.osctl(),
        ..Facts::default()
    };
    let check = |facts: &mut Facts, r: Result<()>| {
        facts.files_checked += 1;
        if let Err(e) = r {
            facts.file_problems.push(problem(at, &e));
        }
    };

    // The device's own state files.
    let device = match Device::read(fs, env) {
        Ok(d) => {
            facts.files_checked += 1;
            Some(d)
        }
        // A root that is not a device at all: there is nothing to examine (exit 1, as every
        // command that reads the device does).
        Err(e) if e.code == "not_a_device_root" => return Err(e),
        Err(e) => {
            check(&mut facts, Err(e));
            None
        }
    };
    check(
        &mut facts,
        AgentState::load(fs, &env.agent_state()).map(drop),
    );
    check(&mut facts, Bootstrap::load(fs, &env.bootstrap()).map(drop));
    check(
        &mut facts,
        crate::skills::state::SkillsState::load(fs).map(drop),
    );
    let switch = crate::switch::record::read(fs);
    check(&mut facts, switch.as_ref().map(drop).map_err(Clone::clone));
    facts.failed_switch = services.last_switch().filter(|l| l.outcome == "failed");
    // Every other record osctl keeps in its state folder is JSON too.
    let state_dir = DevPath::new(STATE_DIR);
    // A state folder that cannot be listed is itself a finding (the writers would stop on it).
    let names = fs.list_dir(&state_dir).unwrap_or_else(|e| {
        facts.file_problems.push(problem(at, &e));
        None
    });
    for name in names.unwrap_or_default() {
        if !name.ends_with(".json") || name == "skills.json" || name == "switch.json" {
            continue;
        }
        let path = state_dir.join(&name);
        let parsed = fs.read_text(&path).and_then(|text| match text {
            Some(t) => serde_json::from_str::<Value>(&t)
                .map(drop)
                .map_err(|e| Error::json(&path, &e)),
            None => Ok(()),
        });
        check(&mut facts, parsed);
    }

    // Which runtime is active, and its own files.
    let active = match &device {
        Some(d) => match d.resolve() {
            Ok(r) => Some(r.runtime),
            Err(e) => {
                check(&mut facts, Err(e));
                None
            }
        },
        None => None,
    };
    facts.active = active.map(|rt| rt.to_string());
    if let Some(d) = &device {
        let contained = d.containment(fs).unwrap_or_else(|e| {
            facts.file_problems.push(problem(at, &e));
            Vec::new()
        });
        for escape in contained {
            let fix = crate::device::fix_hint(env, std::slice::from_ref(&escape));
            let fix = fix.trim_start_matches("nothing was written or deleted; ");
            facts.file_problems.push(Problem {
                hint: Some(format!(
                    "{fix}; every command that changes the device{} refuses to run until then",
                    if escape.link.is_some() {
                        " but a reset"
                    } else {
                        ""
                    }
                )),
                message: escape.sentence,
                ..Problem::default()
            });
        }
    }
    if let (Some(d), Some(rt)) = (&device, active) {
        for nf in rt.spec().native {
            let path = d.layout.path(nf.loc);
            let parsed = match nf.format {
                Format::Markdown => continue,
                Format::DotEnv => fs.read_text(&path).and_then(|t| match t {
                    Some(t) => DotEnv::parse(&t, &path.to_string()).map(drop),
                    None => Ok(()),
                }),
                format => native::read_value(fs, &path, format).map(drop),
            };
            check(&mut facts, parsed);
        }
    }

    // The lock holder (its note, read without taking the lock), journals, an interrupted switch.
    facts.lock_holder = lock::holder(fs).map(|h| h.describe());
    let pending = journal::pending(fs).unwrap_or_else(|e| {
        facts.file_problems.push(problem(at, &e));
        Vec::new()
    });
    facts.journals = pending
        .into_iter()
        .map(|p| Journal {
            path: at.path(&p.path.to_string()),
            command: p.command,
            paths: p.paths,
            refused: p.refused,
        })
        .collect();
    if let (Ok(Some(r)), None) = (&switch, &facts.lock_holder) {
        facts.switch = Some(Switch {
            from: r.from.to_string(),
            to: r.to.to_string(),
            phase: r.phase.as_str().to_string(),
        });
    }

    // What the planners would do: presync, reconcile, skills.
    match (&device, active) {
        (Some(d), Some(rt)) => {
            facts.presync = Some(probe(at, &facts, presync_paths(fs, at, d, rt)));
            facts.reconcile = Some(probe(at, &facts, reconcile_steps(fs, d)));
            facts.skills = Some(probe(at, &facts, skills_drift(fs, d, rt)));
        }
        _ => {
            let why = "the device's configuration cannot be read (see files)";
            facts.presync = Some(Probe::Skipped(why.into()));
            facts.reconcile = Some(Probe::Skipped(why.into()));
            facts.skills = Some(Probe::Skipped(why.into()));
        }
    }
    facts.units = Some(units(fs, services, active)?);
    Ok(facts)
}

/// A planner's result as a probe. A failure on a file already reported as not parsing is not
/// reported twice: the check is skipped, naming that file.
fn probe<T>(at: &Shown, facts: &Facts, r: Result<T>) -> Probe<T> {
    match r {
        Ok(v) => Probe::Done(v),
        Err(e) => {
            let p = problem(at, &e);
            match facts
                .file_problems
                .iter()
                .find(|q| q.path.is_some() && q.path == p.path)
            {
                Some(q) => Probe::Skipped(format!(
                    "{} does not parse (see files)",
                    q.path.as_deref().unwrap_or_default()
                )),
                None => Probe::Failed(p),
            }
        }
    }
}

/// The paths presync would change for `rt` (files only; programs are not planned: they run at
/// the runtime's start and say nothing about the files being in sync).
fn presync_paths(fs: &RootFs, at: &Shown, device: &Device, rt: RuntimeId) -> Result<Vec<String>> {
    let mut draft = Draft::new(fs);
    presync::plan_with(&mut draft, device, rt, Scope::All, false)?;
    Ok(draft
        .finish()
        .file_changes()
        .map(|c| format!("{}: {}", at.path(&c.path.to_string()), c.kind().as_str()))
        .collect())
}

/// The reconcile steps a run would carry out: those whose plan changes something, or that
/// cannot be planned.
fn reconcile_steps(fs: &RootFs, device: &Device) -> Result<Vec<Step>> {
    let mut draft = Draft::new(fs);
    let planned = reconcile::preview(&mut draft, device, &StepName::ALL, crate::clock::now_secs())?;
    Ok(planned
        .into_iter()
        .filter(|p| p.report.failed() || !p.plan.is_empty())
        .map(|p| Step {
            step: p.report.step.as_str().to_string(),
            status: p.report.status.word().to_string(),
            detail: p.report.detail.clone(),
            failed: p.report.failed(),
        })
        .collect())
}

/// What `skills verify` computes: skills and hooks osctl installed whose folder drifted.
fn skills_drift(fs: &RootFs, device: &Device, rt: RuntimeId) -> Result<Vec<Drift>> {
    Ok(crate::skills::list::rows(fs, device, rt)?
        .into_iter()
        .filter_map(|r| {
            r.drift.map(|how| Drift {
                name: r.name,
                kind: r.kind.to_string(),
                how: how.to_string(),
            })
        })
        .collect())
}

/// Unit states on a live device: the active runtime's, every other installed runtime's and
/// osctl's own, with the last journal lines of a failed one.
fn units(fs: &RootFs, services: &Services, active: Option<RuntimeId>) -> Result<Probe<Vec<Unit>>> {
    if services.is_offline() {
        return Ok(Probe::Skipped(
            "no systemd under this root (unit states are read on the device, --root /)".into(),
        ));
    }
    let mut wanted: Vec<(String, UnitRole)> = Vec::new();
    for rt in REGISTRY {
        let role = if Some(rt.id) == active {
            UnitRole::Active
        } else if install::inspect(fs, rt).is_ok_and(|i| i.installed()) {
            UnitRole::Other
        } else {
            continue;
        };
        wanted.push((rt.unit.to_string(), role));
    }
    wanted.extend(OSCTL_UNITS.iter().map(|u| (u.to_string(), UnitRole::Osctl)));
    let names: Vec<String> = wanted.iter().map(|(u, _)| u.clone()).collect();
    let states = match services.show(&names) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(Probe::Skipped("no systemd under this root".into())),
        Err(e) => {
            return Ok(Probe::Failed(Problem {
                message: e.to_string(),
                ..Problem::default()
            }));
        }
    };
    let mut out = Vec::new();
    for (s, (_, role)) in states.into_iter().zip(wanted) {
        let journal = if s.active == "failed" {
            Some(match services.journal_tail(&s.unit, JOURNAL_LINES) {
                Ok(lines) => lines.unwrap_or_default(),
                Err(e) => vec![format!("(the journal cannot be read: {e})")],
            })
        } else {
            None
        };
        out.push(Unit {
            unit: s.unit,
            role,
            load: s.load,
            active: s.active,
            sub: s.sub,
            restarts: s.restarts,
            journal,
        });
    }
    Ok(Probe::Done(out))
}
