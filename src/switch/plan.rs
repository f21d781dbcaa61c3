//! The switch as a plan: what a switch would write and do, computed without changing anything.
//! `--dry-run` and `--check` show it; a real run uses it for its up-front decisions (is an
//! install due, and is there an installer for it) and then re-reads the device after each phase,
//! because an installer changes what presync and the unit look like.

use serde_json::Value;

use super::Options;
use super::embedded;
use super::installer::Source;
use crate::device::Device;
use crate::device::config;
use crate::error::Result;
use crate::plan::{Draft, Plan};
use crate::reconcile::{self, Input, StepName, StepReport};
use crate::runtime::{self, RuntimeId, install};
use crate::system::fs::RootFs;
use crate::system::path::DevPath;

/// A switch, planned.
#[derive(Clone, Debug)]
pub struct Preview {
    pub from: RuntimeId,
    pub to: RuntimeId,
    /// Units without `.service`.
    pub from_unit: String,
    pub to_unit: String,
    /// The embedded files whose bytes or mode differ.
    pub materialize: Plan,
    /// Why the runtime needs installing (as the files are now), when it does.
    pub install: Option<String>,
    /// What presync would write (planned against the files as they are now).
    pub presync: Plan,
    /// A presync that failed to plan (a warning: the switch goes on, as upstream's does).
    pub presync_error: Option<String>,
    /// Whether systemd must re-read unit files before the start.
    pub daemon_reload: bool,
    /// The commit point (config.json), and what reconcile would change after it.
    pub commit: Plan,
    pub reconcile: Vec<StepReport>,
}

impl Preview {
    /// Whether the switch would change anything.
    pub fn is_noop(&self) -> bool {
        self.from == self.to
    }
}

/// How much of a switch to plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Everything (`--dry-run`, `--check`).
    Full,
    /// What a real run decides up front: whether an install is due, and only when that decision
    /// matters before the run (no installer for the runtime, or a named one to fetch first). The
    /// run itself plans each phase on the files as they are by then.
    Decisions,
}

/// Plans a switch from `from` to `opts.to`.
pub fn preview(
    fs: &RootFs,
    device: &Device,
    from: RuntimeId,
    opts: &Options,
    depth: Depth,
) -> Result<Preview> {
    let to = opts.to.spec();
    let from_unit = install::unit_name(fs, from.spec())?;
    let mut p = Preview {
        from,
        to: opts.to,
        from_unit,
        to_unit: install::unit_name(fs, to)?,
        materialize: Plan::new(),
        install: None,
        presync: Plan::new(),
        presync_error: None,
        daemon_reload: false,
        commit: Plan::new(),
        reconcile: Vec::new(),
    };
    if p.is_noop() {
        return Ok(p);
    }

    let mut draft = Draft::new(fs);
    let changed = embedded::plan(&mut draft, to)?;
    // The embedded `service` file names the registry's unit.
    p.to_unit = to.unit.to_string();
    let decides = !opts.installer.available(to) || opts.installer.source != Source::Embedded;
    if depth == Depth::Full || decides {
        p.install = install_due(fs, &draft, to, &p.to_unit)?;
    }
    p.daemon_reload = p.install.is_some() || changed.iter().any(is_unit_file);
    p.materialize = draft.finish();
    if depth == Depth::Decisions {
        return Ok(p);
    }

    let mut draft = Draft::new(fs);
    match crate::presync::plan(&mut draft, device, opts.to) {
        Ok(_) => p.presync = draft.finish(),
        Err(e) => p.presync_error = Some(e.to_string()),
    }

    let mut draft = Draft::new(fs);
    config::edit(
        &mut draft,
        &device.config.path,
        &[("agent_runtime", Some(Value::from(to.name)))],
        "switch: the commit point",
    )?;
    if opts.reconcile {
        let mut committed = device.clone();
        let text = draft.read_text(&device.config.path)?.unwrap_or_default();
        committed.config = config::DeviceConfig::parse(device.config.path.clone(), text)?;
        let input = Input {
            device: &committed,
            active: opts.to,
            now: crate::clock::now_secs(),
        };
        p.reconcile = reconcile::plan_steps(&mut draft, &input, &StepName::ALL);
    }
    p.commit = draft.finish();
    Ok(p)
}

/// Why `rt` must be installed, judged on the planned files: the unit file (the embedded one
/// counts) and the verify hook as it is now.
fn install_due(
    fs: &RootFs,
    draft: &Draft<'_>,
    rt: &runtime::Runtime,
    unit: &str,
) -> Result<Option<String>> {
    let mut present = install::find_unit_file(fs, unit)?.is_some();
    for dir in install::UNIT_DIRS {
        present |= draft.exists(&DevPath::new(dir).join(format!("{unit}.service")))?;
    }
    if !present {
        return Ok(Some(format!("{unit}.service missing")));
    }
    let state = install::inspect(fs, rt)?;
    Ok(match state.verify {
        install::Verified::Failed(why) => Some(format!("verify: {why}")),
        install::Verified::Passed(_) => None,
    })
}

/// Whether a path is a systemd unit file or drop-in (a change means `daemon-reload`).
pub fn is_unit_file(path: &DevPath) -> bool {
    let s = path.to_string();
    let drop_in = s.ends_with(".conf") && s.contains(".service.d/");
    (s.ends_with(".service") || drop_in) && install::UNIT_DIRS.iter().any(|d| s.starts_with(d))
}
