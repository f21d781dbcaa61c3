//! Restoring a journal: putting every original back, newest first, only where the path still
//! holds what the run wrote (or its original), and what that did ([`Outcome`]).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{
    Entry, Manifest, ORIGINALS, Original, fingerprint,
    write::{cleanup, mark_done, move_aside},
};
use crate::apply::atomic;
use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::plan::FileState;
use crate::system::fs::{Limit, RootFs};

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
    pub(super) fn into_result(self, dev_dir: &DevPath) -> Result<Outcome> {
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
pub(super) fn restore(
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

/// What restoring one entry will do, decided from what its path holds now ([`decide`]); the
/// run acts on it ([`act`]), a preview plans it (`preview.rs`). One decision for both is what
/// makes the preview name exactly the paths the run puts back.
pub(super) enum Decision {
    /// The path holds its original already (or the run never got to it).
    Nothing,
    /// Left as it is: it holds neither the original nor what the run wrote.
    Left(String),
    /// Put back.
    Back(Act),
}

/// How an original is put back.
pub(super) enum Act {
    /// Nothing was there: remove what the run made (a folder only while it is empty).
    Remove,
    /// A file, written over whatever is there (a folder there is removed first).
    File {
        saved: Vec<u8>,
        mode: u32,
        uid: u32,
        gid: u32,
    },
    /// A link, made after whatever is there is removed.
    Symlink { target: String },
    /// A folder, made after whatever is there is removed.
    Dir { mode: u32 },
    /// A removed folder, moved back from the journal (`saved`) once the path is cleared.
    Tree {
        saved: std::path::PathBuf,
        clear: Clear,
    },
}

/// What a [`Act::Tree`] clears at its path first.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Clear {
    /// Nothing is there.
    Nothing,
    /// The empty folder the run recreated.
    EmptyDir,
    /// Whatever is there (a schema-1 journal).
    Any,
}

/// Decides how to put one original back: only where the path still holds what the run wrote
/// (or, for a schema-1 journal, whatever it holds). `empty` answers whether a folder at the
/// path holds nothing (by then: a preview counts what it has already planned to remove).
/// Changes nothing.
pub(super) fn decide(
    dir: &Path,
    originals: &mut Option<File>,
    path: &DevPath,
    host: &Path,
    entry: &Entry,
    legacy: bool,
    empty: &dyn Fn() -> bool,
) -> std::io::Result<Decision> {
    let current = std::fs::symlink_metadata(host).ok();
    let now = fingerprint_now(path, host)?;
    let ours = legacy || now.as_ref().is_some_and(|n| entry.intended.contains(n));
    let changed = || {
        Decision::Left(if entry.intended.is_empty() {
            "changed by something else while its run was interrupted".to_string()
        } else {
            "changed by something else after the interrupted run wrote it".to_string()
        })
    };
    let back = |act| Ok(Decision::Back(act));
    match &entry.original {
        Original::Absent { dir: is_dir } => match current {
            None => Ok(Decision::Nothing),
            // Something else put files there meanwhile: leave them, nothing of ours is lost.
            Some(m) if m.is_dir() && (*is_dir || ours) && !empty() => Ok(Decision::Nothing),
            Some(m) if m.is_dir() && (*is_dir || ours) => back(Act::Remove),
            Some(_) if ours => back(Act::Remove),
            Some(_) => Ok(changed()),
        },
        Original::File { mode, uid, gid } => {
            let saved = saved_bytes(dir, originals, entry)?;
            let original = fingerprint(&FileState::File {
                content: saved.clone(),
                mode: *mode,
            });
            if now.as_deref() == Some(original.as_str()) {
                return Ok(Decision::Nothing);
            }
            if !ours {
                return Ok(changed());
            }
            // A set-id bit is never put back: the journal records only what osctl itself
            // wrote over, and osctl writes no set-id files.
            back(Act::File {
                saved,
                mode: mode & 0o1777,
                uid: *uid,
                gid: *gid,
            })
        }
        Original::Symlink { target } => {
            if let Some(m) = &current
                && m.file_type().is_symlink()
                && std::fs::read_link(host).is_ok_and(|t| t == Path::new(target))
            {
                return Ok(Decision::Nothing);
            }
            if !ours {
                return Ok(changed());
            }
            back(Act::Symlink {
                target: target.clone(),
            })
        }
        Original::Dir { mode } => match current {
            Some(m) if m.is_dir() => Ok(Decision::Nothing),
            _ if !ours => Ok(changed()),
            _ => back(Act::Dir { mode: *mode }),
        },
        Original::Tree => {
            let saved = dir.join(entry.saved.as_deref().unwrap_or_default());
            if std::fs::symlink_metadata(&saved).is_err() {
                // The run never got to remove it: the original is still in place.
                return Ok(Decision::Nothing);
            }
            let clear = match &current {
                None => Clear::Nothing,
                Some(_) if legacy => Clear::Any,
                // Recreated empty by the run (what it wrote inside went back before this).
                Some(m) if m.is_dir() && empty() => Clear::EmptyDir,
                Some(_) => {
                    return Ok(Decision::Left(
                        "holds new content written after the interrupted run removed it; the removed folder is kept with the journal".into(),
                    ));
                }
            };
            back(Act::Tree { saved, clear })
        }
    }
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
    let host = host_of(fs, path, entry)?;
    if entry.original == Original::Tree {
        // A copy cut short (by a crash, across filesystems) is not the original: drop it.
        let saved = dir.join(entry.saved.as_deref().unwrap_or_default());
        for partial in [partial_path(&saved), partial_path(&host)] {
            if std::fs::symlink_metadata(&partial).is_ok() {
                std::fs::remove_dir_all(&partial)?;
            }
        }
    }
    let act = match decide(dir, originals, path, &host, entry, legacy, &|| {
        is_empty_dir(&host)
    })? {
        Decision::Nothing => return Ok(Put::Nothing),
        Decision::Left(why) => return Ok(Put::Left(why)),
        Decision::Back(act) => act,
    };
    let current = std::fs::symlink_metadata(&host).ok();
    match act {
        Act::Remove => match current {
            Some(m) if m.is_dir() => match atomic::remove_empty_dir(&host) {
                Ok(()) => Ok(Put::Back),
                // Filled meanwhile: leave it, nothing of ours is lost.
                Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => Ok(Put::Nothing),
                Err(e) => Err(e),
            },
            Some(_) => atomic::remove_file(&host).map(|_| Put::Back),
            None => Ok(Put::Nothing),
        },
        Act::File {
            saved,
            mode,
            uid,
            gid,
        } => {
            if current.as_ref().is_some_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&host)?;
            }
            atomic::write_file(&host, &saved, mode)?;
            let _ = std::os::unix::fs::chown(&host, Some(uid), Some(gid));
            Ok(Put::Back)
        }
        Act::Symlink { target } => {
            if current.is_some() {
                remove_any(&host)?;
            }
            std::os::unix::fs::symlink(&target, &host)?;
            atomic::sync_parent(&host)?;
            Ok(Put::Back)
        }
        Act::Dir { mode } => {
            if current.is_some() {
                remove_any(&host)?;
            }
            atomic::mkdir(&host, mode)?;
            Ok(Put::Back)
        }
        Act::Tree { saved, clear } => {
            match clear {
                Clear::Nothing => {}
                Clear::EmptyDir => atomic::remove_empty_dir(&host)?,
                Clear::Any => remove_any(&host)?,
            }
            move_tree(&saved, &host)?;
            Ok(Put::Back)
        }
    }
}

/// The host path of an entry's path: through a final link only when the run wrote through it.
pub(super) fn host_of(fs: &RootFs, path: &DevPath, entry: &Entry) -> std::io::Result<PathBuf> {
    if entry.follow {
        fs.host(path)
    } else {
        fs.host_nofollow(path)
    }
    .map_err(|e| std::io::Error::other(e.message.clone()))
}

pub(super) fn is_empty_dir(host: &Path) -> bool {
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
pub(super) fn move_tree(from: &Path, to: &Path) -> std::io::Result<()> {
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
