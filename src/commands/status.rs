//! `osctl status`: which runtime is active and why, and the state of every runtime. Read-only:
//! it takes no lock and writes nothing.

use serde_json::{Value, json};

use super::Ctx;
use crate::apply::journal;
use crate::cli::StatusArgs;
use crate::device::Device;
use crate::device::state::AgentState;
use crate::error::{Exit, Result};
use crate::output::Style;
use crate::runtime::{REGISTRY, Runtime, install, native};
use crate::system::services::UnitState;

/// One runtime's row.
struct Row {
    rt: &'static Runtime,
    active: bool,
    install: install::InstallState,
    state: Option<UnitState>,
    mcp: std::result::Result<Vec<String>, String>,
    skills: Vec<String>,
}

pub(super) fn run(ctx: &Ctx, _args: &StatusArgs) -> Result<Exit> {
    // status reports on any device, also one whose paths a writer would refuse: as warnings.
    let device = Device::read(&ctx.fs, &ctx.env)?;
    let contained = device.containment(&ctx.fs)?;
    let resolution = device.resolve()?;
    let llm_mode = device.config.llm_mode()?;
    let history = AgentState::load(&ctx.fs, &device.env.agent_state())?;
    let pending = journal::pending(&ctx.fs)?;
    let switch = switch_record(ctx);

    let mut rows = Vec::new();
    for rt in REGISTRY {
        rows.push(Row {
            rt,
            active: rt.id == resolution.runtime,
            install: install::inspect(&ctx.fs, rt)?,
            state: None,
            mcp: mcp_servers(ctx, &device, rt),
            skills: skills(ctx, &device, rt)?,
        });
    }
    let units: Vec<String> = rows.iter().map(|r| r.install.unit.clone()).collect();
    // Why unit states are missing, if they are (status still reports everything else).
    let no_states = match ctx.services.show(&units) {
        Ok(Some(states)) => {
            for (row, state) in rows.iter_mut().zip(states) {
                row.state = Some(state);
            }
            None
        }
        Ok(None) => Some("no systemd under this root".to_string()),
        Err(e) => Some(format!("{e}")),
    };

    let active = resolution.runtime.spec();
    let configured = device.config.configured_channels();
    let unsupported: Vec<_> = configured
        .iter()
        .filter(|c| !active.supports(**c))
        .copied()
        .collect();
    let mut warnings = resolution.warnings.clone();
    for c in contained {
        warnings.push(format!(
            "{c}: every command that changes the device refuses to run until it is fixed"
        ));
    }
    for p in &pending {
        warnings.push(format!(
            "an interrupted run left the journal {} ({}, {} paths); the next run that changes the device restores it",
            p.path, p.command, p.paths
        ));
    }
    if let Some((r, running)) = &switch {
        warnings.push(if *running {
            format!(
                "a switch from {} to {} is in progress (pid {}, {})",
                r.from,
                r.to,
                r.pid,
                r.phase.as_str()
            )
        } else {
            format!(
                "a switch from {} to {} was interrupted (pid {}, during {}); the next `osctl switch` or `osctl reconcile` brings the services in line with config.json ({})",
                r.from,
                r.to,
                r.pid,
                r.phase.as_str(),
                resolution.runtime
            )
        });
    }
    let markers = json!({
        "persona": history.last().map(|e| e.runtime.clone()),
        "channels_applied_runtime": device.config.opt("channels_applied_runtime"),
        "channels_unsupported": device.config.str_list("channels_unsupported"),
        "mcp_applied_runtime": device.config.opt("mcp_applied_runtime"),
        "llm_config_applied_runtime": device.config.opt("llm_config_applied_runtime"),
    });

    if ctx.json {
        let runtimes: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "name": r.rt.name,
                    "active": r.active,
                    "unit": format!("{}.service", r.install.unit),
                    "unit_file": r.install.unit_file,
                    "installed": r.install.installed(),
                    "install_detail": r.install.reason(),
                    "verify": r.install.verify,
                    "unit_state": r.state,
                    "mcp_servers": r.mcp.as_ref().ok(),
                    "mcp_error": r.mcp.as_ref().err(),
                    "skills": r.skills,
                    "channels": r.rt.channels,
                })
            })
            .collect();
        ctx.out.report(json!({
            "active": {
                "runtime": resolution.runtime,
                "source": resolution.source,
                "from": resolution.from,
            },
            "config": {"path": device.config.path, "exists": device.config.exists},
            "llm_config_mode": llm_mode.label(),
            "device_type": device.device_type(),
            "profile": device.robot.path,
            "capabilities": device.robot.capabilities,
            "systemd": no_states.is_none(),
            "unit_states_unavailable": no_states,
            "runtimes": runtimes,
            "channels": {
                "configured": configured,
                "unsupported_by_active": unsupported,
            },
            "markers": markers,
            "journals": pending,
            "switch": switch.as_ref().map(|(r, running)| {
                let mut v = json!(r);
                v["running"] = json!(running);
                v
            }),
            "warnings": warnings,
        }));
        return Ok(Exit::Success);
    }

    for w in &warnings {
        ctx.out.warn(w);
    }
    let out = &ctx.out;
    let mut text = String::new();
    let field = |name: &str, value: String| format!("{:<17}{value}\n", name);
    text.push_str(&field(
        "active runtime",
        format!(
            "{} ({})",
            out.paint(resolution.runtime.as_str(), Style::Bold),
            resolution.from
        ),
    ));
    if !device.config.exists {
        text.push_str(&field(
            "config",
            format!(
                "{} does not exist: a reset or factory-fresh device, defaults apply",
                device.config.path
            ),
        ));
    }
    text.push_str(&field("llm config mode", llm_mode.label().to_string()));
    let profile = device
        .robot
        .path
        .as_ref()
        .map(|p| format!(" ({p})"))
        .unwrap_or_else(|| {
            if device.device_type().is_some() {
                " (no ROBOT.md found)".into()
            } else {
                String::new()
            }
        });
    text.push_str(&field(
        "device type",
        format!("{}{profile}", device.device_type().unwrap_or("-")),
    ));
    if !device.robot.capabilities.is_empty() {
        text.push_str(&field("capabilities", device.robot.capabilities.join(", ")));
    }
    text.push('\n');

    let header = [
        "runtime",
        "installed",
        "unit",
        "state",
        "mcp servers",
        "skills",
    ];
    let mut table: Vec<[String; 6]> = vec![header.map(String::from)];
    for r in &rows {
        let name = if r.active {
            format!("{} *", r.rt.name)
        } else {
            r.rt.name.to_string()
        };
        let installed = if r.install.installed() {
            "yes".to_string()
        } else {
            format!("no ({})", r.install.reason())
        };
        let state = match &r.state {
            Some(s) if s.load == "not-found" => "not-found".to_string(),
            Some(s) if s.restarts > 0 => format!("{} ({} restarts)", s.active, s.restarts),
            Some(s) => s.active.clone(),
            None => "-".to_string(),
        };
        let mcp = match &r.mcp {
            Ok(names) if names.is_empty() => "-".to_string(),
            Ok(names) => names.join(", "),
            Err(e) => format!("unreadable: {e}"),
        };
        table.push([
            name,
            installed,
            format!("{}.service", r.install.unit),
            state,
            mcp,
            r.skills.len().to_string(),
        ]);
    }
    text.push_str(&render_table(&table));
    if let Some(why) = &no_states {
        // A note about this run, not the device: stderr, so the table stays the product.
        out.status(&format!("(unit states are not available: {why})"));
    }
    text.push('\n');

    let channels = if configured.is_empty() {
        "-".to_string()
    } else {
        configured
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    text.push_str(&field("channels", channels));
    if !unsupported.is_empty() {
        let list = unsupported
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        text.push_str(&field(
            "",
            format!("not supported by {}: {list}", active.name),
        ));
    }
    let marker = |v: &Value| v.as_str().unwrap_or("-").to_string();
    text.push_str(&field(
        "reconciled for",
        format!(
            "persona {}, llm {}, channels {}, mcp {}",
            marker(&markers["persona"]),
            marker(&markers["llm_config_applied_runtime"]),
            marker(&markers["channels_applied_runtime"]),
            marker(&markers["mcp_applied_runtime"]),
        ),
    ));
    let journals = if pending.is_empty() {
        "none".to_string()
    } else {
        pending
            .iter()
            .map(|p| format!("{} ({})", p.id, p.command))
            .collect::<Vec<_>>()
            .join(", ")
    };
    text.push_str(&field("interrupted runs", journals));
    if let Some((r, running)) = &switch {
        let state = if *running {
            "in progress"
        } else {
            "interrupted"
        };
        text.push_str(&field(
            "switch",
            format!("{state}: {} -> {} ({})", r.from, r.to, r.phase.as_str()),
        ));
    }
    out.product(&text);
    Ok(Exit::Success)
}

