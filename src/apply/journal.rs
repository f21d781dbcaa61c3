//! The journal: originals of every path a run touches, kept until the run has finished.
//!
//! Before the first write, a run saves what each path it will touch holds now, under
//! `/var/lib/osctl/journal/<id>/`: a `manifest.json` (the paths, what each was, and a
//! fingerprint of every state the run means to leave there) and one `originals` file with the
//! bytes of the files it replaces or removes, each checked by its sha256. Both are made durable
//! (with the folders that name them) before anything else is written: four fsyncs whatever the
//! plan's size. Folders that a run removes as a whole are moved into the journal instead of
//! copied, so a factory reset costs a rename, not a copy.
//!
//! **Finishing.** A run whose writes all landed (and are durable) marks its journal done by
//! renaming `manifest.json` to `done.json` (one fsync), then removes it. From that rename on,
//! the journal is never restored: a cleanup that fails (EIO, EPERM, an immutable file in a
//! removed folder) or is cut short by a kill is a warning, and whoever takes the lock next
//! finishes it. A journal that cannot be removed then either is moved aside to
//! `/var/lib/osctl/kept/<id>` and named, so it never stands in a later run's way.
//!
//! **Restoring.** A failed run restores its originals in reverse order; a run that was killed
//! (power loss, SIGKILL; with `panic = "abort"` no destructor runs) leaves its journal open, and
//! the next run that takes the lock restores it before it plans. A path is put back only while
//! it still holds what the interrupted run wrote there (or its original): one that something
//! else rewrote since (a runtime saving its config) is left alone, with a warning that names
//! it. A path that cannot be put back (or was left alone) does not keep the journal open either:
//! the journal is moved aside to `kept/` with its originals, and the warning (exit 5 for the run
//! that was rolling back) names it, so one undeletable file never wedges the device.
//!
//! **Trust.** The journal decides what a root process writes where, so one that the running user
//! does not own, that group or others may write, or whose folder is either, is refused with an
//! error and never restored; an entry names an absolute path without `..`, its saved bytes are
//! inside its own journal (the `originals` file, checked by sha256, or a plain file name in its
//! folder), and the manifest's id must be its folder's name. The command line it records is
//! masked ([`crate::redact::mask_command_line`]).

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::atomic::{self, Syncs};
use super::lock::{self, STATE_DIR};
use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::plan::{FileChange, FileState, ServiceAction, Step};
use crate::system::fs::{Limit, RootFs};
use crate::system::services::Services;

const MANIFEST: &str = "manifest.json";
const DONE: &str = "done.json";
const ORIGINALS: &str = "originals";
/// Manifests of schema 1 (osctl before fingerprints) are restored as they always were.
const SCHEMA: u32 = 2;

/// What a path held before the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Original {
    /// Nothing; the run may create it (`dir` when it is a folder the run creates).
    Absent {
        dir: bool,
    },
    /// A regular file, its bytes in `originals` (or, in schema 1, a copy named `saved`).
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

/// Where an original's bytes are in the journal's `originals` file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Blob {
    pub offset: u64,
    pub len: u64,
    pub sha256: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub path: DevPathString,
    pub original: Original,
    /// Whether a final symlink is followed (writes go through a link; removals never do).
    #[serde(default)]
    pub follow: bool,
    /// Name of a removed folder (or, in schema 1, of a saved copy) inside the journal folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<Blob>,
    /// Fingerprints ([`fingerprint`]) of every state this run may leave at the path, recorded
    /// before it writes there. Recovery restores the path only while it holds one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intended: Vec<String>,
}

/// A device path as stored in the manifest.
pub(crate) type DevPathString = String;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub schema: u32,
    pub id: String,
    /// The command line, secrets masked.
    pub command: String,
    pub pid: u32,
    /// Unix seconds when the run started.
    pub started: u64,
    pub entries: Vec<Entry>,
    /// Set (durably) once every write of the run has landed, before the service actions that
    /// follow its last write: from then on recovery rolls the run FORWARD (keeps its files and
    /// re-runs [`Manifest::pending`]), never back. A run killed in its `try-restart` has
    /// completed its change; restoring it would revert that change and lose anything a runtime
    /// wrote since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub written: bool,
    /// The `systemctl` arguments of the service actions still to run when `written` was set
    /// (re-run by recovery: each is idempotent, so one that had already run changes nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Vec<String>>,
    /// Programs still to run when `written` was set: recovery does not re-run a program (it may
    /// not be idempotent), it names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending_commands: Vec<String>,
    /// The `systemctl` arguments that put the units back as they were, run after the files are
    /// restored (a reset records the state of the unit it stops: its restore starts it again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undo: Vec<Vec<String>>,
    /// The `systemctl` arguments run BEFORE the files are restored: a switch records here the
    /// `disable --now` of the new unit it is about to enable, which must run while its unit file
    /// is still there (the restore deletes it, and systemd refuses to disable a unit without
    /// its file, leaving a dangling `.wants/` link).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undo_first: Vec<Vec<String>>,
}

/// One path a run will touch.
#[derive(Clone, Debug)]
pub(crate) struct Touch {
    pub path: DevPath,
    /// Writes follow a final symlink (to its target inside the root); removals do not.
    pub follow: bool,
    /// The run removes this folder with everything in it.
    pub removes_tree: bool,
    /// The fingerprint of the state the run will leave there, when it is known already.
    pub intended: Option<String>,
}

impl Touch {
    /// The path `change` touches, with the state it leaves.
    pub(crate) fn of(change: &FileChange) -> Touch {
        Touch {
            path: change.path.clone(),
            follow: !matches!(change.after, FileState::Absent | FileState::Symlink { .. }),
            removes_tree: matches!(change.before, FileState::Tree { .. }),
            intended: Some(fingerprint(&change.after)),
        }
    }

    /// A file journaled now and written by a later plan (its fingerprint is recorded then).
    pub(crate) fn later(path: DevPath) -> Touch {
        Touch {
            path,
            follow: true,
            removes_tree: false,
            intended: None,
        }
    }
}

/// A digest of the state a path is left in: its kind, and a file's mode and bytes (a folder's
/// mode is not part of it: creating a folder that exists keeps its mode).
pub(crate) fn fingerprint(state: &FileState) -> String {
    let mut h = Sha256::new();
    match state {
        FileState::Absent => h.update(b"absent"),
        FileState::File { content, mode } => {
            h.update(b"file\0");
            h.update((mode & 0o7777).to_le_bytes());
            h.update(content);
        }
        FileState::Dir { .. } | FileState::Tree { .. } => h.update(b"dir"),
        FileState::Symlink { target } => {
            h.update(b"link\0");
            h.update(target.as_bytes());
        }
    }
    hex::encode(h.finalize())
}

