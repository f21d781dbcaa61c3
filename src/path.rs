//! Device paths: absolute paths in the device's namespace (`/root/.hermes/config.yaml`), never
//! host paths. Only [`crate::system::fs::RootFs`] turns one into a host path, under `--root`.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// An absolute, normalised path on the device (`/root/config/config.json`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DevPath(PathBuf);

impl DevPath {
    /// Builds a device path; relative input is taken from `/`, `.` and `..` are folded (never
    /// above `/`).
    pub fn new(path: impl AsRef<Path>) -> Self {
        let mut out = PathBuf::from("/");
        for c in path.as_ref().components() {
            match c {
                Component::Normal(n) => out.push(n),
                Component::ParentDir => {
                    out.pop();
                }
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
        DevPath(out)
    }

    pub fn join(&self, rel: impl AsRef<Path>) -> Self {
        DevPath::new(
            self.0
                .join(rel.as_ref().strip_prefix("/").unwrap_or(rel.as_ref())),
        )
    }

    pub fn parent(&self) -> Option<DevPath> {
        self.0.parent().map(|p| DevPath(p.to_path_buf()))
    }

    pub fn file_name(&self) -> Option<&str> {
        self.0.file_name().and_then(|n| n.to_str())
    }

    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The path without its leading `/`, as used in diff headers (`a/root/.hermes/.env`).
    pub fn relative(&self) -> &Path {
        self.0.strip_prefix("/").unwrap_or(&self.0)
    }

    pub fn starts_with(&self, other: &DevPath) -> bool {
        self.0.starts_with(&other.0)
    }

    pub fn is_root(&self) -> bool {
        self.0 == Path::new("/")
    }

    /// Appends a suffix to the file name (`SOUL.md` → `SOUL.md.bak-123`).
    pub fn with_suffix(&self, suffix: &str) -> DevPath {
        let mut s = self.0.as_os_str().to_owned();
        s.push(suffix);
        DevPath(PathBuf::from(s))
    }
}

impl fmt::Display for DevPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.display())
    }
}

impl From<&str> for DevPath {
    fn from(s: &str) -> Self {
        DevPath::new(s)
    }
}

impl serde::Serialize for DevPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string_lossy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_and_never_climbs_above_root() {
        assert_eq!(DevPath::new("root/../../etc/x").to_string(), "/etc/x");
        assert_eq!(DevPath::new("/a/./b/../c").to_string(), "/a/c");
        assert_eq!(DevPath::new("/a").join("/b/c").to_string(), "/a/b/c");
        assert_eq!(DevPath::new("/a").join("../../x").to_string(), "/x");
        assert_eq!(DevPath::new("/root/x").relative(), Path::new("root/x"));
    }
}
