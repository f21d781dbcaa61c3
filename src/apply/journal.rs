//! The journal: originals of every path a run touches, kept until the run has finished.
//!
//! Before the first write, a run saves what each path it will touch holds now, under
//! `/var/lib/osctl/journal/<id>/` (a `manifest.json` plus one numbered copy per file), and makes
//! it durable. A failed run restores the originals in reverse order. A run that was killed (power
//! loss, SIGKILL; with `panic = "abort"` no destructor runs) leaves the journal on disk, and the
//! next mutating run restores it before it plans, so a device is always either wholly before or
//! wholly after a run. Folders that a run removes as a whole are moved into the journal instead
//! of copied, so a factory reset costs a rename, not a copy.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic;
use super::lock::STATE_DIR;
use crate::error::{Error, Exit, Result};
use crate::system::fs::RootFs;
use crate::system::path::DevPath;

const MANIFEST: &str = "manifest.json";

/// What a path held before the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Original {
    /// Nothing; the run may create it (`dir` when it is a folder the run creates).
    Absent {
        dir: bool,
    },
    /// A regular file, copied to `saved`.
    File {
        mode: u32,
        uid: u32,
        gid: u32,
    },
    Symlink {
        target: String,
    },
    /// A folder the run may remove when empty or create anew.
    Dir {
        mode: u32,
    },
    /// A folder the run removes whole; moved to `saved` when the run removes it.
    Tree,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub path: DevPathString,
    pub original: Original,
    /// Whether a final symlink is followed (writes go through a link; removals never do).
    #[serde(default)]
    pub follow: bool,
    /// Name of the saved copy inside the journal folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved: Option<String>,
}

/// A device path as stored in the manifest.
pub type DevPathString = String;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: u32,
    pub id: String,
    pub command: String,
    pub pid: u32,
    /// Unix seconds when the run started.
    pub started: u64,
    pub entries: Vec<Entry>,
}

/// One path a run will touch.
#[derive(Clone, Debug)]
pub struct Touch {
    pub path: DevPath,
    /// Writes follow a final symlink (to its target inside the root); removals do not.
    pub follow: bool,
    /// The run removes this folder with everything in it.
    pub removes_tree: bool,
}

/// An open journal of the current run.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    dev_dir: DevPath,
    manifest: Manifest,
}

/// A journal found on disk (left by a run that did not finish).
#[derive(Clone, Debug, Serialize)]
pub struct Pending {
    pub id: String,
    pub path: DevPath,
    pub command: String,
    pub pid: u32,
    pub started: u64,
    pub paths: usize,
}

pub fn journal_root() -> DevPath {
    DevPath::new(STATE_DIR).join("journal")
}

impl Journal {
    /// Saves the current state of every path in `paths` (in order), plus every missing folder
    /// above them that the run may create, and makes the journal durable.
    pub fn begin(fs: &RootFs, command: &str, paths: &[Touch]) -> Result<Journal> {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let id = format!("{}-{}", started.as_nanos(), std::process::id());
        let dev_dir = journal_root().join(&id);
        let dir = fs.host(&dev_dir)?;
        std::fs::create_dir_all(&dir).map_err(|e| Error::io("create the journal", &dev_dir, &e))?;
        // Saved originals keep their own modes (a removed tree is moved here as it is), and
        // many hold secrets: only root may enter the journal.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io("protect the journal", &dev_dir, &e))?;
        let mut journal = Journal {
            dir,
            dev_dir,
            manifest: Manifest {
                schema: 1,
                id,
                command: command.to_string(),
                pid: std::process::id(),
                started: started.as_secs(),
                entries: Vec::new(),
            },
        };
        let mut seen = std::collections::HashSet::new();
        for touch in paths {
            let path = &touch.path;
            // Missing ancestors first: rollback runs in reverse, so they go after their content.
            let mut missing = Vec::new();
            let mut up = path.parent();
            while let Some(p) = up {
                if p.is_root() || fs.lstat(&p)?.is_some() {
                    break;
                }
                missing.push(p.clone());
                up = p.parent();
            }
            for p in missing.into_iter().rev() {
                if seen.insert(p.clone()) {
                    journal.push(p.to_string(), Original::Absent { dir: true }, None);
                }
            }
            if !seen.insert(path.clone()) {
                continue;
            }
            journal.record(fs, touch)?;
        }
        journal.write_manifest()?;
        Ok(journal)
    }

