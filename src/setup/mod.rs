//! osctl's own systemd units on a device (`osctl setup`), and the presync drop-ins of the
//! runtime units (also refreshed by `osctl switch`).
//!
//! What osctl installs (files in `embedded/units/`, compiled in):
//!
//! - `osctl-boot.service`: a oneshot `osctl reconcile` at every boot, after the local file
//!   systems and before the runtime units (upstream's startup sequence, docs/device-contract.md
//!   §4.1 step 10);
//! - `osctl-skills-sync.service` and `.timer`: `osctl skills sync` every 5 minutes (upstream's
//!   skill watcher), with a fixed per-device random offset and a catch-up run after downtime;
//! - for every runtime whose unit exists, `<unit>.service.d/10-osctl-presync.conf`:
//!   `ExecStartPre=-/usr/bin/osctl presync <rt>`.
//!
//! Every `Exec` line names the binary by its absolute path (`systemd-analyze verify` refuses a
//! bare name): the package's `/usr/bin/osctl` in the files it ships; setup and switch write the
//! binary they find ([`binary`]): on the live device the running one, under `--root IMAGE` the
//! image's `/usr/local/bin/osctl` or `/usr/bin/osctl`.
//!
//! Units are written to `/etc/systemd/system` and enabled as `systemctl enable` does, with the
//! `[Install]` links (`multi-user.target.wants/`, `timers.target.wants/`), so the same plan
//! works on the live device and on a mounted image (`--root IMAGE`), where no systemd runs. On
//! the live device it then reloads systemd and starts the timer. Where the osctl package
//! installed a file in the vendor folder (`/usr/lib/systemd/system`, `/lib/systemd/system`), the
//! package owns it and setup writes no copy in `/etc` (which would shadow the package's next
//! version). A unit the administrator masked (a link to `/dev/null` in `/etc`) is left masked.
//!
//! Everything is planned through a [`Draft`]: pure, previewable, applied by `apply/`.

use crate::error::Result;
use crate::path::DevPath;
use crate::plan::{Draft, ServiceAction};
use crate::runtime::{REGISTRY, Runtime, install};

/// Where osctl writes its units (the administrator's folder, as for the runtime units it owns).
pub(crate) const UNIT_DIR: &str = "/etc/systemd/system";

/// Where a package puts unit files; a file there is the package's.
pub(crate) const VENDOR_DIRS: [&str; 2] = ["/usr/lib/systemd/system", "/lib/systemd/system"];

/// The file name of the presync drop-in in `<unit>.service.d/`.
pub(crate) const DROP_IN: &str = "10-osctl-presync.conf";

/// The drop-in, with `@RUNTIME@` for the runtime's name and `@OSCTL@` for the binary's path.
const DROP_IN_TEMPLATE: &str = include_str!("../../embedded/units/osctl-presync.conf");

/// Where the package installs the binary, and the path the units in `embedded/units/` (which
/// the package ships as they are) call.
pub(crate) const PACKAGED_BINARY: &str = "/usr/bin/osctl";

/// Where a unit may call osctl from without a warning: the system's binary folders.
const SYSTEM_BINARIES: [&str; 2] = ["/usr/local/bin/osctl", PACKAGED_BINARY];

/// One of osctl's own units.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unit {
    /// The unit's file name (`osctl-boot.service`).
    pub name: &'static str,
    pub content: &'static str,
    /// The target whose `.wants/` holds its enable link (its `[Install] WantedBy=`).
    pub wanted_by: Option<&'static str>,
    /// Started on the live device once enabled (the timer; the boot pass waits for a boot).
    pub start: bool,
}

/// osctl's units, in the order they are written.
pub(crate) const UNITS: [Unit; 3] = [
    Unit {
        name: "osctl-boot.service",
        content: include_str!("../../embedded/units/osctl-boot.service"),
        wanted_by: Some("multi-user.target"),
        start: false,
    },
    Unit {
        name: "osctl-skills-sync.service",
        content: include_str!("../../embedded/units/osctl-skills-sync.service"),
        wanted_by: None,
        start: false,
    },
    Unit {
        name: "osctl-skills-sync.timer",
        content: include_str!("../../embedded/units/osctl-skills-sync.timer"),
        wanted_by: Some("timers.target"),
        start: true,
    },
];

