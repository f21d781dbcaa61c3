//! The device model: the OS's own state files, read once per run.
//!
//! - [`config`]: `/root/config/config.json` (shared with os-server; edited in place).
//! - [`state`]: `agent_state.json`, the switch history (owned by osctl's persona reconciler).
//! - [`robot`]: the ROBOT.md front matter of the device type.
//! - [`bootstrap`]: `bootstrap.json`, the OTA worker's config (read only).
//! - [`keys`]: the declared type of each JSON key osctl reads, and the typed read.
//! - [`resolve`]: which runtime is active, and why.
//! - [`paths`]: where all of that lives, and the device's path overrides.

pub(crate) mod bootstrap;
pub mod config;
pub(crate) mod keys;
pub mod paths;
pub(crate) mod resolve;
pub mod robot;
pub mod state;

use crate::error::{Error, Result};
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;

use crate::path::DevPath;
use config::DeviceConfig;
use paths::{DeviceEnv, Escape, Layout};
use resolve::{ImageDefault, Resolution};
use robot::RobotProfile;

/// The device's configuration as read at the start of a run.
#[derive(Clone, Debug)]
pub struct Device {
    pub env: DeviceEnv,
    pub config: DeviceConfig,
    pub layout: Layout,
    /// First line of `f_r_default_agent`, when the file exists.
    pub image_default: Option<String>,
    pub robot: RobotProfile,
}

impl Device {
    /// Reads the device for a command that may change it: [`Device::read`], then every
    /// configured path must stay inside its own tree ([`Device::containment`]), or nothing is
    /// planned at all (exit 1). Every writer comes through here; a reset through
    /// [`Device::load_for_reset`].
    pub fn load(fs: &RootFs, env: &DeviceEnv) -> Result<Device> {
        let device = Self::read(fs, env)?;
        let refused = device.containment(fs)?;
        if refused.is_empty() {
            return Ok(device);
        }
        Err(refusal(env, &refused))
    }

    /// Reads the device for a factory reset: as [`Device::load`], except that a symbolic link
    /// inside a runtime's tree that leads out of it does not refuse the device. The reset
    /// removes such a link itself, as a link, and never reads or deletes what it points at
    /// (see [`crate::reset`]); a setting that points a runtime's folder elsewhere still
    /// refuses it. Returns the device and the links the reset removes.
    pub fn load_for_reset(fs: &RootFs, env: &DeviceEnv) -> Result<(Device, Vec<DevPath>)> {
        let device = Self::read(fs, env)?;
        let escapes = device.containment(fs)?;
        let settings: Vec<Escape> = escapes
            .iter()
            .filter(|e| e.link.is_none())
            .cloned()
            .collect();
        if !settings.is_empty() {
            return Err(refusal(env, &settings));
        }
        let mut links: Vec<DevPath> = escapes.into_iter().filter_map(|e| e.link).collect();
        links.sort();
        links.dedup();
        Ok((device, links))
    }

    /// Reads config.json (a missing one reads as empty defaults: a reset or factory-fresh
    /// device), the image default and the robot profile. Read-only commands that report on a
    /// device (`status`) use this and show [`Device::containment`] as warnings.
    pub fn read(fs: &RootFs, env: &DeviceEnv) -> Result<Device> {
        let config = DeviceConfig::load(fs, &env.config_json())?;
        Self::with_config(fs, env, config)
    }

    /// The configured paths that lead out of their runtime's own tree (the layout's, and ROBOT.md
    /// `soul_ref`), as sentences; empty when every path is contained.
    pub fn containment(&self, fs: &RootFs) -> Result<Vec<Escape>> {
        let mut out = self
            .layout
            .containment(fs, self.config.opt("openclaw_config_dir"))?;
        if let Some(soul) = self.robot.soul_containment(fs, &self.env.devices_dir())? {
            out.push(Escape {
                sentence: soul,
                link: None,
            });
        }
        Ok(out)
    }

