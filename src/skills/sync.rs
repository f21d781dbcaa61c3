//! One pass of the skill watcher (`osctl skills sync`), for one runtime.
//!
//! 1. Fetch the metadata (bounded; verified when bootstrap.json has a signing key). A failure
//!    here stops the pass before anything is touched.
//! 2. Select: each listed skill the device supports (catalog gate) whose version differs from the
//!    recorded one, or whose folder has gone.
//! 3. For each, independently: download (capped, with a stall timeout and a progress bar on a
//!    terminal), check the sha256 against the version **before** opening the zip, unpack in
//!    memory refusing unsafe entries, run the package check, honour the skill's own `skill.json`,
//!    stage it. A failure is recorded for that skill and the others go on.
//! 4. Swap the staged skills in ([`super::install`]: atomic per folder), then plan the rest:
//!    prunes, openclaw's hooks and their registration, and last the state file, which records a
//!    new version only for skills that were swapped in. The caller applies that plan (journaled).
//! 5. The update prompt lists the skills whose FolderHash changed (a folder that did not exist
//!    counts as changed, as upstream); it is `None` when nothing changed.
//!
//! Steps 3-4's downloads and swaps are the only device changes made outside the plan; with
//! `--dry-run` or `--check` ([`SyncOptions::preview`]) the pass downloads no zip and changes
//! nothing, and the plan shows the state file as it would be recorded.

use std::collections::BTreeSet;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::device::Device;
use crate::device::bootstrap::Bootstrap;
use crate::error::{Error, Result};
use crate::output::Printer;
use crate::plan::{Draft, Plan};
use crate::runtime::{Runtime, RuntimeId};
use crate::system::fs::RootFs;
use crate::system::http::Http;
use crate::system::path::DevPath;

use super::archive::{self, Entry, MAX_UNPACKED_BYTES};
use super::catalog::{SkillJson, catalog};
use super::hash::{folder_hash, tree_hash};
use super::hooks::{self, HookReport, HookTarget};
use super::install::Staging;
use super::metadata::{self, Listed, Trust};
use super::state::{RuntimeState, SkillRecord, SkillsState};
use super::{Problem, package, prompt, prune};

/// Most bytes the metadata document may have.
pub const MAX_METADATA_BYTES: u64 = 4 * 1024 * 1024;
/// Most bytes one skill zip may have.
pub const MAX_ZIP_BYTES: u64 = 100 * 1024 * 1024;

pub struct SyncOptions {
    pub runtime: RuntimeId,
    /// `--metadata-url`; else bootstrap.json `metadata_url`.
    pub metadata_url: Option<String>,
    /// `--dry-run` / `--check`: download no zip, change nothing.
    pub preview: bool,
}

/// What happened to one skill.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SkillReport {
    pub name: String,
    /// `install`, `update`, `up-to-date`, `unsupported`, `prune`, `failed`.
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// Its content changed (FolderHash), so the agent is told.
    pub changed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Problem>,
}

impl SkillReport {
    fn new(name: &str, action: &'static str) -> SkillReport {
        SkillReport {
            name: name.to_string(),
            action,
            version: None,
            previous: None,
            changed: false,
            reason: None,
            error: None,
        }
    }
}

/// The outcome of a pass.
#[derive(Debug, serde::Serialize)]
pub struct SyncReport {
    pub runtime: RuntimeId,
    pub skills_dir: String,
    pub metadata_url: String,
    pub signature: Trust,
    pub skills: Vec<SkillReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookReport>,
    /// Skills whose content changed, in name order.
    pub updated: Vec<String>,
    /// The update prompt for the agent; `null` when nothing changed.
    pub prompt: Option<String>,
    pub failed: usize,
}

/// One skill to download.
struct Pending {
    name: String,
    version: String,
    previous: Option<SkillRecord>,
}

