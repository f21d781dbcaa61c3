//! osctl's own records, written outside a plan: the switch record (`switch.json`), an
//! installer's staged copy and its log. They are not the owner's files, so they take no journal
//! and need no preview; they are still written here, by the writing door, atomically and durably.

use std::io::Write;

use crate::apply::atomic;
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::system::fs::RootFs;

/// Writes `bytes` to `path` whole (a temporary file, fsync, rename, folder fsync), with `mode`,
/// creating its folders.
pub(crate) fn write(fs: &RootFs, path: &DevPath, bytes: &[u8], mode: u32) -> Result<()> {
    let host = fs.host(path)?;
    if let Some(dir) = host.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create the folder of", path, &e))?;
    }
    atomic::write_file(&host, bytes, mode).map_err(|e| Error::io("write", path, &e))
}

/// Appends `bytes` to the log `path` and syncs it, creating the log and its folders.
pub(crate) fn append(fs: &RootFs, path: &DevPath, bytes: &[u8]) -> Result<()> {
    let host = fs.host(path)?;
    if let Some(dir) = host.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create the folder of", path, &e))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&host)
        .map_err(|e| Error::io("open", path, &e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io("write", path, &e))
}

/// Removes `path` durably (a link as a link); a missing file is fine. A write of it killed
/// between its link and its rename left `.<name>.osctl-tmp` beside it: that goes too, as the
/// record it was to become is no longer wanted.
pub(crate) fn remove(fs: &RootFs, path: &DevPath) -> Result<()> {
    let host = fs.host_nofollow(path)?;
    atomic::remove_file(&atomic::temp_path(&host)).map_err(|e| Error::io("remove", path, &e))?;
    atomic::remove_file(&host).map_err(|e| Error::io("remove", path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_appends_and_removes_under_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let rec = DevPath::new("/var/lib/osctl/switch.json");
        write(&fs, &rec, b"{}\n", 0o644).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("var/lib/osctl/switch.json")).unwrap(),
            b"{}\n"
        );
        let log = DevPath::new("/var/log/osctl/install.log");
        append(&fs, &log, b"one\n").unwrap();
        append(&fs, &log, b"two\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("var/log/osctl/install.log")).unwrap(),
            "one\ntwo\n"
        );
        // A write killed between its link and its rename left the temporary name.
        std::fs::write(
            dir.path().join("var/lib/osctl/.switch.json.osctl-tmp"),
            b"{}\n",
        )
        .unwrap();
        remove(&fs, &rec).unwrap();
        remove(&fs, &rec).unwrap();
        assert!(!dir.path().join("var/lib/osctl/switch.json").exists());
        assert!(
            !dir.path()
                .join("var/lib/osctl/.switch.json.osctl-tmp")
                .exists()
        );
    }
}