    fn push(&mut self, path: String, original: Original, saved: Option<String>) {
        self.manifest.entries.push(Entry {
            path,
            original,
            follow: false,
            saved,
        });
    }

    fn record(&mut self, fs: &RootFs, touch: &Touch) -> Result<()> {
        let path = &touch.path;
        let host = if touch.follow {
            fs.host(path)?
        } else {
            fs.host_nofollow(path)?
        };
        let n = self.manifest.entries.len();
        let meta = match std::fs::symlink_metadata(&host) {
            Ok(m) => m,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                self.push(path.to_string(), Original::Absent { dir: false }, None);
                if let Some(last) = self.manifest.entries.last_mut() {
                    last.follow = touch.follow;
                }
                return Ok(());
            }
            Err(e) => return Err(Error::io("inspect", path, &e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let target =
                std::fs::read_link(&host).map_err(|e| Error::io("read the link", path, &e))?;
            self.push(
                path.to_string(),
                Original::Symlink {
                    target: target.to_string_lossy().into_owned(),
                },
                None,
            );
        } else if ft.is_dir() {
            if touch.removes_tree {
                self.push(path.to_string(), Original::Tree, Some(format!("{n:04}")));
            } else {
                self.push(
                    path.to_string(),
                    Original::Dir {
                        mode: meta.permissions().mode() & 0o7777,
                    },
                    None,
                );
            }
        } else {
            let saved = format!("{n:04}");
            let bytes = std::fs::read(&host).map_err(|e| Error::io("read", path, &e))?;
            atomic::write_file(&self.dir.join(&saved), &bytes, 0o600)
                .map_err(|e| Error::io("save the original of", path, &e))?;
            self.push(
                path.to_string(),
                Original::File {
                    mode: meta.permissions().mode() & 0o7777,
                    uid: meta.uid(),
                    gid: meta.gid(),
                },
                Some(saved),
            );
        }
        if let Some(last) = self.manifest.entries.last_mut() {
            last.follow = touch.follow;
        }
        Ok(())
    }

    fn write_manifest(&self) -> Result<()> {
        let text = serde_json::to_vec_pretty(&self.manifest)
            .map_err(|e| Error::internal(e.to_string()))?;
        atomic::write_file(&self.dir.join(MANIFEST), &text, 0o600)
            .map_err(|e| Error::io("write the journal", &self.dev_dir, &e))?;
        atomic::sync_parent(&self.dir).map_err(|e| Error::io("sync the journal", &self.dev_dir, &e))
    }

    /// The device path of this journal's folder (named in error messages).
    pub fn dev_dir(&self) -> &DevPath {
        &self.dev_dir
    }

    /// Moves a folder that the run removes whole into the journal (copying across filesystems).
    pub fn take_tree(&self, fs: &RootFs, path: &DevPath) -> Result<()> {
        let entry = self
            .manifest
            .entries
            .iter()
            .find(|e| e.path == path.to_string() && e.original == Original::Tree)
            .ok_or_else(|| {
                Error::internal(format!("{path} is not journaled as a folder to remove"))
            })?;
        let saved = self.dir.join(entry.saved.as_deref().unwrap_or_default());
        let host = fs.host_nofollow(path)?;
        move_tree(&host, &saved).map_err(|e| Error::io("remove", path, &e))
    }

    /// The run finished: forget the originals.
    pub fn commit(self) -> Result<()> {
        discard(&self.dir, &self.dev_dir)
    }

    /// The run failed: put every original back, newest change first. On success the journal is
    /// removed; otherwise it stays, and the error (exit 5) names it.
    pub fn rollback(self, fs: &RootFs) -> Result<usize> {
        restore(fs, &self.dir, &self.dev_dir, &self.manifest)
    }
}

/// Restores one journal and removes it; returns how many paths it restored.
fn restore(fs: &RootFs, dir: &Path, dev_dir: &DevPath, manifest: &Manifest) -> Result<usize> {
    let mut failures = Vec::new();
    let mut restored = 0;
    for entry in manifest.entries.iter().rev() {
        let path = DevPath::new(&entry.path);
        match restore_entry(fs, dir, &path, entry) {
            Ok(true) => restored += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{path}: {e}")),
        }
        if let Err(e) = sweep_temporaries(fs, &path) {
            failures.push(format!("{path}: {e}"));
        }
    }
    if !failures.is_empty() {
        let mut err = Error::new(
            Exit::RollbackIncomplete,
            "rollback_incomplete",
            format!("could not restore every original; the journal {dev_dir} keeps them"),
        );
        for f in failures {
            err = err.cause(f);
        }
        return Err(err.hint(format!(
            "fix the cause, then run any osctl command that changes the device (it restores the journal first); the originals are in {dev_dir}"
        )));
    }
    discard(dir, dev_dir)?;
    Ok(restored)
}

/// Removes a journal whose run is over (committed or restored). The manifest goes first, and
/// durably: a run killed while the rest is deleted (a reset's moved-aside folders can take a
/// while) leaves a folder with nothing to restore, never a manifest whose saved copies are half
/// gone, which no later run could restore.
fn discard(dir: &Path, dev_dir: &DevPath) -> Result<()> {
    atomic::remove_file(&dir.join(MANIFEST))
        .map_err(|e| Error::io("remove the journal", dev_dir, &e))?;
    std::fs::remove_dir_all(dir).map_err(|e| Error::io("remove the journal", dev_dir, &e))?;
    atomic::sync_parent(dir).map_err(|e| Error::io("sync", dev_dir, &e))
}

/// Removes the temporary sibling an atomic write of `path` leaves when its run dies between
/// naming the new file and renaming it over `path` (atomic-write-file links it as
/// `.<name>.<6 letters or digits>` and syncs it before the rename). Only the journal's own
/// paths are swept, so the name can only be the dead run's; a runtime must not see it.
fn sweep_temporaries(fs: &RootFs, path: &DevPath) -> std::io::Result<()> {
    let host = fs
        .host_nofollow(path)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let (Some(dir), Some(name)) = (host.parent(), host.file_name()) else {
        return Ok(());
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let n = e.file_name();
        let n = n.to_string_lossy();
        let is_temp = n.strip_prefix(&prefix).is_some_and(|suffix| {
            suffix.len() == 6 && suffix.bytes().all(|b| b.is_ascii_alphanumeric())
        });
        if is_temp && e.file_type().is_ok_and(|t| t.is_file()) {
            atomic::remove_file(&e.path())?;
        }
    }
    Ok(())
}

/// Puts one original back. Returns whether anything changed.
fn restore_entry(fs: &RootFs, dir: &Path, path: &DevPath, entry: &Entry) -> std::io::Result<bool> {
    crate::fault::before_restore()?;
    let host = if entry.follow {
        fs.host(path)
    } else {
        fs.host_nofollow(path)
    }
    .map_err(|e| std::io::Error::other(e.to_string()))?;
    let current = std::fs::symlink_metadata(&host).ok();
    match &entry.original {
        Original::Absent { .. } => match current {
            None => Ok(false),
            Some(m) if m.is_dir() => match atomic::remove_empty_dir(&host) {
                Ok(()) => Ok(true),
                // Something else put files there meanwhile: leave them, nothing of ours is lost.
                Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => Ok(false),
                Err(e) => Err(e),
            },
            Some(_) => atomic::remove_file(&host).map(|_| true),
        },
        Original::File { mode, uid, gid } => {
            let saved = std::fs::read(dir.join(entry.saved.as_deref().unwrap_or_default()))?;
            let same = current
                .as_ref()
                .is_some_and(|m| m.is_file() && m.permissions().mode() & 0o7777 == *mode)
                && std::fs::read(&host).is_ok_and(|b| b == saved);
            if same {
                return Ok(false);
            }
            if current.as_ref().is_some_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&host)?;
            }
            atomic::write_file(&host, &saved, *mode)?;
            let _ = std::os::unix::fs::chown(&host, Some(*uid), Some(*gid));
            Ok(true)
        }
        Original::Symlink { target } => {
            if let Some(m) = &current {
                if m.file_type().is_symlink()
                    && std::fs::read_link(&host).is_ok_and(|t| t == Path::new(target))
                {
                    return Ok(false);
                }
                remove_any(&host)?;
            }
            std::os::unix::fs::symlink(target, &host)?;
            atomic::sync_parent(&host)?;
            Ok(true)
        }
        Original::Dir { mode } => match current {
            Some(m) if m.is_dir() => Ok(false),
            other => {
                if other.is_some() {
                    remove_any(&host)?;
                }
                atomic::mkdir(&host, *mode)?;
                Ok(true)
            }
        },
        Original::Tree => {
            let saved = dir.join(entry.saved.as_deref().unwrap_or_default());
            // A copy cut short (by a crash, across filesystems) is not the original: drop it.
            for partial in [partial_path(&saved), partial_path(&host)] {
                if std::fs::symlink_metadata(&partial).is_ok() {
                    std::fs::remove_dir_all(&partial)?;
                }
            }
            if std::fs::symlink_metadata(&saved).is_err() {
                // The run never got to remove it: the original is still in place.
                return Ok(false);
            }
            if current.is_some() {
                remove_any(&host)?;
            }
            move_tree(&saved, &host)?;
            Ok(true)
        }
    }
}

