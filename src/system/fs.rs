//! The rooted filesystem: every device path osctl reads or writes goes through [`RootFs`].
//!
//! Paths are resolved the way a `chroot` would resolve them: a `..` never climbs above the root
//! and an absolute symlink target is taken from the root, so no device path can reach a host
//! file outside `--root`, whatever links an image holds. With `--root /` (the live device) this
//! is the ordinary filesystem.
//!
//! Reads take only regular files, and only so much of each: a FIFO, a device node or a socket
//! where a file is expected is an error that names the path, at once (opening a FIFO for
//! reading blocks until a writer comes, and osctl runs on the boot path, sometimes holding the
//! device lock), and so is a file larger than the cap of its kind ([`Limit`]), whose error names
//! its size. The check is made on the opened descriptor (`fstat`), so nothing can swap the file
//! between the check and the read; a cheap `lstat` before the open keeps osctl from opening a
//! device node at all (opening some has effects of its own).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::path::DevPath;

/// Links followed while resolving one path before giving up (Linux uses 40 as well).
const MAX_LINKS: usize = 40;

/// How much osctl reads of one file, by what the file is. Generous (a real file of each kind is
/// a few kilobytes), but bounded: a file that is not what it claims to be (a sparse 1 GB
/// config.json, a log dumped into a persona folder) is refused instead of read whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The device's own settings and osctl's state: config.json, bootstrap.json,
    /// agent_state.json, ROBOT.md, `/var/lib/osctl`.
    Config,
    /// A runtime's native file (openclaw.json, config.yaml, config.toml, `.env`, unit files...).
    Native,
    /// A persona or memory file (SOUL.md, MEMORY.md, a daily note: any Markdown file).
    Persona,
}

impl Limit {
    /// The kind of `path`, from where it lives and what it is called.
    pub fn of(path: &DevPath) -> Limit {
        let name = path.file_name().unwrap_or_default();
        if path.starts_with(&DevPath::new("/root/config"))
            || path.starts_with(&DevPath::new("/var/lib/osctl"))
            || name == "ROBOT.md"
        {
            Limit::Config
        } else if name.to_ascii_lowercase().ends_with(".md") {
            Limit::Persona
        } else {
            Limit::Native
        }
    }

    pub fn bytes(self) -> u64 {
        match self {
            Limit::Config => 4 << 20,
            Limit::Native => 16 << 20,
            Limit::Persona => 16 << 20,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Limit::Config => "a device configuration file",
            Limit::Native => "a runtime's configuration file",
            Limit::Persona => "a persona or memory file",
        }
    }
}

/// What a file that is not a regular file or a folder is, for error messages.
pub fn special_kind(ft: &std::fs::FileType) -> &'static str {
    if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// The error for a special file found where a file was expected.
pub fn not_a_file(path: &DevPath, ft: &std::fs::FileType) -> Error {
    Error::input(
        "not_a_file",
        format!(
            "cannot read {path}: it is {}, not a regular file",
            special_kind(ft)
        ),
    )
    .hint("osctl reads only regular files; replace it with the file that belongs there (nothing was written)")
}

/// Reads the regular file at `host` (the host path of `path`), at most `limit` bytes; `None`
/// when it does not exist. Never blocks: see the module docs.
pub fn read_regular(path: &DevPath, host: &Path, limit: Limit) -> Result<Option<Vec<u8>>> {
    let io_err = |e: io::Error| match e.kind() {
        io::ErrorKind::IsADirectory => Error::input(
            "io_error",
            format!("cannot read {path}: it is a folder, a file was expected"),
        ),
        _ => Error::io("read", path, &e),
    };
    match std::fs::symlink_metadata(host) {
        Ok(m) if m.is_dir() => return Err(io_err(io::ErrorKind::IsADirectory.into())),
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => {
            return Err(not_a_file(path, &m.file_type()));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(e)),
    }
    // O_NONBLOCK: a FIFO swapped in after the lstat opens at once instead of waiting for a
    // writer (fstat then refuses it); O_NOFOLLOW: `host` is resolved, so a link here is new.
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(host)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Error::input(
                "changed_underfoot",
                format!("cannot read {path}: it became a symbolic link while osctl read it"),
            )
            .hint("something else is changing the file; run the command again"));
        }
        Err(e) => return Err(io_err(e)),
    };
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(not_a_file(path, &meta.file_type()));
    }
    let cap = limit.bytes();
    if meta.len() > cap {
        return Err(too_large(path, meta.len(), limit));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io_err)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(path, bytes.len() as u64, limit));
    }
    Ok(Some(bytes))
}

