//! The rooted filesystem: every device path osctl reads or writes goes through [`RootFs`].
//!
//! Paths are resolved the way a `chroot` would resolve them: a `..` never climbs above the root
//! and an absolute symlink target is taken from the root, so no device path can reach a host
//! file outside `--root`, whatever links an image holds. With `--root /` (the live device) this
//! is the ordinary filesystem.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::system::path::DevPath;

/// Links followed while resolving one path before giving up (Linux uses 40 as well).
const MAX_LINKS: usize = 40;

/// What a path is, without following a final symlink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// The metadata osctl cares about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    /// Permission bits (`0o644`).
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub len: u64,
    /// Device id, to find mount points.
    pub dev: u64,
}

impl Meta {
    fn from_std(m: &std::fs::Metadata) -> Meta {
        let ft = m.file_type();
        let kind = if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            Kind::Other
        };
        Meta {
            kind,
            mode: m.permissions().mode() & 0o7777,
            uid: m.uid(),
            gid: m.gid(),
            len: m.len(),
            dev: m.dev(),
        }
    }
}

/// The device filesystem under `--root`.
#[derive(Clone, Debug)]
pub struct RootFs {
    root: PathBuf,
}

impl RootFs {
    /// Opens the device tree at `root` (which must be a folder).
    pub fn new(root: &Path) -> Result<RootFs> {
        let canonical = std::fs::canonicalize(root).map_err(|e| {
            Error::input("bad_root", format!("cannot use {} as the device root", root.display()))
                .cause(e.to_string())
                .hint("--root (or OSCTL_ROOT) must name an existing folder: / on the device, or a mounted image")
        })?;
        if !canonical.is_dir() {
            return Err(Error::input(
                "bad_root",
                format!(
                    "cannot use {} as the device root: not a folder",
                    root.display()
                ),
            ));
        }
        Ok(RootFs { root: canonical })
    }

    /// The host folder that is `/` on the device.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// True when osctl works on the live device (`--root /`).
    pub fn is_live(&self) -> bool {
        self.root == Path::new("/")
    }

    /// The host path of a device path, following symlinks inside the root (a final symlink too).
    pub fn host(&self, path: &DevPath) -> Result<PathBuf> {
        self.resolve(path, true)
    }

    /// The host path of a device path whose final component is not followed (for deleting a
    /// symlink as a link, or inspecting it).
    pub fn host_nofollow(&self, path: &DevPath) -> Result<PathBuf> {
        self.resolve(path, false)
    }