/// What became of one file setup looks after.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum State {
    /// Written (or rewritten) by this run.
    Written,
    /// Already as osctl would write it.
    InPlace,
    /// Installed by the osctl package in the vendor folder: left to the package.
    Packaged,
    /// Masked by the administrator (`/etc/systemd/system/<unit>` links to `/dev/null`): left so.
    Masked,
}

#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct UnitReport {
    pub unit: &'static str,
    /// Where systemd finds it.
    pub path: DevPath,
    pub state: State,
    /// The `[Install]` link, when the unit has one.
    pub enabled_by: Option<DevPath>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct DropInReport {
    pub runtime: &'static str,
    pub unit: String,
    pub path: DevPath,
    pub state: State,
}

#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Report {
    pub units: Vec<UnitReport>,
    pub drop_ins: Vec<DropInReport>,
    /// Runtimes with no unit yet (a switch writes their drop-in when it installs them).
    pub runtimes_without_unit: Vec<&'static str>,
    /// The binary the units' `Exec` lines call.
    pub binary: DevPath,
}

/// The binary osctl's units and drop-ins call, and a warning when it is not one systemd can
/// rely on. On the live device: the running binary (what the operator just ran), unless it
/// was replaced or removed since (an upgrade), then the first system one. Under `--root IMAGE`:
/// the image's `/usr/local/bin/osctl`, else its `/usr/bin/osctl`; with neither, the package's
/// path and a warning (the units fail until a binary is installed there).
pub(crate) fn binary(draft: &Draft<'_>) -> Result<(DevPath, Option<String>)> {
    let fs = draft.fs();
    if fs.is_live()
        && let Some(running) = crate::system::fs::running_binary()
        && fs.is_executable(&running)?
    {
        let warning = (!SYSTEM_BINARIES.contains(&running.to_string().as_str())).then(|| {
            format!(
                "the units will call {running} (the binary that ran this): install osctl as /usr/local/bin/osctl or /usr/bin/osctl and run `osctl setup` again if that copy may go"
            )
        });
        return Ok((running, warning));
    }
    for p in SYSTEM_BINARIES {
        let p = DevPath::new(p);
        if fs.is_executable(&p)? {
            return Ok((p, None));
        }
    }
    Ok((
        DevPath::new(PACKAGED_BINARY),
        Some(format!(
            "no osctl binary in /usr/local/bin or /usr/bin under this root: the units call {PACKAGED_BINARY} and fail until one is installed there"
        )),
    ))
}

/// The presync drop-in for `rt`, calling `binary`.
pub(crate) fn drop_in(rt: &Runtime, binary: &DevPath) -> String {
    DROP_IN_TEMPLATE
        .replace("@RUNTIME@", rt.name)
        .replace("@OSCTL@", &binary.to_string())
}

