//! Putting verified skill folders in place: a staging folder beside the target, then a swap.
//!
//! Why not the plan/apply engine for the folders themselves: a skill is replaced as a whole
//! folder, and the guarantee that matters to the agent is that it never reads half a skill. A
//! journaled plan writes the files one by one, so between a crash and the next osctl run (which
//! restores the journal) the agent could see a folder with some files new and some old. Here:
//!
//! 1. Every pending skill is unpacked (already verified in memory) into
//!    `/var/lib/osctl/skills-staging/<runtime>/<name>`, a folder no agent reads. When that
//!    folder is on another filesystem than the skills folder (a rename cannot cross it), the
//!    staging folder is `<skills>/.osctl-staging` instead, hidden from the skill scan.
//! 2. One `syncfs` makes all staged bytes durable.
//! 3. Each skill is swapped in with `renameat2(RENAME_EXCHANGE)`: the old folder and the new
//!    one trade places in one atomic step, so at every instant `<skills>/<name>` is either the
//!    whole old skill or the whole new one. (A filesystem without exchange gets two renames; the
//!    skill is then briefly absent, never partial.) The old folder, now in staging, is removed.
//! 4. The skills folder is fsynced; only then does the caller plan the state-file write, which
//!    the plan/apply engine makes atomic and journaled.
//!
//! A crash before step 3 leaves only staging debris (removed by the next sync); a crash after a
//! swap but before the state file is written leaves a whole new skill with the old version
//! recorded, so the next sync downloads it again and ends in the same place. Removals (prunes)
//! and the small hook files do go through the plan, where the journal covers them.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::apply::lock::STATE_DIR;
use crate::error::{Error, Result};
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;
use crate::system::path::DevPath;

use super::archive::{Entry, write_tree};

/// The hidden staging folder used when the state folder is on another filesystem.
pub const LOCAL_STAGING: &str = ".osctl-staging";

/// A staging folder for one sync of one runtime's skills.
pub struct Staging {
    /// Host path of the staging folder.
    root: PathBuf,
    /// Host path of the skills folder.
    skills: PathBuf,
    /// Device path of the staging folder, for messages.
    pub dev: DevPath,
}

impl Staging {
    /// Creates the skills folder if needed and an empty staging folder on its filesystem.
    pub fn new(fs: &RootFs, skills_dir: &DevPath, rt: RuntimeId) -> Result<Staging> {
        let skills = fs.host(skills_dir)?;
        mkdirs(&skills).map_err(|e| Error::io("create", skills_dir, &e))?;
        let shared = DevPath::new(STATE_DIR)
            .join("skills-staging")
            .join(rt.as_str());
        let shared_host = fs.host(&shared)?;
        mkdirs(&shared_host).map_err(|e| Error::io("create", &shared, &e))?;
        let same_fs = dev_of(&skills) == dev_of(&shared_host);
        let (root, dev) = if same_fs {
            (shared_host, shared)
        } else {
            let _ = std::fs::remove_dir(&shared_host);
            let local = skills_dir.join(LOCAL_STAGING);
            (fs.host_nofollow(&local)?, local)
        };
        clear(&root).map_err(|e| Error::io("clear", &dev, &e))?;
        mkdirs(&root).map_err(|e| Error::io("create", &dev, &e))?;
        Ok(Staging { root, skills, dev })
    }

    /// Removes what an interrupted sync may have left, without starting a new one.
    pub fn sweep(fs: &RootFs, skills_dir: &DevPath, rt: RuntimeId) -> Result<()> {
        let shared = DevPath::new(STATE_DIR)
            .join("skills-staging")
            .join(rt.as_str());
        for dev in [shared, skills_dir.join(LOCAL_STAGING)] {
            let host = fs.host_nofollow(&dev)?;
            clear(&host).map_err(|e| Error::io("remove", &dev, &e))?;
        }
        remove_if_empty(&fs.host(&DevPath::new(STATE_DIR).join("skills-staging"))?);
        Ok(())
    }

    /// Writes a verified skill into staging.
    pub fn stage(&self, name: &str, entries: &[Entry]) -> io::Result<()> {
        write_tree(&self.root.join(name), entries)
    }

    /// Host path of a staged skill (for hashing it before the swap).
    pub fn staged_path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Makes every staged byte durable (one `syncfs` for the whole filesystem).
    pub fn sync(&self) -> io::Result<()> {
        let dir = std::fs::File::open(&self.root)?;
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs takes an open file descriptor and has no other preconditions.
        if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Swaps a staged skill into the skills folder; the old folder (if any) is removed.
    pub fn swap_in(&self, name: &str) -> io::Result<()> {
        let staged = self.root.join(name);
        let target = self.skills.join(name);
        if std::fs::symlink_metadata(&target).is_err() {
            return std::fs::rename(&staged, &target);
        }
        match exchange(&staged, &target) {
            Ok(()) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) => {
                let old = self.root.join(format!("{name}.old"));
                std::fs::rename(&target, &old)?;
                std::fs::rename(&staged, &target)?;
                std::fs::rename(&old, &staged)?;
            }
            Err(e) => return Err(e),
        }
        // `staged` now holds the old skill (a folder, or a link, removed as a link).
        match std::fs::symlink_metadata(&staged) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&staged),
            Ok(_) => std::fs::remove_file(&staged),
            Err(_) => Ok(()),
        }
    }

    /// Fsyncs the skills folder (the swaps are durable) and removes the staging folder.
    pub fn finish(self) -> io::Result<()> {
        std::fs::File::open(&self.skills)?.sync_all()?;
        clear(&self.root)?;
        if let Some(parent) = self.root.parent() {
            remove_if_empty(parent);
            if let Some(up) = parent.parent() {
                remove_if_empty(up);
            }
        }
        Ok(())
    }

    /// Abandons staging (a failed sync): removes it, leaving the skills folder untouched.
    pub fn abandon(self) {
        let _ = clear(&self.root);
    }
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

fn mkdirs(p: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(p)
}

fn dev_of(p: &Path) -> Option<u64> {
    std::fs::metadata(p).ok().map(|m| m.dev())
}

fn clear(p: &Path) -> io::Result<()> {
    match std::fs::remove_dir_all(p) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn remove_if_empty(p: &Path) {
    let _ = std::fs::remove_dir(p);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, content: &str) -> Entry {
        Entry {
            path: path.into(),
            content: Some(content.as_bytes().to_vec()),
        }
    }

    #[test]
    fn swaps_whole_folders_and_leaves_no_staging() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let skills = DevPath::new("/root/.openclaw/workspace/skills");
        let host = dir.path().join("root/.openclaw/workspace/skills");
        std::fs::create_dir_all(host.join("audio")).unwrap();
        std::fs::write(host.join("audio/OLD.md"), "old").unwrap();
        let st = Staging::new(&fs, &skills, RuntimeId::Openclaw).unwrap();
        st.stage("audio", &[entry("SKILL.md", "new")]).unwrap();
        st.stage("dance", &[entry("SKILL.md", "d")]).unwrap();
        st.sync().unwrap();
        st.swap_in("audio").unwrap();
        st.swap_in("dance").unwrap();
        st.finish().unwrap();
        assert!(!host.join("audio/OLD.md").exists());
        assert_eq!(
            std::fs::read_to_string(host.join("audio/SKILL.md")).unwrap(),
            "new"
        );
        assert_eq!(
            std::fs::read_to_string(host.join("dance/SKILL.md")).unwrap(),
            "d"
        );
        assert!(!dir.path().join("var/lib/osctl/skills-staging").exists());
    }
}