/// A switch recorded in `/var/lib/osctl/switch.json`, and whether it is running now (its
/// process holds the device lock) rather than interrupted. A record that cannot be read is a
/// warning, not a failure of `status`.
fn switch_record(ctx: &Ctx) -> Option<(crate::switch::record::Record, bool)> {
    use crate::switch::record;
    match record::read(&ctx.fs) {
        Ok(Some(r)) => Some((r, crate::apply::lock::held(&ctx.fs).unwrap_or(false))),
        Ok(None) => None,
        Err(e) => {
            ctx.out.warn(&e.to_string());
            None
        }
    }
}

/// The names of a runtime's MCP servers, from its native file.
fn mcp_servers(
    ctx: &Ctx,
    device: &Device,
    rt: &Runtime,
) -> std::result::Result<Vec<String>, String> {
    let path = device.layout.path(rt.mcp.file);
    let value = match native::read_value(&ctx.fs, &path, rt.mcp.format) {
        Ok(Some(v)) => v,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => {
            let at = e
                .location
                .as_ref()
                .map(|l| l.to_string())
                .unwrap_or_else(|| path.to_string());
            return Err(format!("{at}: {}", e.causes.join(": ")));
        }
    };
    Ok(match native::get(&value, rt.mcp.path) {
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    })
}

/// The skill folders a runtime has (hidden folders excluded).
fn skills(ctx: &Ctx, device: &Device, rt: &Runtime) -> Result<Vec<String>> {
    let dir = device.layout.path(rt.skills.dir);
    let names = ctx.fs.list_dir(&dir)?.unwrap_or_default();
    let mut out = Vec::new();
    for n in names {
        if !n.starts_with('.') && ctx.fs.is_dir(&dir.join(&n))? {
            out.push(n);
        }
    }
    Ok(out)
}

fn render_table(rows: &[[String; 6]]) -> String {
    let mut widths = [0usize; 6];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(c);
            } else {
                line.push_str(&format!("{c:<w$}  ", w = widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
