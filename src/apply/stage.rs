//! Staging: the writes a command makes outside a plan, for content too large or too slow to
//! plan (a skill download), and the swap that puts it in place.
//!
//! `skills sync` downloads without the device lock (a slow CDN must not hold every other command
//! at exit 6), so its downloads go to a folder no other command reads, and only the swap into
//! place happens under the device lock. This module owns those writes:
//!
//! - [`StageLock`]: a `flock` per staging area (one per runtime), held from the first download to
//!   the end of the swap, so two syncs of one runtime never share a folder, and the next sync
//!   knows that a folder it finds there was left by a run that died. The lock file is removed by
//!   its holder; a waiter that locked a removed file notices (the inode changed) and tries again.
//! - [`private_dir`]: a fresh, empty folder, mode 0700 whatever the umask, owned by this process's
//!   user: whatever was at its path (a planted link, a folder someone else made) is removed first,
//!   without following links, and the result is checked before anything is written into it.
//! - [`write_tree`]: files 0644 and folders 0755, never over an existing path; [`sync_fs`] makes
//!   them durable with one `syncfs`.
//! - [`swap_in`]: `renameat2(RENAME_EXCHANGE)`, so at every instant the target is the whole old
//!   folder or the whole new one (two renames where the filesystem cannot exchange: the target is
//!   then briefly absent, never partial); [`sync_dir`] makes the swaps durable.

use std::ffi::CString;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Exit, Result};
use crate::path::DevPath;

/// A held staging lock; [`StageLock::release`] removes its file, dropping it only unlocks.
#[derive(Debug)]
pub(crate) struct StageLock {
    file: File,
    host: PathBuf,
}