/// An open journal of the current run.
#[derive(Debug)]
pub(crate) struct Journal {
    dir: PathBuf,
    dev_dir: DevPath,
    manifest: RefCell<Manifest>,
}

/// A journal found on disk (left by a run that did not finish).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Pending {
    pub id: String,
    pub path: DevPath,
    pub command: String,
    pub pid: u32,
    pub started: u64,
    pub paths: usize,
    /// Every write of its run had landed: the next run keeps the files and finishes its service
    /// actions instead of restoring it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rolls_forward: bool,
    /// Why osctl will not restore it (not its own, or damaged): the next run refuses to start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

pub(crate) fn journal_root() -> DevPath {
    DevPath::new(STATE_DIR).join("journal")
}

/// Where journals that could not be finished are moved aside (with their originals).
pub(crate) fn kept_root() -> DevPath {
    DevPath::new(STATE_DIR).join("kept")
}

fn io_err(action: &str, dev: &DevPath, e: &std::io::Error) -> Error {
    Error::io(action, dev, e)
}

impl Journal {
    /// Saves the current state of every path in `paths` (in order), plus every missing folder
    /// above them that the run may create, and makes the journal durable.
    #[cfg(test)]
    pub(crate) fn begin(fs: &RootFs, command: &str, paths: &[Touch]) -> Result<Journal> {
        Self::begin_undoable(fs, command, paths, &[])
    }

    /// [`Journal::begin`], recording `undo`: the service actions that put the units back after
    /// the files are restored (see [`Manifest::undo`]).
    pub(crate) fn begin_undoable(
        fs: &RootFs,
        command: &str,
        paths: &[Touch],
        undo: &[ServiceAction],
    ) -> Result<Journal> {
        let mut made = None;
        let undo: Vec<Vec<String>> = undo.iter().map(ServiceAction::systemctl_args).collect();
        let journal = Self::make(fs, command, paths, undo, &mut made);
        if journal.is_err()
            && let Some(dir) = made
        {
            // Nothing was written to the device yet: a half-made journal is no use to anyone.
            let _ = std::fs::remove_dir_all(dir);
        }
        journal
    }

