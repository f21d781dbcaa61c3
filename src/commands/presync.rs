//! `osctl presync [RUNTIME]`: heal a runtime's native configuration before it starts. Logic in
//! `presync/`.
//!
//! The boot path (`ExecStartPre=`) is mostly a device already in sync, so presync first plans
//! without the device lock: an empty plan ends there without a single write, not even to the
//! lock file, and without waiting for a lock another osctl run holds (a switch that starts this
//! runtime holds it while the unit starts, after it wrote presync's files itself). Anything to do
//! takes the lock, except in a run systemd started as the unit's own `ExecStartPre=` while
//! another osctl run holds it: that run is starting the unit and waits for this presync, so this
//! one says so and ends (waiting would only time out). The plan is made again only when the lock
//! restored an interrupted run, or when a file changed while the plan read it or under the apply
//! (which stops it and rolls it back). A journal left by an interrupted run (on disk while the
//! lock is free) always takes the lock and is restored first; one a finished run left (its
//! cleanup cut short) takes the lock and is removed.
//!
//! On the live device, a run whose plan ran programs (hermes' skills restore, picoclaw's
//! migrate or onboard) plans once more without programs and applies that too: a program may
//! have rewritten files presync owns, and the runtime should start from healed files.

use super::Ctx;
use crate::apply::journal;
use crate::cli::PresyncArgs;
use crate::error::{Exit, Result};
use crate::plan::{Draft, Plan};
use crate::presync::{self, Report, Scope};
use crate::runtime::RuntimeId;

pub(super) fn run(ctx: &Ctx, args: &PresyncArgs) -> Result<Exit> {
    // A journal on disk while no run holds the lock is an interrupted run's: it is restored
    // before the runtime starts, even when presync's own files look in sync (the device may be
    // half through another command, or a finished run's journal would be rolled back later by
    // whichever run takes the lock next). A finished run's journal whose cleanup was cut short
    // (killed after its last write) is removed the same way, so the originals it holds do not
    // outlive the run by more than a boot. While another run holds the lock, a journal is that
    // run's own and the shortcut stands.
    let mut held = None;
    if !ctx.previewing() && journal::any(&ctx.fs)? {
        held = ctx.try_lock()?;
    }
    let unlocked = if ctx.previewing() || held.is_some() {
        None
    } else {
        match plan(ctx, args, true) {
            Ok((planned, report)) if planned.is_empty() => {
                return ctx.finish(&planned, &Fields::of(&report));
            }
            Ok(p) => Some(p),
            // A file changed while this plan read it (another run holds the lock and is
            // writing): plan again once the lock is ours.
            Err(e) if e.code == "changed_underfoot" => None,
            Err(e) => return Err(e),
        }
    };
    let interrupted = !journal::pending(&ctx.fs)?.is_empty();
    let _lock = match held {
        Some(lock) => Some(lock),
        None if ctx.previewing() => ctx.lock()?,
        None => match ctx.try_lock()? {
            Some(lock) => Some(lock),
            None => {
                if let Some((_, report)) = &unlocked
                    && started_by_its_own_unit(ctx, report.runtime)
                {
                    return not_run_for_the_holder(ctx, report);
                }
                ctx.lock()?
            }
        },
    };
    // The plan made without the lock stands unless the lock restored an interrupted run. Apply
    // re-checks every file against what the plan read, so a file another run changed in
    // between stops the apply (all rolled back); that is planned again, once.
    let (planned, report) = match unlocked {
        Some(p) if !interrupted => p,
        _ => plan(ctx, args, true)?,
    };
    let exit = match ctx.finish(&planned, &Fields::of(&report)) {
        Err(e) if e.code == "changed_underfoot" => {
            ctx.out.warn(&format!("{e}; planning again"));
            let (planned, report) = plan(ctx, args, true)?;
            ctx.finish(&planned, &Fields::of(&report))?
        }
        other => other?,
    };
    if ctx.fs.is_live() && !ctx.previewing() && !report.commands.is_empty() {
        let (settle, report) = plan(ctx, args, false)?;
        if !settle.is_empty() {
            ctx.out.status("settling what the programs changed");
            return ctx.finish(&settle, &Fields::of(&report));
        }
    }
    Ok(exit)
}

/// Whether systemd started this run as `rt`'s own `ExecStartPre=` (the presync drop-in). An
/// osctl run that holds the lock while it starts or restarts that unit (a switch starting its
/// target, `mcp add` restarting the runtime) waits for the start, and the start waits for this
/// presync: queueing for the lock would only time out (30 s) with the agent held back. Seen with
/// a real runtime whose presync plans a program on every start (a skills restore).
fn started_by_its_own_unit(ctx: &Ctx, rt: RuntimeId) -> bool {
    ctx.fs.is_live()
        && crate::system::services::own_unit()
            .is_some_and(|unit| unit.strip_suffix(".service") == Some(rt.spec().unit))
}

/// Ends a run that must not wait for the lock ([`started_by_its_own_unit`]): nothing written,
/// and a warning that names the holder.
fn not_run_for_the_holder(ctx: &Ctx, report: &Report) -> Result<Exit> {
    let holder = crate::apply::lock::holder(&ctx.fs)
        .map_or_else(|| "another osctl run".to_string(), |h| h.describe());
    ctx.out.warn(&format!(
        "presync {} not run: {holder} holds the device lock and is starting this unit, which waits for this presync; that run wrote what it changed, and the next start runs presync",
        report.runtime
    ));
    ctx.finish(&Draft::new(&ctx.fs).finish(), &Fields::of(report))
}

fn plan(ctx: &Ctx, args: &PresyncArgs, commands: bool) -> Result<(Plan, Report)> {
    let device = ctx.device()?;
    let rt = device.chosen(args.runtime)?;
    let mut draft = Draft::new(&ctx.fs);
    let report = presync::plan_with(&mut draft, &device, rt, Scope::All, commands).map_err(|e| {
        e.or_hint(format!(
            "nothing was written; fix the file and run `osctl presync {rt}` again (`--dry-run` shows the plan)"
        ))
    })?;
    Ok((draft.finish(), report))
}

/// `osctl presync`'s own `--json` fields.
#[derive(serde::Serialize)]
struct Fields<'a> {
    runtime: RuntimeId,
    llm_config_mode: &'a str,
    commands: &'a [String],
}

impl<'a> Fields<'a> {
    fn of(report: &'a Report) -> Self {
        Fields {
            runtime: report.runtime,
            llm_config_mode: report.llm_config_mode,
            commands: &report.commands,
        }
    }
}
