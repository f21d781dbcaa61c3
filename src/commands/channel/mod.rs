//! `osctl channel add|remove|list`: messaging channels. Logic in `channel/`.

mod add;
mod list;
mod remove;

use super::Ctx;
use crate::cli::channel::{AddArgs, ChannelCommand, ListArgs, RemoveArgs};
use crate::error::{Exit, Result};

pub(crate) fn name(cmd: &ChannelCommand) -> &'static str {
    match cmd {
        ChannelCommand::Add(_) => "channel add",
        ChannelCommand::Remove(_) => "channel remove",
        ChannelCommand::List(_) => "channel list",
    }
}

pub(crate) fn run(ctx: &Ctx, cmd: &ChannelCommand) -> Result<Exit> {
    match cmd {
        ChannelCommand::Add(args) => add::run(ctx, args),
        ChannelCommand::Remove(args) => remove::run(ctx, args),
        ChannelCommand::List(args) => list::run(ctx, args),
    }
}
