//! One pass of the skill watcher (`osctl skills sync`), for one runtime, in two phases.
//!
//! [`fetch`], **without the device lock** (a slow CDN must not hold every other command at exit
//! 6; each request has one deadline for the whole transfer, `--timeout`):
//!
//! 1. Fetch the metadata (bounded; verified when bootstrap.json has a signing key, and then
//!    refused when it is older than the newest signed document this device accepted). A failure
//!    here stops the pass before anything is touched.
//! 2. Select: each listed skill the device supports (catalog gate) whose version differs from the
//!    recorded one, or whose folder has gone.
//! 3. For each, independently: download (in memory, capped) with a progress bar on a terminal,
//!    check the sha256 against the version (and the signed sha256) **before** opening the zip,
//!    unpack refusing unsafe entries, run the package check, honour the skill's own
//!    `skill.json`, and write it into the runtime's private staging folder ([`super::install`]). A failure is recorded
//!    for that skill and the others go on. openclaw's hooks are downloaded and checked too.
//!
//! [`land`], **under the device lock**, from a fresh read of the state file:
//!
//! 4. The freshness check again (another sync may have accepted a newer document meanwhile), the
//!    selection again (what phase one saw may have changed), each staged folder (made durable with
//!    one `syncfs` at the end of phase one) checked against the hash of what was unpacked, then
//!    swapped in (atomic per folder). Then the rest is
//!    planned: prunes, openclaw's hooks and their registration, and last the state file, which
//!    records a new version only for skills that were swapped in (and the signed document's
//!    sequence). The caller applies that plan (journaled).
//! 5. The update prompt lists the skills whose FolderHash changed (a folder that did not exist
//!    counts as changed, as upstream); it is `None` when nothing changed.
//!
//! The swaps in step 4 are the only device changes made outside the plan. A preview changes
//! nothing ([`SyncOptions::preview`]): `--dry-run` downloads and checks each pending skill as
//! the run does, in memory, and its plan shows each skill's files as the swap would leave them
//! (`preview.rs`) and the state file as the run records it, the same bytes (preview = run);
//! `--check` downloads no zip.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::device::Device;
use crate::device::bootstrap::Bootstrap;
use crate::error::{Error, Result};
use crate::output::Printer;
use crate::path::DevPath;
use crate::plan::{Draft, Plan};
use crate::runtime::{Runtime, RuntimeId};
use crate::system::fs::RootFs;
use crate::system::http::Http;

use super::catalog::catalog;
use super::hash::folder_hash;
use super::hooks::{self, HookReport, HookTarget};
use super::install::Staging;
use super::metadata::{self, Listed, Metadata, Trust, Wanted};
use super::state::{RuntimeState, SkillRecord, SkillsState};
use super::{Problem, prompt, prune};

mod download;
mod preview;
use download::{Download, download};

/// Most bytes the metadata document may have.
pub(crate) const MAX_METADATA_BYTES: u64 = 4 * 1024 * 1024;

pub(crate) struct SyncOptions {
    pub runtime: RuntimeId,
    /// `--metadata-url`; else bootstrap.json `metadata_url`.
    pub metadata_url: Option<String>,
    /// `--dry-run` / `--check`: change nothing.
    pub preview: bool,
    /// `--dry-run` (not `--check`): download and check each pending skill in memory, so the
    /// preview shows its files as the run would install them.
    pub show_files: bool,
    /// How long to wait for another sync of the same runtime (`--lock-timeout`).
    pub lock_timeout: Duration,
}

/// What happened to one skill.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct SkillReport {
    pub name: String,
    /// `install`, `update`, `up-to-date`, `unsupported`, `prune`, `failed`.
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// Its content changed (FolderHash), so the agent is told.
    pub changed: bool,
    /// How many files the downloaded version holds (not known to a `--check`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
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
            files: None,
            reason: None,
            error: None,
        }
    }

    fn fail(&mut self, problem: Problem) {
        self.action = "failed";
        self.changed = false;
        self.error = Some(problem);
    }
}

/// A skill or hook that did not land, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct NotLanded {
    /// The skill's name, or `hook:<name>`.
    pub name: String,
    pub code: &'static str,
    pub message: String,
}

