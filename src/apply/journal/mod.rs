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
//!
//! **Parts.** This file owns the on-disk format (the manifest, its entries, the fingerprints of
//! intended states) and where journals live; `write` makes and finishes a journal, `restore`
//! puts its originals back, `validate` finds journals on disk and refuses planted or tampered
//! ones, and `recover` lists and finishes the journals of runs that did not finish, and `preview` plans that
//! recovery for `osctl recover --dry-run` from the same decisions.

use std::cell::RefCell;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::lock::STATE_DIR;
use crate::error::Error;
use crate::path::DevPath;
use crate::plan::{FileChange, FileState};

mod preview;
mod recover;
mod restore;
mod validate;
mod write;

pub(crate) use preview::{Planned, preview};
pub(crate) use recover::Recovered;
pub(crate) use recover::{any, pending, recover_all, run_actions};
pub(crate) use restore::Outcome;

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

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
