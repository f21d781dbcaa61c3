//! `osctl doctor`: the field engineer's first command. [`crate::doctor`] gathers facts about the
//! device and judges them into a typed report (the `--json` fields and, through its `Display`,
//! the text). Read-only: no lock, no write.
//!
//! Exit 0 when the device is healthy, 3 when there are findings, 1 only when doctor itself
//! cannot run (a root that is not a folder, a read that fails outside any file it checks).

use std::path::Path;

use super::Ctx;
use crate::doctor;
use crate::error::{Exit, Result};

/// `root`: `--root` as the user gave it, so every path doctor shows opens from where they are.
pub(super) fn run(ctx: &Ctx, root: &Path) -> Result<Exit> {
    let facts = doctor::gather(&ctx.fs, &ctx.env, &ctx.services, root)?;
    let report = doctor::judge(&facts);
    ctx.out.render(&report)?;
    Ok(if report.healthy {
        Exit::Success
    } else {
        Exit::Pending
    })
}