fn too_large(path: &DevPath, size: u64, limit: Limit) -> Error {
    Error::input(
        "file_too_large",
        format!(
            "cannot read {path}: it is {size} bytes, more than the {} MiB osctl reads of {}",
            limit.bytes() >> 20,
            limit.what()
        ),
    )
    .hint("nothing was written; check what the file holds (it is not what osctl expects there)")
}

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

    /// The device path that `path` resolves to inside the root (every link followed, the last
    /// one only with `follow_last`): two paths that name one file resolve to the same one.
    pub fn resolve_dev(&self, path: &DevPath, follow_last: bool) -> Result<DevPath> {
        let host = self.resolve(path, follow_last)?;
        Ok(DevPath::new(host.strip_prefix(&self.root).unwrap_or(&host)))
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

    /// Reads a regular file, up to the cap of its kind ([`Limit::of`]); `None` when it does
    /// not exist. A FIFO, device node or socket is an error, never a wait.
    pub fn read(&self, path: &DevPath) -> Result<Option<Vec<u8>>> {
        let host = self.host(path)?;
        read_regular(path, &host, Limit::of(path))
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

    /// The target of the link `path` as it is written (not resolved); `None` when `path` is
    /// missing or not a link.
    pub fn read_link(&self, path: &DevPath) -> Result<Option<PathBuf>> {
        match self.lstat(path)? {
            Some(m) if m.kind == Kind::Symlink => std::fs::read_link(self.host_nofollow(path)?)
                .map(Some)
                .map_err(|e| Error::io("read the link", path, &e)),
            _ => Ok(None),
        }
    }

    /// Whether `resolved` is a link, for a path whose folders are already resolved (a
    /// [`RootFs::resolve_dev`] of its parent joined with a name): one `lstat`, without resolving
    /// the folders again, on the planner's hot path.
    pub fn is_link_in_resolved(&self, resolved: &DevPath) -> bool {
        std::fs::symlink_metadata(self.root.join(resolved.relative()))
            .is_ok_and(|m| m.file_type().is_symlink())
    }

    /// How many files (everything that is not a folder, links included) and bytes the tree at
    /// `path` holds, without following links.
    pub fn tree_size(&self, path: &DevPath) -> Result<(u64, u64)> {
        let host = self.host_nofollow(path)?;
        let (mut files, mut bytes) = (0u64, 0u64);
        for entry in walkdir::WalkDir::new(&host).follow_links(false) {
            let entry = entry.map_err(|e| {
                Error::input("io_error", format!("cannot walk {path}")).cause(e.to_string())
            })?;
            if !entry.file_type().is_dir() {
                files += 1;
                bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
        Ok((files, bytes))
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

/// A file the operator named on the command line (`--env-file`, `--header-file`): a host path,
/// not a device path, so it is read as given, outside `--root`.
pub fn read_operator_file(path: &Path) -> io::Result<String> {
    std::fs::read_to_string(path)
}

/// The bytes of a file the operator named on the command line (`switch --installer-file`), as
/// [`read_operator_file`] reads text.
pub fn read_operator_bytes(path: &Path) -> io::Result<Vec<u8>> {
    std::fs::read(path)
}

/// The running binary's path on the device, when osctl runs on the live device (`None` when
/// the kernel cannot say, or the file was replaced since it started: `… (deleted)`).
pub fn running_binary() -> Option<DevPath> {
    let exe = std::env::current_exe().ok()?;
    let text = exe.to_str()?;
    (exe.is_absolute() && !text.ends_with(" (deleted)")).then(|| DevPath::new(&exe))
}

/// The folder osctl was started in (relative paths a shell completes are relative to it).
pub fn current_dir() -> Option<PathBuf> {
    std::env::current_dir().ok()
}

/// One step of [`walk_in_go_order`].
pub enum WalkEvent<'a> {
    /// A path, relative to the folder walked (`.` for the folder itself, `/` separators).
    Path { rel: &'a str, is_dir: bool },
    /// The next bytes of the file (or link target's file) whose path came last.
    Bytes(&'a [u8]),
    /// That file's bytes are all given.
    EndOfFile,
}

/// Walks the host folder `dir` depth first, in lexical order of the names within each folder (Go's
/// `filepath.Walk`, which upstream's FolderHash uses: `a/x` comes before `a.txt`), streaming
/// the bytes of everything that is not a folder (a link is read through, as Go's `os.Open`
/// does). `None` when `dir` is not a folder or something in it cannot be read whole.
pub fn walk_in_go_order(dir: &Path, visit: &mut dyn FnMut(WalkEvent<'_>)) -> Option<()> {
    if !dir.is_dir() {
        return None;
    }
    let mut buf = vec![0u8; 256 * 1024];
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by(|a, b| a.file_name().cmp(b.file_name()))
    {
        let entry = entry.ok()?;
        let rel = entry.path().strip_prefix(dir).ok()?;
        let rel = if rel.as_os_str().is_empty() {
            ".".into()
        } else {
            rel.to_string_lossy()
        };
        let is_dir = entry.file_type().is_dir();
        visit(WalkEvent::Path { rel: &rel, is_dir });
        if is_dir {
            continue;
        }
        let mut f = std::fs::File::open(entry.path()).ok()?;
        loop {
            match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => visit(WalkEvent::Bytes(&buf[..n])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        visit(WalkEvent::EndOfFile);
    }
    Some(())
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

    /// A FIFO where a file is expected used to block the read until a writer came (status,
    /// presync and mcp add hung, some holding the device lock).
    #[test]
    fn regression_a_fifo_where_a_file_is_expected_is_an_error_not_a_hang() {
        let (_dir, fs) = tree();
        let fifo = fs.root().join("openclaw.json");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let started = std::time::Instant::now();
        let err = fs.read(&DevPath::new("/openclaw.json")).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(err.code, "not_a_file");
        assert!(err.message.contains("/openclaw.json"), "{err:?}");
        assert!(err.message.contains("FIFO"), "{err:?}");
        // Through a link too (resolved inside the root).
        symlink("/openclaw.json", fs.root().join("link.json")).unwrap();
        let err = fs.read(&DevPath::new("/link.json")).unwrap_err();
        assert_eq!(err.code, "not_a_file");
    }

    #[test]
    fn regression_a_socket_or_device_node_is_refused_by_name() {
        let (_dir, fs) = tree();
        let _sock = std::os::unix::net::UnixListener::bind(fs.root().join("s.env")).unwrap();
        let err = fs.read(&DevPath::new("/s.env")).unwrap_err();
        assert_eq!(err.code, "not_a_file");
        assert!(err.message.contains("a socket"), "{err:?}");
        // A character device (mknod needs CAP_MKNOD; elsewhere the socket case stands alone).
        let node = fs.root().join("zero.json");
        let c = std::ffi::CString::new(node.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mknod on a NUL-terminated path we own (1,5 is /dev/zero).
        let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o644, libc::makedev(1, 5)) };
        if made == 0 {
            let err = fs.read(&DevPath::new("/zero.json")).unwrap_err();
            assert_eq!(err.code, "not_a_file");
            assert!(err.message.contains("character device"), "{err:?}");
        }
    }

    /// A 1 GB sparse config.json was read whole to show `status`.
    #[test]
    fn regression_a_huge_sparse_file_is_refused_with_its_size() {
        let (_dir, fs) = tree();
        std::fs::create_dir_all(fs.root().join("root/config")).unwrap();
        let f = std::fs::File::create(fs.root().join("root/config/config.json")).unwrap();
        f.set_len(1 << 30).unwrap();
        let err = fs
            .read(&DevPath::new("/root/config/config.json"))
            .unwrap_err();
        assert_eq!(err.code, "file_too_large");
        assert!(err.message.contains("/root/config/config.json"), "{err:?}");
        assert!(err.message.contains("1073741824 bytes"), "{err:?}");
        // Just under the cap of its kind is read.
        f.set_len(Limit::Config.bytes()).unwrap();
        assert_eq!(
            fs.read(&DevPath::new("/root/config/config.json"))
                .unwrap()
                .unwrap()
                .len() as u64,
            Limit::Config.bytes()
        );
    }

    #[test]
    fn the_cap_follows_the_kind_of_file() {
        assert_eq!(
            Limit::of(&DevPath::new("/root/config/config.json")),
            Limit::Config
        );
        assert_eq!(
            Limit::of(&DevPath::new("/opt/devices/lamp/ROBOT.md")),
            Limit::Config
        );
        assert_eq!(
            Limit::of(&DevPath::new("/root/.hermes/SOUL.md")),
            Limit::Persona
        );
        assert_eq!(
            Limit::of(&DevPath::new("/root/.hermes/config.yaml")),
            Limit::Native
        );
    }
}
