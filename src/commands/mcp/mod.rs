//! `osctl mcp add|remove|list`: MCP servers in a runtime's own file. Logic in `mcp/`.

mod add;
mod list;
mod remove;

use super::Ctx;
use crate::cli::mcp::{AddArgs, ListArgs, McpCommand, RemoveArgs};
use crate::error::{Exit, Result};
use crate::runtime::RuntimeId;

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

/// `osctl mcp add` / `mcp remove`'s own `--json` fields.
#[derive(serde::Serialize)]
pub(super) struct Fields<'a> {
    pub(super) runtime: crate::runtime::RuntimeId,
    pub(super) server: &'a str,
    pub(super) file: &'a crate::path::DevPath,
    pub(super) outcome: crate::mcp::planner::EntryChange,
    /// `mcp add`: the entry as osctl describes it, and as the runtime's file holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) entry: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) native: Option<serde_json::Value>,
}