fn remove_any(host: &Path) -> std::io::Result<()> {
    let m = std::fs::symlink_metadata(host)?;
    if m.is_dir() {
        std::fs::remove_dir_all(host)
    } else {
        std::fs::remove_file(host)
    }
}

/// Renames a folder; across filesystems, copies it and removes the source.
///
/// Across filesystems the copy is made under a `.osctl-partial` name beside `to` and renamed
/// into place only when whole, and only then is the source removed: a crash mid-copy leaves the
/// source intact and no `to`, so recovery never trades a whole folder for a partial copy.
fn move_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    match atomic::rename(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            let partial = partial_path(to);
            if std::fs::symlink_metadata(&partial).is_ok() {
                std::fs::remove_dir_all(&partial)?;
            }
            copy_tree(from, &partial)?;
            atomic::rename(&partial, to)?;
            std::fs::remove_dir_all(from)?;
            atomic::sync_parent(from)
        }
        Err(e) => Err(e),
    }
}

/// Where a cross-filesystem copy of `to` is built.
fn partial_path(to: &Path) -> std::path::PathBuf {
    let mut name = to.as_os_str().to_owned();
    name.push(".osctl-partial");
    std::path::PathBuf::from(name)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry
            .path()
            .strip_prefix(from)
            .map_err(std::io::Error::other)?;
        let dest = to.join(rel);
        let ft = entry.file_type();
        let meta = entry.metadata().map_err(std::io::Error::other)?;
        if ft.is_dir() {
            std::fs::create_dir_all(&dest)?;
            std::fs::set_permissions(&dest, meta.permissions())?;
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
            std::fs::File::open(&dest)?.sync_all()?;
        }
    }
    Ok(())
}