/// One of osctl's units as written for `binary`: its `Exec` lines call that path instead of
/// the package's (comments keep naming the package's).
pub(crate) fn render(unit: &Unit, binary: &DevPath) -> String {
    let mut out = String::with_capacity(unit.content.len());
    for line in unit.content.split_inclusive('\n') {
        if line.starts_with("Exec") {
            out.push_str(&line.replacen(PACKAGED_BINARY, &binary.to_string(), 1));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `/etc/systemd/system/<unit>.service.d/10-osctl-presync.conf`.
pub(crate) fn drop_in_path(unit: &str) -> DevPath {
    DevPath::new(UNIT_DIR)
        .join(format!("{}.service.d", unit.trim_end_matches(".service")))
        .join(DROP_IN)
}

/// The vendor copy of a file under a unit folder (`rel` relative to it), if the package put one.
fn vendor_copy(draft: &Draft<'_>, rel: &str) -> Result<Option<DevPath>> {
    for dir in VENDOR_DIRS {
        let p = DevPath::new(dir).join(rel);
        if draft.exists(&p)? {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// Plans the presync drop-in of `rt`'s unit (nothing when the package provides it). A switch
/// calls this for the runtime it switches to (its unit may come with its installer, later in
/// the same switch); setup for each runtime whose unit exists.
pub(crate) fn plan_drop_in(draft: &mut Draft<'_>, rt: &Runtime) -> Result<DropInReport> {
    let unit = install::unit_name(draft.fs(), rt)?;
    let rel = format!("{unit}.service.d/{DROP_IN}");
    if let Some(path) = vendor_copy(draft, &rel)? {
        return Ok(DropInReport {
            runtime: rt.name,
            unit,
            path,
            state: State::Packaged,
        });
    }
    let path = drop_in_path(&unit);
    let reason = format!("osctl's presync drop-in for {}", rt.name);
    let (binary, _) = binary(draft)?;
    let written = draft.write(&path, drop_in(rt, &binary), Some(0o644), &reason)?;
    Ok(DropInReport {
        runtime: rt.name,
        unit,
        path,
        state: if written {
            State::Written
        } else {
            State::InPlace
        },
    })
}

/// Plans `osctl setup`: osctl's units, their enable links, the presync drop-ins, and (carried
/// out only on the live device) `daemon-reload` and the start of the timer.
pub(crate) fn plan(draft: &mut Draft<'_>) -> Result<Report> {
    let (binary, warning) = binary(draft)?;
    if let Some(warning) = warning {
        draft.warn(warning);
    }
    let mut changed = false;
    let mut starts = Vec::new();
    let mut units = Vec::new();
    for unit in UNITS {
        let etc = DevPath::new(UNIT_DIR).join(unit.name);
        let (path, state) = if masked(draft, &etc)? {
            draft.warn(format!(
                "{etc} is masked (a link to /dev/null): left masked, {} not written or enabled",
                unit.name
            ));
            units.push(UnitReport {
                unit: unit.name,
                path: etc,
                state: State::Masked,
                enabled_by: None,
            });
            continue;
        } else if let Some(vendor) = vendor_copy(draft, unit.name)? {
            (vendor, State::Packaged)
        } else {
            let reason = format!("osctl's unit {}", unit.name);
            let written = draft.write(&etc, render(&unit, &binary), Some(0o644), &reason)?;
            changed |= written;
            (
                etc,
                if written {
                    State::Written
                } else {
                    State::InPlace
                },
            )
        };
        let enabled_by = match unit.wanted_by {
            Some(target) => {
                let link = DevPath::new(UNIT_DIR)
                    .join(format!("{target}.wants"))
                    .join(unit.name);
                let new = enable(draft, &link, &path, unit.name)?;
                changed |= new;
                if new && unit.start {
                    starts.push(ServiceAction::Start(unit.name.to_string()));
                }
                Some(link)
            }
            None => None,
        };
        units.push(UnitReport {
            unit: unit.name,
            path,
            state,
            enabled_by,
        });
    }
    let mut drop_ins = Vec::new();
    let mut runtimes_without_unit = Vec::new();
    for rt in REGISTRY {
        let unit = install::unit_name(draft.fs(), rt)?;
        let mut exists = install::find_unit_file(draft.fs(), &unit)?.is_some();
        for dir in install::UNIT_DIRS {
            exists |= draft.exists(&DevPath::new(dir).join(format!("{unit}.service")))?;
        }
        if !exists {
            runtimes_without_unit.push(rt.name);
            continue;
        }
        let report = plan_drop_in(draft, rt)?;
        changed |= report.state == State::Written;
        drop_ins.push(report);
    }
    if changed {
        // Reload before the start: systemd must know the timer it is asked to start.
        draft.service(ServiceAction::DaemonReload);
        for s in starts {
            draft.service(s);
        }
    }
    Ok(Report {
        units,
        drop_ins,
        runtimes_without_unit,
        binary,
    })
}

/// Whether `path` is a link to `/dev/null` (`systemctl mask`).
fn masked(draft: &Draft<'_>, path: &DevPath) -> Result<bool> {
    Ok(draft
        .fs()
        .read_link(path)?
        .is_some_and(|t| t == std::path::Path::new("/dev/null")))
}

/// Plans the `[Install]` link `link` -> `unit_file`; `true` when the link is new or replaced. A
/// link there that leads to a unit file already counts as enabled (the package's
/// `deb-systemd-helper` links `/lib/...`, `systemctl enable` may link `/usr/lib/...`); a
/// dangling one is replaced.
fn enable(draft: &mut Draft<'_>, link: &DevPath, unit_file: &DevPath, name: &str) -> Result<bool> {
    let fs = draft.fs();
    if fs.lstat(link)?.is_some() && fs.stat(link)?.is_some() {
        return Ok(false);
    }
    draft.symlink(
        link,
        &unit_file.to_string(),
        &format!("enable {name} (as `systemctl enable` does)"),
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