/// Runs one pass; returns the plan (prunes, hooks, state file) and the report.
pub fn run(
    fs: &RootFs,
    device: &Device,
    http: &Http,
    opts: &SyncOptions,
    out: &Printer,
) -> Result<(Plan, SyncReport)> {
    let rt = opts.runtime.spec();
    let skills_dir = device.layout.path(rt.skills.dir);
    let caps = device.robot.capabilities.clone();
    let bootstrap = Bootstrap::load(fs, &device.env.bootstrap())?;
    let url = match (
        &opts.metadata_url,
        bootstrap.as_ref().and_then(Bootstrap::metadata_url),
    ) {
        (Some(u), _) => u.trim().to_string(),
        (None, Some(u)) => u.to_string(),
        (None, None) => {
            return Err(Error::input(
                "no_metadata_url",
                format!(
                    "no skills metadata URL: {} has no metadata_url",
                    device.env.bootstrap()
                ),
            )
            .hint("pass --metadata-url URL, or provision bootstrap.json; nothing was written"));
        }
    };
    let key = bootstrap.as_ref().and_then(Bootstrap::signing_public_key);
    let body = http
        .get(&url, MAX_METADATA_BYTES, &mut |_, _| {})
        .map_err(|e| {
            // Name the file the URL came from: a wrong URL is fixed there.
            let hint = match opts.metadata_url {
                Some(_) => "nothing was written; the next sync tries again".to_string(),
                None => format!(
                    "the URL is metadata_url in {}; nothing was written; the next sync tries again",
                    device.env.bootstrap()
                ),
            };
            e.into_error().hint(hint)
        })?;
    let meta = metadata::parse(&body, &url, key)?;
    let cdn = metadata::cdn_base(&url);
    let mut state = SkillsState::load(fs)?;
    let mut rstate = state.runtime(opts.runtime);

    let mut draft = Draft::new(fs);
    for w in &meta.warnings {
        draft.warn(w.clone());
    }
    let (mut reports, pending) = select(fs, &skills_dir, &meta.skills, &caps, &rstate)?;
    if opts.preview {
        for p in &pending {
            let mut r = report_pending(p);
            r.changed = true;
            reports.push(r);
            rstate.skills.insert(
                p.name.clone(),
                SkillRecord {
                    version: p.version.clone(),
                    hash: None,
                    installed: true,
                },
            );
        }
    } else {
        Staging::sweep(fs, &skills_dir, opts.runtime)?;
        if !pending.is_empty() {
            reports.extend(install(
                fs,
                http,
                out,
                &skills_dir,
                &cdn,
                &caps,
                &pending,
                opts,
                &mut rstate,
            )?);
        }
    }
    for pruned in plan_prune(
        &mut draft,
        &skills_dir,
        rt,
        &caps,
        &meta.skills,
        &mut rstate,
    )? {
        // A pruned skill replaces its "unsupported" line.
        reports.retain(|r| r.name != pruned.name || r.error.is_some());
        reports.push(pruned);
    }
    let hook_reports = if rt.id == RuntimeId::Openclaw {
        let target = HookTarget {
            hooks_dir: device.layout.path(rt.workspace).join("hooks"),
            openclaw_json: device.layout.path(
                rt.native_file("config")
                    .expect("openclaw has openclaw.json")
                    .loc,
            ),
            cdn: &cdn,
            caps: &caps,
            unit: rt.unit,
        };
        hooks::plan(&mut draft, http, &target, &mut rstate)?
    } else {
        Vec::new()
    };
    if state.runtimes.get(&opts.runtime) != Some(&rstate) {
        state.runtimes.insert(opts.runtime, rstate);
        state.plan_write(&mut draft)?;
    }

    reports.sort_by(|a, b| a.name.cmp(&b.name));
    let updated: Vec<String> = reports
        .iter()
        .filter(|r| r.changed)
        .map(|r| r.name.clone())
        .collect();
    let prefix = rt
        .skills
        .prompt_prefix
        .map(str::to_string)
        .unwrap_or_else(|| skills_dir.to_string());
    let failed = reports.iter().filter(|r| r.error.is_some()).count()
        + hook_reports.iter().filter(|r| r.error.is_some()).count();
    let report = SyncReport {
        runtime: opts.runtime,
        skills_dir: skills_dir.to_string(),
        metadata_url: url,
        signature: meta.trust,
        prompt: if opts.preview {
            None
        } else {
            prompt::update_prompt(&prefix, &updated)
        },
        skills: reports,
        hooks: hook_reports,
        updated,
        failed,
    };
    Ok((draft.finish(), report))
}

fn report_pending(p: &Pending) -> SkillReport {
    let mut r = SkillReport::new(
        &p.name,
        if p.previous.as_ref().is_some_and(|r| r.installed) {
            "update"
        } else {
            "install"
        },
    );
    r.version = Some(p.version.clone());
    r.previous = p.previous.as_ref().map(|r| r.version.clone());
    r
}

