//! What `osctl recover --dry-run` shows: every journal's recovery planned into a draft from the
//! very decisions the run acts on ([`restore::decide`](super::restore::decide)), so its diff is
//! the run's change, path by path: the originals put back (a removed folder as its files), the
//! journal removed, or moved aside to `kept/` when something is left as it is.
//!
//! Restoring goes newest entry first, and a folder the run made is removed only once it is
//! empty: the preview answers "empty" from the draft, which already holds the removals planned
//! before it, as the disk will by then. What the preview cannot foresee is a failure of the
//! disk itself (a path that cannot be put back), which the run reports (exit 5).

use std::path::Path;

use serde::Serialize;

use super::restore::{Act, Clear, Decision, decide, host_of};
use super::validate::{Found, journals_host, masked, names, open};
use super::{DONE, journal_root, kept_root};
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::Draft;
use crate::system::fs::RootFs;

/// What recovery would do with one journal.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Planned {
    pub id: String,
    pub path: DevPath,
    pub command: String,
    /// Nothing in it to restore (its run had finished, or was killed before it wrote the
    /// manifest): only the cleanup is left.
    pub finished: bool,
    /// Every write of its run had landed: its files stay, its service actions run again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rolls_forward: bool,
    /// The paths it would put back, in the order it would.
    pub restores: Vec<DevPath>,
    /// Paths it would leave as they are, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<String>,
    /// The `systemctl` lines it would run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// Where the journal would be moved (something is left as it is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<DevPath>,
    /// Why osctl would not restore it (not its own, or damaged): the run stops with an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// Plans the recovery of every journal on disk into `draft`; what each would do.
pub(crate) fn preview(fs: &RootFs, draft: &mut Draft<'_>) -> Result<Vec<Planned>> {
    let root = match journals_host(fs) {
        Ok(Some(root)) => root,
        Ok(None) => return Ok(Vec::new()),
        Err(e) if e.code == "untrusted_state" => {
            return Ok(vec![refused("journal".into(), journal_root(), &e)]);
        }
        Err(e) => return Err(e),
    };
    let reason = "recover: finish an interrupted run";
    let mut out = Vec::new();
    for name in names(&root, &journal_root())? {
        let dev_dir = journal_root().join(&name);
        let dir = root.join(&name);
        let mut p = Planned::new(name.clone(), dev_dir.clone());
        match open(&root, &name) {
            Err(e) => {
                out.push(refused(name, dev_dir, &e));
                continue;
            }
            Ok(Found::Finished) => {
                // Marked done, or killed before its manifest was written: either way there is
                // nothing to restore, and the run removes the folder.
                draft.remove(&dev_dir, reason)?;
                p.finished = true;
                if std::fs::symlink_metadata(dir.join(DONE)).is_err() {
                    p.command = "(unknown: killed before the journal was written)".into();
                }
            }
            Ok(Found::Open(m)) if m.written => {
                p.command = masked(&m.command);
                p.rolls_forward = true;
                p.actions = systemctl_lines(&m.pending);
                draft.remove(&dev_dir, reason)?;
            }
            Ok(Found::Open(m)) => {
                p.command = masked(&m.command);
                p.actions = systemctl_lines(&m.undo_first);
                let mut originals = None;
                let legacy = m.schema < 2;
                for entry in m.entries.iter().rev() {
                    let path = DevPath::new(&entry.path);
                    let host =
                        host_of(fs, &path, entry).map_err(|e| Error::io("read", &path, &e))?;
                    let decision = {
                        let planned = &*draft;
                        let empty = || planned.list_dir(&path).is_ok_and(|n| n.is_empty());
                        decide(&dir, &mut originals, &path, &host, entry, legacy, &empty)
                            .map_err(|e| Error::io("read", &path, &e))?
                    };
                    match decision {
                        Decision::Nothing => {}
                        Decision::Left(why) => p.left.push(format!("{path}: {why}; left as it is")),
                        Decision::Back(act) => {
                            plan_act(draft, &path, act, reason)?;
                            p.restores.push(path.clone());
                        }
                    }
                    // The run then sweeps the temporary a write killed before its rename left
                    // beside the path (`restore::sweep_temporary`): the folder may be empty
                    // only after that.
                    if let Some(temp) = crate::apply::atomic::leftover_temporary(&host)
                        && let (Some(parent), Some(name)) = (path.parent(), temp.file_name())
                    {
                        draft.remove(&parent.join(name), reason)?;
                    }
                }
                p.actions.extend(systemctl_lines(&m.undo));
                if p.left.is_empty() {
                    draft.remove(&dev_dir, reason)?;
                } else {
                    // The run moves the journal aside with its originals (`restore`).
                    let kept = kept_root().join(&name);
                    plan_copy(draft, &dir, &kept, 0o700, reason)?;
                    draft.remove(&dev_dir, reason)?;
                    p.kept = Some(kept);
                }
            }
        }
        out.push(p);
    }
    Ok(out)
}