impl StageLock {
    /// Waits up to `timeout` for the lock at `host` (its folder must exist), then fails with exit
    /// 6 naming `what` holds it.
    pub(crate) fn acquire(
        host: &Path,
        dev: &DevPath,
        timeout: Duration,
        what: &str,
    ) -> Result<StageLock> {
        let started = Instant::now();
        loop {
            if let Some(lock) = Self::try_acquire(host, dev)? {
                return Ok(lock);
            }
            if started.elapsed() >= timeout {
                let holder = std::fs::read_to_string(host).unwrap_or_default();
                let mut err = Error::new(
                    Exit::Busy,
                    "busy",
                    format!("{what} holds {dev} (waited {} s)", timeout.as_secs()),
                );
                if !holder.trim().is_empty() {
                    err = err.cause(format!("held by {}", holder.trim()));
                }
                return Err(
                    err.hint("wait for it to finish and run again, or raise --lock-timeout")
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Takes the lock if nobody holds it now.
    pub(crate) fn try_acquire(host: &Path, dev: &DevPath) -> Result<Option<StageLock>> {
        let io = |e: io::Error| Error::io("lock", dev, &e);
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(host)
                .map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
            // The holder before us may have removed the file after we opened it: the lock is
            // ours only if the path still names the file we locked.
            let locked = file.metadata().map_err(io)?;
            match std::fs::symlink_metadata(host) {
                Ok(now) if now.ino() == locked.ino() && now.dev() == locked.dev() => {
                    let _ = file.set_len(0);
                    let _ = write!(file, "pid {}", std::process::id());
                    return Ok(Some(StageLock {
                        file,
                        host: host.to_path_buf(),
                    }));
                }
                _ => continue,
            }
        }
    }

    /// Removes the lock file, then unlocks (a waiter on the old file retries on the new one).
    pub(crate) fn release(self) {
        let _ = std::fs::remove_file(&self.host);
        drop(self.file);
    }
}

/// Makes `host` a fresh, empty folder that only this user can enter (0700), after removing
/// whatever was there (never following a link). `host`'s parent must exist.
pub(crate) fn private_dir(host: &Path) -> io::Result<()> {
    clear(host)?;
    std::fs::DirBuilder::new().mode(0o700).create(host)?;
    std::fs::set_permissions(host, std::fs::Permissions::from_mode(0o700))?;
    check_private(host)
}

/// Makes sure `host` is a folder of this user that nobody else may write into, creating it (0700)
/// when missing; one that is a link or someone else's is replaced. Used for the folder that holds
/// the staging locks and folders, which must persist between runs.
pub(crate) fn private_parent(host: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(host) {
        Ok(m) if m.is_dir() && m.uid() == euid() => {
            if m.mode() & 0o077 != 0 {
                std::fs::set_permissions(host, std::fs::Permissions::from_mode(0o700))?;
            }
        }
        Ok(_) => private_dir(host)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            match std::fs::DirBuilder::new().mode(0o700).create(host) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
            std::fs::set_permissions(host, std::fs::Permissions::from_mode(0o700))?;
        }
        Err(e) => return Err(e),
    }
    check_private(host)
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

fn check_private(host: &Path) -> io::Result<()> {
    let m = std::fs::symlink_metadata(host)?;
    if m.is_dir() && m.uid() == euid() && m.mode() & 0o077 == 0 {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "{} is not a private folder of this user (a folder, mode 0700)",
        host.display()
    )))
}

/// Creates a folder and its missing parents (0755), such as a runtime's skills folder.
pub(crate) fn ensure_dir(host: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(host)
}

/// Writes `entries` (relative `/` paths; `None` is a folder) under the new folder `dir`: folders
/// 0755, files 0644, whatever the umask; nothing is written over an existing path.
pub(crate) fn write_tree(dir: &Path, entries: &[(&str, Option<&[u8]>)]) -> io::Result<()> {
    let mkdir = |p: &Path| -> io::Result<()> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(p)?;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755))
    };
    mkdir(dir)?;
    for (path, content) in entries {
        let target = dir.join(path);
        match content {
            None => mkdir(&target)?,
            Some(bytes) => {
                if let Some(parent) = target.parent()
                    && !parent.is_dir()
                {
                    // Folders implied by a file's path (zips need not list them).
                    let mut missing = vec![parent.to_path_buf()];
                    while let Some(up) = missing.last().and_then(|p| p.parent())
                        && !up.is_dir()
                    {
                        missing.push(up.to_path_buf());
                    }
                    for p in missing.iter().rev() {
                        mkdir(p)?;
                    }
                }
                let mut f = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o644)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(&target)?;
                f.write_all(bytes)?;
                f.set_permissions(std::fs::Permissions::from_mode(0o644))?;
            }
        }
    }
    Ok(())
}

/// Makes every byte written on `dir`'s filesystem durable (one `syncfs`).
pub(crate) fn sync_fs(dir: &Path) -> io::Result<()> {
    let f = File::open(dir)?;
    use std::os::fd::AsRawFd;
    // SAFETY: syncfs takes an open file descriptor and has no other preconditions.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Fsyncs a folder (its renames are durable).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Puts the staged folder `staged` at `target` (same filesystem) in one atomic exchange; the old
/// target, which lands at `staged`, is then removed. `spare` is a free name beside `staged` for
/// filesystems that cannot exchange.
pub(crate) fn swap_in(staged: &Path, target: &Path, spare: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(target).is_err() {
        return std::fs::rename(staged, target);
    }
    match exchange(staged, target) {
        Ok(()) => {}
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) => {
            std::fs::rename(target, spare)?;
            std::fs::rename(staged, target)?;
            std::fs::rename(spare, staged)?;
        }
        Err(e) => return Err(e),
    }
    // `staged` now holds the old folder (or a link, removed as a link).
    clear(staged)
}