/// Sorts the listed skills into reports (nothing to download) and pending downloads.
fn select(
    fs: &RootFs,
    skills_dir: &DevPath,
    listed: &std::collections::BTreeMap<String, Listed>,
    caps: &[String],
    rstate: &RuntimeState,
) -> Result<(Vec<SkillReport>, Vec<Pending>)> {
    let cat = catalog();
    let mut reports = Vec::new();
    let mut pending = Vec::new();
    for (name, entry) in listed {
        let version = match entry {
            Listed::Invalid(why) => {
                let mut r = SkillReport::new(name, "failed");
                r.error = Some(Problem::new("bad_metadata_entry", why.clone()));
                reports.push(r);
                continue;
            }
            Listed::Version(v) => v,
        };
        let record = rstate.skills.get(name);
        if !cat.supports(name, caps) {
            let mut r = SkillReport::new(name, "unsupported");
            r.reason = Some(unsupported_reason(name, caps));
            reports.push(r);
            continue;
        }
        if let Some(rec) = record
            && rec.version == *version
        {
            if !rec.installed {
                let mut r = SkillReport::new(name, "unsupported");
                r.version = Some(version.clone());
                r.reason = Some("its skill.json rules this device out".into());
                reports.push(r);
                continue;
            }
            if fs.is_dir(&skills_dir.join(name))? {
                let mut r = SkillReport::new(name, "up-to-date");
                r.version = Some(version.clone());
                reports.push(r);
                continue;
            }
        }
        pending.push(Pending {
            name: name.clone(),
            version: version.clone(),
            previous: record.cloned(),
        });
    }
    Ok((reports, pending))
}

fn unsupported_reason(name: &str, caps: &[String]) -> String {
    let cat = catalog();
    if cat.disabled.contains(name) {
        return "disabled in the catalog".into();
    }
    format!(
        "needs one of: {} (the device has: {})",
        cat.requirements(name).join(", "),
        if caps.is_empty() {
            "none".to_string()
        } else {
            caps.join(", ")
        }
    )
}

/// A skill that passed every check and is staged.
struct Staged {
    report: SkillReport,
    record: SkillRecord,
}

/// Downloads, verifies and stages every pending skill, then swaps them in.
#[allow(clippy::too_many_arguments)]
fn install(
    fs: &RootFs,
    http: &Http,
    out: &Printer,
    skills_dir: &DevPath,
    cdn: &str,
    caps: &[String],
    pending: &[Pending],
    opts: &SyncOptions,
    rstate: &mut RuntimeState,
) -> Result<Vec<SkillReport>> {
    let staging = Staging::new(fs, skills_dir, opts.runtime)?;
    let mut reports = Vec::new();
    let mut staged = Vec::new();
    for p in pending {
        let mut report = report_pending(p);
        match fetch_and_check(http, out, cdn, p) {
            Err(problem) => {
                report.action = "failed";
                report.error = Some(problem);
                reports.push(report);
            }
            Ok(entries) => {
                let refusal = archive::skill_json(&entries)
                    .and_then(|b| serde_json::from_slice::<SkillJson>(b).ok())
                    .and_then(|j| j.refuses(caps));
                if let Some(reason) = refusal {
                    report.action = "unsupported";
                    report.reason = Some(reason);
                    rstate.skills.insert(
                        p.name.clone(),
                        SkillRecord {
                            version: p.version.clone(),
                            hash: None,
                            installed: false,
                        },
                    );
                    reports.push(report);
                    continue;
                }
                if let Err(e) = staging.stage(&p.name, &entries) {
                    report.action = "failed";
                    report.error = Some(Problem::new(
                        "io_error",
                        format!("cannot stage {} in {}: {e}", p.name, staging.dev),
                    ));
                    reports.push(report);
                    continue;
                }
                let tree: Vec<(&str, Option<&[u8]>)> = entries
                    .iter()
                    .map(|e| (e.path.as_str(), e.content.as_deref()))
                    .collect();
                let new_hash = tree_hash(&tree);
                let old_hash = folder_hash(&fs.host(&skills_dir.join(&p.name))?);
                let recorded = p.previous.as_ref().and_then(|r| r.hash.clone());
                report.changed = old_hash.as_deref() != Some(new_hash.as_str())
                    || recorded.is_some_and(|h| h != new_hash);
                staged.push(Staged {
                    report,
                    record: SkillRecord {
                        version: p.version.clone(),
                        hash: Some(new_hash),
                        installed: true,
                    },
                });
            }
        }
    }
    if staged.is_empty() {
        staging.abandon();
        return Ok(reports);
    }
    if let Err(e) = staging.sync() {
        let dev = staging.dev.clone();
        staging.abandon();
        return Err(Error::io("sync", &dev, &e));
    }
    for s in staged {
        let mut report = s.report;
        match staging.swap_in(&report.name) {
            Ok(()) => {
                rstate.skills.insert(report.name.clone(), s.record);
            }
            Err(e) => {
                report.action = "failed";
                report.changed = false;
                report.error = Some(Problem::new(
                    "io_error",
                    format!("cannot move {} into {skills_dir}: {e}", report.name),
                ));
            }
        }
        reports.push(report);
    }
    staging
        .finish()
        .map_err(|e| Error::io("sync", skills_dir, &e))?;
    Ok(reports)
}

