//! `osctl reconcile [--only STEP]`: the reconcilers the daemon runs at boot and the switch runs
//! after its commit point. Logic in `reconcile/`.

use serde_json::{Map, json};

use super::Ctx;
use crate::cli::ReconcileArgs;
use crate::error::{Exit, Result};
use crate::plan::Draft;
use crate::reconcile::{self, Input, Status, StepName, StepReport};

pub fn run(ctx: &Ctx, args: &ReconcileArgs) -> Result<Exit> {
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
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
    let reports: Vec<StepReport> = steps
        .iter()
        .map(|&step| reconcile::plan_step(&mut draft, &input, step))
        .collect();
    for r in &reports {
        let line = format!(
            "{}: {} ({})",
            r.step.as_str(),
            status_word(&r.status),
            r.detail
        );
        if r.status == Status::Failed {
            ctx.out.warn(&line);
        } else {
            ctx.out.status(&line);
        }
    }
    let plan = draft.finish();
    let mut extra = Map::new();
    extra.insert("active".into(), json!(input.active));
    extra.insert("steps".into(), json!(reports));
    let exit = ctx.finish("reconcile", &plan, extra)?;
    if reports.iter().any(|r| r.status == Status::Failed) {
        return Err(crate::error::Error::input(
            "reconcile_step_failed",
            "a reconcile step failed; its marker was left so the next run retries it",
        )
        .hint("the other steps were applied; fix the cause named above and run `osctl reconcile` again"));
    }
    Ok(exit)
}

fn status_word(s: &Status) -> &'static str {
    match s {
        Status::UpToDate => "up to date",
        Status::Baseline => "baseline recorded",
        Status::Reconciled => "reconciled",
        Status::Skipped => "skipped",
        Status::NotAvailable => "not available",
        Status::Failed => "failed",
    }
}
