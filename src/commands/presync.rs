//! `osctl presync [RUNTIME]`: heal a runtime's native configuration before it starts. Logic in
//! `presync/`.
//!
//! On the live device, a run whose plan ran programs (hermes' skills restore, picoclaw's
//! migrate or onboard) plans once more without programs and applies that too: a program may
//! have rewritten files presync owns, and the runtime should start from healed files.

use serde_json::{Map, json};

use super::Ctx;
use crate::cli::PresyncArgs;
use crate::error::{Exit, Result};
use crate::plan::Draft;
use crate::presync::{self, Scope};

pub fn run(ctx: &Ctx, args: &PresyncArgs) -> Result<Exit> {
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    let rt = match args.runtime {
        Some(rt) => rt,
        None => device.active()?,
    };
    let mut draft = Draft::new(&ctx.fs);
    let report = presync::plan(&mut draft, &device, rt).map_err(|e| {
        e.or_hint(format!(
            "nothing was written; fix the file and run `osctl presync {rt}` again (`--dry-run` shows the plan)"
        ))
    })?;
    let plan = draft.finish();
    let mut extra = Map::new();
    extra.insert("runtime".into(), json!(rt));
    extra.insert("llm_config_mode".into(), json!(report.llm_config_mode));
    extra.insert("commands".into(), json!(report.commands));
    let exit = ctx.finish("presync", &plan, extra)?;
    if ctx.fs.is_live() && !ctx.previewing() && !report.commands.is_empty() {
        let device = ctx.device()?;
        let mut draft = Draft::new(&ctx.fs);
        presync::plan_with(&mut draft, &device, rt, Scope::All, false)?;
        let settle = draft.finish();
        if !settle.is_empty() {
            ctx.out.status("settling what the programs changed");
            let mut extra = Map::new();
            extra.insert("runtime".into(), json!(rt));
            extra.insert("settle".into(), json!(true));
            return ctx.finish("presync", &settle, extra);
        }
    }
    Ok(exit)
}
