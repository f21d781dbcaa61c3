//! `osctl recover`: restore what interrupted runs left behind (a power cut, a SIGKILL), from
//! their journals. Every run that changes the device does this first on its own; this command
//! does only that, for a field engineer who wants to see it happen.

use serde_json::json;

use super::Ctx;
use crate::apply::journal;
use crate::error::{Exit, Result};

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let pending = journal::pending(&ctx.fs)?;
    if ctx.previewing() {
        for p in &pending {
            ctx.out.product(&format!(
                "would restore {} path(s) from {} (interrupted run: {})\n",
                p.paths, p.path, p.command
            ));
        }
        if ctx.json {
            ctx.out.json_doc(
                "recover",
                json!({"ok": true, "pending": !pending.is_empty(), "journals": pending}),
            );
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
    let _lock = crate::apply::lock::DeviceLock::acquire(&ctx.fs, ctx.lock_timeout)?;
    let recovered = journal::recover_all(&ctx.fs)?;
    if ctx.json {
        ctx.out.json_doc(
            "recover",
            json!({"ok": true, "changed": !recovered.is_empty(), "recovered": recovered}),
        );
    }
    if recovered.is_empty() {
        ctx.out.status("nothing to do");
    }
    for r in &recovered {
        ctx.out.status(&format!(
            "restored {} path(s) left by an interrupted run ({}), journal {}",
            r.restored, r.command, r.id
        ));
    }
    Ok(Exit::Success)
}
