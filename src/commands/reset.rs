//! `osctl reset [--reboot] [--keep-runtime-state]`: factory reset of the agent side of the
//! device. Logic in `reset/`.
//!
//! It plans the whole reset, shows it and asks (on a terminal; without one it needs `--yes`),
//! runs the active runtime's service actions and own reset commands, plans the files again
//! (those commands may have changed some) and applies them as one journaled plan. `--reboot`
//! reboots only after that plan is committed: a reboot mid-plan would leave a journal that the
//! next boot restores, undoing the reset.

use std::collections::HashSet;
use std::io::IsTerminal;

use super::Ctx;
use crate::apply;
use crate::cli::ResetArgs;
use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::plan::{Plan, ServiceAction, Step, render as plan_render};
use crate::reset::{self, Input, render};
use crate::system::services::Ran;

pub(super) fn run(ctx: &Ctx, args: &ResetArgs) -> Result<Exit> {
    let lock = ctx.lock()?;
    let mut device = reset::load_device(&ctx.fs, &ctx.env)?;
    // A switch killed before its commit point left its record (the lock has restored its
    // files). Its services are brought in line with config.json first, as `osctl reconcile`
    // does: the reset then stops the runtime that actually runs, and leaves no record of a
    // switch it made moot for a later run to act on.
    if ctx.converge_interrupted_switch(&lock, &device, "the reset")? {
        device = reset::load_device(&ctx.fs, &ctx.env)?;
    }
    let mounts = crate::system::mounts::read()?;
    let input = Input {
        device: &device,
        active: device.active()?,
        keep_runtime_state: args.keep_runtime_state,
        mounts: &mounts,
    };
    let planned = reset::plan(&ctx.fs, &input)?;
    let whole = planned.combined();
    let live = ctx.fs.is_live();
    let mut fields = Fields {
        active: input.active,
        reboot: args.reboot,
        deletes: render::totals(&whole),
        cleared: planned.cleared.clone(),
        runtime_actions: None,
        not_removed: Vec::new(),
        links_removed: planned.links.clone(),
    };
    if ctx.previewing() && !ctx.json && !ctx.check {
        for w in &whole.warnings {
            ctx.out.warn(w);
        }
        if !ctx.out.quiet && !ctx.no_diff {
            ctx.out.product(&render::listing(
                &whole,
                &planned.cleared,
                live,
                args.reboot,
            ));
        }
        if ctx.out.verbose > 0 {
            ctx.preview(&whole);
        }
        ctx.out.status(&format!(
            "dry-run: would change {}",
            plan_render::summary(&whole)
        ));
        return Ok(Exit::Success);
    }
    if ctx.previewing() {
        return ctx.finish(&whole, &fields);
    }
    let exit = if whole.is_empty() {
        ctx.finish(&whole, &fields)?
    } else {
        let Some(shown) = confirm(ctx, &whole, &planned.cleared, live, args.reboot)? else {
            return Ok(cancelled(ctx));
        };
        // Read before the first stop: a reset rolled back (or killed and restored by the next
        // run) puts the unit back as it was, not only its files.
        let undo = units_as_they_are(ctx, &whole)?;
        let mut runtime = planned.runtime;
        runtime.undo = undo.clone();
        let ran = apply_runtime(ctx, &runtime)?;
        for l in &planned.links {
            ctx.out.status(&format!(
                "removed the link {} (it led to {}, left untouched)",
                l.link, l.target
            ));
        }
        let (mut files, cleared) = if ran.commands > 0 {
            let again = reset::plan(&ctx.fs, &input)?;
            (again.files, again.cleared)
        } else {
            (planned.files, planned.cleared)
        };
        files.undo = undo;
        files.warnings.retain(|w| !shown.contains(w));
        fields.cleared = cleared;
        fields.runtime_actions = Some(ran);
        apply_files(ctx, files, &runtime, fields)?
    };
    if args.reboot {
        match ctx.services.run(&ServiceAction::Reboot)? {
            Ran::Done => ctx.out.status("rebooting"),
            Ran::SkippedOffline => ctx
                .out
                .status("not run (no systemd under this root): systemctl reboot"),
        }
    }
    Ok(exit)
}