    fn make(
        fs: &RootFs,
        command: &str,
        paths: &[Touch],
        undo: Vec<Vec<String>>,
        made: &mut Option<PathBuf>,
    ) -> Result<Journal> {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let id = format!("{}-{}", started.as_nanos(), std::process::id());
        lock::private_dir(fs, &DevPath::new(STATE_DIR))?;
        let root = lock::private_dir(fs, &journal_root())?;
        let dev_dir = journal_root().join(&id);
        let dir = root.join(&id);
        // Saved originals keep their own modes (a removed tree is moved here as it is), and
        // many hold secrets: only root may enter the journal.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .and_then(|()| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)))
            .map_err(|e| io_err("create the journal", &dev_dir, &e))?;
        *made = Some(dir.clone());
        let mut journal = Journal {
            dir,
            dev_dir,
            manifest: RefCell::new(Manifest {
                schema: SCHEMA,
                id,
                command: command.to_string(),
                pid: std::process::id(),
                started: started.as_secs(),
                entries: Vec::new(),
                written: false,
                pending: Vec::new(),
                pending_commands: Vec::new(),
                undo,
                undo_first: Vec::new(),
            }),
        };
        let mut originals = Originals::new(journal.dir.join(ORIGINALS));
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
                    journal.push(Entry {
                        path: p.to_string(),
                        original: Original::Absent { dir: true },
                        follow: false,
                        saved: None,
                        blob: None,
                        intended: Vec::new(),
                    });
                }
            }
            if !seen.insert(path.clone()) {
                continue;
            }
            journal.record(fs, touch, &mut originals)?;
        }
        let dev = &journal.dev_dir;
        originals
            .finish()
            .map_err(|e| io_err("save the originals in", dev, &e))?;
        let mut syncs = Syncs::new();
        journal.write_manifest(&mut syncs)?;
        syncs.folder(&root);
        syncs
            .flush()
            .map_err(|e| io_err("sync the journal", &journal.dev_dir, &e))?;
        Ok(journal)
    }

    fn push(&mut self, entry: Entry) {
        self.manifest.get_mut().entries.push(entry);
    }

    fn record(&mut self, fs: &RootFs, touch: &Touch, originals: &mut Originals) -> Result<()> {
        let path = &touch.path;
        let host = if touch.follow {
            fs.host(path)?
        } else {
            fs.host_nofollow(path)?
        };
        let n = self.manifest.get_mut().entries.len();
        let mut entry = Entry {
            path: path.to_string(),
            original: Original::Absent { dir: false },
            follow: touch.follow,
            saved: None,
            blob: None,
            intended: touch.intended.iter().cloned().collect(),
        };
        let meta = match std::fs::symlink_metadata(&host) {
            Ok(m) => m,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                self.push(entry);
                return Ok(());
            }
            Err(e) => return Err(Error::io("inspect", path, &e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let target =
                std::fs::read_link(&host).map_err(|e| Error::io("read the link", path, &e))?;
            entry.original = Original::Symlink {
                target: target.to_string_lossy().into_owned(),
            };
        } else if ft.is_dir() {
            if touch.removes_tree {
                entry.original = Original::Tree;
                entry.saved = Some(format!("tree-{n:04}"));
            } else {
                entry.original = Original::Dir {
                    mode: meta.permissions().mode() & 0o7777,
                };
            }
        } else if ft.is_file() {
            let bytes =
                crate::system::fs::read_regular(path, &host, Limit::of(path))?.unwrap_or_default();
            entry.blob = Some(
                originals
                    .add(&bytes)
                    .map_err(|e| io_err("save the original of", path, &e))?,
            );
            entry.original = Original::File {
                mode: meta.permissions().mode() & 0o7777,
                uid: meta.uid(),
                gid: meta.gid(),
            };
        } else {
            return Err(crate::system::fs::not_a_file(path, &ft));
        }
        self.push(entry);
        Ok(())
    }

    fn write_manifest(&self, syncs: &mut Syncs) -> Result<()> {
        let text = serde_json::to_vec_pretty(&*self.manifest.borrow())
            .map_err(|e| Error::internal(e.to_string()))?;
        atomic::write_file_in(&self.dir.join(MANIFEST), &text, 0o600, syncs)
            .map_err(|e| io_err("write the journal", &self.dev_dir, &e))
    }

    /// The device path of this journal's folder (named in error messages).
    pub(crate) fn dev_dir(&self) -> &DevPath {
        &self.dev_dir
    }

    /// Records, durably and before it is written, that the run is about to leave `path` in
    /// `state` (a path journaled with [`Touch::later`], or written twice). A path the journal
    /// does not hold is an internal error: its original would be lost.
    pub(crate) fn intend(&self, path: &DevPath, state: &FileState) -> Result<()> {
        let print = fingerprint(state);
        let key = path.to_string();
        {
            let mut manifest = self.manifest.borrow_mut();
            let Some(entry) = manifest.entries.iter_mut().find(|e| e.path == key) else {
                return Err(Error::internal(format!(
                    "{path} is written without its original in the journal {}",
                    self.dev_dir
                )));
            };
            if entry.intended.contains(&print) {
                return Ok(());
            }
            entry.intended.push(print);
        }
        let mut syncs = Syncs::new();
        self.write_manifest(&mut syncs)?;
        syncs
            .flush()
            .map_err(|e| io_err("sync the journal", &self.dev_dir, &e))
    }

    /// Records, durably, that every write of the run has landed and only `rest` is left to
    /// run: from here on recovery keeps the files and rolls forward (see [`Manifest::written`]).
    /// The caller has made its writes durable first.
    pub(crate) fn written(&self, rest: &[Step]) -> Result<()> {
        {
            let mut m = self.manifest.borrow_mut();
            m.written = true;
            m.pending = rest
                .iter()
                .filter_map(|s| match s {
                    Step::Service(a) => Some(a.systemctl_args()),
                    _ => None,
                })
                .collect();
            m.pending_commands = rest
                .iter()
                .filter_map(|s| match s {
                    Step::Command(c) => Some(format!("{} ({})", c.argv.join(" "), c.label)),
                    _ => None,
                })
                .collect();
        }
        self.sync_manifest()
    }

    /// Takes back [`Journal::written`] before the run rolls itself back (a service action after
    /// its last write failed): a kill during that rollback must be finished by restoring, not by
    /// keeping a half-restored tree.
    pub(crate) fn unwritten(&self) -> Result<()> {
        {
            let mut m = self.manifest.borrow_mut();
            if !m.written {
                return Ok(());
            }
            m.written = false;
            m.pending.clear();
            m.pending_commands.clear();
        }
        self.sync_manifest()
    }

    /// Records, durably, an action the restore of this journal runs before it puts the files
    /// back (see [`Manifest::undo_first`]).
    pub(crate) fn undo_first(&self, action: &ServiceAction) -> Result<()> {
        let args = action.systemctl_args();
        {
            let mut m = self.manifest.borrow_mut();
            if m.undo_first.contains(&args) {
                return Ok(());
            }
            m.undo_first.push(args);
        }
        self.sync_manifest()
    }

    /// The `systemctl` arguments that put the units back after a restore.
    pub(crate) fn undo(&self) -> Vec<Vec<String>> {
        self.manifest.borrow().undo.clone()
    }

    fn sync_manifest(&self) -> Result<()> {
        let mut syncs = Syncs::new();
        self.write_manifest(&mut syncs)?;
        syncs
            .flush()
            .map_err(|e| io_err("sync the journal", &self.dev_dir, &e))
    }

    /// Moves a folder that the run removes whole into the journal (copying across
    /// filesystems), the two folders' fsyncs left to `syncs`.
    pub(crate) fn take_tree_in(
        &self,
        fs: &RootFs,
        path: &DevPath,
        syncs: &mut Syncs,
    ) -> Result<()> {
        let manifest = self.manifest.borrow();
        let entry = manifest
            .entries
            .iter()
            .find(|e| e.path == path.to_string() && e.original == Original::Tree)
            .ok_or_else(|| {
                Error::internal(format!("{path} is not journaled as a folder to remove"))
            })?;
        let saved = self.dir.join(entry.saved.as_deref().unwrap_or_default());
        let host = fs.host_nofollow(path)?;
        match atomic::rename_in(&host, &saved, syncs) {
            Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => move_tree(&host, &saved),
            other => other,
        }
        .map_err(|e| Error::io("remove", path, &e))
    }

    /// Marks the journal done, durably: from here on it is never restored. An error leaves it
    /// open, and the caller rolls back.
    pub(crate) fn done(&self) -> Result<()> {
        mark_done(&self.dir).map_err(|e| io_err("mark as done the journal", &self.dev_dir, &e))
    }

    /// Removes a journal marked [`Journal::done`]; a failure is the warning returned (the run
    /// stands, and the next run finishes the cleanup).
    pub(crate) fn clean(self) -> Option<String> {
        cleanup(&self.dir, &self.dev_dir, false)
    }

    /// The run failed: put every original back, newest change first. The journal is finished
    /// either way; an error (exit 5) names what could not be put back and where its original is
    /// kept.
    pub(crate) fn rollback(self, fs: &RootFs) -> Result<Outcome> {
        let manifest = self.manifest.into_inner();
        let outcome = restore(fs, &self.dir, &self.dev_dir, &manifest, false);
        outcome.into_result(&self.dev_dir)
    }
}

/// Appends originals to the journal's `originals` file (created on the first one), and syncs it.
struct Originals {
    path: PathBuf,
    file: Option<File>,
    len: u64,
}

impl Originals {
    fn new(path: PathBuf) -> Self {
        Originals {
            path,
            file: None,
            len: 0,
        }
    }

    fn add(&mut self, bytes: &[u8]) -> std::io::Result<Blob> {
        if self.file.is_none() {
            self.file = Some(
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                    .open(&self.path)?,
            );
        }
        let file = self.file.as_mut().expect("opened above");
        file.write_all(bytes)?;
        let blob = Blob {
            offset: self.len,
            len: bytes.len() as u64,
            sha256: hex::encode(Sha256::digest(bytes)),
        };
        self.len += bytes.len() as u64;
        Ok(blob)
    }

    /// Makes the originals durable (before the manifest that points at them).
    fn finish(self) -> std::io::Result<()> {
        match self.file {
            Some(f) => f.sync_all(),
            None => Ok(()),
        }
    }
}

