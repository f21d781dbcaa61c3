//! `osctl skills sync|list|verify`. Logic in `skills/`.

mod list;
mod sync;
mod verify;

use super::Ctx;
use crate::cli::SkillsCommand;
use crate::error::{Exit, Result};

pub(super) fn name(cmd: &SkillsCommand) -> &'static str {
    match cmd {
        SkillsCommand::Sync(_) => "skills sync",
        SkillsCommand::List(_) => "skills list",
        SkillsCommand::Verify(_) => "skills verify",
    }
}

pub(super) fn run(ctx: &Ctx, cmd: &SkillsCommand) -> Result<Exit> {
    match cmd {
        SkillsCommand::Sync(args) => sync::run(ctx, args),
        SkillsCommand::List(args) => list::run(ctx, args.runtime),
        SkillsCommand::Verify(args) => verify::run(ctx, args.runtime),
    }
}