/// The owner said no: nothing changed, and that is an answer, not an error (no `error:` line);
/// exit 1 all the same, so a script that asked for a reset knows none happened.
fn cancelled(ctx: &Ctx) -> Exit {
    let message = "reset cancelled; nothing changed";
    ctx.out.status(message);
    // Recorded for the JSON document (`ok: false`, `error.code: cancelled`), not printed.
    ctx.out
        .record_error(Error::new(Exit::Failed, "cancelled", message));
    Exit::Failed
}

/// How many paths a reset goes on without before it gives up (each one costs a whole
/// rolled-back try).
const MAX_LEFT: usize = 16;

/// Applies the reset's files as one journaled plan. A path that cannot be removed (`chattr +i`,
/// a read-only mount) rolls that try back whole; the reset then goes again without it (and
/// without the removal of a folder above it, which it keeps from being empty), so one
/// undeletable file does not keep the owner's other data on the device: exit 5 (partly
/// applied), naming each path left. The rollback of a try puts the unit back, so each retry
/// stops it again first (the runtime part's service actions, which are idempotent).
fn apply_files(ctx: &Ctx, mut files: Plan, runtime: &Plan, mut fields: Fields) -> Result<Exit> {
    let mut left: Vec<(String, String)> = Vec::new();
    loop {
        fields.not_removed = left.iter().map(|(p, _)| p.clone()).collect();
        match ctx.finish(&files, &fields) {
            Ok(exit) if left.is_empty() => return Ok(exit),
            // The rest landed: the run ends on the partly-applied error, which names each path.
            Ok(_) => return Err(not_removed(&left)),
            Err(e) => {
                let path = match &e.location {
                    Some(loc)
                        if e.exit == Exit::RolledBack
                            && e.message.starts_with("cannot remove ")
                            && left.len() < MAX_LEFT =>
                    {
                        DevPath::new(&loc.file)
                    }
                    _ => return Err(e),
                };
                let why = e.causes.first().cloned().unwrap_or_default();
                ctx.out.warn(&format!(
                    "cannot remove {path} ({why}); resetting the rest without it"
                ));
                left.push((path.to_string(), why));
                files = without(files, &path, runtime);
            }
        }
    }
}

/// `files` without the removal of `path` and of the folders above it, after the service
/// actions of the runtime part (the try before was rolled back, and put the unit back).
fn without(files: Plan, path: &DevPath, runtime: &Plan) -> Plan {
    let mut plan = Plan::new();
    for step in &runtime.steps {
        if let Step::Service(a) = step {
            plan.service(a.clone());
        }
    }
    let keep = |c: &crate::plan::FileChange| {
        let above = path.to_string().starts_with(&format!("{}/", c.path));
        !(c.path == *path || above && matches!(c.after, crate::plan::FileState::Absent))
    };
    for step in files.steps {
        match step {
            Step::File(c) if !keep(&c) => {}
            other => plan.steps.push(other),
        }
    }
    plan.warnings = files.warnings;
    plan.undo = files.undo;
    plan
}

