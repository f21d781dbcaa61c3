//! Is a runtime installed? Upstream's answer (`switch_runtime.sh backend_installed`): its unit
//! exists AND its verify hook passes (no hook: the unit is enough). The unit name is the first
//! line of `/usr/local/lib/os-runtimes/<rt>/service` when that file exists, else the registry's.
//!
//! On the live device the verify hook itself runs. Under any other root it cannot (it would run
//! host programs against the host), so osctl checks from the files what the hook checks: the
//! commands it looks up on `PATH` and the executables it tests.

use std::time::Duration;

use super::{Runtime, runtime_lib_dir};
use crate::error::Result;
use crate::path::DevPath;
use crate::system::fs::RootFs;
use crate::system::process::{self, Run};

/// Where systemd looks for unit files, most specific first.
pub(crate) const UNIT_DIRS: &[&str] = &[
    "/etc/systemd/system",
    "/run/systemd/system",
    "/usr/local/lib/systemd/system",
    "/usr/lib/systemd/system",
    "/lib/systemd/system",
];

/// `PATH` of the verify hooks (and of the device's shells).
const PATH_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

const VERIFY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "result", content = "detail", rename_all = "kebab-case")]
pub(crate) enum Verified {
    /// The hook (or the file check standing in for it) passed.
    Passed(String),
    Failed(String),
}

#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct InstallState {
    /// The unit, without `.service`.
    pub unit: String,
    /// Where its unit file is, if anywhere.
    pub unit_file: Option<DevPath>,
    pub verify: Verified,
}

impl InstallState {
    pub(crate) fn installed(&self) -> bool {
        self.unit_file.is_some() && matches!(self.verify, Verified::Passed(_))
    }

    /// Why it is not installed (or `installed`), in a few words.
    pub(crate) fn reason(&self) -> String {
        match (&self.unit_file, &self.verify) {
            (None, _) => format!("{}.service missing", self.unit),
            (Some(_), Verified::Failed(why)) => format!("verify: {why}"),
            (Some(_), Verified::Passed(_)) => "installed".into(),
        }
    }
}

/// The unit name: the `service` file's first line, else the registry's.
pub(crate) fn unit_name(fs: &RootFs, rt: &Runtime) -> Result<String> {
    let path = DevPath::new(runtime_lib_dir(rt.id)).join("service");
    let declared = fs
        .read_text(&path)?
        .and_then(|t| {
            t.lines()
                .next()
                .map(|l| l.split_whitespace().collect::<String>())
        })
        .filter(|u| !u.is_empty());
    Ok(declared
        .map(|u| u.trim_end_matches(".service").to_string())
        .unwrap_or_else(|| rt.unit.to_string()))
}

/// The unit file of `unit`, if one exists in systemd's search path.
pub(crate) fn find_unit_file(fs: &RootFs, unit: &str) -> Result<Option<DevPath>> {
    for dir in UNIT_DIRS {
        let p = DevPath::new(dir).join(format!("{unit}.service"));
        if fs.exists(&p)? {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// Finds a command on the device's `PATH`.
pub(crate) fn on_path(fs: &RootFs, name: &str) -> Result<Option<DevPath>> {
    for dir in PATH_DIRS {
        let p = DevPath::new(dir).join(name);
        if fs.is_executable(&p)? {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// Inspects a runtime's installation.
pub(crate) fn inspect(fs: &RootFs, rt: &Runtime) -> Result<InstallState> {
    let unit = unit_name(fs, rt)?;
    let unit_file = find_unit_file(fs, &unit)?;
    let hook = DevPath::new(runtime_lib_dir(rt.id)).join("verify");
    let verify = if fs.is_live() && fs.is_executable(&hook)? {
        run_hook(&hook)?
    } else {
        check_files(fs, rt)?
    };
    Ok(InstallState {
        unit,
        unit_file,
        verify,
    })
}

fn run_hook(hook: &DevPath) -> Result<Verified> {
    let argv = vec![hook.to_string()];
    let mut run = Run::new(&argv, VERIFY_TIMEOUT);
    run.clean_env = true;
    let out = process::run(&run)?;
    Ok(if out.success() {
        Verified::Passed(format!("{hook} passed"))
    } else {
        Verified::Failed(format!("{hook}: {}", out.describe()))
    })
}

/// What the verify hook checks, checked from the files.
fn check_files(fs: &RootFs, rt: &Runtime) -> Result<Verified> {
    for name in rt.verify.on_path {
        if on_path(fs, name)?.is_none() {
            return Ok(Verified::Failed(format!("`{name}` is not on PATH")));
        }
    }
    for exe in rt.verify.executables {
        if !fs.is_executable(&DevPath::new(exe))? {
            return Ok(Verified::Failed(format!("{exe} is not executable")));
        }
    }
    Ok(Verified::Passed(
        if rt.verify.on_path.is_empty() && rt.verify.executables.is_empty() {
            "no verify hook: the unit is enough".into()
        } else {
            "checked from the files".into()
        },
    ))
}
