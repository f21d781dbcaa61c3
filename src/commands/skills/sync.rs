//! `osctl skills sync`: one pass of the skill watcher (logic in `skills::sync`).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::cli::SkillsSyncArgs;
use crate::commands::Ctx;
use crate::error::{Error, Exit, Result};
use crate::skills::prompt;
use crate::skills::sync::{self, SyncOptions, SyncReport};
use crate::system::http::{Http, HttpOptions};

const NAME: &str = "skills sync";

pub fn run(ctx: &Ctx, args: &SkillsSyncArgs) -> Result<Exit> {
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    let http = Http::new(HttpOptions {
        ca_file: args.ca_file.clone(),
        stall_timeout: Duration::from_secs(args.timeout),
    })?;
    let opts = SyncOptions {
        runtime: super::runtime(&device, args.runtime)?,
        metadata_url: args.metadata_url.clone(),
        preview: ctx.previewing(),
    };
    let (plan, report) = sync::run(&ctx.fs, &device, &http, &opts, &ctx.out)?;
    say(ctx, &report, opts.preview);
    let mut extra = match serde_json::to_value(&report) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if report.failed > 0 {
        extra.insert("ok".into(), false.into());
    }
    let exit = ctx.finish(NAME, &plan, extra)?;
    // The JSON document is out; later errors go to stderr only, so stdout stays one document.
    let mut stderr_only = ctx.out.clone();
    stderr_only.json = false;
    if let (Some(cmd), Some(text), false) = (&args.notify_cmd, &report.prompt, opts.preview) {
        if let Err(e) = prompt::notify(cmd, text, report.runtime, &report.updated) {
            stderr_only.error(NAME, &e);
            return Ok(Exit::Failed);
        }
        ctx.out
            .status(&format!("notified: {}", report.updated.join(", ")));
    }
    if report.failed > 0 {
        stderr_only.error(
            NAME,
            &Error::input("skills_failed", format!("{} skill(s) or hook(s) failed", report.failed))
                .hint("the others were synced; a failed skill keeps its installed version and is retried by the next sync"),
        );
        return Ok(Exit::Failed);
    }
    Ok(exit)
}

/// One status line per skill that changes (or would), a warning per failure.
fn say(ctx: &Ctx, report: &SyncReport, preview: bool) {
    let would = if preview { "would " } else { "" };
    for r in &report.skills {
        let v = r.version.as_deref().unwrap_or("-");
        match (r.action, &r.error) {
            (_, Some(e)) => ctx.out.warn(&format!("{}: {}", r.name, e.message)),
            ("install", _) => ctx.out.status(&format!("{would}install {} ({v})", r.name)),
            ("update", _) => ctx.out.status(&format!(
                "{would}update {} ({} -> {v})",
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
