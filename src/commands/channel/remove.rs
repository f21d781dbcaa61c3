//! `osctl channel remove`: credentials out of config.json and every runtime's own config.

use super::RemoveArgs;
use crate::channel;
use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::plan::Draft;

pub(super) fn run(ctx: &Ctx, args: &RemoveArgs) -> Result<Exit> {
    let ch = args.channel;
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    let rt = device.chosen(args.runtime)?;
    let mut draft = Draft::new(&ctx.fs);
    let applied = channel::plan_remove(&mut draft, &device, rt, ch)?;
    ctx.out.status(&format!("{ch}: {}", applied.detail));
    ctx.finish(
        &draft.finish(),
        &channel::Fields {
            applied: &applied,
            paths: None,
        },
    )
}