/// Marks a journal done: `manifest.json` becomes `done.json`, durably.
fn mark_done(dir: &Path) -> std::io::Result<()> {
    crate::fault::before_done()?;
    std::fs::rename(dir.join(MANIFEST), dir.join(DONE))?;
    atomic::sync_dir(dir)
}

/// Removes a finished journal (not synced: a journal marked done is never restored, so one that
/// survives a power cut is removed again). A failure is the warning returned: the run that
/// finished the journal leaves it for the next run to clean (`aside` false); a failure in that
/// second try (`aside`) moves it to `kept/`, where it stands in no later run's way, and names it.
fn cleanup(dir: &Path, dev_dir: &DevPath, aside: bool) -> Option<String> {
    let err = match crate::fault::before_cleanup().and_then(|()| remove_tree(dir)) {
        Ok(()) => return None,
        Err(e) => e,
    };
    let next = "the next osctl run that changes the device finishes the cleanup";
    let what = match aside {
        false => next.to_string(),
        true => match move_aside(dir) {
            Ok(kept) => format!("what is left of it is kept in {kept}"),
            Err(e) => format!("{next} ({})", e.message),
        },
    };
    Some(format!(
        "the journal {dev_dir} is finished (nothing in it will be restored) but could not be removed: {err}; {what}"
    ))
}

/// Removes a folder and everything in it, never following a link; the first failure names its
/// path (a journal's moved-aside tree may hold an immutable file).
fn remove_tree(dir: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .contents_first(true)
    {
        let entry = entry.map_err(std::io::Error::other)?;
        let p = entry.path();
        let removed = crate::fault::before_remove(p).and_then(|()| {
            if entry.file_type().is_dir() {
                std::fs::remove_dir(p)
            } else {
                std::fs::remove_file(p)
            }
        });
        if let Err(e) = removed {
            return Err(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", p.display()),
            ));
        }
    }
    Ok(())
}

/// Moves a journal folder to `/var/lib/osctl/kept/<id>` (same filesystem: a rename), durably.
fn move_aside(dir: &Path) -> Result<DevPath> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kept = kept_root().join(&name);
    let Some(journals) = dir.parent() else {
        return Err(Error::internal("a journal folder has no parent"));
    };
    let Some(state) = journals.parent() else {
        return Err(Error::internal("the journal folder has no parent"));
    };
    let kept_host = state.join("kept");
    match std::fs::DirBuilder::new().mode(0o700).create(&kept_host) {
        Ok(()) => std::fs::set_permissions(&kept_host, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| io_err("protect", &kept_root(), &e))?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io_err("create", &kept_root(), &e)),
    }
    atomic::rename(dir, &kept_host.join(&name)).map_err(|e| io_err("move aside", &kept, &e))?;
    Ok(kept)
}

/// What restoring one journal did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Outcome {
    /// Paths put back as they were.
    pub restored: usize,
    /// Paths left as they are, with why (something else changed them after the run).
    pub left: Vec<String>,
    /// Paths that could not be put back, with the error.
    pub failed: Vec<String>,
    /// Where the journal was moved because something was left or failed (its originals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<DevPath>,
    /// The journal is finished but could not be removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup: Option<String>,
}

impl Outcome {
    /// The outcome, or (when a path could not be put back) the error that names it: exit 5.
    fn into_result(self, dev_dir: &DevPath) -> Result<Outcome> {
        if self.failed.is_empty() {
            return Ok(self);
        }
        let mut err = Error::new(
            Exit::PartlyApplied,
            "rollback_incomplete",
            format!("could not restore every original of the journal {dev_dir}"),
        );
        for f in &self.failed {
            err = err.cause(f.clone());
        }
        for l in &self.left {
            err = err.cause(l.clone());
        }
        Err(match &self.kept {
            Some(kept) => err.hint(format!(
                "the originals are kept in {kept} (see its manifest.json); put back what is needed by hand: later osctl runs do not retry them"
            )),
            None => err.hint(format!(
                "the originals are in {dev_dir}; the next osctl run that changes the device tries again"
            )),
        })
    }
}

/// Restores one journal: every entry, newest first, then finishes it (removed when all went
/// back, else moved aside to `kept/`). Never fails as a whole: the outcome says what happened.
fn restore(
    fs: &RootFs,
    dir: &Path,
    dev_dir: &DevPath,
    manifest: &Manifest,
    recovering: bool,
) -> Outcome {
    let mut out = Outcome::default();
    let mut originals: Option<File> = None;
    let legacy = manifest.schema < 2;
    for entry in manifest.entries.iter().rev() {
        let path = DevPath::new(&entry.path);
        match restore_entry(fs, dir, &mut originals, &path, entry, legacy) {
            Ok(Put::Back) => out.restored += 1,
            Ok(Put::Nothing) => {}
            Ok(Put::Left(why)) => out.left.push(format!("{path}: {why}; left as it is")),
            Err(e) => out.failed.push(format!("{path}: {e}")),
        }
        if let Err(e) = sweep_temporary(fs, &path, entry.follow) {
            out.failed.push(format!("{path}: {e}"));
        }
    }
    drop(originals);
    if out.left.is_empty() && out.failed.is_empty() {
        out.cleanup = match mark_done(dir) {
            Ok(()) => cleanup(dir, dev_dir, recovering),
            Err(e) => Some(format!(
                "the journal {dev_dir} was restored but could not be marked done ({e}); the next run restores it again, which changes nothing"
            )),
        };
        return out;
    }
    // Something could not go back: keep its original where a person can find it, and let the
    // journal stand in no later run's way. Should even that fail, it stays open here and the
    // next run tries again (the fingerprints keep a retry from undoing anything newer).
    match move_aside(dir) {
        Ok(kept) => out.kept = Some(kept),
        Err(e) => {
            out.cleanup = Some(format!(
                "the journal {dev_dir} stays where it is ({}); the next osctl run that changes the device tries again",
                e.message
            ))
        }
    }
    out
}

/// What restoring one entry did.
enum Put {
    Back,
    Nothing,
    /// Left as it is: it holds neither the original nor what the run wrote.
    Left(String),
}