/// Downloads one skill and runs every check on it.
fn fetch_and_check(
    http: &Http,
    out: &Printer,
    cdn: &str,
    p: &Pending,
) -> std::result::Result<Vec<Entry>, Problem> {
    let url = format!("{cdn}/skills/{}.zip", p.name);
    let bar = progress_bar(out, &p.name);
    let result = http.get(&url, MAX_ZIP_BYTES, &mut |n, total| {
        if let Some(b) = &bar {
            if let Some(t) = total {
                b.set_length(t);
            }
            b.set_position(n);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let zip = result.map_err(|e| Problem::new(e.code(), e.describe()))?;
    archive::check_version(&zip, &p.version)?;
    let entries = archive::unpack(&zip, MAX_UNPACKED_BYTES)?;
    for e in &entries {
        if let Some(content) = &e.content
            && let Some(f) = package::scan(&e.path, content)
        {
            return Err(Problem::new("package_secret", format!("refused: {f}")));
        }
    }
    Ok(entries)
}

/// A download bar on stderr, only on a terminal and never with `--quiet` or `--json`.
fn progress_bar(out: &Printer, name: &str) -> Option<ProgressBar> {
    use std::io::IsTerminal;
    if out.quiet || out.json || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix:>20} [{bar:30}] {bytes}/{total_bytes}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(name.to_string());
    Some(bar)
}

/// Plans the removal of unsupported skills, per the runtime's prune rule.
fn plan_prune(
    draft: &mut Draft<'_>,
    skills_dir: &DevPath,
    rt: &Runtime,
    caps: &[String],
    listed: &std::collections::BTreeMap<String, Listed>,
    rstate: &mut RuntimeState,
) -> Result<Vec<SkillReport>> {
    let cat = catalog();
    let mut present = Vec::new();
    for name in draft.list_dir(skills_dir)? {
        if draft.is_dir(&skills_dir.join(&name))? {
            present.push(name);
        }
    }
    let refused: BTreeSet<String> = rstate
        .skills
        .iter()
        .filter(|(_, r)| !r.installed)
        .map(|(n, _)| n.clone())
        .collect();
    let recorded: BTreeSet<String> = rstate.skills.keys().cloned().collect();
    let supported = |n: &str| !refused.contains(n) && cat.supports(n, caps);
    let managed = |n: &str| cat.knows(n) || recorded.contains(n);
    let known = |n: &str| cat.knows(n) || recorded.contains(n) || listed.contains_key(n);
    let facts = prune::Facts {
        rule: rt.skills.prune,
        builtins: rt.skills.builtins,
        fail_open: caps.is_empty(),
        supported: &supported,
        managed: &managed,
        known: &known,
    };
    let mut reports = Vec::new();
    for name in prune::to_prune(&present, &facts) {
        draft.remove(
            &skills_dir.join(&name),
            "prune a skill this device does not support",
        )?;
        let mut r = SkillReport::new(&name, "prune");
        r.reason = Some(if refused.contains(&name) {
            "its skill.json rules this device out".to_string()
        } else if cat.knows(&name) {
            unsupported_reason(&name, caps)
        } else {
            "not a supported skill nor a built-in of this runtime".to_string()
        });
        if rstate.skills.get(&name).is_some_and(|r| r.installed) {
            rstate.skills.remove(&name);
        }
        reports.push(r);
    }
    // A record of a skill that is gone and no longer supported describes nothing.
    rstate
        .skills
        .retain(|name, r| !r.installed || supported(name) || present.contains(name));
    Ok(reports)
}
