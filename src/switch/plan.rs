//! The switch as a plan: what a switch would write and do, computed without changing anything.
//!
//! A switch is a sequence of phases, each planned on the files the ones before it leave (phases
//! of one [`Draft`]): osctl's embedded files, presync, the commit point (config.json), then each
//! reconcile step. `--dry-run` and `--check` show them in that order, so replaying the preview's
//! diff gives what the run leaves. The run ([`super::run`]) takes the same phases in the same
//! order, each planned by the same planner on the disk as the phases before it left it; it
//! differs only where a real program changed the disk in between (an installer), which no
//! preview can foresee. A real run also uses this plan for its up-front decisions (is an install
//! due, and is there an installer for it).

use serde_json::Value;

use super::Options;
use super::embedded;
use super::installer::Source;
use crate::device::Device;
use crate::device::config;
use crate::error::Result;
use crate::path::DevPath;
use crate::plan::{Draft, Plan};
use crate::reconcile::{self, Planned, StepName};
use crate::runtime::{self, RuntimeId, install};
use crate::system::fs::RootFs;

/// A switch, planned.
#[derive(Clone, Debug)]
pub struct Preview {
    pub from: RuntimeId,
    pub to: RuntimeId,
    /// Units without `.service`.
    pub from_unit: String,
    pub to_unit: String,
    /// Whether the old unit is stopped and disabled: it differs from the new one and has a unit
    /// file (without one systemd knows no such unit and there is nothing to disable; the run
    /// asks systemd the same question).
    pub stops_from: bool,
    /// The embedded files whose bytes or mode differ.
    pub materialize: Plan,
    /// Why the runtime needs installing (as the files are now), when it does.
    pub install: Option<String>,
    /// What presync would write (planned on the files the embedded ones leave).
    pub presync: Plan,
    /// A presync that failed to plan (a warning: the switch goes on, as upstream's does).
    pub presync_error: Option<String>,
    /// Whether systemd must re-read unit files before the start.
    pub daemon_reload: bool,
    /// The commit point (config.json).
    pub commit: Plan,
    /// Each reconcile step after it, planned on what the step before leaves.
    pub reconcile: Vec<Planned>,
}

impl Preview {
    /// Whether the switch would change anything.
    pub fn is_noop(&self) -> bool {
        self.from == self.to && !self.finishes()
    }

    /// A switch to the runtime already active whose reconcile steps lag behind (a switch killed
    /// after its commit point): it only finishes them.
    pub fn finishes(&self) -> bool {
        self.from == self.to && self.reconcile.iter().any(|p| p.report.lagging())
    }

    /// A preview that only finishes the lagging reconcile steps of `rt`, already active.
    pub fn finishing(fs: &RootFs, rt: RuntimeId, reconcile: Vec<Planned>) -> Result<Preview> {
        let unit = install::unit_name(fs, rt.spec())?;
        Ok(Preview {
            from: rt,
            to: rt,
            from_unit: unit.clone(),
            to_unit: unit,
            stops_from: false,
            materialize: Plan::new(),
            install: None,
            presync: Plan::new(),
            presync_error: None,
            daemon_reload: false,
            commit: Plan::new(),
            reconcile,
        })
    }
}

/// The reconcile steps a switch to `device`'s active runtime would run now, planned without
/// writing (a switch to the runtime already active finishes those that lag behind).
pub(crate) fn reconcile_now(fs: &RootFs, device: &Device) -> Result<Vec<Planned>> {
    let mut draft = Draft::new(fs);
    reconcile::preview(
        &mut draft,
        device,
        &StepName::after_switch(),
        crate::clock::now_secs(),
    )
}

/// How much of a switch to plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Everything (`--dry-run`, `--check`).
    Full,
    /// What a real run decides up front: whether an install is due, and only when that decision
    /// matters before the run (no installer for the runtime, or a named one to fetch first). The
    /// run itself plans each phase on the files as they are by then.
    Decisions,
}

/// Plans a switch from `from` to `opts.to`.
pub(crate) fn preview(
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
        stops_from: false,
        materialize: Plan::new(),
        install: None,
        presync: Plan::new(),
        presync_error: None,
        daemon_reload: false,
        commit: Plan::new(),
        reconcile: Vec::new(),
    };
    if p.from == p.to {
        return Ok(p);
    }

    let mut draft = Draft::new(fs);
    let changed = embedded::plan(&mut draft, to)?;
    // The embedded `service` file names the registry's unit.
    p.to_unit = to.unit.to_string();
    p.stops_from = p.from_unit != p.to_unit && install::find_unit_file(fs, &p.from_unit)?.is_some();
    let decides = !opts.installer.available(to) || opts.installer.source != Source::Embedded;
    if depth == Depth::Full || decides {
        p.install = install_due(fs, &draft, to, &p.to_unit)?;
    }
    p.daemon_reload = p.install.is_some() || changed.iter().any(is_unit_file);
    p.materialize = draft.end_phase();
    if depth == Depth::Decisions {
        return Ok(p);
    }

    // Each phase is planned on what the phases before it leave, as the run plans it on the disk
    // they left.
    let checkpoint = draft.checkpoint();
    if let Err(e) = crate::presync::plan(&mut draft, device, opts.to) {
        draft.rollback_to(checkpoint);
        p.presync_error = Some(e.to_string());
    }
    p.presync = draft.end_phase();

    config::edit(
        &mut draft,
        &device.config.path,
        &[("agent_runtime", Some(Value::from(to.name)))],
        "switch: the commit point",
    )?;
    p.commit = draft.end_phase();
    if opts.reconcile {
        p.reconcile = reconcile::preview(
            &mut draft,
            device,
            &StepName::after_switch(),
            crate::clock::now_secs(),
        )?;
    }
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
pub(crate) fn is_unit_file(path: &DevPath) -> bool {
    let s = path.to_string();
    let drop_in = s.ends_with(".conf") && s.contains(".service.d/");
    (s.ends_with(".service") || drop_in) && install::UNIT_DIRS.iter().any(|d| s.starts_with(d))
}
