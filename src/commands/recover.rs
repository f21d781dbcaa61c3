//! `osctl recover`: restore what interrupted runs left behind (a power cut, a SIGKILL), from
//! their journals. Every run that changes the device does this first on its own; this command
//! does only that, for a field engineer who wants to see it happen. A path that could not be put
//! back is named with where its original is kept (exit 5); the journal does not stay in the way
//! of later runs. A switch killed before its commit point also leaves its record: once its files
//! are restored, its services are brought in line with config.json, as `osctl reconcile` and the
//! next `osctl switch` do, so a recovered device is never left with no runtime running.
//! A preview's report (`--dry-run`, `--check`) is one typed [`Preview`], rendered by the printer.

use std::fmt;

use super::{Ctx, recovered_lines};
use crate::apply::journal;
use crate::apply::lock::DeviceLock;
use crate::error::{Error, Exit, Result};
use crate::switch::{converge, record};

pub(super) fn run(ctx: &Ctx) -> Result<Exit> {
    let pending = journal::pending(&ctx.fs)?;
    let interrupted_switch = match record::read(&ctx.fs)? {
        Some(r) if !crate::apply::lock::held(&ctx.fs)? => Some(r),
        _ => None,
    };
    if ctx.previewing() {
        let anything = !pending.is_empty() || interrupted_switch.is_some();
        ctx.out.render(&Preview {
            pending: anything,
            journals: &pending,
            interrupted_switch: interrupted_switch.as_ref(),
        })?;
        if !anything {
            ctx.out.status("nothing to do");
            return Ok(Exit::Success);
        }
        return Ok(if ctx.check {
            Exit::Pending
        } else {
            Exit::Success
        });
    }
    let _lock = DeviceLock::acquire_as(&ctx.fs, ctx.lock_timeout, &ctx.holder(), false)?;
    let recovered = journal::recover_all(&ctx.fs, &ctx.services)?;
    let failed: Vec<&journal::Recovered> = recovered
        .iter()
        .filter(|r| !r.outcome.failed.is_empty())
        .collect();
    if let Some(first) = failed.first() {
        let mut err = Error::new(
            Exit::PartlyApplied,
            "rollback_incomplete",
            format!(
                "could not restore every original of the journal {}",
                journal::journal_root().join(&first.id)
            ),
        );
        for r in &failed {
            for line in r.outcome.failed.iter().chain(&r.outcome.left) {
                err = err.cause(line.clone());
            }
        }
        let kept: Vec<String> = failed
            .iter()
            .filter_map(|r| r.outcome.kept.as_ref().map(|k| k.to_string()))
            .collect();
        return Err(if kept.is_empty() {
            err.hint("fix the cause, then run `osctl recover` again")
        } else {
            err.hint(format!(
                "the originals are kept in {} (see its manifest.json); put back what is needed by hand: later osctl runs do not retry them",
                kept.join(", ")
            ))
        });
    }
    for r in &recovered {
        for line in recovered_lines(r) {
            ctx.out.status(&line);
        }
    }
    // The files are back; now the services of a switch killed before its commit point.
    let converged = match record::read(&ctx.fs)? {
        Some(_) => {
            let t = ctx.target();
            converge::if_interrupted(&t, &ctx.device()?)?
        }
        None => None,
    };
    if ctx.json {
        ctx.out.report_of(&Run {
            changed: !recovered.is_empty()
                || converged.as_ref().is_some_and(|c| !c.actions.is_empty()),
            recovered: &recovered,
            switch: converged.as_ref(),
        })?;
    }
    if recovered.is_empty() && converged.is_none() {
        ctx.out.status("nothing to do");
    }
    Ok(Exit::Success)
}

/// What `osctl recover --dry-run` reports: what a run would restore (the `--json` fields), and
/// in text one line per journal and for the interrupted switch.
#[derive(serde::Serialize)]
struct Preview<'a> {
    pending: bool,
    journals: &'a [journal::Pending],
    interrupted_switch: Option<&'a record::Record>,
}

impl fmt::Display for Preview<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in self.journals {
            match &p.refused {
                Some(why) => writeln!(f, "would refuse {}: {why}", p.path)?,
                None if p.rolls_forward => writeln!(
                    f,
                    "would keep the files of {} and finish its service actions (interrupted run: {})",
                    p.path, p.command
                )?,
                None => writeln!(
                    f,
                    "would restore {} path(s) from {} (interrupted run: {})",
                    p.paths, p.path, p.command
                )?,
            }
        }
        if let Some(r) = self.interrupted_switch {
            if converge::untouched(r) {
                writeln!(
                    f,
                    "would drop the record of a switch from {} to {} stopped before it touched a unit; the services stay as they are",
                    r.from, r.to
                )?;
            } else {
                writeln!(
                    f,
                    "would bring the services in line with config.json (a switch from {} to {} was interrupted)",
                    r.from, r.to
                )?;
            }
        }
        Ok(())
    }
}

/// `osctl recover`'s `--json` fields: what it restored, and the switch it converged.
#[derive(serde::Serialize)]
struct Run<'a> {
    changed: bool,
    recovered: &'a [journal::Recovered],
    switch: Option<&'a converge::Converged>,
}
