//! `osctl recover`: restore what interrupted runs left behind (a power cut, a SIGKILL), from
//! their journals. Every run that changes the device does this first on its own; this command
//! does only that, for a field engineer who wants to see it happen. A path that could not be put
//! back is named with where its original is kept (exit 5); the journal does not stay in the way
//! of later runs.

use serde_json::json;

use super::{Ctx, recovered_lines};
use crate::apply::journal;
use crate::apply::lock::DeviceLock;
use crate::error::{Error, Exit, Result};

pub(super) fn run(ctx: &Ctx) -> Result<Exit> {
    let pending = journal::pending(&ctx.fs)?;
    if ctx.previewing() {
        for p in &pending {
            let line = match &p.refused {
                Some(why) => format!("would refuse {}: {why}\n", p.path),
                None if p.rolls_forward => format!(
                    "would keep the files of {} and finish its service actions (interrupted run: {})\n",
                    p.path, p.command
                ),
                None => format!(
                    "would restore {} path(s) from {} (interrupted run: {})\n",
                    p.paths, p.path, p.command
                ),
            };
            ctx.out.product(&line);
        }
        if ctx.json {
            ctx.out
                .report(json!({"pending": !pending.is_empty(), "journals": pending}));
        }
        if pending.is_empty() {
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
    if ctx.json {
        ctx.out
            .report(json!({"changed": !recovered.is_empty(), "recovered": recovered}));
    }
    if recovered.is_empty() {
        ctx.out.status("nothing to do");
    }
    for r in &recovered {
        for line in recovered_lines(r) {
            ctx.out.status(&line);
        }
    }
    Ok(Exit::Success)
}
