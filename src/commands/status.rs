//! `osctl status`: which runtime is active and why, and the state of every runtime
//! ([`crate::status`] gathers and renders it). Read-only: it takes no lock and writes nothing.

use super::Ctx;
use crate::cli::StatusArgs;
use crate::error::{Exit, Result};
use crate::status;

pub(super) fn run(ctx: &Ctx, _args: &StatusArgs) -> Result<Exit> {
    let report = status::gather(&ctx.fs, &ctx.env, &ctx.services)?;
    for w in &report.run_warnings {
        ctx.out.warn(w);
    }
    if !ctx.json {
        // With `--json` these are the document's fields; in text they are notes about the device
        // and this run, so they go to stderr, before the table, which stays the product.
        for w in &report.warnings {
            ctx.out.warn(w);
        }
        if let Some(why) = &report.unit_states_unavailable {
            ctx.out
                .status(&format!("(unit states are not available: {why})"));
        }
    }
    ctx.out.render(&report)?;
    Ok(Exit::Success)
}
