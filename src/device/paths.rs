//! Where things are on the device: fixed paths, the device's path overrides, and the
//! [`Layout`] that turns a runtime's [`Loc`]s into device paths.
//!
//! The upstream daemon honours a few environment overrides (`OS_AGENT_HOME`, `CODEX_HOME`,
//! `OS_AGENT_STATE_PATH`, `OS_BOOTSTRAP_CONFIG`, `DEVICES_DIR`, `DEVICE_TYPE`,
//! `OS_GELF_SPOOL_DIR`). osctl honours them only on the live device (`--root /`): with any other
//! root they describe the workstation osctl runs on, not the image it inspects (a developer's own
//! `CODEX_HOME`, say), so the defaults apply.

use std::collections::BTreeMap;

use crate::runtime::{Anchor, Loc};
use crate::system::path::DevPath;

pub const CONFIG_JSON: &str = "/root/config/config.json";
pub const DEFAULT_AGENT_FILE: &str = "/root/config/f_r_default_agent";
const AGENT_STATE_JSON: &str = "/root/config/agent_state.json";
const BOOTSTRAP_JSON: &str = "/root/config/bootstrap.json";
const DEVICES_DIR: &str = "/opt/devices";
const AGENT_HOME: &str = "/root";
const GELF_SPOOL: &str = "/var/lib/autonomous/gelf-spool";

/// The device's path overrides, read once.
#[derive(Clone, Debug, Default)]
pub struct DeviceEnv {
    vars: BTreeMap<&'static str, String>,
}

/// The variables osctl reads on the live device.
const VARS: &[&str] = &[
    "OS_AGENT_HOME",
    "CODEX_HOME",
    "OS_AGENT_STATE_PATH",
    "OS_BOOTSTRAP_CONFIG",
    "DEVICES_DIR",
    "DEVICE_TYPE",
    "OS_GELF_SPOOL_DIR",
];

impl DeviceEnv {
    /// Reads the overrides from `lookup` when `live`; otherwise none apply.
    pub fn new(live: bool, lookup: impl Fn(&str) -> Option<String>) -> DeviceEnv {
        let mut vars = BTreeMap::new();
        if live {
            for &name in VARS {
                if let Some(v) = lookup(name).filter(|v| !v.trim().is_empty()) {
                    vars.insert(name, v.trim().to_string());
                }
            }
        }
        DeviceEnv { vars }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    pub fn agent_home(&self) -> DevPath {
        DevPath::new(self.get("OS_AGENT_HOME").unwrap_or(AGENT_HOME))
    }

    pub fn codex_home(&self) -> DevPath {
        match self.get("CODEX_HOME") {
            Some(p) => DevPath::new(p),
            None => self.agent_home().join(".codex"),
        }
    }

    pub fn config_json(&self) -> DevPath {
        DevPath::new(CONFIG_JSON)
    }

    pub fn default_agent_file(&self) -> DevPath {
        DevPath::new(DEFAULT_AGENT_FILE)
    }

    pub fn agent_state(&self) -> DevPath {
        DevPath::new(self.get("OS_AGENT_STATE_PATH").unwrap_or(AGENT_STATE_JSON))
    }

    pub fn bootstrap(&self) -> DevPath {
        DevPath::new(self.get("OS_BOOTSTRAP_CONFIG").unwrap_or(BOOTSTRAP_JSON))
    }

    pub fn devices_dir(&self) -> DevPath {
        DevPath::new(self.get("DEVICES_DIR").unwrap_or(DEVICES_DIR))
    }

    /// `DEVICE_TYPE` (it wins over `config.device_type`).
    pub fn device_type(&self) -> Option<&str> {
        self.get("DEVICE_TYPE")
    }

    pub fn gelf_spool(&self) -> DevPath {
        DevPath::new(self.get("OS_GELF_SPOOL_DIR").unwrap_or(GELF_SPOOL))
    }

    /// The overrides in force, for `status -v`.
    pub fn overrides(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.vars.iter().map(|(k, v)| (*k, v.as_str()))
    }
}

/// Resolves runtime [`Loc`]s to device paths.
#[derive(Clone, Debug)]
pub struct Layout {
    pub agent_home: DevPath,
    pub codex_home: DevPath,
    pub openclaw_dir: DevPath,
}

impl Layout {
    /// `openclaw_config_dir` is config.json's field of that name (default `<home>/.openclaw`).
    pub fn new(env: &DeviceEnv, openclaw_config_dir: Option<&str>) -> Layout {
        let agent_home = env.agent_home();
        let openclaw_dir = match openclaw_config_dir.map(str::trim).filter(|s| !s.is_empty()) {
            Some(dir) => DevPath::new(dir),
            None => agent_home.join(".openclaw"),
        };
        Layout {
            codex_home: env.codex_home(),
            agent_home,
            openclaw_dir,
        }
    }

    pub fn path(&self, loc: Loc) -> DevPath {
        let base = match loc.anchor {
            Anchor::AgentHome => &self.agent_home,
            Anchor::CodexHome => &self.codex_home,
            Anchor::OpenclawDir => &self.openclaw_dir,
            Anchor::Root => return DevPath::new(loc.rel),
        };
        if loc.rel.is_empty() {
            base.clone()
        } else {
            base.join(loc.rel)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::REGISTRY;

    #[test]
    fn overrides_apply_only_on_the_live_device() {
        let lookup = |k: &str| (k == "CODEX_HOME").then(|| "/data/codex".to_string());
        assert_eq!(
            DeviceEnv::new(true, lookup).codex_home().to_string(),
            "/data/codex"
        );
        assert_eq!(
            DeviceEnv::new(false, lookup).codex_home().to_string(),
            "/root/.codex"
        );
    }

    #[test]
    fn no_runtime_wipes_a_home_workspace_or_skills_folder() {
        let layout = Layout::new(&DeviceEnv::default(), None);
        let mut roots = vec![layout.agent_home.clone(), DevPath::new("/")];
        for rt in REGISTRY {
            roots.push(layout.path(rt.home));
            roots.push(layout.path(rt.workspace));
            roots.push(layout.path(rt.skills.dir));
        }
        for rt in REGISTRY {
            for loc in rt.persona.wipe {
                let p = layout.path(*loc);
                for root in &roots {
                    assert!(
                        !root.starts_with(&p),
                        "{}: persona path {p} would wipe {root}",
                        rt.name
                    );
                }
            }
        }
    }
}