impl Planned {
    /// A journal with nothing planned yet.
    fn new(id: String, path: DevPath) -> Planned {
        Planned {
            id,
            path,
            command: String::new(),
            finished: false,
            rolls_forward: false,
            restores: Vec::new(),
            left: Vec::new(),
            actions: Vec::new(),
            kept: None,
            refused: None,
        }
    }
}

/// A journal osctl will not restore: the run stops with `e`.
fn refused(id: String, path: DevPath, e: &Error) -> Planned {
    Planned {
        refused: Some(e.message.clone()),
        ..Planned::new(id, path)
    }
}

fn systemctl_lines(actions: &[Vec<String>]) -> Vec<String> {
    actions
        .iter()
        .map(|a| format!("systemctl {}", a.join(" ")))
        .collect()
}

/// Plans what `restore` does to put one original back.
fn plan_act(draft: &mut Draft<'_>, path: &DevPath, act: Act, reason: &str) -> Result<()> {
    let occupied = draft.exists(path)?;
    match act {
        Act::Remove => {
            draft.remove(path, reason)?;
        }
        Act::File { saved, mode, .. } => {
            if draft.is_dir(path)? {
                draft.remove(path, reason)?;
            }
            draft.write(path, saved, Some(mode), reason)?;
        }
        Act::Symlink { target } => {
            if occupied {
                draft.remove(path, reason)?;
            }
            draft.symlink(path, &target, reason)?;
        }
        Act::Dir { mode } => {
            if occupied {
                draft.remove(path, reason)?;
            }
            draft.mkdir_mode(path, mode, reason)?;
        }
        Act::Tree { saved, clear } => {
            if clear != Clear::Nothing {
                draft.remove(path, reason)?;
            }
            let mode = folder_mode(&saved).map_err(|e| Error::io("read", path, &e))?;
            plan_copy(draft, &saved, path, mode, reason)?;
        }
    }
    Ok(())
}

/// Plans the folder `to` holding what the host folder `from` holds (modes kept, links as links),
/// `to` itself with `mode`.
fn plan_copy(
    draft: &mut Draft<'_>,
    from: &Path,
    to: &DevPath,
    mode: u32,
    reason: &str,
) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let io =
        |e: &dyn std::fmt::Display| Error::io("read", to, &std::io::Error::other(e.to_string()));
    draft.mkdir_mode(to, mode, reason)?;
    for entry in walkdir::WalkDir::new(from)
        .min_depth(1)
        .follow_links(false)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|e| io(&e))?;
        let rel = entry.path().strip_prefix(from).map_err(|e| io(&e))?;
        let dest = to.join(rel.to_string_lossy().as_ref());
        let meta = entry.metadata().map_err(|e| io(&e))?;
        let bits = meta.permissions().mode() & 0o7777;
        let ft = entry.file_type();
        if ft.is_dir() {
            draft.mkdir_mode(&dest, bits, reason)?;
        } else if ft.is_symlink() {
            let target = std::fs::read_link(entry.path()).map_err(|e| io(&e))?;
            draft.symlink(&dest, &target.to_string_lossy(), reason)?;
        } else {
            let bytes = std::fs::read(entry.path()).map_err(|e| io(&e))?;
            draft.write(&dest, bytes, Some(bits), reason)?;
        }
    }
    Ok(())
}

fn folder_mode(host: &Path) -> std::io::Result<u32> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::symlink_metadata(host)?.permissions().mode() & 0o7777)
}
