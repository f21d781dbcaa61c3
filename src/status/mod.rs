//! What `osctl status` reports: which runtime is active and why, and the state of every runtime.
//! [`gather`] reads the device (read-only: no lock, no write) into a typed [`Report`], which is
//! the `--json` document as it is and, through its `Display`, the text report.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::apply::journal;
use crate::device::Device;
use crate::device::paths::DeviceEnv;
use crate::device::resolve::Source;
use crate::device::state::AgentState;
use crate::error::Result;
use crate::output::{self, Style, paint};
use crate::path::DevPath;
use crate::runtime::{Channel, REGISTRY, Runtime, RuntimeId, install, native};
use crate::switch::record::{self, Record};
use crate::system::fs::RootFs;
use crate::system::services::{Services, UnitState};

/// What `osctl status` reports: the `--json` document's fields, in its order, and what the text
/// report is rendered from.
#[derive(Serialize)]
pub(crate) struct Report {
    active: Active,
    config: ConfigFile,
    llm_config_mode: &'static str,
    device_type: Option<String>,
    profile: Option<DevPath>,
    capabilities: Vec<String>,
    systemd: bool,
    /// Why unit states are missing, if they are (status still reports everything else).
    pub unit_states_unavailable: Option<String>,
    runtimes: Vec<RuntimeRow>,
    channels: Channels,
    markers: Markers,
    journals: Vec<journal::Pending>,
    switch: Option<SwitchState>,
    /// Notes about the device (its fields with `--json`; before the table on stderr in text).
    pub warnings: Vec<String>,
    /// Notes about this run (a switch record it could not read): the run's warnings, not the
    /// document's.
    #[serde(skip)]
    pub run_warnings: Vec<String>,
}

#[derive(Serialize)]
struct Active {
    runtime: RuntimeId,
    source: Source,
    from: String,
}

#[derive(Serialize)]
struct ConfigFile {
    path: DevPath,
    exists: bool,
}

/// One runtime's row.
#[derive(Serialize)]
struct RuntimeRow {
    name: &'static str,
    active: bool,
    /// `<unit>.service`.
    unit: String,
    unit_file: Option<DevPath>,
    installed: bool,
    install_detail: String,
    verify: install::Verified,
    unit_state: Option<UnitState>,
    mcp_servers: Option<Vec<String>>,
    mcp_error: Option<String>,
    skills: Vec<String>,
    channels: &'static [Channel],
}

#[derive(Serialize)]
struct Channels {
    configured: Vec<Channel>,
    unsupported_by_active: Vec<Channel>,
}

/// Which runtime each reconcile step last ran for.
#[derive(Serialize)]
struct Markers {
    persona: Option<String>,
    channels_applied_runtime: Option<String>,
    channels_unsupported: Vec<String>,
    mcp_applied_runtime: Option<String>,
    llm_config_applied_runtime: Option<String>,
}

/// A switch record, and whether its switch is running now (else it was interrupted).
#[derive(Serialize)]
struct SwitchState {
    #[serde(flatten)]
    record: Record,
    running: bool,
}