/// The outcome of a pass.
#[derive(Debug, serde::Serialize)]
pub(crate) struct SyncReport {
    pub runtime: RuntimeId,
    pub skills_dir: String,
    pub metadata_url: String,
    pub signature: Trust,
    /// The signed document's sequence (recorded as the newest accepted); `null` unsigned.
    pub sequence: Option<u64>,
    pub skills: Vec<SkillReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookReport>,
    /// Skills whose content changed, in name order.
    pub updated: Vec<String>,
    /// Skills and hooks whose change lands with this run (installed, updated, pruned, removed;
    /// hooks as `hook:<name>`), once the plan is applied. Empty for a preview.
    pub landed: Vec<String>,
    /// Skills and hooks that failed; each keeps what was installed before.
    pub not_landed: Vec<NotLanded>,
    /// The update prompt for the agent; `null` when nothing changed.
    pub prompt: Option<String>,
    pub failed: usize,
    /// Skills already swapped into place (outside the plan) when [`land`] returned.
    #[serde(skip)]
    pub swapped: Vec<String>,
}

/// One skill to download.
#[derive(Clone, Debug)]
struct Pending {
    name: String,
    wanted: Wanted,
    previous: Option<SkillRecord>,
}

/// What [`fetch`] gathered, for [`land`].
pub(crate) struct Fetched {
    url: String,
    key: Option<String>,
    meta: Metadata,
    caps: Vec<String>,
    skills_dir: DevPath,
    downloads: Vec<(Pending, Download)>,
    hooks: Vec<hooks::Fetched>,
    /// Holds the runtime's staging lock until [`land`] has swapped the skills in.
    staging: Option<Staging>,
}

/// Phase one, without the device lock: the metadata, the downloads into staging, the hooks.
pub(crate) fn fetch(
    fs: &RootFs,
    device: &Device,
    http: &Http,
    opts: &SyncOptions,
    out: &Printer,
) -> Result<Fetched> {
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
    let key = bootstrap
        .as_ref()
        .and_then(Bootstrap::signing_public_key)
        .map(str::to_string);
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
    let meta = metadata::parse(&body, &url, key.as_deref())?;
    let mut state = SkillsState::load(fs)?;
    // An older signed document is refused before anything is downloaded (and again under the
    // lock, against the state as it is then).
    if let (Some(k), Some(seq)) = (&key, &meta.sequence) {
        state.accept(k, seq, &url)?;
    }
    let cdn = metadata::cdn_base(&url);
    let rstate = state.runtime(opts.runtime);
    let (_, pending) = select(fs, &skills_dir, &meta.skills, &caps, &rstate)?;
    let hooks = if rt.skills.hooks {
        hooks::fetch(http, &cdn, &caps, meta.hooks.as_ref())
    } else {
        Vec::new()
    };
    let mut downloads = Vec::new();
    let mut staging = None;
    if opts.preview {
        for p in pending {
            let outcome = if opts.show_files {
                download::preview(http, out, &cdn, &caps, &p)
            } else {
                Download::Previewed(None)
            };
            downloads.push((p, outcome));
        }
    } else if pending.is_empty() {
        Staging::sweep(fs, &skills_dir, opts.runtime)?;
    } else {
        let st = Staging::open(fs, &skills_dir, opts.runtime, opts.lock_timeout)?;
        for p in pending {
            let outcome = download(&st, http, out, &cdn, &caps, &p);
            downloads.push((p, outcome));
        }
        // Made durable before the device lock is taken: the lock then covers only the check
        // and the swap.
        if downloads
            .iter()
            .any(|(_, o)| matches!(o, Download::Staged(_)))
        {
            st.sync().map_err(|e| Error::io("sync", &st.dev, &e))?;
        }
        staging = Some(st);
    }
    Ok(Fetched {
        url,
        key,
        meta,
        caps,
        skills_dir,
        downloads,
        hooks,
        staging,
    })
}

