//! Atomic, durable file operations on host paths (already resolved under the root).
//!
//! A write goes to an unnamed temporary file in the target's folder (`O_TMPFILE`: a crash while
//! it is being written leaves nothing behind), gets its mode set and the old owner copied, is
//! linked as `.<name>.osctl-tmp`, fsynced, and renamed over the target. Readers see the old
//! bytes or the new bytes, never a mix. A crash between the link and the rename leaves that one
//! hidden name, holding the whole new content, next to the untouched target; it is osctl's alone
//! (no runtime reads a name ending in `.osctl-tmp`), and the next write of the same file, or the
//! journal's recovery, removes it. Where `O_TMPFILE` is not available the temporary file gets
//! that name from the start.
//!
//! The folder's fsync, which makes a rename (or a new name, or a removal) durable, is batched:
//! the `*_in` functions add the folder to a [`Syncs`], which fsyncs each distinct folder once
//! when it is flushed, so a plan that writes ten files into one folder syncs it once. The other
//! functions sync at once.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The suffix of an atomic write's temporary name (`.<name>.osctl-tmp`).
pub(crate) const TEMP_SUFFIX: &str = ".osctl-tmp";

/// Folders whose entries changed and are not durable yet; [`Syncs::flush`] fsyncs each once.
#[derive(Debug, Default)]
pub(crate) struct Syncs {
    dirs: Vec<PathBuf>,
}

impl Syncs {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The folder that holds `path` changed.
    pub(crate) fn parent_of(&mut self, path: &Path) {
        self.folder(&parent(path));
    }

    /// `dir` changed (an entry was added, renamed or removed).
    pub(crate) fn folder(&mut self, dir: &Path) {
        if !self.dirs.iter().any(|d| d == dir) {
            self.dirs.push(dir.to_path_buf());
        }
    }

    /// Fsyncs every folder recorded since the last flush, each once.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        for dir in std::mem::take(&mut self.dirs) {
            match File::open(&dir).and_then(|d| d.sync_all()) {
                Ok(()) => {}
                // A folder created and removed again within the plan (a rollback) is gone.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The temporary name of an atomic write of `path`: `.<name>.osctl-tmp` beside it (a very long
/// name is cut so the temporary still fits a folder entry).
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.as_bytes()).unwrap_or(b"file");
    let keep = &name[..name.len().min(255 - 1 - TEMP_SUFFIX.len())];
    let mut temp = OsString::from(".");
    temp.push(std::ffi::OsStr::from_bytes(keep));
    temp.push(TEMP_SUFFIX);
    parent(path).join(temp)
}

/// Replaces (or creates) `path` with `content` and permission bits `mode`, atomically and
/// durably (its folder synced at once).
pub(crate) fn write_file(path: &Path, content: &[u8], mode: u32) -> io::Result<()> {
    let mut syncs = Syncs::new();
    write_file_in(path, content, mode, &mut syncs)?;
    syncs.flush()
}

/// [`write_file`], with the folder's fsync left to `syncs`.
pub(crate) fn write_file_in(
    path: &Path,
    content: &[u8],
    mode: u32,
    syncs: &mut Syncs,
) -> io::Result<()> {
    let dir = parent(path);
    let temp = temp_path(path);
    // The owner of the file replaced (a runtime's config owned by its service user stays so).
    let owner = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| (m.uid(), m.gid()));
    // A temporary left by a run that died between its link and its rename: whole, but stale.
    remove_if_present(&temp)?;
    let (mut file, named) = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
        .open(&dir)
    {
        Ok(f) => (f, false),
        Err(e) if tmpfile_unsupported(&e) => (create_named(&temp)?, true),
        Err(e) => return Err(e),
    };
    let result = (|| {
        file.write_all(content)?;
        if let Some((uid, gid)) = owner {
            // Only root may give a file away; elsewhere the writer's owner is all there is.
            match std::os::unix::fs::fchown(&file, Some(uid), Some(gid)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {}
                Err(e) => return Err(e),
            }
        }
        // After the chown, which clears set-id bits.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        if !named {
            link_unnamed(&file, &temp)?;
        }
        // After the link: some filesystems (btrfs) ignore an fsync of an unnamed file.
        file.sync_all()?;
        crate::fault::before_rename(path)?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result?;
    syncs.folder(&dir);
    Ok(())
}

fn tmpfile_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP) | Some(libc::EISDIR) | Some(libc::EINVAL)
    )
}

fn create_named(temp: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(temp)
}

