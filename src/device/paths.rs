//! Where things are on the device: fixed paths, the device's path overrides, and the
//! [`Layout`] that turns a runtime's [`Loc`]s into device paths.
//!
//! The upstream daemon honours a few environment overrides (`OS_AGENT_HOME`, `CODEX_HOME`,
//! `OS_AGENT_STATE_PATH`, `OS_BOOTSTRAP_CONFIG`, `DEVICES_DIR`, `DEVICE_TYPE`,
//! `OS_GELF_SPOOL_DIR`). osctl honours them only on the live device (`--root /`): with any other
//! root they describe the workstation osctl runs on, not the image it inspects (a developer's own
//! `CODEX_HOME`, say), so the defaults apply.
//!
//! **Containment.** A configured path can point a runtime's folder anywhere: config.json's
//! `openclaw_config_dir` (`/`, `/etc`, `/root`), a runtime home that is a symbolic link to
//! `/etc`, an override aimed at a system folder. Every writer and a reset would then write or
//! delete there. [`Layout::containment`] finds each such path before anything is planned, and
//! [`crate::device::Device::load`], which every command that changes the device goes through,
//! refuses them (exit 1): each path a runtime declares must, where it really is (links
//! followed under the root), stay inside that runtime's own tree, and each tree inside the agent
//! home (or its own override), apart from every other runtime's home.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::path::DevPath;
use crate::runtime::{Anchor, Loc, REGISTRY, ResetStep, Runtime};
use crate::system::fs::{Kind, RootFs};

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