/// Reads everything status reports. Read-only; a device whose paths a writer would refuse is
/// reported, with warnings.
pub(crate) fn gather(fs: &RootFs, env: &DeviceEnv, services: &Services) -> Result<Report> {
    let device = Device::read(fs, env)?;
    let contained = device.containment(fs)?;
    let resolution = device.resolve()?;
    let llm_mode = device.config.llm_mode()?;
    let history = AgentState::load(fs, &device.env.agent_state())?;
    let journals = journal::pending(fs)?;
    let mut run_warnings = Vec::new();
    let switch = switch_record(fs, &mut run_warnings);

    let mut installs = Vec::new();
    for rt in REGISTRY {
        installs.push((rt, install::inspect(fs, rt)?));
    }
    let units: Vec<String> = installs.iter().map(|(_, i)| i.unit.clone()).collect();
    let (mut states, unavailable) = match services.show(&units) {
        Ok(Some(states)) => (states.into_iter().map(Some).collect(), None),
        Ok(None) => (Vec::new(), Some("no systemd under this root".to_string())),
        Err(e) => (Vec::new(), Some(format!("{e}"))),
    };
    states.resize(installs.len(), None);
    let mut runtimes = Vec::new();
    for ((rt, install), unit_state) in installs.into_iter().zip(states) {
        let mcp = mcp_servers(fs, &device, rt);
        runtimes.push(RuntimeRow {
            name: rt.name,
            active: rt.id == resolution.runtime,
            unit: format!("{}.service", install.unit),
            installed: install.installed(),
            install_detail: install.reason(),
            unit_file: install.unit_file,
            verify: install.verify,
            unit_state,
            mcp_error: mcp.as_ref().err().cloned(),
            mcp_servers: mcp.ok(),
            skills: skills(fs, &device, rt)?,
            channels: rt.channels,
        });
    }

    let active = resolution.runtime.spec();
    let configured = device.config.configured_channels();
    let unsupported: Vec<_> = configured
        .iter()
        .filter(|c| !active.supports(**c))
        .copied()
        .collect();
    let mut warnings = resolution.warnings.clone();
    for c in contained {
        warnings.push(match c.link {
            Some(link) => format!(
                "{}: every command that changes the device but a reset refuses to run until the link {link} is removed (a reset removes it as a link)",
                c.sentence
            ),
            None => format!(
                "{}: every command that changes the device refuses to run until it is fixed",
                c.sentence
            ),
        });
    }
    for p in &journals {
        warnings.push(format!(
            "an interrupted run left the journal {} ({}, {} paths); the next run that changes the device restores it",
            p.path, p.command, p.paths
        ));
    }
    if let Some(s) = &switch {
        let r = &s.record;
        warnings.push(if s.running {
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
    let opt = |key: &str| device.config.opt(key).map(str::to_string);
    Ok(Report {
        active: Active {
            runtime: resolution.runtime,
            source: resolution.source,
            from: resolution.from,
        },
        config: ConfigFile {
            path: device.config.path.clone(),
            exists: device.config.exists,
        },
        llm_config_mode: llm_mode.label(),
        device_type: device.device_type().map(str::to_string),
        profile: device.robot.path.clone(),
        capabilities: device.robot.capabilities.clone(),
        systemd: unavailable.is_none(),
        unit_states_unavailable: unavailable,
        runtimes,
        channels: Channels {
            configured,
            unsupported_by_active: unsupported,
        },
        markers: Markers {
            persona: history.last().map(|e| e.runtime.clone()),
            channels_applied_runtime: opt("channels_applied_runtime"),
            channels_unsupported: device.config.str_list("channels_unsupported"),
            mcp_applied_runtime: opt("mcp_applied_runtime"),
            llm_config_applied_runtime: opt("llm_config_applied_runtime"),
        },
        journals,
        switch,
        warnings,
        run_warnings,
    })
}

/// The text report: the device, a table of the runtimes, channels, markers, interrupted runs;
/// the active runtime in bold in the alternate form (`{:#}`, for a terminal).
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let active = paint(f.alternate(), self.active.runtime.as_str(), Style::Bold);
        field(
            f,
            "active runtime",
            format!("{active} ({})", self.active.from),
        )?;
        if !self.config.exists {
            field(
                f,
                "config",
                format!(
                    "{} does not exist: a reset or factory-fresh device, defaults apply",
                    self.config.path
                ),
            )?;
        }
        field(f, "llm config mode", self.llm_config_mode)?;
        let profile = match (&self.profile, &self.device_type) {
            (Some(p), _) => format!(" ({p})"),
            (None, Some(_)) => " (no ROBOT.md found)".into(),
            (None, None) => String::new(),
        };
        let device_type = self.device_type.as_deref().unwrap_or("-");
        field(f, "device type", format!("{device_type}{profile}"))?;
        if !self.capabilities.is_empty() {
            field(f, "capabilities", self.capabilities.join(", "))?;
        }
        writeln!(f)?;

        let header = [
            "runtime",
            "installed",
            "unit",
            "state",
            "mcp servers",
            "skills",
        ];
        let mut rows: Vec<[String; 6]> = vec![header.map(String::from)];
        // A long reason (a verify hook's output, a parse error) would widen the whole table
        // past any terminal: its cell gets a note number and the text goes under the table.
        let mut notes: Vec<String> = Vec::new();
        let mut note = |cell: String, text: String| -> String {
            notes.push(text);
            format!("{cell} [{}]", notes.len())
        };
        for row in &self.runtimes {
            let name = if row.active {
                format!("{} *", row.name)
            } else {
                row.name.to_string()
            };
            let installed = match row.installed {
                true => "yes".to_string(),
                false if row.install_detail.chars().count() <= MAX_CELL => {
                    format!("no ({})", row.install_detail)
                }
                false => note(
                    "no".into(),
                    format!("{}: not installed: {}", row.name, row.install_detail),
                ),
            };
            let state = match &row.unit_state {
                Some(s) if s.load == "not-found" => "not-found".to_string(),
                Some(s) if s.restarts > 0 => format!("{} ({} restarts)", s.active, s.restarts),
                Some(s) => s.active.clone(),
                None => "-".to_string(),
            };
            let mcp = match (&row.mcp_servers, &row.mcp_error) {
                (_, Some(e)) => note(
                    "unreadable".into(),
                    format!("{}: its MCP servers cannot be read: {e}", row.name),
                ),
                (Some(names), None) if !names.is_empty() => names.join(", "),
                _ => "-".to_string(),
            };
            rows.push([
                name,
                installed,
                row.unit.clone(),
                state,
                mcp,
                row.skills.len().to_string(),
            ]);
        }
        write!(f, "{}", output::table(&rows))?;
        for (i, text) in notes.iter().enumerate() {
            writeln!(f, "[{}] {text}", i + 1)?;
        }
        writeln!(f)?;

        let list = |channels: &[Channel]| {
            channels
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let channels = &self.channels;
        match channels.configured.is_empty() {
            true => field(f, "channels", "-")?,
            false => field(f, "channels", list(&channels.configured))?,
        }
        if !channels.unsupported_by_active.is_empty() {
            let name = self.active.runtime.spec().name;
            let which = list(&channels.unsupported_by_active);
            field(f, "", format!("not supported by {name}: {which}"))?;
        }
        let m = &self.markers;
        let marker = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_string());
        field(
            f,
            "reconciled for",
            format!(
                "persona {}, llm {}, channels {}, mcp {}",
                marker(&m.persona),
                marker(&m.llm_config_applied_runtime),
                marker(&m.channels_applied_runtime),
                marker(&m.mcp_applied_runtime),
            ),
        )?;
        let journals = if self.journals.is_empty() {
            "none".to_string()
        } else {
            self.journals
                .iter()
                .map(|p| format!("{} ({})", p.id, p.command))
                .collect::<Vec<_>>()
                .join(", ")
        };
        field(f, "interrupted runs", journals)?;
        if let Some(s) = &self.switch {
            let state = if s.running {
                "in progress"
            } else {
                "interrupted"
            };
            let r = &s.record;
            let phase = r.phase.as_str();
            field(
                f,
                "switch",
                format!("{state}: {} -> {} ({phase})", r.from, r.to),
            )?;
        }
        Ok(())
    }
}

/// The widest reason shown in a table cell; a longer one becomes a note under the table.
const MAX_CELL: usize = 36;

/// One line of the report's device and marker sections: the name in a column of its own.
fn field(f: &mut fmt::Formatter<'_>, name: &str, value: impl fmt::Display) -> fmt::Result {
    writeln!(f, "{name:<17}{value}")
}

/// A switch recorded in `/var/lib/osctl/switch.json`, and whether it is running now (its
/// process holds the device lock) rather than interrupted. A record that cannot be read is a
/// warning, not a failure of `status`.
fn switch_record(fs: &RootFs, warnings: &mut Vec<String>) -> Option<SwitchState> {
    match record::read(fs) {
        Ok(Some(record)) => Some(SwitchState {
            record,
            running: crate::apply::lock::held(fs).unwrap_or(false),
        }),
        Ok(None) => None,
        Err(e) => {
            warnings.push(e.to_string());
            None
        }
    }
}

/// The names of a runtime's MCP servers, from its native file.
fn mcp_servers(
    fs: &RootFs,
    device: &Device,
    rt: &Runtime,
) -> std::result::Result<Vec<String>, String> {
    let path = device.layout.path(rt.mcp.file);
    let value = match native::read_value(fs, &path, rt.mcp.format) {
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
fn skills(fs: &RootFs, device: &Device, rt: &Runtime) -> Result<Vec<String>> {
    let dir = device.layout.path(rt.skills.dir);
    let names = fs.list_dir(&dir)?.unwrap_or_default();
    let mut out = Vec::new();
    for n in names {
        if !n.starts_with('.') && fs.is_dir(&dir.join(&n))? {
            out.push(n);
        }
    }
    Ok(out)
}