    /// Reads the image default and the robot profile around an already-read config.json (a
    /// caller that accepts a missing config.json, like factory reset, passes an empty one).
    pub fn with_config(fs: &RootFs, env: &DeviceEnv, config: DeviceConfig) -> Result<Device> {
        let image_default = fs.read_text(&env.default_agent_file())?;
        let device_type = env
            .device_type()
            .or(config.device_type())
            .map(str::to_string);
        let from_config = env.device_type().is_none();
        let robot =
            RobotProfile::load(fs, &env.devices_dir(), device_type.as_deref()).map_err(|e| {
                // Name where the device type came from: the error is about that value.
                if e.code == "bad_device_type" {
                    let source = match from_config {
                        true => format!("device_type in {}", env.config_json()),
                        false => "the DEVICE_TYPE environment variable".to_string(),
                    };
                    e.hint(format!("fix {source}; nothing was written"))
                } else {
                    e
                }
            })?;
        let layout = Layout::new(env, config.opt("openclaw_config_dir"));
        Ok(Device {
            env: env.clone(),
            config,
            layout,
            image_default,
            robot,
        })
    }

    /// The active runtime and where that answer came from.
    /// The runtime this device resolves to once config.json is gone, as a factory reset
    /// leaves it: the image default, ROBOT.md, the built-in default.
    pub fn resolve_without_config(&self) -> Result<Resolution> {
        let mut reset = self.clone();
        reset.config = DeviceConfig::empty(self.config.path.clone());
        reset.resolve()
    }

    pub fn resolve(&self) -> Result<Resolution> {
        let path = self.env.default_agent_file();
        let image_default = self
            .image_default
            .as_deref()
            .map(|value| ImageDefault { path: &path, value });
        resolve::resolve(&self.config, image_default, &self.robot)
    }

    /// The active runtime.
    pub fn active(&self) -> Result<RuntimeId> {
        Ok(self.resolve()?.runtime)
    }

    /// The runtime a runtime-scoped command acts on: the one `--runtime` named, else the active
    /// one.
    pub fn chosen(&self, given: Option<RuntimeId>) -> Result<RuntimeId> {
        match given {
            Some(rt) => Ok(rt),
            None => self.active(),
        }
    }

    /// The device type: `DEVICE_TYPE`, else `config.device_type`.
    pub fn device_type(&self) -> Option<&str> {
        self.env.device_type().or(self.config.device_type())
    }
}

/// The error of a device some configured path of which leads out of its runtime's tree: each
/// path named, and a hint that names what to fix (the link, or the setting).
fn refusal(env: &DeviceEnv, refused: &[Escape]) -> Error {
    let n = refused.len();
    let mut err = Error::input(
        "path_not_contained",
        format!(
            "refusing to work on this device: {n} configured path{} lead{} out of {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            if n == 1 {
                "its runtime's own tree"
            } else {
                "their runtimes' own trees"
            }
        ),
    );
    for r in refused {
        err = err.cause(r.sentence.clone());
    }
    err.hint(fix_hint(env, refused))
}

/// What fixes the escapes: the links by name (a reset removes them too), the settings where
/// they are set.
pub(crate) fn fix_hint(env: &DeviceEnv, refused: &[Escape]) -> String {
    let links: Vec<String> = refused
        .iter()
        .filter_map(|e| e.link.as_ref().map(|l| l.to_string()))
        .collect();
    let settings = refused.iter().any(|e| e.link.is_none());
    let mut fixes = Vec::new();
    if !links.is_empty() {
        fixes.push(format!(
            "remove or replace the symbolic link{} {} (`osctl reset --yes` removes {} as a link and keeps what {} point{} at)",
            if links.len() == 1 { "" } else { "s" },
            links.join(", "),
            if links.len() == 1 { "it" } else { "them" },
            if links.len() == 1 { "it" } else { "they" },
            if links.len() == 1 { "s" } else { "" },
        ));
    }
    if settings {
        fixes.push(format!(
            "fix the setting ({} openclaw_config_dir, ROBOT.md soul_ref) or the symbolic link named above",
            env.config_json()
        ));
    }
    format!("nothing was written or deleted; {}", fixes.join("; "))
}
