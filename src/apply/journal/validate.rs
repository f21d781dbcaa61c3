//! Finding journals on disk and checking them before anything is trusted: the folder and
//! each journal must be ours and writable by no one else, and a planted or tampered manifest
//! (another journal's id, a path outside the device, bytes outside its journal) is refused.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{DONE, MANIFEST, Manifest, ORIGINALS, Original, journal_root};
use crate::apply::lock::{self, STATE_DIR};
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::system::fs::{Limit, RootFs};

/// A journal folder as found on disk, checked.
pub(super) enum Found {
    /// Open: its run did not finish; restore it.
    Open(Manifest),
    /// Marked done, or killed before its manifest was written: nothing to restore, only to
    /// remove.
    Finished,
}

/// The host folder of the journals, if there is one (checked: a real folder of ours that no one
/// else may write).
pub(super) fn journals_host(fs: &RootFs) -> Result<Option<PathBuf>> {
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
pub(super) fn names(root: &Path, dev: &DevPath) -> Result<Vec<String>> {
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
pub(super) fn open(root: &Path, name: &str) -> Result<Found> {
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
pub(super) fn masked(command: &str) -> String {
    let args: Vec<String> = command.split(' ').map(str::to_string).collect();
    crate::redact::mask_command_line(&args)
}
