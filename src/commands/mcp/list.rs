//! `osctl mcp list`: a runtime's MCP servers, read from its own file. Read-only. The typed
//! [`Listing`] is the `--json` fields and, through its `Display`, the text table.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::ListArgs;
use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::mcp::reader::{self, Servers};
use crate::output::table;
use crate::plan::Draft;
use crate::runtime::Runtime;
use crate::runtime::mcp::{Entry, style::Read};

pub(super) fn run(ctx: &Ctx, args: &ListArgs) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = device.chosen(args.runtime)?.spec();
    let servers = reader::read(&Draft::new(&ctx.fs), &device.layout, rt)?;
    ctx.out.render(&Listing::of(rt, &servers))?;
    Ok(Exit::Success)
}

/// What `osctl mcp list` reports: the `--json` fields, and the text table.
#[derive(Serialize)]
struct Listing<'a> {
    runtime: crate::runtime::RuntimeId,
    file: &'a crate::path::DevPath,
    exists: bool,
    servers: Vec<Line<'a>>,
    /// The runtime's display name, for the text's heading.
    #[serde(skip)]
    name: &'static str,
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
        /// The entry itself: the text shows its command or URL and its env or header names.
        #[serde(skip)]
        canonical: &'a Entry,
    },
    Unreadable {
        name: &'a str,
        error: &'a str,
    },
}

impl<'a> Listing<'a> {
    fn of(rt: &'static Runtime, servers: &'a Servers) -> Self {
        let lines = servers
            .servers
            .iter()
            .map(|s| match &s.read {
                Ok(Read { entry, dropped }) => Line::Read {
                    name: &s.name,
                    transport: entry.transport(),
                    enabled: entry.enabled,
                    entry: entry.to_value(),
                    not_carried: dropped,
                    canonical: entry,
                },
                Err(why) => Line::Unreadable {
                    name: &s.name,
                    error: why,
                },
            })
            .collect();
        Listing {
            runtime: rt.id,
            file: &servers.file,
            exists: servers.exists,
            servers: lines,
            name: rt.name,
        }
    }
}

/// The runtime and its file, then a table of the servers (or why there are none).
impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.name, self.file)?;
        if self.servers.is_empty() {
            return f.write_str(if self.exists {
                "no MCP servers\n"
            } else {
                "no MCP servers (the file does not exist)\n"
            });
        }
        let mut rows =
            vec![["name", "transport", "command / url", "env / headers"].map(String::from)];
        for line in &self.servers {
            rows.push(match line {
                Line::Read {
                    name,
                    transport,
                    enabled,
                    canonical,
                    ..
                } => {
                    let keys: Vec<&str> = canonical.values().keys().map(String::as_str).collect();
                    let transport = match enabled {
                        true => transport.to_string(),
                        false => format!("{transport} (disabled)"),
                    };
                    [
                        name.to_string(),
                        transport,
                        canonical.target(),
                        keys.join(", "),
                    ]
                }
                Line::Unreadable { name, error } => [
                    name.to_string(),
                    "?".into(),
                    format!("unreadable: {error}"),
                    String::new(),
                ],
            });
        }
        f.write_str(&table(&rows))
    }
}