/// The partly-applied error of a reset that left paths it could not remove.
fn not_removed(left: &[(String, String)]) -> Error {
    let mut e = Error::new(
        Exit::PartlyApplied,
        "reset_partly_applied",
        format!(
            "partly applied: the reset removed everything else, but could not remove {} path(s): {}",
            left.len(),
            left.iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    for (p, why) in left {
        e = e.cause(format!("{p}: {why}"));
    }
    e.hint("remove what is left by hand (for an immutable file: chattr -i, then rm), then run `osctl reset --yes` again")
}

/// Asks before deleting. `--yes` skips the question; without a terminal and without `--yes` the
/// reset is refused. Returns the warnings shown with the question (not repeated afterwards), or
/// `None` when the answer is no.
fn confirm(
    ctx: &Ctx,
    plan: &Plan,
    cleared: &[(DevPath, Vec<String>)],
    live: bool,
    reboot: bool,
) -> Result<Option<HashSet<String>>> {
    if ctx.yes {
        return Ok(Some(HashSet::new()));
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(Error::input(
            "confirmation_required",
            "a factory reset deletes the owner's data and asks first, but there is no terminal to ask on",
        )
        .hint("nothing was deleted; run it with --yes (or OSCTL_YES=1) to reset without asking, or with --dry-run to see what it would delete"));
    }
    for w in &plan.warnings {
        ctx.out.warn(w);
    }
    eprint!("{}", render::listing(plan, cleared, live, reboot));
    let yes = dialoguer::Confirm::new()
        .with_prompt("Reset this device? The paths above are deleted")
        .default(false)
        .interact()
        .map_err(|e| {
            Error::input("confirmation_failed", "could not read the answer")
                .cause(e.to_string())
                .hint("nothing was deleted")
        })?;
    if !yes {
        return Ok(None);
    }
    Ok(Some(plan.warnings.iter().cloned().collect()))
}

/// The service actions that give back the state of every unit the reset stops or disables:
/// `enable` for one that was enabled, `start` for one that was running (nothing when there is
/// no systemd to ask).
fn units_as_they_are(ctx: &Ctx, plan: &Plan) -> Result<Vec<ServiceAction>> {
    let mut units: Vec<String> = Vec::new();
    for step in &plan.steps {
        if let crate::plan::Step::Service(
            ServiceAction::Stop(u) | ServiceAction::Disable(u) | ServiceAction::DisableNow(u),
        ) = step
            && !units.contains(u)
        {
            units.push(u.clone());
        }
    }
    let Some(states) = ctx.services.show(&units)? else {
        return Ok(Vec::new());
    };
    let mut undo = Vec::new();
    for (unit, state) in units.iter().zip(&states) {
        if state.file == "enabled" {
            undo.push(ServiceAction::Enable(unit.clone()));
        }
        if matches!(state.active.as_str(), "active" | "activating" | "reloading") {
            undo.push(ServiceAction::Start(unit.clone()));
        }
    }
    Ok(undo)
}

/// `osctl reset`'s own `--json` fields.
#[derive(serde::Serialize)]
struct Fields {
    active: crate::runtime::RuntimeId,
    reboot: bool,
    /// How many files and folders the reset deletes.
    deletes: render::Totals,
    /// The values it clears, per file (masked).
    #[serde(serialize_with = "per_file")]
    cleared: Vec<(DevPath, Vec<String>)>,
    /// What the runtime part (its service actions, its own commands) did.
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime_actions: Option<apply::Applied>,
    /// Paths the reset went on without (exit 5).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_removed: Vec<String>,
    /// The symbolic links out of a runtime's tree the reset removes as links (their targets
    /// untouched).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links_removed: Vec<reset::LinkOut>,
}

/// `cleared` as an object: file → values, in the plan's order.
fn per_file<S: serde::Serializer>(
    cleared: &[(DevPath, Vec<String>)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(
        cleared
            .iter()
            .map(|(path, items)| (path.to_string(), items)),
    )
}

/// Runs the active runtime's service actions and own commands, after the removal of the links
/// out of a runtime's tree (its only file changes).
fn apply_runtime(ctx: &Ctx, plan: &Plan) -> Result<apply::Applied> {
    if plan.is_empty() {
        return Ok(apply::Applied::default());
    }
    let target = ctx.target();
    let ran = apply::apply(&target, plan)?;
    for skipped in &ran.skipped_offline {
        // Commands run only on the live device; service actions wherever systemd is reachable.
        if skipped.starts_with("run ") {
            ctx.out
                .status(&format!("not run (only on the live device): {skipped}"));
        } else {
            ctx.out
                .status(&format!("not run (no systemd under this root): {skipped}"));
        }
    }
    Ok(ran)
}
