//! Writing a journal: saving the originals before the first write (`begin`), recording what
//! the run intends and has written, marking it done, and cleaning it up or moving it aside.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{
    Blob, DONE, Entry, Journal, MANIFEST, Manifest, ORIGINALS, Original, SCHEMA, Touch,
    fingerprint, io_err, journal_root, kept_root,
    restore::{Outcome, move_tree, restore},
};
use crate::apply::atomic::{self, Syncs};
use crate::apply::lock::{self, STATE_DIR};
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::{FileState, ServiceAction, Step};
use crate::system::fs::{Limit, RootFs};

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
pub(super) fn mark_done(dir: &Path) -> std::io::Result<()> {
    crate::fault::before_done()?;
    std::fs::rename(dir.join(MANIFEST), dir.join(DONE))?;
    atomic::sync_dir(dir)
}

/// Removes a finished journal (not synced: a journal marked done is never restored, so one that
/// survives a power cut is removed again). A failure is the warning returned: the run that
/// finished the journal leaves it for the next run to clean (`aside` false); a failure in that
/// second try (`aside`) moves it to `kept/`, where it stands in no later run's way, and names it.
pub(super) fn cleanup(dir: &Path, dev_dir: &DevPath, aside: bool) -> Option<String> {
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
pub(super) fn move_aside(dir: &Path) -> Result<DevPath> {
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
