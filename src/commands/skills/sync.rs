//! `osctl skills sync`: one pass of the skill watcher (logic in `skills::sync`).
//!
//! The downloads are made before the device lock is taken (a slow CDN would otherwise hold every
//! other command at exit 6); the lock covers only the check and swap of what was staged and the
//! plan. Exit status: 0 when everything landed (or nothing had to), 5 when some skills or hooks
//! landed and others did not, 1 when none landed and something failed (the `--json` document
//! lists `landed` and `not_landed` either way).

use std::time::Duration;

use crate::cli::SkillsSyncArgs;
use crate::commands::Ctx;
use crate::error::{Error, Exit, Result};
use crate::skills::prompt;
use crate::skills::sync::{self, PARTLY_APPLIED, SyncOptions, SyncReport};
use crate::system::http::{Http, HttpOptions};

pub(super) fn run(ctx: &Ctx, args: &SkillsSyncArgs) -> Result<Exit> {
    let device = ctx.device()?;
    let http = Http::new(HttpOptions {
        ca_file: args.ca_file.clone(),
        timeout: Duration::from_secs(args.timeout),
    })?;
    let opts = SyncOptions {
        runtime: device.chosen(args.runtime)?,
        metadata_url: args.metadata_url.clone(),
        preview: ctx.previewing(),
        show_files: ctx.previewing() && !ctx.check,
        lock_timeout: ctx.lock_timeout,
    };
    let fetched = sync::fetch(&ctx.fs, &device, &http, &opts, &ctx.out)?;
    let _lock = ctx.lock()?;
    let (plan, report) = sync::land(&ctx.fs, &device, fetched, &opts)?;
    say(ctx, &report, opts.preview);
    let failure = outcome(&report, opts.preview);
    let exit = match ctx.finish(&plan, &report) {
        Ok(exit) => exit,
        // The skills swapped in stay; the plan after them (state, prunes, hooks) rolled back.
        Err(e) if !report.swapped.is_empty() => return Err(sync::partly(e, &report.swapped)),
        Err(e) => return Err(e),
    };
    if let (Some(cmd), Some(text), false) = (&args.notify_cmd, &report.prompt, opts.preview) {
        if let Err(e) = prompt::notify(cmd, text, report.runtime, &report.updated) {
            // The skills landed and are recorded; only the agent was not told.
            ctx.out.error(&e.with_exit(PARTLY_APPLIED));
            return Ok(PARTLY_APPLIED);
        }
        ctx.out
            .status(&format!("notified: {}", report.updated.join(", ")));
    }
    if let Some(e) = failure {
        ctx.out.error(&e);
        return Ok(e.exit);
    }
    Ok(exit)
}

/// The error of a pass in which something failed: partly applied (exit 5) when something else
/// landed, else failed with nothing changed (exit 1). A preview (`--dry-run`, which downloads
/// and checks as the run does) gives the run's exit and says what would land.
fn outcome(report: &SyncReport, preview: bool) -> Option<Error> {
    if report.not_landed.is_empty() {
        return None;
    }
    let failed: Vec<String> = report
        .not_landed
        .iter()
        .map(|n| format!("{} ({})", n.name, n.code))
        .collect();
    let landed: Vec<String> = if preview {
        let lands = |action: &str| matches!(action, "install" | "update" | "prune" | "remove");
        let skills = report
            .skills
            .iter()
            .filter(|r| r.error.is_none() && lands(r.action));
        let hooks = report
            .hooks
            .iter()
            .filter(|h| h.error.is_none() && lands(h.action));
        skills
            .map(|r| r.name.clone())
            .chain(hooks.map(|h| format!("hook:{}", h.name)))
            .collect()
    } else {
        report.landed.clone()
    };
    let (none, partly, what, not) = if preview {
        (
            "none would land",
            "a run would be partly applied",
            "would land",
            "would not",
        )
    } else {
        ("none landed", "partly applied", "landed", "did not")
    };
    let hint = "a skill or hook that did not land keeps its installed version and is retried by the next sync";
    Some(if landed.is_empty() {
        Error::input(
            "skills_failed",
            format!(
                "{} skill(s) or hook(s) {} and {none}: {}",
                failed.len(),
                if preview { "would fail" } else { "failed" },
                failed.join(", ")
            ),
        )
        .hint(hint)
    } else {
        Error::new(
            PARTLY_APPLIED,
            "skills_partly_applied",
            format!(
                "{partly}: {} {what} ({}); {} {not}: {}",
                landed.len(),
                landed.join(", "),
                failed.len(),
                failed.join(", ")
            ),
        )
        .hint(if preview {
            format!("nothing was written; {hint}")
        } else {
            format!("what landed is recorded; {hint}")
        })
    })
}

/// One status line per skill that changes (or would), a warning per failure.
fn say(ctx: &Ctx, report: &SyncReport, preview: bool) {
    let would = if preview { "would " } else { "" };
    for r in &report.skills {
        let v = r.version.as_deref().unwrap_or("-");
        let files = match r.files {
            Some(1) => ", 1 file".to_string(),
            Some(n) => format!(", {n} files"),
            None => String::new(),
        };
        match (r.action, &r.error) {
            (_, Some(e)) => ctx.out.warn(&format!("{}: {}", r.name, e.message)),
            ("install", _) => ctx
                .out
                .status(&format!("{would}install {} ({v}{files})", r.name)),
            ("update", _) => ctx.out.status(&format!(
                "{would}update {} ({} -> {v}{files})",
                r.name,
                r.previous.as_deref().unwrap_or("-")
            )),
            ("prune", _) => ctx.out.status(&format!(
                "{would}prune {}: {}",
                r.name,
                r.reason.as_deref().unwrap_or("")
            )),
            (action, _) => ctx.out.detail(&format!(
                "{}: {action}{}",
                r.name,
                r.reason
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            )),
        }
    }
    for h in &report.hooks {
        match (h.action, &h.error) {
            (_, Some(e)) => ctx.out.warn(&format!("hook {}: {}", h.name, e.message)),
            ("up-to-date" | "absent", _) => {
                ctx.out.detail(&format!("hook {}: {}", h.name, h.action))
            }
            (action, _) => ctx.out.status(&format!("{would}{action} hook {}", h.name)),
        }
    }
}