/// Top-level folders of the OS itself: no runtime tree may be one, and a base set by an override
/// may not lie in the first group.
const SYSTEM_TREES: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/run", "/sbin", "/sys",
    "/usr",
];
const SYSTEM_FOLDERS: &[&str] = &[
    "/", "/var", "/opt", "/tmp", "/home", "/mnt", "/media", "/srv",
];

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

    /// The configured paths that lead out of a runtime's own tree, each as a sentence naming
    /// the path, where it really is, and the setting or link that put it there (empty: every
    /// path is contained). See the module docs.
    pub fn containment(
        &self,
        fs: &RootFs,
        openclaw_config_dir: Option<&str>,
    ) -> Result<Vec<Escape>> {
        let mut out = Vec::new();
        // The sentences that a symbolic link inside a runtime's tree is the cause of, with
        // that link.
        let mut links: Vec<(String, DevPath)> = Vec::new();
        let mut r = Resolver::new(fs);
        let home = r.real(&self.agent_home, true)?;
        for (base, what) in [
            (&self.agent_home, "the agent home (OS_AGENT_HOME)"),
            (&self.codex_home, "codex's home (CODEX_HOME)"),
        ] {
            let real = r.real(base, true)?;
            if is_system(&real) {
                out.push(format!(
                    "{what} {base}{} is a system folder",
                    at(base, &real)
                ));
            }
        }
        let configured = openclaw_config_dir.map(str::trim).filter(|s| !s.is_empty());
        let refused_before = out.len();
        if let Some(dir) = configured {
            let lexical = DevPath::new(dir);
            let plain = dir.starts_with('/')
                && !std::path::Path::new(dir).components().any(|c| {
                    matches!(
                        c,
                        std::path::Component::ParentDir | std::path::Component::CurDir
                    )
                });
            if !plain {
                out.push(format!(
                    "openclaw_config_dir \"{dir}\" is not a plain absolute path (no `.` or `..`)"
                ));
            } else if lexical == self.agent_home || !lexical.starts_with(&self.agent_home) {
                out.push(format!(
                    "openclaw_config_dir \"{dir}\" is not a folder inside the agent home {}",
                    self.agent_home
                ));
            }
        }
        // A refused setting is named once, not again for every path under it.
        let openclaw_refused = out.len() > refused_before;
        // Each runtime's trees: where its paths live, one folder (or file) under its anchor.
        let mut homes: Vec<(DevPath, &str)> = Vec::new();
        // (where it really is, whose, whether it is the openclaw config folder's).
        let mut trees: Vec<(DevPath, &str, bool)> = Vec::new();
        // A runtime's paths whose real place is outside their own tree: judged once all of
        // that runtime's trees are known.
        let mut leaving: Vec<(DevPath, DevPath, DevPath, bool)> = Vec::new();
        for rt in REGISTRY {
            let rt_home = self.path(rt.home);
            let rt_home_real = r.real(&rt_home, true)?;
            homes.push((rt_home_real, rt.name));
            for (loc, follow) in locs(rt) {
                if loc.anchor == Anchor::Root
                    || (openclaw_refused && loc.anchor == Anchor::OpenclawDir)
                {
                    continue;
                }
                let (base, base_real) = match loc.anchor {
                    Anchor::AgentHome => (&self.agent_home, home.clone()),
                    Anchor::CodexHome => (&self.codex_home, r.real(&self.codex_home, true)?),
                    _ => (&self.openclaw_dir, r.real(&self.openclaw_dir, true)?),
                };
                let first = loc.rel.split('/').find(|c| !c.is_empty());
                let tree = match first {
                    Some(c) if loc.anchor == Anchor::AgentHome => base.join(c),
                    _ => base.clone(),
                };
                let tree_real = r.real(&tree, true)?;
                let oc_tree = loc.anchor == Anchor::OpenclawDir;
                if !trees
                    .iter()
                    .any(|(t, n, _)| *t == tree_real && *n == rt.name)
                {
                    trees.push((tree_real.clone(), rt.name, oc_tree));
                }
                let inside_home = match loc.anchor {
                    // The codex home may be set elsewhere (CODEX_HOME): it is its own tree.
                    Anchor::CodexHome if self.codex_home != self.agent_home.join(".codex") => true,
                    _ => tree_real != home && tree_real.starts_with(&home),
                };
                if !inside_home || is_system(&tree_real) {
                    let why = if *base == self.openclaw_dir && configured.is_some() {
                        "(set by config.json openclaw_config_dir)"
                    } else {
                        "(reached through a symbolic link)"
                    };
                    out.push(format!(
                        "{}'s folder {tree}{} is not inside the agent home {} {why}",
                        rt.name,
                        at(&tree, &tree_real),
                        self.agent_home
                    ));
                    continue;
                }
                let path = self.path(loc);
                let path_real = r.real(&path, follow)?;
                if path_real == base_real && !loc.rel.is_empty() {
                    let sentence = format!(
                        "{}'s {path}{} leads out of {tree} (through a symbolic link)",
                        rt.name,
                        at(&path, &path_real)
                    );
                    let own = [tree_real.clone()];
                    if let Some(link) = first_link_out(&mut r, fs, &tree, &path, follow, &own)? {
                        links.push((sentence.clone(), link));
                    }
                    out.push(sentence);
                } else if !path_real.starts_with(&tree_real) {
                    leaving.push((path, path_real, tree, follow));
                }
            }
            // A link from one of the runtime's own trees into another of them (claudecode's
            // workspace `.claude` to `~/.claude`) stays with the runtime; anywhere else it leads
            // out.
            for (path, path_real, tree, follow) in leaving.drain(..) {
                let own: Vec<DevPath> = trees
                    .iter()
                    .filter(|(_, n, _)| *n == rt.name)
                    .map(|(t, _, _)| t.clone())
                    .collect();
                if !own.iter().any(|t| path_real.starts_with(t)) {
                    let sentence = format!(
                        "{}'s {path}{} leads out of {tree} (through a symbolic link)",
                        rt.name,
                        at(&path, &path_real)
                    );
                    if let Some(link) = first_link_out(&mut r, fs, &tree, &path, follow, &own)? {
                        links.push((sentence.clone(), link));
                    }
                    out.push(sentence);
                }
            }
        }
        for (i, (a, an)) in homes.iter().enumerate() {
            for (b, bn) in &homes[i + 1..] {
                if a.starts_with(b) || b.starts_with(a) {
                    out.push(format!("the homes of {an} ({a}) and {bn} ({b}) overlap"));
                }
            }
        }
        // The device's own config folder (config.json, bootstrap.json, the image default) is
        // no runtime's: a runtime tree there would let a reset or a presync rewrite it.
        let config_dir = r
            .real(&DevPath::new(CONFIG_JSON), true)?
            .parent()
            .unwrap_or_else(|| DevPath::new("/"));
        for (t, n, _) in &trees {
            if t.starts_with(&config_dir) || config_dir.starts_with(t) {
                out.push(format!(
                    "{n}'s folder {t} overlaps the device config folder {config_dir}"
                ));
            }
        }
        let oc = r.real(&self.openclaw_dir, true)?;
        for (t, n, oc_tree) in &trees {
            if openclaw_refused {
                break;
            }
            if !oc_tree && (t.starts_with(&oc) || oc.starts_with(t)) {
                out.push(format!(
                    "openclaw's config folder {}{} overlaps {n}'s {t}",
                    self.openclaw_dir,
                    at(&self.openclaw_dir, &oc)
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|s| seen.insert(s.clone()));
        Ok(out
            .into_iter()
            .map(|sentence| Escape {
                link: links
                    .iter()
                    .find(|(s, _)| *s == sentence)
                    .map(|(_, l)| l.clone()),
                sentence,
            })
            .collect())
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

/// Every path a runtime declares, with whether its last component is followed (a path osctl
/// writes, or writes into) or not (what a reset keeps: a binary may be a link elsewhere).
fn locs(rt: &Runtime) -> Vec<(Loc, bool)> {
    let p = &rt.persona;
    let mut out: Vec<(Loc, bool)> =
        vec![(rt.home, true), (rt.workspace, true), (rt.skills.dir, true)];
    out.extend(rt.native.iter().map(|f| (f.loc, true)));
    out.push((rt.mcp.file, true));
    out.extend(
        [
            Some(p.soul),
            p.identity,
            Some(p.memory),
            Some(p.user),
            p.knowledge,
            p.daily_dir,
        ]
        .into_iter()
        .flatten()
        .map(|l| (l, true)),
    );
    out.extend(p.wipe.iter().map(|l| (*l, false)));
    out.extend(
        rt.migrate_marker
            .iter()
            .chain(rt.install_log.iter())
            .map(|l| (*l, true)),
    );
    out.extend(rt.reset.inline_persona.iter().map(|l| (*l, true)));
    out.extend(rt.reset.owner.iter().map(|l| (*l, false)));
    out.extend(rt.reset.keep.iter().map(|l| (*l, false)));
    for step in rt.reset.steps {
        match *step {
            ResetStep::Remove(l) => out.push((l, false)),
            ResetStep::RemovePrefixed { dir, .. }
            | ResetStep::RemoveFilesExcept { dir, .. }
            | ResetStep::EmptyExcept { dir, .. } => out.push((dir, true)),
            ResetStep::StopUnit | ResetStep::DisableUnit | ResetStep::Run(_) => {}
        }
    }
    out
}

/// A configured path that leads out of its runtime's own tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Escape {
    /// The path, where it really is, and the setting or link that put it there.
    pub sentence: String,
    /// The symbolic link inside the runtime's tree that leads out of it, where it really is
    /// (its own last component not followed), when a link is the cause; `None` when a setting
    /// is (config.json `openclaw_config_dir`, ROBOT.md `soul_ref`, an override, a runtime
    /// folder that is itself a link out of the agent home). A reset removes such a link, as a
    /// link; a writer refuses the device while it is there.
    pub link: Option<DevPath>,
}

/// The first symbolic link on the way from `tree` down to `path` whose target lies outside
/// every one of `own` (the runtime's own trees, where they really are), as the link itself
/// (where it really is, not followed). The last component counts only when `follow` (what a
/// reset removes as a link is no way out). `None` when no single link is the way out.
fn first_link_out(
    r: &mut Resolver<'_>,
    fs: &RootFs,
    tree: &DevPath,
    path: &DevPath,
    follow: bool,
    own: &[DevPath],
) -> Result<Option<DevPath>> {
    let Ok(rest) = path.as_path().strip_prefix(tree.as_path()) else {
        return Ok(None);
    };
    let parts: Vec<_> = rest.components().collect();
    let mut here = tree.clone();
    for (i, part) in parts.iter().enumerate() {
        here = here.join(part.as_os_str().to_string_lossy().as_ref());
        if i + 1 == parts.len() && !follow {
            break;
        }
        let link = r.real(&here, false)?;
        if !matches!(fs.lstat(&link)?, Some(m) if m.kind == Kind::Symlink) {
            continue;
        }
        let target = r.real(&here, true)?;
        if !own.iter().any(|t| target.starts_with(t)) {
            return Ok(Some(link));
        }
    }
    Ok(None)
}

/// Where paths really are on the device (links followed under the root), each folder looked up
/// once: the containment check runs before every command that writes, the boot path's presync
/// included, so it must cost a few lookups, not a resolution per path.
struct Resolver<'f> {
    fs: &'f RootFs,
    /// Device path -> (where it really is, whether it exists).
    memo: std::collections::HashMap<DevPath, (DevPath, bool)>,
}

impl<'f> Resolver<'f> {
    fn new(fs: &'f RootFs) -> Self {
        Resolver {
            fs,
            memo: std::collections::HashMap::new(),
        }
    }

    /// Where `path` really is (the last component followed only when `follow`).
    fn real(&mut self, path: &DevPath, follow: bool) -> Result<DevPath> {
        if follow {
            return Ok(self.node(path)?.0);
        }
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => Ok(self.node(&parent)?.0.join(name)),
            _ => Ok(path.clone()),
        }
    }

    /// Where `path` really is, every link followed, and whether it exists. Below a folder that
    /// does not exist nothing does, so nothing is looked up there.
    fn node(&mut self, path: &DevPath) -> Result<(DevPath, bool)> {
        if path.is_root() {
            return Ok((path.clone(), true));
        }
        if let Some(known) = self.memo.get(path) {
            return Ok(known.clone());
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok((path.clone(), false));
        };
        let (above, exists) = self.node(&parent)?;
        let here = above.join(name);
        let found = if !exists {
            (here, false)
        } else {
            match self.fs.lstat(&here)? {
                None => (here, false),
                Some(m) if m.kind == Kind::Symlink => {
                    let host = self.fs.host(&here)?;
                    let real = match host.strip_prefix(self.fs.root()) {
                        Ok(rel) => DevPath::new(rel),
                        Err(_) => DevPath::new("/"),
                    };
                    let exists = self.fs.lstat(&real)?.is_some();
                    (real, exists)
                }
                Some(_) => (here, true),
            }
        };
        self.memo.insert(path.clone(), found.clone());
        Ok(found)
    }
}

fn is_system(p: &DevPath) -> bool {
    SYSTEM_FOLDERS.iter().any(|s| *p == DevPath::new(s))
        || SYSTEM_TREES.iter().any(|s| p.starts_with(&DevPath::new(s)))
}

/// ` (at /etc)` when a path really is somewhere else.
fn at(path: &DevPath, real: &DevPath) -> String {
    if path == real {
        String::new()
    } else {
        format!(" (at {real})")
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
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
