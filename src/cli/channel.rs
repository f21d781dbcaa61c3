//! `osctl channel add|remove|list`, as clap types (the help text). What they do is in
//! `commands/channel/` and `channel/`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::runtime::{Channel, RuntimeId, RuntimeParser};

#[derive(Debug, Subcommand)]
pub enum ChannelCommand {
    /// Set up a channel on a runtime (default: the active one): capability check first (a channel the runtime
    /// cannot run is refused and nothing is written), then the credentials go into config.json,
    /// then the runtime gets them (its own config where it runs the channel itself; nothing to
    /// write where the device's loop runs it).
    ///
    /// telegram: --token, --user-id. slack: --token plus --app-token (socket mode) or
    /// --signing-secret (HTTP mode), --user-id. discord: --token, --guild-id, --user-id.
    /// whatsapp: --user-id (an E.164 number). Tokens can come from a file or standard input
    /// (--token-file, --app-token-file; `-` = standard input) instead of the command line.
    /// imessage (BlueBubbles) is set up in config.json's bluebubbles_* fields, not here.
    ///
    /// Where the runtime runs the channel itself, presync writes its native config as part of
    /// the add; the summary lists every path that changes.
    Add(AddArgs),

    /// Remove a channel: its credentials leave config.json and every runtime's own config.
    Remove(RemoveArgs),

    /// The channels configured in config.json, which ones a runtime (default: the active one)
    /// can run, who runs them, and which `channel add` sets up.
    List(ListArgs),
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The channel (every channel a runtime can run is accepted here; one that `channel add`
    /// cannot set up, or the runtime cannot run, is refused with the reason).
    #[arg(value_enum)]
    pub channel: Channel,

    /// The runtime to set it up on (default: the active runtime).
    #[arg(long, value_parser = RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<RuntimeId>,

    /// Write to a runtime that is not installed: its config waits for it.
    #[arg(long)]
    pub allow_uninstalled: bool,

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
    #[arg(long, value_name = "SECRET", conflicts_with = "signing_secret_file")]
    pub signing_secret: Option<String>,

    /// Read Slack's signing secret from a file; `-` reads standard input (keeps it off the
    /// command line, where other users of the device can read it).
    #[arg(long, value_name = "FILE")]
    pub signing_secret_file: Option<PathBuf>,

    /// The Discord server (guild) id.
    #[arg(long, value_name = "ID")]
    pub guild_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The channel.
    #[arg(value_enum,
          add = clap_complete::ArgValueCompleter::new(super::complete::configured_channel_candidates))]
    pub channel: Channel,

    /// The runtime whose unit is restarted when its own config held the channel (default: the
    /// active runtime). The credentials leave config.json and every runtime's config either way.
    #[arg(long, value_parser = RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<RuntimeId>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The runtime whose channel support to show (default: the active runtime).
    #[arg(long, value_parser = RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<RuntimeId>,
}
