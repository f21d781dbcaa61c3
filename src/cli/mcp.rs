//! `osctl mcp add|remove|list`, as clap types (the help text). What they do is in
//! `commands/mcp/` and `mcp/`.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};

use crate::runtime::mcp::Remote;
use crate::runtime::{RuntimeId, RuntimeParser};

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Add an MCP server to a runtime: `mcp add NAME -- CMD [ARGS...]` (a local server) or
    /// `mcp add NAME --url URL [--header KEY=VALUE]...` (a remote one).
    ///
    /// The entry is written in the runtime's own form (openclaw `mcp.servers`, hermes
    /// `mcp_servers`, picoclaw `tools.mcp.servers`, codex `[mcp_servers.NAME]`, Claude Code
    /// `workspace/.mcp.json`, opencode `mcp`); every other entry, key and comment of the file
    /// stays. The runtime's unit is restarted if it is running and the file changed. Header and
    /// env values that look like secrets never appear in output; pass them through
    /// `--header-file`/`--env-file` (`-` = standard input) to keep them off the command line.
    Add(AddArgs),

    /// Remove an MCP server from a runtime's own file (nothing to do when it is not there).
    Remove(RemoveArgs),

    /// List a runtime's MCP servers, read from its own file.
    List(ListArgs),
}

#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("server").required(true).args(["url", "command"])),
    override_usage = "osctl mcp add [OPTIONS] NAME [--env KEY=VALUE]... -- CMD [ARGS]...\n       \
                      osctl mcp add [OPTIONS] NAME --url URL [--header KEY=VALUE]..."
)]
pub struct AddArgs {
    /// The server's name (letters, digits, `_`, `-`). With `--user-tool`, the tool's name: the
    /// server is `tool_NAME`.
    pub name: String,

    /// A remote server's URL.
    #[arg(long, value_name = "URL", conflicts_with_all = ["env", "env_file"])]
    pub url: Option<String>,

    /// The remote protocol.
    #[arg(long, value_enum, default_value_t = Remote::Http, requires = "url")]
    pub transport: Remote,

    /// A header of a remote server, `KEY=VALUE` (or `KEY: VALUE`); repeatable.
    #[arg(long = "header", value_name = "KEY=VALUE", requires = "url")]
    pub headers: Vec<String>,

    /// Headers from a file, one `KEY=VALUE` (or `KEY: VALUE`) per line; `-` reads standard input.
    #[arg(long, value_name = "FILE", requires = "url")]
    pub header_file: Option<PathBuf>,

    /// An environment variable of a local server, `KEY=VALUE`; repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,

    /// Environment variables from a file, one `KEY=VALUE` per line; `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub env_file: Option<PathBuf>,

    /// The runtime to add it to (default: the active runtime).
    #[arg(long, value_parser = RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<RuntimeId>,

    /// Also record it in config.json `mcp_tools` as a user tool (remote servers only), as the
    /// device does: the runtime's server is then `tool_NAME`.
    #[arg(long, requires = "url")]
    pub user_tool: bool,

    /// Replace an existing server of that name (`--force` is an alias).
    #[arg(long, visible_alias = "force")]
    pub replace: bool,

    /// Write to a runtime that is not installed: its config waits for it.
    #[arg(long)]
    pub allow_uninstalled: bool,

    /// A local server's command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The server's name (with `--user-tool`, the tool's name).
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::mcp_server_candidates))]
    pub name: String,

    /// The runtime to remove it from (default: the active runtime).
    #[arg(long, value_parser = RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<RuntimeId>,

    /// Remove the user tool NAME: its entry in config.json `mcp_tools` and the server `tool_NAME`.
    #[arg(long)]
    pub user_tool: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The runtime whose servers to list (default: the active runtime).
    #[arg(long, value_parser = RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<RuntimeId>,
}