/// The state at a host path now, as a [`fingerprint`] (a special file has none).
fn fingerprint_now(path: &DevPath, host: &Path) -> std::io::Result<Option<String>> {
    let meta = match std::fs::symlink_metadata(host) {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Some(fingerprint(&FileState::Absent)));
        }
        Err(e) => return Err(e),
    };
    let ft = meta.file_type();
    let state = if ft.is_dir() {
        FileState::Dir { mode: 0 }
    } else if ft.is_symlink() {
        FileState::Symlink {
            target: std::fs::read_link(host)?.to_string_lossy().into_owned(),
        }
    } else if ft.is_file() {
        let content = crate::system::fs::read_regular(path, host, Limit::of(path))
            .map_err(|e| std::io::Error::other(e.message.clone()))?
            .unwrap_or_default();
        FileState::File {
            content,
            mode: meta.permissions().mode() & 0o7777,
        }
    } else {
        return Ok(None);
    };
    Ok(Some(fingerprint(&state)))
}

/// Puts one original back, if the path still holds what the run wrote (or, for a schema-1
/// journal, whatever it holds).
fn restore_entry(
    fs: &RootFs,
    dir: &Path,
    originals: &mut Option<File>,
    path: &DevPath,
    entry: &Entry,
    legacy: bool,
) -> std::io::Result<Put> {
    crate::fault::before_restore()?;
    let host = if entry.follow {
        fs.host(path)
    } else {
        fs.host_nofollow(path)
    }
    .map_err(|e| std::io::Error::other(e.message.clone()))?;
    let current = std::fs::symlink_metadata(&host).ok();
    let now = fingerprint_now(path, &host)?;
    let ours = legacy || now.as_ref().is_some_and(|n| entry.intended.contains(n));
    let changed = || {
        Put::Left(if entry.intended.is_empty() {
            "changed by something else while its run was interrupted".to_string()
        } else {
            "changed by something else after the interrupted run wrote it".to_string()
        })
    };
    match &entry.original {
        Original::Absent { dir: is_dir } => match current {
            None => Ok(Put::Nothing),
            Some(m) if m.is_dir() && (*is_dir || ours) => match atomic::remove_empty_dir(&host) {
                Ok(()) => Ok(Put::Back),
                // Something else put files there meanwhile: leave them, nothing of ours is lost.
                Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => Ok(Put::Nothing),
                Err(e) => Err(e),
            },
            Some(_) if ours => atomic::remove_file(&host).map(|_| Put::Back),
            Some(_) => Ok(changed()),
        },
        Original::File { mode, uid, gid } => {
            let saved = saved_bytes(dir, originals, entry)?;
            let original = fingerprint(&FileState::File {
                content: saved.clone(),
                mode: *mode,
            });
            if now.as_deref() == Some(original.as_str()) {
                return Ok(Put::Nothing);
            }
            if !ours {
                return Ok(changed());
            }
            if current.as_ref().is_some_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&host)?;
            }
            // A set-id bit is never put back: the journal records only what osctl itself
            // wrote over, and osctl writes no set-id files.
            atomic::write_file(&host, &saved, mode & 0o1777)?;
            let _ = std::os::unix::fs::chown(&host, Some(*uid), Some(*gid));
            Ok(Put::Back)
        }
        Original::Symlink { target } => {
            if let Some(m) = &current
                && m.file_type().is_symlink()
                && std::fs::read_link(&host).is_ok_and(|t| t == Path::new(target))
            {
                return Ok(Put::Nothing);
            }
            if !ours {
                return Ok(changed());
            }
            if current.is_some() {
                remove_any(&host)?;
            }
            std::os::unix::fs::symlink(target, &host)?;
            atomic::sync_parent(&host)?;
            Ok(Put::Back)
        }
        Original::Dir { mode } => match current {
            Some(m) if m.is_dir() => Ok(Put::Nothing),
            _ if !ours => Ok(changed()),
            other => {
                if other.is_some() {
                    remove_any(&host)?;
                }
                atomic::mkdir(&host, *mode)?;
                Ok(Put::Back)
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
                return Ok(Put::Nothing);
            }
            match &current {
                None => {}
                // Recreated empty by the run (what it wrote inside went back before this).
                Some(m) if m.is_dir() && (legacy || is_empty_dir(&host)) => {
                    if legacy {
                        remove_any(&host)?;
                    } else {
                        atomic::remove_empty_dir(&host)?;
                    }
                }
                Some(_) if legacy => remove_any(&host)?,
                Some(_) => {
                    return Ok(Put::Left(
                        "holds new content written after the interrupted run removed it; the removed folder is kept with the journal".into(),
                    ));
                }
            }
            move_tree(&saved, &host)?;
            Ok(Put::Back)
        }
    }
}

fn is_empty_dir(host: &Path) -> bool {
    std::fs::read_dir(host).is_ok_and(|mut d| d.next().is_none())
}

/// The saved bytes of a file's original, checked.
fn saved_bytes(
    dir: &Path,
    originals: &mut Option<File>,
    entry: &Entry,
) -> std::io::Result<Vec<u8>> {
    if let Some(blob) = &entry.blob {
        if originals.is_none() {
            *originals = Some(open_own(&dir.join(ORIGINALS))?);
        }
        let f = originals.as_mut().expect("opened above");
        f.seek(SeekFrom::Start(blob.offset))?;
        let mut bytes = Vec::new();
        f.take(blob.len).read_to_end(&mut bytes)?;
        if bytes.len() as u64 != blob.len || hex::encode(Sha256::digest(&bytes)) != blob.sha256 {
            return Err(std::io::Error::other(
                "its saved original is damaged (the checksum does not match)",
            ));
        }
        return Ok(bytes);
    }
    let name = entry.saved.as_deref().unwrap_or_default();
    let mut bytes = Vec::new();
    open_own(&dir.join(name))?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens a file of the journal: a regular file of ours, never through a link.
fn open_own(path: &Path) -> std::io::Result<File> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let m = f.metadata()?;
    if !m.is_file() || m.nlink() != 1 {
        return Err(std::io::Error::other(format!(
            "{} is not a plain file of the journal",
            path.display()
        )));
    }
    Ok(f)
}

