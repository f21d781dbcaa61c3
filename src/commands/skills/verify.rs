//! `osctl skills verify`: recompute the FolderHash of every skill (and hook) osctl installed and
//! compare it with the one recorded at install time. Read-only; exit 3 on drift, like `--check`.

use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::runtime::RuntimeId;
use crate::skills::list::{self, Row};

pub(super) fn run(ctx: &Ctx, runtime: Option<RuntimeId>) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = device.chosen(runtime)?;
    let rows: Vec<_> = list::rows(&ctx.fs, &device, rt)?
        .into_iter()
        .filter(|r| r.recorded_hash.is_some())
        .collect();
    let drifted: Vec<_> = rows.iter().filter(|r| r.drift.is_some()).collect();
    if ctx.json {
        ctx.out.report_of(&Report {
            runtime: rt,
            drift: !drifted.is_empty(),
            checked: rows.iter().map(Checked::of).collect(),
        })?;
    }
    for r in &drifted {
        let what = if r.kind == "hook" { "hook" } else { "skill" };
        ctx.out.warn(&format!(
            "{what} {} is {} since osctl installed it",
            r.name,
            r.drift.unwrap_or("changed")
        ));
    }
    if drifted.is_empty() {
        ctx.out.status(&format!(
            "{} installed skill(s) and hook(s) match what osctl installed",
            rows.len()
        ));
        return Ok(Exit::Success);
    }
    ctx.out.status(
        "`osctl skills sync` reinstalls a missing skill; to restore a modified one, remove its folder and sync",
    );
    Ok(Exit::Pending)
}

/// `osctl skills verify`'s `--json` fields.
#[derive(serde::Serialize)]
struct Report<'a> {
    runtime: RuntimeId,
    /// Whether any skill or hook drifted.
    drift: bool,
    checked: Vec<Checked<'a>>,
}

/// One skill or hook osctl installed: its hash now and at install time.
#[derive(serde::Serialize)]
struct Checked<'a> {
    name: &'a str,
    kind: &'static str,
    drift: Option<&'static str>,
    hash: Option<&'a str>,
    recorded_hash: Option<&'a str>,
}

impl<'a> Checked<'a> {
    fn of(r: &'a Row) -> Self {
        Checked {
            name: &r.name,
            kind: r.kind,
            drift: r.drift,
            hash: r.hash.as_deref(),
            recorded_hash: r.recorded_hash.as_deref(),
        }
    }
}
