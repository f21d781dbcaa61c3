//! `osctl reconcile [--only STEP]`: the reconcilers the daemon runs at boot and the switch runs
//! after its commit point, each step its own transaction. Logic in `reconcile/`. A switch that
//! was killed before it finished is converged first (its services brought in line with
//! config.json; `switch/converge.rs`). A preview shows each step's diff on the state the steps
//! before it leave.

use serde_json::Value;

use super::Ctx;
use crate::cli::ReconcileArgs;
use crate::error::{Error, Exit, Result};
use crate::plan::{Draft, Plan, render};
use crate::reconcile::{self, StepLine, StepName};
use crate::runtime::RuntimeId;

pub(super) fn run(ctx: &Ctx, args: &ReconcileArgs) -> Result<Exit> {
    let lock = ctx.lock()?;
    let mut device = ctx.device()?;
    let t = ctx.target();
    if ctx.converge_interrupted_switch(&lock, &device, "a reconcile that changes the device")? {
        device = ctx.device()?;
    }
    let steps: Vec<StepName> = match args.only {
        Some(step) => vec![step],
        None => StepName::ALL.to_vec(),
    };
    let now = crate::clock::now_secs();
    if ctx.previewing() {
        let mut draft = Draft::new(&ctx.fs);
        let planned = reconcile::preview(&mut draft, &device, &steps, now)?;
        let rows = planned
            .iter()
            .map(|p| (&p.report, &p.plan, None, &[][..]))
            .collect::<Vec<_>>();
        let failure = planned.iter().any(|p| p.report.failed()).then(|| {
            Error::input(
                "reconcile_step_failed",
                "a reconcile step cannot be planned; a run would leave its marker for the next run to retry",
            )
            .hint("the other steps would be applied; fix the cause named above and run `osctl reconcile` again")
        });
        return report(ctx, &rows, &device, failure);
    }
    let ran = reconcile::run(&t, &device, &steps, now)?;
    let rows = ran
        .iter()
        .map(|r| {
            let skipped = r
                .applied
                .as_ref()
                .map_or(&[][..], |a| &a.skipped_offline[..]);
            (&r.report, &r.plan, Some(r.outcome), skipped)
        })
        .collect::<Vec<_>>();
    report(ctx, &rows, &device, reconcile::verdict(&steps, &ran))
}

/// A step's report, its plan, what became of it (none in a preview), and the service actions
/// its apply could not run for want of systemd.
type Row<'a> = (
    &'a reconcile::StepReport,
    &'a Plan,
    Option<reconcile::StepOutcome>,
    &'a [String],
);

/// Prints the steps (their lines on stderr; the diffs of a preview, or with -v of a run, on
/// stdout), fills the run's report and returns the exit.
fn report(
    ctx: &Ctx,
    rows: &[Row<'_>],
    device: &crate::device::Device,
    failure: Option<Error>,
) -> Result<Exit> {
    let previewing = ctx.previewing();
    let mut all = Plan::new();
    let mut steps = Vec::new();
    for (r, plan, outcome, _) in rows {
        for w in &plan.warnings {
            ctx.out.warn(w);
        }
        if r.failed() {
            ctx.out.warn(&r.line());
        } else {
            ctx.out.status(&r.line());
        }
        steps.push(StepLine {
            report: r,
            outcome: *outcome,
        });
        if outcome.is_none_or(|o| o == reconcile::StepOutcome::Applied) {
            all.steps.extend(plan.steps.iter().cloned());
        }
    }
    let changed = !all.is_empty();
    if changed && (previewing || ctx.out.verbose > 0) {
        ctx.preview(&all);
    }
    for skipped in rows.iter().flat_map(|(_, _, _, s)| s.iter()) {
        ctx.out
            .status(&format!("not run (no systemd under this root): {skipped}"));
    }
    if !changed {
        if failure.is_none() {
            ctx.out.status("nothing to do");
        }
    } else if previewing {
        let mode = if ctx.check { "check" } else { "dry-run" };
        ctx.out
            .status(&format!("{mode}: would change {}", render::summary(&all)));
    } else {
        ctx.out
            .status(&format!("changed {}", render::summary(&all)));
    }
    let exit = match &failure {
        Some(e) => e.exit,
        None if ctx.check && changed => Exit::Pending,
        None => Exit::Success,
    };
    ctx.out.report_of(&Report {
        changed: changed && !previewing,
        pending: changed && previewing,
        active: device.active().ok(),
        steps,
        plan: render::json(&all),
    })?;
    if let Some(e) = &failure {
        ctx.out.error(e);
    }
    Ok(exit)
}

/// `osctl reconcile`'s `--json` fields.
#[derive(serde::Serialize)]
struct Report<'a> {
    changed: bool,
    pending: bool,
    active: Option<RuntimeId>,
    steps: Vec<StepLine<'a>>,
    /// Every step's plan together (in a run, of the steps applied).
    plan: Value,
}