/// Phase two, under the device lock: verify and swap the staged skills in, and plan the rest
/// (prunes, hooks, the state file). Returns the plan and the report.
pub(crate) fn land(
    fs: &RootFs,
    device: &Device,
    fetched: Fetched,
    opts: &SyncOptions,
) -> Result<(Plan, SyncReport)> {
    let rt = opts.runtime.spec();
    let Fetched {
        url,
        key,
        meta,
        caps,
        skills_dir,
        downloads,
        hooks: fetched_hooks,
        staging,
    } = fetched;
    let mut state = SkillsState::load(fs)?;
    let signed_before = state.signed.clone();
    if let (Some(k), Some(seq)) = (&key, &meta.sequence) {
        state.accept(k, seq, &url)?;
    }
    let mut rstate = state.runtime(opts.runtime);
    let mut draft = Draft::new(fs);
    for w in &meta.warnings {
        draft.warn(w.clone());
    }
    // What phase one saw may have changed while it downloaded: select again.
    let (mut reports, pending) = select(fs, &skills_dir, &meta.skills, &caps, &rstate)?;
    let mut pending: BTreeMap<String, Pending> =
        pending.into_iter().map(|p| (p.name.clone(), p)).collect();
    let mut staged = Vec::new();
    for (p, outcome) in downloads {
        if pending.remove(&p.name).is_none() {
            // Up to date now (another run installed it): `select` reported it.
            if let Some(st) = &staging {
                st.discard(&p.name);
            }
            continue;
        }
        let mut report = report_pending(&p);
        match outcome {
            Download::Previewed(entries) => {
                let hash = match &entries {
                    Some(entries) => {
                        let shown = preview::plan_skill(fs, &mut draft, &skills_dir, &p, entries)?;
                        report.changed = changed(shown.before.as_deref(), &p, &shown.hash);
                        report.files = Some(shown.files);
                        Some(shown.hash)
                    }
                    None => {
                        report.changed = true;
                        None
                    }
                };
                rstate.skills.insert(
                    p.name.clone(),
                    SkillRecord {
                        version: p.wanted.version.clone(),
                        hash,
                        installed: true,
                    },
                );
                reports.push(report);
            }
            Download::Failed(problem) => {
                report.fail(problem);
                reports.push(report);
            }
            Download::Refused(reason) => {
                report.action = "unsupported";
                report.reason = Some(reason);
                rstate.skills.insert(
                    p.name.clone(),
                    SkillRecord {
                        version: p.wanted.version.clone(),
                        hash: None,
                        installed: false,
                    },
                );
                reports.push(report);
            }
            Download::Staged(st) => {
                report.files = Some(st.files);
                staged.push((p, report, st.hash))
            }
        }
    }
    for (name, p) in pending {
        let mut report = report_pending(&p);
        report.fail(Problem::new(
            "changed_underfoot",
            format!(
                "{name} changed in {skills_dir} while osctl downloaded; the next sync installs it"
            ),
        ));
        reports.push(report);
    }
    let mut swapped = Vec::new();
    if let (Some(st), false) = (&staging, staged.is_empty()) {
        swapped = swap(st, &skills_dir, staged, &mut reports, &mut rstate)?;
    }
    if let Some(st) = staging {
        st.finish().map_err(|e| {
            let err = Error::io("sync", &skills_dir, &e);
            if swapped.is_empty() {
                err
            } else {
                partly(err, &swapped)
            }
        })?;
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
    let hook_reports = if fetched_hooks.is_empty() {
        Vec::new()
    } else {
        let target = HookTarget {
            hooks_dir: device.layout.path(rt.workspace).join("hooks"),
            openclaw_json: device.layout.path(
                rt.native_file("config")
                    .expect("openclaw has openclaw.json")
                    .loc,
            ),
            unit: rt.unit,
        };
        hooks::plan(&mut draft, &target, &fetched_hooks, &mut rstate)?
    };
    if state.runtimes.get(&opts.runtime) != Some(&rstate) || state.signed != signed_before {
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
    let mut landed = Vec::new();
    let mut not_landed = Vec::new();
    for r in &reports {
        match &r.error {
            Some(e) => not_landed.push(NotLanded {
                name: r.name.clone(),
                code: e.code,
                message: e.message.clone(),
            }),
            None if !opts.preview && matches!(r.action, "install" | "update" | "prune") => {
                landed.push(r.name.clone())
            }
            None => {}
        }
    }
    for h in &hook_reports {
        match &h.error {
            Some(e) => not_landed.push(NotLanded {
                name: format!("hook:{}", h.name),
                code: e.code,
                message: e.message.clone(),
            }),
            None if !opts.preview && matches!(h.action, "install" | "update" | "remove") => {
                landed.push(format!("hook:{}", h.name))
            }
            None => {}
        }
    }
    let report = SyncReport {
        runtime: opts.runtime,
        skills_dir: skills_dir.to_string(),
        metadata_url: url,
        signature: meta.trust,
        sequence: meta.sequence.map(|s| s.sequence),
        prompt: if opts.preview {
            None
        } else {
            prompt::update_prompt(&prefix, &updated)
        },
        skills: reports,
        hooks: hook_reports,
        updated,
        failed: not_landed.len(),
        landed,
        not_landed,
        swapped,
    };
    Ok((draft.finish(), report))
}

/// An error after some skills were already swapped in: partly applied (exit 5), naming them.
pub(crate) fn partly(err: Error, swapped: &[String]) -> Error {
    let mut e = err.with_exit(PARTLY_APPLIED);
    e.causes.push(format!(
        "these skills were already swapped into place and stay: {} (their versions are not recorded, so the next sync downloads them again)",
        swapped.join(", ")
    ));
    e
}

/// Exit 5: some changes landed and some did not.
pub(crate) const PARTLY_APPLIED: crate::error::Exit = crate::error::Exit::PartlyApplied;

/// Checks each staged folder (made durable by [`fetch`]) against what was unpacked, and swaps
/// the skills in; returns the names swapped.
fn swap(
    st: &Staging,
    skills_dir: &DevPath,
    staged: Vec<(Pending, SkillReport, String)>,
    reports: &mut Vec<SkillReport>,
    rstate: &mut RuntimeState,
) -> Result<Vec<String>> {
    let mut ready = Vec::new();
    for (p, mut report, hash) in staged {
        // Staging is private to this user, but it was written before the lock was taken: what is
        // swapped in is what was checked, byte for byte.
        if folder_hash(&st.staged_path(&p.name)).as_deref() != Some(hash.as_str()) {
            report.fail(Problem::new(
                "staging_changed",
                format!(
                    "the staged copy of {} in {} changed after it was checked",
                    p.name, st.dev
                ),
            ));
            reports.push(report);
            continue;
        }
        let old_hash = folder_hash(&st.target_path(&p.name));
        report.changed = changed(old_hash.as_deref(), &p, &hash);
        ready.push((p, report, hash));
    }
    let mut swapped = Vec::new();
    for (p, mut report, hash) in ready {
        match st.swap_in(&p.name) {
            Ok(()) => {
                rstate.skills.insert(
                    p.name.clone(),
                    SkillRecord {
                        version: p.wanted.version.clone(),
                        hash: Some(hash),
                        installed: true,
                    },
                );
                swapped.push(p.name.clone());
            }
            Err(e) => report.fail(Problem::new(
                "io_error",
                format!("cannot move {} into {skills_dir}: {e}", p.name),
            )),
        }
        reports.push(report);
    }
    Ok(swapped)
}

/// Whether installing a skill whose new FolderHash is `hash` changes it, so the agent is told:
/// its folder held something else (`installed`: its FolderHash now; `None` when absent), or the
/// state file recorded another hash.
fn changed(installed: Option<&str>, p: &Pending, hash: &str) -> bool {
    let recorded = p.previous.as_ref().and_then(|r| r.hash.as_deref());
    installed != Some(hash) || recorded.is_some_and(|h| h != hash)
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
    r.version = Some(p.wanted.version.clone());
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
        let wanted = match entry {
            Listed::Invalid(why) => {
                let mut r = SkillReport::new(name, "failed");
                r.error = Some(Problem::new("bad_metadata_entry", why.clone()));
                reports.push(r);
                continue;
            }
            Listed::Skill(w) => w,
        };
        let version = &wanted.version;
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
            wanted: wanted.clone(),
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

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
