//! `osctl setup`: install osctl's own systemd units (the boot pass, the skills timer) and the
//! presync drop-ins of the runtime units that exist, on the live device or on a mounted image
//! (`--root IMAGE`). Logic in `setup/`.

use super::Ctx;
use crate::cli::SetupArgs;
use crate::error::{Exit, Result};
use crate::plan::Draft;
use crate::setup::{self, State};

pub(super) fn run(ctx: &Ctx, _args: &SetupArgs) -> Result<Exit> {
    let _lock = ctx.lock()?;
    let mut draft = Draft::new(&ctx.fs);
    let report = setup::plan(&mut draft)?;
    for u in &report.units {
        match u.state {
            State::Packaged => ctx.out.status(&format!(
                "{}: installed by the osctl package ({})",
                u.unit, u.path
            )),
            State::Masked => {}
            _ => ctx.out.detail(&format!("{}: {}", u.unit, u.path)),
        }
    }
    if !report.runtimes_without_unit.is_empty() {
        ctx.out.status(&format!(
            "no presync drop-in for {} (no unit yet: `osctl switch` writes it when it installs the runtime)",
            report.runtimes_without_unit.join(", ")
        ));
    }
    let plan = draft.finish();
    ctx.finish(&plan, &report)
}