/// `renameat2(from, to, RENAME_EXCHANGE)`.
fn exchange(from: &Path, to: &Path) -> io::Result<()> {
    let a = CString::new(from.as_os_str().as_bytes())?;
    let b = CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them as given (absolute).
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Removes whatever is at `host` (a folder with everything in it, a file, a link as a link).
pub(crate) fn clear(host: &Path) -> io::Result<()> {
    let result = match std::fs::symlink_metadata(host) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(host),
        Ok(_) => std::fs::remove_file(host),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Removes a folder if it is empty (best effort).
pub(crate) fn remove_if_empty(host: &Path) {
    let _ = std::fs::remove_dir(host);
}

/// Whether something (a link counts as itself) is at the host path `host`: staging debris.
pub(crate) fn is_present(host: &Path) -> bool {
    std::fs::symlink_metadata(host).is_ok()
}

/// Whether `host` is a folder (a link to one counts).
pub(crate) fn is_dir(host: &Path) -> bool {
    host.is_dir()
}

/// The filesystem (device id) of `host`, or of its nearest existing folder when it does not
/// exist yet: a rename between two paths works only within one.
pub(crate) fn filesystem_of(host: &Path) -> Option<u64> {
    host.ancestors()
        .find_map(|a| std::fs::metadata(a).ok())
        .map(|m| m.dev())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn a_private_dir_is_0700_and_replaces_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), "x").unwrap();
        let stage = dir.path().join("stage");
        std::os::unix::fs::symlink(&outside, &stage).unwrap();
        // (The umask is process-wide, so the integration test sets it, in osctl's own process.)
        private_dir(&stage).unwrap();
        assert_eq!(mode(&stage), 0o700);
        assert!(std::fs::symlink_metadata(&stage).unwrap().is_dir());
        assert!(
            outside.join("keep").exists(),
            "the link's target is untouched"
        );

        // A shared parent left open to others is closed again.
        let parent = dir.path().join("parent");
        std::fs::create_dir(&parent).unwrap();
        std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o777)).unwrap();
        private_parent(&parent).unwrap();
        assert_eq!(mode(&parent), 0o700);
    }

    #[test]
    fn a_second_holder_of_a_stage_lock_waits_and_a_released_lock_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let host = dir.path().join("rt.lock");
        let dev = DevPath::new("/var/lib/osctl/skills-staging/rt.lock");
        let first = StageLock::acquire(&host, &dev, Duration::ZERO, "a sync").unwrap();
        let err = StageLock::acquire(&host, &dev, Duration::from_millis(30), "a sync").unwrap_err();
        assert_eq!(err.exit, Exit::Busy);
        first.release();
        assert!(!host.exists(), "the holder removes its lock file");
        let again = StageLock::try_acquire(&host, &dev).unwrap();
        assert!(again.is_some());
    }

    #[test]
    fn swaps_whole_folders() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join("skills");
        std::fs::create_dir_all(skills.join("audio")).unwrap();
        std::fs::write(skills.join("audio/OLD.md"), "old").unwrap();
        let stage = dir.path().join("stage");
        private_dir(&stage).unwrap();
        write_tree(
            &stage.join("audio"),
            &[("SKILL.md", Some(b"new")), ("d", None)],
        )
        .unwrap();
        write_tree(&stage.join("dance"), &[("a/b/SKILL.md", Some(b"d"))]).unwrap();
        sync_fs(&stage).unwrap();
        for name in ["audio", "dance"] {
            swap_in(
                &stage.join(name),
                &skills.join(name),
                &stage.join(format!("{name}.old")),
            )
            .unwrap();
        }
        sync_dir(&skills).unwrap();
        assert!(!skills.join("audio/OLD.md").exists());
        assert_eq!(
            std::fs::read(skills.join("audio/SKILL.md")).unwrap(),
            b"new"
        );
        assert_eq!(mode(&skills.join("audio/SKILL.md")), 0o644);
        assert_eq!(mode(&skills.join("dance/a/b")), 0o755);
        assert_eq!(
            std::fs::read_dir(&stage).unwrap().count(),
            0,
            "old folders removed"
        );
    }
}
