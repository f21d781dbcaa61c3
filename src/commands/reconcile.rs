//! `osctl reconcile [--only STEP]`: the reconcilers the daemon runs at boot and the switch runs
//! after its commit point. Logic in `reconcile/`. A switch that was killed before it finished
//! is converged first (its services brought in line with config.json; `switch/converge.rs`).

use serde_json::{Map, json};

use super::Ctx;
use crate::apply::Target;
use crate::cli::ReconcileArgs;
use crate::error::{Exit, Result};
use crate::plan::Draft;
use crate::reconcile::{self, Input, StepName};

pub fn run(ctx: &Ctx, args: &ReconcileArgs) -> Result<Exit> {
    let lock = ctx.lock()?;
    let mut device = ctx.device()?;
    if lock.is_some() {
        let t = Target {
            fs: &ctx.fs,
            services: &ctx.services,
            out: &ctx.out,
            command: &ctx.command_line,
        };
        if crate::switch::converge::if_interrupted(&t, &device)?.is_some() {
            device = ctx.device()?;
        }
    } else if let Some(r) = crate::switch::record::read(&ctx.fs)? {
        ctx.out.warn(&format!(
            "a switch from {} to {} was interrupted; a reconcile that changes the device first brings the services in line with config.json",
            r.from, r.to
        ));
    }
    let input = Input {
        active: device.active()?,
        device: &device,
        now: crate::clock::now_secs(),
    };
    let mut draft = Draft::new(&ctx.fs);
    let steps: Vec<StepName> = match args.only {
        Some(step) => vec![step],
        None => StepName::ALL.to_vec(),
    };
    let reports = reconcile::plan_steps(&mut draft, &input, &steps);
    for r in &reports {
        if r.failed() {
            ctx.out.warn(&r.line());
        } else {
            ctx.out.status(&r.line());
        }
    }
    let plan = draft.finish();
    let mut extra = Map::new();
    extra.insert("active".into(), json!(input.active));
    extra.insert("steps".into(), json!(reports));
    let exit = ctx.finish("reconcile", &plan, extra)?;
    if reports.iter().any(|r| r.failed()) {
        return Err(crate::error::Error::input(
            "reconcile_step_failed",
            "a reconcile step failed; its marker was left so the next run retries it",
        )
        .hint("the other steps were applied; fix the cause named above and run `osctl reconcile` again"));
    }
    Ok(exit)
}