/// Gives an `O_TMPFILE` file the name `temp`, through `/proc/self/fd` (no capability needed),
/// else `AT_EMPTY_PATH` (needs `CAP_DAC_READ_SEARCH`, which root has).
fn link_unnamed(file: &File, temp: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    let to = cstring(temp.as_os_str().as_bytes())?;
    let proc_path = cstring(format!("/proc/self/fd/{fd}").as_bytes())?;
    // SAFETY: both paths are NUL-terminated and live across the call.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            proc_path.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let first = io::Error::last_os_error();
    if first.raw_os_error() != Some(libc::ENOENT) {
        return Err(first);
    }
    let empty = cstring(b"")?;
    // SAFETY: as above; `fd` is an open descriptor of `file`.
    let rc = unsafe {
        libc::linkat(
            fd,
            empty.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_EMPTY_PATH,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn cstring(bytes: &[u8]) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(bytes).map_err(|_| io::Error::other("a path holds a NUL byte"))
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes the temporary an atomic write of `path` leaves when it dies between naming the new
/// file and renaming it (see the module docs). Returns whether there was one.
pub(crate) fn remove_temporary(path: &Path) -> io::Result<bool> {
    match leftover_temporary(path) {
        Some(temp) => std::fs::remove_file(&temp).map(|_| true),
        None => Ok(false),
    }
}

/// The temporary a write killed before its rename left beside `path`, if there is one: a
/// regular file under [`temp_path`]'s name (anything else there is not a write's). The run's
/// sweep ([`remove_temporary`]) and recover's preview ask the same question here.
pub(crate) fn leftover_temporary(path: &Path) -> Option<PathBuf> {
    let temp = temp_path(path);
    std::fs::symlink_metadata(&temp)
        .is_ok_and(|m| m.is_file())
        .then_some(temp)
}

/// Changes permission bits and makes the change durable.
pub(crate) fn chmod(path: &Path, mode: u32) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    File::open(path)?.sync_all()
}

/// Creates one folder (its parent must exist) and fsyncs the parent.
pub(crate) fn mkdir(path: &Path, mode: u32) -> io::Result<()> {
    let mut syncs = Syncs::new();
    mkdir_in(path, mode, &mut syncs)?;
    syncs.flush()
}

/// [`mkdir`], with the parent's fsync left to `syncs`.
pub(crate) fn mkdir_in(path: &Path, mode: u32, syncs: &mut Syncs) -> io::Result<()> {
    match std::fs::DirBuilder::new().mode(mode).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => return Ok(()),
        Err(e) => return Err(e),
    }
    // DirBuilder applies the umask; set the bits the plan asked for.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    syncs.parent_of(path);
    Ok(())
}

/// Makes `path` a symbolic link to `target`, atomically: the link is made under a temporary
/// name in the same folder and renamed over `path` (a file or link there is replaced); the
/// folder's fsync is left to `syncs`.
pub(crate) fn symlink_in(target: &Path, path: &Path, syncs: &mut Syncs) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a link needs a file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".osctl-link-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    syncs.parent_of(path);
    Ok(())
}

/// Removes a file or a symlink (never following it) and fsyncs the folder.
pub(crate) fn remove_file(path: &Path) -> io::Result<()> {
    let mut syncs = Syncs::new();
    remove_file_in(path, &mut syncs)?;
    syncs.flush()
}

/// [`remove_file`], with the folder's fsync left to `syncs`.
pub(crate) fn remove_file_in(path: &Path, syncs: &mut Syncs) -> io::Result<()> {
    crate::fault::before_remove(path)?;
    match std::fs::remove_file(path) {
        Ok(()) => {
            syncs.parent_of(path);
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes an empty folder and fsyncs its parent.
pub(crate) fn remove_empty_dir(path: &Path) -> io::Result<()> {
    let mut syncs = Syncs::new();
    remove_empty_dir_in(path, &mut syncs)?;
    syncs.flush()
}

/// [`remove_empty_dir`], with the parent's fsync left to `syncs`.
pub(crate) fn remove_empty_dir_in(path: &Path, syncs: &mut Syncs) -> io::Result<()> {
    match std::fs::remove_dir(path) {
        Ok(()) => {
            syncs.parent_of(path);
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Renames within one filesystem and fsyncs both folders.
pub(crate) fn rename(from: &Path, to: &Path) -> io::Result<()> {
    let mut syncs = Syncs::new();
    rename_in(from, to, &mut syncs)?;
    syncs.flush()
}

/// [`rename`], with the folders' fsyncs left to `syncs`.
pub(crate) fn rename_in(from: &Path, to: &Path, syncs: &mut Syncs) -> io::Result<()> {
    crate::fault::before_remove(from)?;
    std::fs::rename(from, to)?;
    syncs.parent_of(to);
    syncs.parent_of(from);
    Ok(())
}

/// Fsyncs the folder that holds `path`.
pub(crate) fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => File::open(parent)?.sync_all(),
        _ => Ok(()),
    }
}

/// Fsyncs a folder.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_with_the_requested_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("secret.env");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_file(&p, b"new", 0o600).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o600);
        assert_eq!(names(dir.path()), vec!["secret.env"]);
        // A new file gets exactly the mode asked for, whatever the umask.
        let q = dir.path().join("new.json");
        write_file(&q, b"{}", 0o640).unwrap();
        assert_eq!(std::fs::metadata(&q).unwrap().mode() & 0o7777, 0o640);
    }

    #[test]
    fn a_stale_temporary_is_replaced_and_never_left() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, "old").unwrap();
        // A run killed between its link and its rename left this.
        std::fs::write(temp_path(&p), "half-done").unwrap();
        assert_eq!(temp_path(&p).file_name().unwrap(), ".config.toml.osctl-tmp");
        write_file(&p, b"new", 0o644).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(names(dir.path()), vec!["config.toml"]);
        // A user's own hidden backup that merely looks temporary is not osctl's to remove.
        std::fs::write(dir.path().join(".config.toml.backup"), "mine").unwrap();
        write_file(&p, b"newer", 0o644).unwrap();
        assert_eq!(
            names(dir.path()),
            vec![".config.toml.backup", "config.toml"]
        );
    }

    #[test]
    fn a_very_long_name_still_gets_a_temporary_that_fits() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x".repeat(250));
        write_file(&p, b"ok", 0o644).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"ok");
    }

    #[test]
    fn syncs_each_folder_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut syncs = Syncs::new();
        for n in ["a", "b", "c"] {
            write_file_in(&dir.path().join(n), n.as_bytes(), 0o644, &mut syncs).unwrap();
        }
        assert_eq!(syncs.dirs.len(), 1);
        syncs.flush().unwrap();
        assert!(syncs.dirs.is_empty());
    }
}
