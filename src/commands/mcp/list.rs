//! `osctl mcp list`: a runtime's MCP servers, read from its own file. Read-only.

use serde_json::{Value, json};

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
        let list: Vec<Value> = servers
            .servers
            .iter()
            .map(|s| match &s.read {
                Ok(r) => json!({
                    "name": s.name,
                    "transport": r.entry.transport(),
                    "enabled": r.entry.enabled,
                    "entry": r.entry.to_value(),
                    "not_carried": r.dropped,
                }),
                Err(why) => json!({"name": s.name, "error": why}),
            })
            .collect();
        ctx.out.report(json!({"runtime": rt.id, "file": servers.file, "exists": servers.exists, "servers": list}),
        );
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