/// Journals left on disk by runs that did not finish, oldest first.
pub fn pending(fs: &RootFs) -> Result<Vec<Pending>> {
    let root = journal_root();
    let Some(names) = fs.list_dir(&root)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for name in names {
        let dev_dir = root.join(&name);
        let manifest = read_manifest(fs, &dev_dir)?;
        out.push(Pending {
            id: name,
            path: dev_dir,
            command: manifest.command,
            pid: manifest.pid,
            started: manifest.started,
            paths: manifest.entries.len(),
        });
    }
    Ok(out)
}

fn read_manifest(fs: &RootFs, dev_dir: &DevPath) -> Result<Manifest> {
    let path = dev_dir.join(MANIFEST);
    match fs.read_text(&path)? {
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            Error::json(&path, &e).hint(format!(
                "the journal {dev_dir} is damaged; inspect it, then remove it by hand"
            ))
        }),
        // A run killed before its manifest was durable wrote nothing to the device yet.
        None => Ok(Manifest {
            schema: 1,
            id: dev_dir.file_name().unwrap_or_default().to_string(),
            command: "(unknown: killed before the journal was written)".into(),
            pid: 0,
            started: 0,
            entries: Vec::new(),
        }),
    }
}

/// What recovery did with one interrupted run.
#[derive(Clone, Debug, Serialize)]
pub struct Recovered {
    pub id: String,
    pub command: String,
    pub restored: usize,
}

/// Restores every interrupted run (the caller holds the device lock).
pub fn recover_all(fs: &RootFs) -> Result<Vec<Recovered>> {
    let mut out = Vec::new();
    for p in pending(fs)? {
        let manifest = read_manifest(fs, &p.path)?;
        let dir = fs.host(&p.path)?;
        let restored = restore(fs, &dir, &p.path, &manifest)?;
        out.push(Recovered {
            id: p.id,
            command: p.command,
            restored,
        });
    }
    Ok(out)
}