/// Removes the temporary an atomic write of `path` leaves when its run dies between naming the
/// new file and renaming it over `path` ([`atomic::remove_temporary`]).
fn sweep_temporary(fs: &RootFs, path: &DevPath, follow: bool) -> std::io::Result<()> {
    let host = if follow {
        fs.host(path)
    } else {
        fs.host_nofollow(path)
    }
    .map_err(|e| std::io::Error::other(e.message.clone()))?;
    atomic::remove_temporary(&host).map(|_| ())
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

/// A journal folder as found on disk, checked.
enum Found {
    /// Open: its run did not finish; restore it.
    Open(Manifest),
    /// Marked done, or killed before its manifest was written: nothing to restore, only to
    /// remove.
    Finished,
}

/// The host folder of the journals, if there is one (checked: a real folder of ours that no one
/// else may write).
fn journals_host(fs: &RootFs) -> Result<Option<PathBuf>> {
    let dev = journal_root();
    let host = fs.host_nofollow(&dev)?;
    match std::fs::symlink_metadata(&host) {
        Ok(m) if m.is_dir() => {
            lock::check_owner(&dev, &m)?;
            Ok(Some(host))
        }
        Ok(m) => Err(Error::input(
            "untrusted_state",
            format!(
                "refusing to use {dev}: it is {}, not a folder",
                crate::system::fs::special_kind(&m.file_type())
            ),
        )),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(Error::io("inspect", &dev, &e)),
    }
}

/// The journal names, newest first (a switch keeps one per phase: they go back in reverse).
fn names(root: &Path, dev: &DevPath) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(root).map_err(|e| Error::io("list", dev, &e))? {
        let e = e.map_err(|e| Error::io("list", dev, &e))?;
        names.push(e.file_name().to_string_lossy().into_owned());
    }
    // `<nanoseconds>-<pid>`: by time, not by text.
    names.sort_by_key(|n| {
        let nanos: u128 = n
            .split('-')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0);
        std::cmp::Reverse((nanos, n.clone()))
    });
    Ok(names)
}

/// Reads and checks one journal folder (see the module docs on trust).
fn open(root: &Path, name: &str) -> Result<Found> {
    let dev_dir = journal_root().join(name);
    let dir = root.join(name);
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| Error::io("inspect", &dev_dir, &e))?;
    if !meta.is_dir() {
        return Err(untrusted(&dev_dir, "it is not a folder"));
    }
    lock::check_owner(&dev_dir, &meta)?;
    if std::fs::symlink_metadata(dir.join(DONE)).is_ok() {
        return Ok(Found::Finished);
    }
    let manifest_dev = dev_dir.join(MANIFEST);
    let f = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(dir.join(MANIFEST))
    {
        Ok(f) => f,
        // A run killed before its manifest was durable wrote nothing to the device yet.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Finished),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(untrusted(&manifest_dev, "it is a symbolic link"));
        }
        Err(e) => return Err(Error::io("read", &manifest_dev, &e)),
    };
    let m = f
        .metadata()
        .map_err(|e| Error::io("inspect", &manifest_dev, &e))?;
    if !m.is_file() || m.nlink() != 1 {
        return Err(untrusted(&manifest_dev, "it is not a plain file"));
    }
    lock::check_owner(&manifest_dev, &m)?;
    if m.len() > Limit::Config.bytes() {
        return Err(untrusted(
            &manifest_dev,
            "it is far too large for a journal",
        ));
    }
    if let Ok(o) = std::fs::symlink_metadata(dir.join(ORIGINALS)) {
        let dev = dev_dir.join(ORIGINALS);
        if !o.is_file() || o.nlink() != 1 {
            return Err(untrusted(&dev, "it is not a plain file"));
        }
        lock::check_owner(&dev, &o)?;
    }
    let mut text = String::new();
    std::io::BufReader::new(f)
        .read_to_string(&mut text)
        .map_err(|e| Error::io("read", &manifest_dev, &e))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        Error::json(&manifest_dev, &e).hint(format!(
            "the journal {dev_dir} is damaged; inspect it, then remove it by hand"
        ))
    })?;
    validate(&manifest, name, &dev_dir)?;
    Ok(Found::Open(manifest))
}

fn untrusted(dev: &DevPath, why: &str) -> Error {
    Error::input(
        "untrusted_state",
        format!("refusing the journal {dev}: {why}"),
    )
    .hint(format!(
        "osctl restores only journals it wrote itself; inspect it, then remove it by hand ({STATE_DIR} must be writable by root alone)"
    ))
}

/// Every entry must name an absolute device path without `..`, and its saved bytes must be in
/// its own journal.
fn validate(manifest: &Manifest, name: &str, dev_dir: &DevPath) -> Result<()> {
    if manifest.id != name {
        return Err(untrusted(
            dev_dir,
            &format!("its manifest is the journal {}'s", manifest.id),
        ));
    }
    for e in &manifest.entries {
        let normal = e.path.starts_with('/')
            && Path::new(&e.path).components().all(|c| {
                matches!(
                    c,
                    std::path::Component::RootDir | std::path::Component::Normal(_)
                )
            })
            && DevPath::new(&e.path).to_string() == e.path;
        if !normal {
            return Err(untrusted(
                dev_dir,
                &format!("an entry names {:?}, not a plain absolute path", e.path),
            ));
        }
        if let Some(saved) = &e.saved {
            let plain = !saved.is_empty()
                && saved != "."
                && saved != ".."
                && !saved.contains('/')
                && saved != MANIFEST
                && saved != DONE;
            if !plain {
                return Err(untrusted(
                    dev_dir,
                    &format!("an entry's saved copy {saved:?} is not a file of the journal"),
                ));
            }
        }
        if let Original::File { mode, .. } | Original::Dir { mode } = &e.original
            && *mode > 0o7777
        {
            return Err(untrusted(dev_dir, &format!("{}: mode {mode:o}", e.path)));
        }
    }
    Ok(())
}

/// The command line a journal records, masked again (a journal of an older osctl kept it as
/// typed).
fn masked(command: &str) -> String {
    let args: Vec<String> = command.split(' ').map(str::to_string).collect();
    crate::redact::mask_command_line(&args)
}

