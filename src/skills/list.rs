//! What is installed, for `skills list` and `skills verify`: read-only, no network.
//!
//! The rows are the catalog's skills, the folders in the runtime's skills folder and the skills
//! osctl recorded, each with its recorded version, whether the device supports it, and the
//! FolderHash of its folder now. `verify` compares that hash with the one recorded at install
//! time: a folder edited since (`modified`) or gone (`missing`) is drift.

use std::collections::BTreeSet;

use crate::device::Device;
use crate::error::Result;
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;

use super::catalog::catalog;
use super::hash::folder_hash;
use super::state::SkillsState;

/// One skill (or, with `kind: "hook"`, one openclaw hook).
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Row {
    pub name: String,
    pub kind: &'static str,
    /// `cdn` (osctl installed it), `catalog` (published, not installed here), `builtin`,
    /// `local` (a folder osctl does not manage).
    pub origin: &'static str,
    pub version: Option<String>,
    pub supported: bool,
    pub requires: Vec<String>,
    pub present: bool,
    /// FolderHash of the folder now.
    pub hash: Option<String>,
    /// FolderHash recorded when osctl installed it.
    pub recorded_hash: Option<String>,
    /// `modified` or `missing` when the folder no longer matches what osctl installed.
    pub drift: Option<&'static str>,
}

/// Every row for runtime `rt`.
pub(crate) fn rows(fs: &RootFs, device: &Device, rt_id: RuntimeId) -> Result<Vec<Row>> {
    let rt = rt_id.spec();
    let caps = &device.robot.capabilities;
    let cat = catalog();
    let state = SkillsState::load(fs)?.runtime(rt_id);
    let dir = device.layout.path(rt.skills.dir);
    let mut names: BTreeSet<String> = cat.skills.keys().cloned().collect();
    names.extend(state.skills.keys().cloned());
    for name in fs.list_dir(&dir)?.unwrap_or_default() {
        if !name.starts_with('.') && fs.is_dir(&dir.join(&name))? {
            names.insert(name);
        }
    }
    let mut rows = Vec::new();
    for name in names {
        let folder = dir.join(&name);
        let present = fs.is_dir(&folder)?;
        let record = state.skills.get(&name);
        let hash = if present {
            folder_hash(&fs.host(&folder)?)
        } else {
            None
        };
        let recorded_hash = record.and_then(|r| r.hash.clone());
        let origin = match record {
            Some(r) if r.installed => "cdn",
            _ if rt.skills.builtins.contains(&name.as_str()) => "builtin",
            _ if cat.knows(&name) => "catalog",
            _ => "local",
        };
        let supported = cat.supports(&name, caps) && record.is_none_or(|r| r.installed);
        let requires = cat.requirements(&name).to_vec();
        rows.push(Row {
            drift: drift(present, &hash, &recorded_hash),
            name,
            kind: "skill",
            origin,
            version: record.map(|r| r.version.clone()),
            supported,
            requires,
            present,
            hash,
            recorded_hash,
        });
    }
    if rt.skills.hooks {
        let hooks_dir = device.layout.path(rt.workspace).join("hooks");
        for (name, supported) in cat.hooks(caps) {
            let folder = hooks_dir.join(name);
            let present = fs.is_dir(&folder)?;
            let hash = if present {
                folder_hash(&fs.host(&folder)?)
            } else {
                None
            };
            let recorded_hash = state.hooks.get(name).map(|h| h.hash.clone());
            rows.push(Row {
                drift: drift(present, &hash, &recorded_hash),
                name: name.to_string(),
                kind: "hook",
                origin: if recorded_hash.is_some() {
                    "cdn"
                } else {
                    "catalog"
                },
                version: None,
                supported,
                requires: cat.hooks.get(name).cloned().unwrap_or_default(),
                present,
                hash,
                recorded_hash,
            });
        }
    }
    Ok(rows)
}

fn drift(present: bool, hash: &Option<String>, recorded: &Option<String>) -> Option<&'static str> {
    match recorded {
        None => None,
        Some(_) if !present => Some("missing"),
        Some(r) if hash.as_ref() != Some(r) => Some("modified"),
        Some(_) => None,
    }
}
