//! `osctl mcp add|remove|list`: MCP servers in a runtime's own file. Logic in `mcp/`.

mod add;
mod list;
mod remove;

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};

use super::Ctx;
use crate::error::{Exit, Result};
use crate::mcp::Remote;
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
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::commands::mcp_server_candidates))]
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

/// The name each subcommand reports itself as.
pub(crate) fn name(cmd: &McpCommand) -> &'static str {
    match cmd {
        McpCommand::Add(_) => "mcp add",
        McpCommand::Remove(_) => "mcp remove",
        McpCommand::List(_) => "mcp list",
    }
}

pub(crate) fn run(ctx: &Ctx, cmd: &McpCommand) -> Result<Exit> {
    match cmd {
        McpCommand::Add(args) => add::run(ctx, args),
        McpCommand::Remove(args) => remove::run(ctx, args),
        McpCommand::List(args) => list::run(ctx, args),
    }
}

/// Refuses a change aimed with `--runtime` at a runtime that is not installed (`runtime_not_installed`,
/// exit 1), unless `--allow-uninstalled` (then a warning): its config would be written for a program that is not there, and no
/// unit would pick it up. "Installed" is what `status` and `switch` mean by it (the unit exists
/// and the verify hook passes, [`crate::runtime::install`]). The active runtime is not checked:
/// it is the one the device runs, and when it is broken `status` says so and `switch` mends it.
pub(crate) fn require_installed(
    ctx: &Ctx,
    device: &crate::device::Device,
    rt: RuntimeId,
    allow_uninstalled: bool,
) -> Result<()> {
    if device.active().ok() == Some(rt) {
        return Ok(());
    }
    let state = crate::runtime::install::inspect(&ctx.fs, rt.spec())?;
    if state.installed() {
        return Ok(());
    }
    if allow_uninstalled {
        ctx.out.warn(&format!(
            "{rt} is not installed on this device ({}); --allow-uninstalled writes its config for when it is",
            state.reason()
        ));
        return Ok(());
    }
    Err(crate::error::Error::input(
        "runtime_not_installed",
        format!(
            "{rt} is not installed on this device ({}); nothing was written",
            state.reason()
        ),
    )
    .hint(format!(
        "`osctl switch {rt}` installs it and makes it active; --allow-uninstalled writes its config anyway"
    )))
}

/// Reads a secret-bearing input given on the command line: a file on the host osctl runs on
/// (not a device path: the operator's own file), or standard input for `-`. Returns the text
/// and the name to show in errors.
pub(crate) fn read_input(path: &std::path::Path) -> Result<(String, String)> {
    use std::io::Read;
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| crate::error::Error::io("read", "standard input", &e))?;
        return Ok((text, "standard input".into()));
    }
    let shown = path.display().to_string();
    let text = crate::system::fs::read_operator_file(path).map_err(|e| {
        crate::error::Error::io("read", &shown, &e).hint("nothing was written; check the file")
    })?;
    Ok((text, shown))
}