    /// Resolves `path` with chroot semantics. Missing components are fine: the result is where
    /// the path would be created.
    fn resolve(&self, path: &DevPath, follow_last: bool) -> Result<PathBuf> {
        let mut queue: VecDeque<OsString> = normal_components(path.as_path());
        let mut resolved: Vec<OsString> = Vec::new();
        let mut links = 0usize;
        while let Some(comp) = queue.pop_front() {
            if comp == ".." {
                resolved.pop();
                continue;
            }
            let last = queue.is_empty();
            let mut candidate = self.root.clone();
            candidate.extend(&resolved);
            candidate.push(&comp);
            if last && !follow_last {
                resolved.push(comp);
                break;
            }
            match std::fs::symlink_metadata(&candidate) {
                Ok(m) if m.file_type().is_symlink() => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(Error::input(
                            "symlink_loop",
                            format!("cannot resolve {path}: too many levels of symbolic links"),
                        ));
                    }
                    let target = std::fs::read_link(&candidate)
                        .map_err(|e| Error::io("read the link", path, &e))?;
                    if target.is_absolute() {
                        resolved.clear();
                    }
                    for c in normal_components(&target).into_iter().rev() {
                        queue.push_front(c);
                    }
                }
                _ => resolved.push(comp),
            }
        }
        let mut out = self.root.clone();
        out.extend(&resolved);
        Ok(out)
    }

    /// Reads a file; `None` when it does not exist.
    pub fn read(&self, path: &DevPath) -> Result<Option<Vec<u8>>> {
        let host = self.host(path)?;
        match std::fs::read(&host) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::IsADirectory => Err(Error::input(
                "io_error",
                format!("cannot read {path}: it is a folder, a file was expected"),
            )),
            Err(e) => Err(Error::io("read", path, &e)),
        }
    }

    /// Reads a UTF-8 text file; `None` when it does not exist. Invalid UTF-8 is a parse error
    /// that names the line.
    pub fn read_text(&self, path: &DevPath) -> Result<Option<String>> {
        match self.read(path)? {
            None => Ok(None),
            Some(bytes) => text_from_bytes(path, bytes).map(Some),
        }
    }

    /// Metadata, following a final symlink; `None` when the path does not exist.
    pub fn stat(&self, path: &DevPath) -> Result<Option<Meta>> {
        let host = self.host(path)?;
        meta_of(path, std::fs::metadata(&host))
    }

    /// Metadata of the path itself (a final symlink is reported as a link).
    pub fn lstat(&self, path: &DevPath) -> Result<Option<Meta>> {
        let host = self.host_nofollow(path)?;
        meta_of(path, std::fs::symlink_metadata(&host))
    }

    pub fn exists(&self, path: &DevPath) -> Result<bool> {
        Ok(self.stat(path)?.is_some())
    }

    pub fn is_file(&self, path: &DevPath) -> Result<bool> {
        Ok(matches!(self.stat(path)?, Some(m) if m.kind == Kind::File))
    }

    pub fn is_dir(&self, path: &DevPath) -> Result<bool> {
        Ok(matches!(self.stat(path)?, Some(m) if m.kind == Kind::Dir))
    }

    /// A regular file with any execute bit set.
    pub fn is_executable(&self, path: &DevPath) -> Result<bool> {
        Ok(matches!(self.stat(path)?, Some(m) if m.kind == Kind::File && m.mode & 0o111 != 0))
    }

    /// The names in a folder, sorted; `None` when the folder does not exist.
    pub fn list_dir(&self, path: &DevPath) -> Result<Option<Vec<String>>> {
        let host = self.host(path)?;
        let entries = match std::fs::read_dir(&host) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Ok(None),
            Err(e) => return Err(Error::io("list", path, &e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", path, &e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(Some(names))
    }

    /// Whether the path (not following a final link) is a mount point: its device differs from
    /// its parent's. The root itself never counts.
    pub fn is_mount_point(&self, path: &DevPath) -> Result<bool> {
        let Some(parent) = path.parent() else {
            return Ok(false);
        };
        let (Some(me), Some(up)) = (self.lstat(path)?, self.stat(&parent)?) else {
            return Ok(false);
        };
        Ok(me.kind == Kind::Dir && me.dev != up.dev)
    }
}

fn meta_of(path: &DevPath, r: io::Result<std::fs::Metadata>) -> Result<Option<Meta>> {
    match r {
        Ok(m) => Ok(Some(Meta::from_std(&m))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => Ok(None),
        Err(e) => Err(Error::io("inspect", path, &e)),
    }
}

/// Decodes UTF-8 text, naming the line of the first invalid byte.
pub fn text_from_bytes(path: &DevPath, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..valid];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        // the prefix is valid UTF-8: count the characters of its last line
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column =
            std::str::from_utf8(&before[line_start..]).map_or(1, |s| s.chars().count() + 1);
        Error::parse(path, Some(line), Some(column), "not valid UTF-8 text")
    })
}

fn normal_components(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn regression_invalid_utf8_had_no_column() {
        let e = text_from_bytes(
            &DevPath::new("/x"),
            b"a = 1\nb = \"\xc3\xa9\xff\"\n".to_vec(),
        )
        .unwrap_err();
        let loc = e.location.as_ref().unwrap();
        assert_eq!((loc.line, loc.column), (Some(2), Some(7)));
    }

    fn tree() -> (tempfile::TempDir, RootFs) {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        (dir, fs)
    }

    #[test]
    fn absolute_links_and_dotdot_stay_inside_the_root() {
        let (dir, fs) = tree();
        let root = fs.root().to_path_buf();
        std::fs::create_dir_all(root.join("etc")).unwrap();
        std::fs::write(root.join("etc/passwd"), "inside").unwrap();
        std::fs::create_dir_all(root.join("root/ws")).unwrap();
        symlink("/etc/passwd", root.join("root/ws/abs")).unwrap();
        symlink("../../../../../../etc/passwd", root.join("root/ws/rel")).unwrap();
        for link in ["/root/ws/abs", "/root/ws/rel"] {
            let host = fs.host(&DevPath::new(link)).unwrap();
            assert_eq!(host, root.join("etc/passwd"), "{link}");
            assert_eq!(fs.read(&DevPath::new(link)).unwrap().unwrap(), b"inside");
        }
        assert_eq!(
            fs.host_nofollow(&DevPath::new("/root/ws/abs")).unwrap(),
            root.join("root/ws/abs")
        );
        drop(dir);
    }

    #[test]
    fn link_loops_are_an_error_not_a_hang() {
        let (_dir, fs) = tree();
        symlink("/b", fs.root().join("a")).unwrap();
        symlink("/a", fs.root().join("b")).unwrap();
        let err = fs.read(&DevPath::new("/a")).unwrap_err();
        assert_eq!(err.code, "symlink_loop");
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let (_dir, fs) = tree();
        std::fs::write(fs.root().join("x.md"), b"ok\nfine\n\xff\n").unwrap();
        let err = fs.read_text(&DevPath::new("/x.md")).unwrap_err();
        assert_eq!(err.location.clone().unwrap().line, Some(3));
    }
}
