//! `osctl channel add|remove|list`: messaging channels. Logic in `channel/`.

mod add;
mod list;
mod remove;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::Ctx;
use crate::error::{Exit, Result};
use crate::runtime::Channel;

#[derive(Debug, Subcommand)]
pub enum ChannelCommand {
    /// Set up a channel on the active runtime: capability check first (a channel the runtime
    /// cannot run is refused and nothing is written), then the credentials go into config.json,
    /// then the runtime gets them (its own config where it runs the channel itself; nothing to
    /// write where the device's loop runs it).
    ///
    /// telegram: --token, --user-id. slack: --token plus --app-token (socket mode) or
    /// --signing-secret (HTTP mode), --user-id. discord: --token, --guild-id, --user-id.
    /// whatsapp: --user-id (an E.164 number). Tokens can come from a file or standard input
    /// (--token-file, --app-token-file; `-` = standard input) instead of the command line.
    Add(AddArgs),

    /// Remove a channel: its credentials leave config.json and every runtime's own config.
    Remove(RemoveArgs),

    /// The channels configured in config.json, which the active runtime can run, and who runs
    /// them.
    List(ListArgs),
}

/// The channels `channel add` sets up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AddChannel {
    Telegram,
    Slack,
    Discord,
    Whatsapp,
}

impl From<AddChannel> for Channel {
    fn from(c: AddChannel) -> Channel {
        match c {
            AddChannel::Telegram => Channel::Telegram,
            AddChannel::Slack => Channel::Slack,
            AddChannel::Discord => Channel::Discord,
            AddChannel::Whatsapp => Channel::Whatsapp,
        }
    }
}

#[derive(Debug, Args)]
pub struct AddArgs {
    #[arg(value_enum)]
    pub channel: AddChannel,

    /// The bot token (telegram, slack, discord).
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,

    /// Read the bot token from a file (its first line); `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// The user allowed to talk to the bot (telegram id, slack/discord user id, whatsapp E.164).
    #[arg(long, value_name = "ID")]
    pub user_id: Option<String>,

    /// Slack's app-level token (socket mode).
    #[arg(long, value_name = "TOKEN", conflicts_with = "app_token_file")]
    pub app_token: Option<String>,

    /// Read Slack's app-level token from a file; `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub app_token_file: Option<PathBuf>,

    /// Slack's signing secret (HTTP mode).
    #[arg(long, value_name = "SECRET")]
    pub signing_secret: Option<String>,

    /// The Discord server (guild) id.
    #[arg(long, value_name = "ID")]
    pub guild_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    #[arg(value_enum)]
    pub channel: Channel,
}

#[derive(Debug, Args)]
pub struct ListArgs {}

pub fn name(cmd: &ChannelCommand) -> &'static str {
    match cmd {
        ChannelCommand::Add(_) => "channel add",
        ChannelCommand::Remove(_) => "channel remove",
        ChannelCommand::List(_) => "channel list",
    }
}

pub fn run(ctx: &Ctx, cmd: &ChannelCommand) -> Result<Exit> {
    match cmd {
        ChannelCommand::Add(args) => add::run(ctx, args),
        ChannelCommand::Remove(args) => remove::run(ctx, args),
        ChannelCommand::List(_) => list::run(ctx),
    }
}
