//! What a `--dry-run` shows of a skill it would install or update: the skill's files, planned
//! into the preview's draft as the swap would leave the folder (folders 0755, files 0644,
//! nothing else), so the preview's diff is the run's change, file by file.
//!
//! The run never writes these steps: it swaps a staged folder in whole (`install.rs` says why),
//! and this plan exists only to be shown. An update is planned as the files that change: what
//! the new version drops is removed, what it adds or alters is written. An installed folder
//! holding anything the swap would not leave as it is (a link, a special file, a folder whose
//! mode is not 0755) is planned as removed and written afresh, which is what the swap does.

use std::collections::BTreeMap;

use super::Pending;
use crate::error::Result;
use crate::path::DevPath;
use crate::plan::Draft;
use crate::skills::archive::{Entry, as_tree};
use crate::skills::hash::{folder_hash, tree_hash};
use crate::system::fs::{Kind, RootFs};

/// The mode of every folder a swapped-in skill has (`apply::stage::write_tree`).
const DIR_MODE: u32 = 0o755;
/// The mode of every file a swapped-in skill has.
const FILE_MODE: u32 = 0o644;

/// What the preview planned for one skill.
pub(super) struct Shown {
    /// The FolderHash of the installed folder (`None`: not installed).
    pub before: Option<String>,
    /// The FolderHash the folder will have.
    pub hash: String,
    /// How many files the new version holds.
    pub files: usize,
}

/// Plans `entries` (the checked download of `p`) as the folder `<skills_dir>/<name>`.
pub(super) fn plan_skill(
    fs: &RootFs,
    draft: &mut Draft<'_>,
    skills_dir: &DevPath,
    p: &Pending,
    entries: &[Entry],
) -> Result<Shown> {
    let target = skills_dir.join(&p.name);
    let reason = format!("install the skill {} ({})", p.name, p.wanted.version);
    let before = folder_hash(&fs.host(&target)?);
    // Every path of the new folder, with its implied parent folders (a zip need not list them).
    let mut new: BTreeMap<String, Option<&[u8]>> = BTreeMap::new();
    for e in entries {
        let mut parent = e.path.as_str();
        while let Some((up, _)) = parent.rsplit_once('/') {
            new.entry(up.to_string()).or_insert(None);
            parent = up;
        }
        new.insert(e.path.clone(), e.content.as_deref());
    }
    let mut old = installed(fs, &target)?;
    if old
        .as_ref()
        .is_some_and(|o| o.iter().any(|(_, k)| *k == Old::Other))
    {
        draft.remove(&target, &reason)?;
        old = None;
    }
    draft.mkdir(&target, &reason)?;
    let mut removed: Vec<String> = Vec::new();
    for (rel, kind) in old.unwrap_or_default() {
        if removed.iter().any(|r| rel.starts_with(&format!("{r}/"))) {
            continue;
        }
        let stays = match new.get(&rel) {
            Some(None) => kind == Old::Dir,
            Some(Some(_)) => kind == Old::File,
            None => false,
        };
        if !stays {
            draft.remove(&target.join(&rel), &reason)?;
            removed.push(rel);
        }
    }
    for (rel, content) in &new {
        let path = target.join(rel);
        match content {
            None => {
                draft.mkdir(&path, &reason)?;
            }
            Some(bytes) => {
                draft.write(&path, bytes.to_vec(), Some(FILE_MODE), &reason)?;
            }
        }
    }
    Ok(Shown {
        before,
        hash: tree_hash(&as_tree(entries)),
        files: super::download::file_count(entries),
    })
}

/// What an installed skill's path is, as far as the swap cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Old {
    /// A folder with the mode the swap gives.
    Dir,
    /// A regular file (its mode is planned like its content).
    File,
    /// Anything the swap would not leave as it is.
    Other,
}

/// The installed folder's paths (relative, parents first), or `None` when it is not a folder.
fn installed(fs: &RootFs, target: &DevPath) -> Result<Option<Vec<(String, Old)>>> {
    match fs.lstat(target)? {
        Some(m) if m.kind == Kind::Dir => {}
        Some(_) => return Ok(Some(vec![(String::new(), Old::Other)])),
        None => return Ok(None),
    }
    let mut out = Vec::new();
    if fs.lstat(target)?.is_some_and(|m| m.mode != DIR_MODE) {
        out.push((String::new(), Old::Other));
    }
    let mut folders = vec![String::new()];
    while let Some(rel) = folders.pop() {
        let dir = if rel.is_empty() {
            target.clone()
        } else {
            target.join(&rel)
        };
        for name in fs.list_dir(&dir)?.unwrap_or_default() {
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let kind = match fs.lstat(&target.join(&child))? {
                Some(m) if m.kind == Kind::Dir && m.mode == DIR_MODE => {
                    folders.push(child.clone());
                    Old::Dir
                }
                Some(m) if m.kind == Kind::File => Old::File,
                _ => Old::Other,
            };
            out.push((child, kind));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Some(out))
}
