//! `osctl mcp remove`: one server out of a runtime's own file (and `mcp_tools` with
//! `--user-tool`).

use super::{Fields, RemoveArgs};
use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::mcp::{self, planner, tools};
use crate::plan::Draft;

pub(super) fn run(ctx: &Ctx, args: &RemoveArgs) -> Result<Exit> {
    mcp::check_name(&args.name)?;
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    let rt = device.chosen(args.runtime)?.spec();
    let mut draft = Draft::new(&ctx.fs);
    let name = if args.user_tool {
        // Forget the tool first: the device re-adds every `mcp_tools` entry to the runtime.
        tools::plan_forget(&mut draft, &device.env.config_json(), &args.name)?;
        mcp::user_tool_server(&args.name)
    } else {
        if let Some(tool) = args.name.strip_prefix("tool_")
            && device
                .config
                .fields
                .get("mcp_tools")
                .and_then(|v| v.as_array())
                .is_some_and(|items| {
                    items
                        .iter()
                        .any(|i| i.get("name").and_then(|n| n.as_str()) == Some(tool))
                })
        {
            draft.warn(format!(
                "`{}` is the user tool `{tool}` of config.json mcp_tools, which the device adds back: `osctl mcp remove {tool} --user-tool` removes both",
                args.name
            ));
        }
        args.name.clone()
    };
    let planned = planner::plan_remove(&mut draft, &device.layout, rt, &name)?;
    ctx.out.status(&match planned.outcome {
        planner::EntryChange::Removed => format!(
            "{}: remove MCP server `{name}` from {}",
            rt.name, planned.file
        ),
        _ => format!("{}: no MCP server `{name}` in {}", rt.name, planned.file),
    });
    let fields = Fields {
        runtime: rt.id,
        server: &name,
        file: &planned.file,
        outcome: planned.outcome,
        entry: None,
        native: None,
    };
    ctx.finish(&draft.finish(), &fields)
}
