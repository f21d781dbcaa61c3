//! `osctl mcp list`: a runtime's MCP servers, read from its own file. Read-only.

use serde::Serialize;
use serde_json::Value;

use super::ListArgs;
use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::mcp::reader;
use crate::plan::Draft;

pub(super) fn run(ctx: &Ctx, args: &ListArgs) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = device.chosen(args.runtime)?.spec();
    let servers = reader::read(&Draft::new(&ctx.fs), &device.layout, rt)?;
    if ctx.json {
        let list = servers
            .servers
            .iter()
            .map(|s| match &s.read {
                Ok(r) => Line::Read {
                    name: &s.name,
                    transport: r.entry.transport(),
                    enabled: r.entry.enabled,
                    entry: r.entry.to_value(),
                    not_carried: &r.dropped,
                },
                Err(why) => Line::Unreadable {
                    name: &s.name,
                    error: why,
                },
            })
            .collect();
        ctx.out.report_of(&Listing {
            runtime: rt.id,
            file: &servers.file,
            exists: servers.exists,
            servers: list,
        })?;
        return Ok(Exit::Success);
    }
    let mut rows = vec![["name", "transport", "command / url", "env / headers"].map(String::from)];
    for s in &servers.servers {
        rows.push(match &s.read {
            Ok(r) => {
                let keys: Vec<&str> = r.entry.values().keys().map(String::as_str).collect();
                let mut transport = r.entry.transport().to_string();
                if !r.entry.enabled {
                    transport.push_str(" (disabled)");
                }
                [s.name.clone(), transport, r.entry.target(), keys.join(", ")]
            }
            Err(why) => [
                s.name.clone(),
                "?".into(),
                format!("unreadable: {why}"),
                String::new(),
            ],
        });
    }
    let mut text = format!("{} ({})\n", rt.name, servers.file);
    if servers.servers.is_empty() {
        text.push_str(if servers.exists {
            "no MCP servers\n"
        } else {
            "no MCP servers (the file does not exist)\n"
        });
    } else {
        text.push_str(&table(&rows));
    }
    ctx.out.product(&text);
    Ok(Exit::Success)
}

fn table(rows: &[[String; 4]]) -> String {
    let mut widths = [0usize; 4];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `osctl mcp list`'s `--json` fields.
#[derive(Serialize)]
struct Listing<'a> {
    runtime: crate::runtime::RuntimeId,
    file: &'a crate::path::DevPath,
    exists: bool,
    servers: Vec<Line<'a>>,
}

/// One server of the file: its canonical entry, or why the native entry is not one.
#[derive(Serialize)]
#[serde(untagged)]
enum Line<'a> {
    Read {
        name: &'a str,
        transport: &'static str,
        enabled: bool,
        entry: Value,
        /// Keys of the native entry the canonical entry leaves out.
        not_carried: &'a [String],
    },
    Unreadable {
        name: &'a str,
        error: &'a str,
    },
}
