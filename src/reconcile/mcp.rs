//! The MCP server carry-over (docs/device-contract.md §8.3), guarded by `mcp_applied_runtime`.
//!
//! On a switch the marker still names the previous runtime: its servers are read from its own
//! file (any of the six; upstream reads only openclaw, hermes and claudecode,
//! docs/device-contract.md §9 item 9), turned into canonical entries, and written into the active
//! runtime's file in its own form, with the marker advanced in the same plan. An empty marker
//! records a baseline. An error (the previous runtime's file cannot be parsed, the target cannot be
//! edited) fails the step, so the marker stays and the next run retries. An entry the target cannot
//! take (openclaw's refused env keys, SSE on codex, a disabled server in Claude Code's `.mcp.json`)
//! or a native entry that is not one is left behind with a warning that names it: retrying could
//! never carry it.

use serde_json::Value;

use super::{Input, Marker, Status, StepName, StepReport, marker};
use crate::device::config;
use crate::error::Result;
use crate::mcp::{check_for_runtime, planner, reader};
use crate::plan::Draft;
use crate::runtime::mcp::Entry;

const MARKER: &str = "mcp_applied_runtime";

pub(crate) fn plan(draft: &mut Draft<'_>, input: &Input<'_>) -> Result<StepReport> {
    let device = input.device;
    let active = input.active;
    let config_path = device.env.config_json();
    let prev = match marker(
        draft,
        input,
        StepName::Mcp,
        MARKER,
        "without carrying anything",
    )? {
        Marker::Settled(report) => return Ok(report),
        Marker::From(prev) => prev,
    };
    let (from, to) = (prev.spec(), active.spec());
    let source = reader::read(draft, &device.layout, from)?;
    let target = reader::read(draft, &device.layout, to)?;
    let mut carried: Vec<(String, Entry)> = Vec::new();
    let mut same = 0;
    let mut left = Vec::new();
    for found in &source.servers {
        let name = &found.name;
        let read = match &found.read {
            Ok(r) => r,
            Err(why) => {
                left.push(name.clone());
                draft.warn(format!(
                    "MCP server `{name}` of {prev} ({}) is not carried to {active}: {why}",
                    source.file
                ));
                continue;
            }
        };
        if let Err(e) = check_for_runtime(active, name, &read.entry) {
            left.push(name.clone());
            draft.warn(format!(
                "MCP server `{name}` is not carried to {active}: {}",
                e.message
            ));
            continue;
        }
        if !to.mcp.holds_disabled && !read.entry.enabled {
            left.push(name.clone());
            let file = to.mcp.file.rel.rsplit('/').next().unwrap_or_default();
            draft.warn(format!(
                "MCP server `{name}` is disabled in {prev} and {}'s {file} cannot hold a disabled server: not carried",
                to.brand
            ));
            continue;
        }
        // An equal entry already there is left as it is (with any keys of its own).
        if let Some(Ok(t)) = target.get(name).map(|f| &f.read)
            && t.entry == read.entry
        {
            same += 1;
            continue;
        }
        if !read.dropped.is_empty() {
            draft.warn(format!(
                "MCP server `{name}`: {} of {prev} not carried to {active} (no canonical form)",
                read.dropped.join(", ")
            ));
        }
        carried.push((name.clone(), read.entry.clone()));
    }
    let reason = format!("mcp reconcile: carry servers from {prev}");
    if planner::write_entries(draft, &device.layout, to, &carried, &reason)? {
        planner::restart(draft, to)?;
    }
    config::edit(
        draft,
        &config_path,
        &[(MARKER, Some(Value::from(active.as_str())))],
        &format!("mcp reconcile: applied for {active}"),
    )?;
    let names: Vec<&str> = carried.iter().map(|(n, _)| n.as_str()).collect();
    let mut detail = if source.servers.is_empty() {
        format!("{prev} had no MCP servers")
    } else {
        format!(
            "carried {} of {} MCP server(s) from {prev} to {active}{}",
            names.len(),
            source.servers.len(),
            if names.is_empty() {
                String::new()
            } else {
                format!(": {}", names.join(", "))
            }
        )
    };
    if same > 0 {
        detail.push_str(&format!("; {same} already there"));
    }
    if !left.is_empty() {
        detail.push_str(&format!("; left behind: {}", left.join(", ")));
    }
    Ok(StepReport::new(StepName::Mcp, Status::Reconciled, detail))
}
