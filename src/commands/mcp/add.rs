//! `osctl mcp add`: one server into a runtime's own file (and `mcp_tools` with `--user-tool`).

use serde_json::Value;

use super::{AddArgs, Fields, read_input};
use crate::commands::Ctx;
use crate::error::{Error, Exit, Result};
use crate::mcp::{self, planner, tools};
use crate::plan::Draft;
use crate::runtime::mcp::{Entry, Server};

pub(super) fn run(ctx: &Ctx, args: &AddArgs) -> Result<Exit> {
    if args.user_tool && args.url.is_none() {
        // The device's `mcp_tools` entries are URLs: a local command has no place there.
        return Err(Error::new(
            Exit::Usage,
            "user_tool_not_remote",
            "--user-tool takes a remote server only: give it --url URL, not a command after `--`",
        )
        .hint("without --user-tool, `osctl mcp add NAME -- CMD [ARGS...]` adds a local server"));
    }
    let entry = entry(args)?;
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    if let Some(rt) = args.runtime {
        super::require_installed(ctx, &device, rt, args.allow_uninstalled)?;
    }
    let rt = device.chosen(args.runtime)?.spec();
    let name = if args.user_tool {
        mcp::check_name(&args.name)?;
        mcp::user_tool_server(&args.name)
    } else {
        args.name.clone()
    };
    let mut draft = Draft::new(&ctx.fs);
    if let (true, Server::Remote { url, headers, .. }) = (args.user_tool, &entry.server) {
        tools::plan_record(
            &mut draft,
            &device.env.config_json(),
            &args.name,
            url,
            headers,
        )?;
    }
    let planned = planner::plan_add(&mut draft, &device.layout, rt, &name, &entry, args.replace)?;
    let what = format!("`{name}` ({}: {})", entry.transport(), entry.target());
    ctx.out.status(&match planned.outcome {
        planner::EntryChange::Replaced => {
            format!("{}: replace MCP server {what} in {}", rt.name, planned.file)
        }
        planner::EntryChange::Unchanged => format!(
            "{}: MCP server {what} is already in {}",
            rt.name, planned.file
        ),
        _ => format!("{}: add MCP server {what} to {}", rt.name, planned.file),
    });
    let fields = Fields {
        runtime: rt.id,
        server: &name,
        file: &planned.file,
        outcome: planned.outcome,
        entry: Some(entry.to_value()),
        native: Some(planned.native.unwrap_or(Value::Null)),
    };
    ctx.finish(&draft.finish(), &fields)
}

/// The canonical entry the arguments describe (secrets read from files or stdin included).
fn entry(args: &AddArgs) -> Result<Entry> {
    if args
        .header_file
        .as_deref()
        .is_some_and(|p| p.as_os_str() == "-")
        && args
            .env_file
            .as_deref()
            .is_some_and(|p| p.as_os_str() == "-")
    {
        return Err(Error::input(
            "bad_arguments",
            "--header-file and --env-file cannot both read standard input",
        ));
    }
    let entry = match &args.url {
        Some(url) => {
            let mut pairs = Vec::new();
            for h in &args.headers {
                pairs.push(mcp::parse_pair(h, "header")?);
            }
            if let Some(path) = &args.header_file {
                let (text, origin) = read_input(path)?;
                pairs.extend(mcp::parse_pairs_file(&text, &origin, "header")?);
            }
            check_url(url)?;
            Entry::remote(args.transport, url.clone(), mcp::pairs_to_map(pairs))
        }
        None => {
            let mut pairs = Vec::new();
            for e in &args.env {
                pairs.push(mcp::parse_pair(e, "env")?);
            }
            if let Some(path) = &args.env_file {
                let (text, origin) = read_input(path)?;
                pairs.extend(mcp::parse_pairs_file(&text, &origin, "env")?);
            }
            let Some((command, rest)) = args.command.split_first() else {
                return Err(Error::input("bad_arguments", "no command after `--`").hint(
                    "write the server's command after `--`: osctl mcp add NAME -- CMD [ARGS...]",
                ));
            };
            Entry::stdio(command.clone(), rest.to_vec(), mcp::pairs_to_map(pairs))
        }
    };
    entry.register_secrets();
    Ok(entry)
}

fn check_url(url: &str) -> Result<()> {
    let ok = (url.starts_with("http://") || url.starts_with("https://"))
        && url.len() > "https://".len()
        && !url.contains(char::is_whitespace);
    if ok {
        Ok(())
    } else {
        Err(Error::input(
            "bad_url",
            format!("`{url}` is not an http:// or https:// URL"),
        ))
    }
}