/// Journals left on disk by runs that did not finish, newest first. A journal osctl would
/// refuse is listed with why.
pub(crate) fn pending(fs: &RootFs) -> Result<Vec<Pending>> {
    let root = match journals_host(fs) {
        Ok(Some(root)) => root,
        Ok(None) => return Ok(Vec::new()),
        // Shown as a refused journal (status stays read-only and says why the next run stops).
        Err(e) if e.code == "untrusted_state" => {
            return Ok(vec![Pending {
                id: "journal".into(),
                path: journal_root(),
                command: String::new(),
                pid: 0,
                started: 0,
                paths: 0,
                rolls_forward: false,
                refused: Some(e.message.clone()),
            }]);
        }
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for name in names(&root, &journal_root())? {
        let dev_dir = journal_root().join(&name);
        let mut p = Pending {
            id: name.clone(),
            path: dev_dir,
            command: "(unknown: killed before the journal was written)".into(),
            pid: 0,
            started: 0,
            paths: 0,
            rolls_forward: false,
            refused: None,
        };
        match open(&root, &name) {
            Ok(Found::Finished) => {
                if std::fs::symlink_metadata(root.join(&name).join(DONE)).is_ok() {
                    continue;
                }
            }
            Ok(Found::Open(m)) => {
                p.command = masked(&m.command);
                p.pid = m.pid;
                p.started = m.started;
                p.paths = m.entries.len();
                p.rolls_forward = m.written;
            }
            Err(e) => p.refused = Some(e.message.clone()),
        }
        out.push(p);
    }
    Ok(out)
}

/// Whether the journal folder holds any journal at all: an interrupted run's ([`pending`]), a
/// refused one, or a finished run's whose cleanup was cut short (marked done, never restored,
/// but its originals are still on disk until a run that takes the lock removes them).
pub(crate) fn any(fs: &RootFs) -> Result<bool> {
    match journals_host(fs) {
        Ok(Some(root)) => Ok(!names(&root, &journal_root())?.is_empty()),
        Ok(None) => Ok(false),
        Err(e) if e.code == "untrusted_state" => Ok(true),
        Err(e) => Err(e),
    }
}

/// What recovery did with one journal.
#[derive(Clone, Debug, Serialize)]
pub struct Recovered {
    pub id: String,
    pub command: String,
    /// Its run had finished (marked done): only the cleanup was left.
    pub finished: bool,
    /// Every write of its run had landed: the files were kept and its remaining service actions
    /// run again (rolled forward, not restored).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rolled_forward: bool,
    /// Service actions recovery ran: the ones left after a rolled-forward run's last write, or
    /// the ones that put the units back after a restore.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// What recovery could not run (a failed or offline service action, a program it does not
    /// re-run), with why: the operator's to do.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Runs `systemctl` for each of `actions`, in order; what ran, and what did not with why.
pub(crate) fn run_actions(
    services: &Services,
    actions: &[Vec<String>],
) -> (Vec<String>, Vec<String>) {
    let (mut ran, mut not_run) = (Vec::new(), Vec::new());
    for args in actions {
        let what = format!("systemctl {}", args.join(" "));
        match services.systemctl(args) {
            Ok(None) => not_run.push(format!("{what}: not run (no systemd under this root)")),
            Ok(Some(out)) if out.success() => ran.push(what),
            Ok(Some(out)) => not_run.push(format!(
                "{what} failed ({}): {}",
                out.describe(),
                out.stderr_text().trim()
            )),
            Err(e) => not_run.push(format!("{what} could not run: {}", e.message)),
        }
    }
    (ran, not_run)
}

/// Restores every interrupted run, newest first, and finishes the cleanup of done ones (the
/// caller holds the device lock). A run whose writes had all landed ([`Manifest::written`]) is
/// rolled forward instead: its files stay, its remaining service actions run again. After a
/// restore the journal's [`Manifest::undo`] actions put the units back. A journal osctl does
/// not trust is an error (exit 1) and is not touched; a path that cannot be put back is in the
/// outcome, never an error, so it cannot wedge the device.
pub(crate) fn recover_all(fs: &RootFs, services: &Services) -> Result<Vec<Recovered>> {
    let Some(root) = journals_host(fs)? else {
        return Ok(Vec::new());
    };
    // A journal folder others could write is refused by `journals_host`; one that others could
    // merely read (an older osctl made it 0755) is closed now.
    let _ = std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700));
    let mut out = Vec::new();
    for name in names(&root, &journal_root())? {
        let dev_dir = journal_root().join(&name);
        let dir = root.join(&name);
        match open(&root, &name)? {
            Found::Finished => {
                let done = std::fs::symlink_metadata(dir.join(DONE)).is_ok();
                let cleanup = cleanup(&dir, &dev_dir, true);
                // A folder without a manifest (its run died before writing one) is no news.
                if done || cleanup.is_some() {
                    out.push(Recovered {
                        id: name,
                        command: String::new(),
                        finished: true,
                        rolled_forward: false,
                        actions: Vec::new(),
                        not_run: Vec::new(),
                        outcome: Outcome {
                            cleanup,
                            ..Outcome::default()
                        },
                    });
                }
            }
            Found::Open(manifest) if manifest.written => {
                // Run what was left, then finish: a kill before `done` runs them again, which
                // changes nothing (each action is idempotent).
                let (actions, mut not_run) = run_actions(services, &manifest.pending);
                not_run.extend(manifest.pending_commands.iter().map(|c| {
                    format!("{c}: not run again by recovery (run it by hand if it is needed)")
                }));
                let cleanup = match mark_done(&dir) {
                    Ok(()) => cleanup(&dir, &dev_dir, true),
                    Err(e) => Some(format!(
                        "the journal {dev_dir} could not be marked done ({e}); the next run rolls it forward again"
                    )),
                };
                out.push(Recovered {
                    id: name,
                    command: masked(&manifest.command),
                    finished: false,
                    rolled_forward: true,
                    actions,
                    not_run,
                    outcome: Outcome {
                        cleanup,
                        ..Outcome::default()
                    },
                });
            }
            Found::Open(manifest) => {
                let (mut actions, mut not_run) = run_actions(services, &manifest.undo_first);
                let outcome = restore(fs, &dir, &dev_dir, &manifest, true);
                let (after, after_not_run) = run_actions(services, &manifest.undo);
                actions.extend(after);
                not_run.extend(after_not_run);
                out.push(Recovered {
                    id: name,
                    command: masked(&manifest.command),
                    finished: false,
                    rolled_forward: false,
                    actions,
                    not_run,
                    outcome,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::apply::apply_file;
    use crate::plan::draft::{current, current_for_removal};

    /// A device with a config file, an owner's note, and the change a run makes: the config
    /// rewritten, a new file made, the note removed.
    struct Device {
        dir: tempfile::TempDir,
        fs: RootFs,
        changes: Vec<FileChange>,
    }

    const CONFIG: &str = "/etc/app/app.conf";
    const NEW: &str = "/etc/app/new.conf";
    const NOTE: &str = "/root/NOTE.md";

    fn device() -> Device {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("etc/app")).unwrap();
        std::fs::create_dir_all(dir.path().join("root")).unwrap();
        std::fs::write(dir.path().join("etc/app/app.conf"), "a = 1\n").unwrap();
        std::fs::set_permissions(
            dir.path().join("etc/app/app.conf"),
            std::fs::Permissions::from_mode(0o640),
        )
        .unwrap();
        std::fs::write(dir.path().join("root/NOTE.md"), "the owner's words\n").unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let p = |s: &str| DevPath::new(s);
        let changes = vec![
            FileChange::write(
                p(CONFIG),
                current(&fs, &p(CONFIG)).unwrap(),
                "a = 2\n",
                0o600,
                "t",
            ),
            FileChange::write(p(NEW), FileState::Absent, "new\n", 0o644, "t"),
            FileChange::new(
                p(NOTE),
                current_for_removal(&fs, &p(NOTE)).unwrap(),
                FileState::Absent,
                "t",
            ),
        ];
        Device { dir, fs, changes }
    }

    impl Device {
        fn read(&self, p: &str) -> Option<(String, u32)> {
            let host = self.dir.path().join(&p[1..]);
            let text = std::fs::read_to_string(&host).ok()?;
            Some((text, std::fs::metadata(&host).unwrap().mode() & 0o7777))
        }

        fn begin(&self) -> Journal {
            let touches: Vec<Touch> = self.changes.iter().map(Touch::of).collect();
            Journal::begin(&self.fs, "osctl test", &touches).unwrap()
        }

        fn write_all(&self, j: &Journal) {
            for c in &self.changes {
                apply_file(&self.fs, Some(j), c).unwrap();
            }
        }

        fn journal_dirs(&self) -> Vec<String> {
            match std::fs::read_dir(self.dir.path().join("var/lib/osctl/journal")) {
                Ok(rd) => rd
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => Vec::new(),
            }
        }

        fn assert_original(&self) {
            assert_eq!(self.read(CONFIG), Some(("a = 1\n".into(), 0o640)));
            assert_eq!(self.read(NEW), None);
            assert_eq!(
                self.read(NOTE).map(|(t, _)| t),
                Some("the owner's words\n".into())
            );
        }
    }

    #[test]
    fn a_rollback_puts_back_modes_bytes_and_removed_files_and_removes_new_ones() {
        let d = device();
        let j = d.begin();
        d.write_all(&j);
        assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
        assert_eq!(d.read(NOTE), None);
        let outcome = j.rollback(&d.fs).unwrap();
        assert!(
            outcome.left.is_empty() && outcome.failed.is_empty(),
            "{outcome:?}"
        );
        assert_eq!(outcome.restored, 3);
        d.assert_original();
        assert!(
            d.journal_dirs().is_empty(),
            "the journal is gone after a rollback"
        );
    }

    #[test]
    fn a_killed_run_is_restored_by_the_next() {
        let d = device();
        let j = d.begin();
        apply_file(&d.fs, Some(&j), &d.changes[0]).unwrap();
        // Killed here: nothing ran Drop, the journal stays as it is on disk.
        std::mem::forget(j);
        assert_eq!(d.journal_dirs().len(), 1);
        let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
        assert_eq!(recovered.len(), 1);
        assert!(!recovered[0].finished && !recovered[0].rolled_forward);
        d.assert_original();
        assert!(d.journal_dirs().is_empty());
    }

    #[test]
    fn a_run_marked_written_is_rolled_forward_not_back() {
        let d = device();
        let j = d.begin();
        d.write_all(&j);
        j.written(&[]).unwrap();
        std::mem::forget(j);
        let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
        assert_eq!(recovered.len(), 1);
        assert!(recovered[0].rolled_forward, "{:?}", recovered[0]);
        assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
        assert_eq!(d.read(NOTE), None);
        assert!(d.journal_dirs().is_empty());
    }

    #[test]
    fn a_done_journal_is_only_cleaned_up() {
        let d = device();
        let j = d.begin();
        d.write_all(&j);
        j.done().unwrap();
        std::mem::forget(j);
        let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
        assert!(recovered.iter().all(|r| r.finished), "{recovered:?}");
        assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
        assert!(d.journal_dirs().is_empty());
    }

    #[test]
    fn a_file_rewritten_by_someone_else_after_the_run_is_left_and_the_journal_kept() {
        let d = device();
        let j = d.begin();
        d.write_all(&j);
        std::mem::forget(j);
        // The runtime saved its config after the killed run wrote it.
        std::fs::write(d.dir.path().join("etc/app/app.conf"), "a = 3\n").unwrap();
        let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
        let outcome = &recovered[0].outcome;
        assert_eq!(outcome.left.len(), 1, "{outcome:?}");
        assert!(outcome.left[0].contains(CONFIG), "{outcome:?}");
        assert_eq!(d.read(CONFIG).unwrap().0, "a = 3\n", "the newer bytes stay");
        assert_eq!(d.read(NEW), None, "the rest is put back");
        let kept = outcome.kept.as_ref().expect("the journal is moved aside");
        assert!(kept.as_path().starts_with("/var/lib/osctl/kept"), "{kept}");
        assert!(d.journal_dirs().is_empty(), "nothing wedges the next run");
    }

    #[test]
    fn a_journal_others_may_write_is_refused_and_not_restored() {
        let d = device();
        let j = d.begin();
        d.write_all(&j);
        std::mem::forget(j);
        let dirs = d.journal_dirs();
        let jdir = d.dir.path().join("var/lib/osctl/journal").join(&dirs[0]);
        std::fs::set_permissions(&jdir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = recover_all(&d.fs, &Services::Offline).unwrap_err();
        assert_eq!(err.exit, Exit::Failed, "{err:?}");
        // Untouched: the run's writes stand, and the journal is left for a person to judge.
        assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
        assert_eq!(d.journal_dirs(), dirs);
    }

    #[test]
    fn a_manifest_naming_another_journal_or_a_path_outside_is_refused() {
        for (what, from, to) in [
            (
                "its id is not its folder's name",
                "\"id\": \"",
                "\"id\": \"x",
            ),
            ("a path with ..", "/etc/app/new.conf", "/etc/../../new.conf"),
        ] {
            let d = device();
            let j = d.begin();
            d.write_all(&j);
            std::mem::forget(j);
            let dirs = d.journal_dirs();
            let manifest = d
                .dir
                .path()
                .join("var/lib/osctl/journal")
                .join(&dirs[0])
                .join(MANIFEST);
            let text = std::fs::read_to_string(&manifest).unwrap();
            assert!(text.contains(from), "{what}: {text}");
            std::fs::write(&manifest, text.replacen(from, to, 1)).unwrap();
            let err = recover_all(&d.fs, &Services::Offline).unwrap_err();
            assert_eq!(err.exit, Exit::Failed, "{what}: {err:?}");
            assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)), "{what}");
        }
    }
}
