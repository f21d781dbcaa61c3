//! Atomic, durable file operations on host paths (already resolved under the root).
//!
//! A write goes to an unnamed temporary file in the same folder (`O_TMPFILE`, so a crash leaves
//! nothing a runtime could see), gets its mode set and the old owner copied, is fsynced, then
//! renamed over the target, and the folder is fsynced. Readers see the old bytes or the new
//! bytes, never a mix.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

use atomic_write_file::unix::OpenOptionsExt;

/// Replaces (or creates) `path` with `content` and permission bits `mode`, atomically.
pub fn write_file(path: &Path, content: &[u8], mode: u32) -> io::Result<()> {
    let mut options = atomic_write_file::OpenOptions::new();
    options.preserve_mode(false);
    options.try_preserve_owner(true);
    let mut file = options.open(path)?;
    file.write_all(content)?;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    file.commit()
}

/// Changes permission bits and makes the change durable.
pub fn chmod(path: &Path, mode: u32) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    File::open(path)?.sync_all()
}

/// Creates one folder (its parent must exist) and fsyncs the parent.
pub fn mkdir(path: &Path, mode: u32) -> io::Result<()> {
    match std::fs::DirBuilder::new().mode(mode).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => return Ok(()),
        Err(e) => return Err(e),
    }
    // DirBuilder applies the umask; set the bits the plan asked for.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    sync_parent(path)
}

/// Makes `path` a symbolic link to `target`, atomically: the link is made under a temporary
/// name in the same folder and renamed over `path` (a file or link there is replaced).
pub fn symlink(target: &Path, path: &Path) -> io::Result<()> {
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
    sync_parent(path)
}

/// Removes a file or a symlink (never following it) and fsyncs the folder.
pub fn remove_file(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => sync_parent(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes an empty folder and fsyncs its parent.
pub fn remove_empty_dir(path: &Path) -> io::Result<()> {
    match std::fs::remove_dir(path) {
        Ok(()) => sync_parent(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Renames within one filesystem and fsyncs both folders.
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::rename(from, to)?;
    sync_parent(to)?;
    sync_parent(from)
}

/// Fsyncs the folder that holds `path`.
pub fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => File::open(parent)?.sync_all(),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn writes_with_the_requested_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("secret.env");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_file(&p, b"new", 0o600).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("secret.env")]);
    }
}
