//! Where a sync keeps its downloads until they are swapped in: one staging area per runtime.
//!
//! Why not the plan/apply engine for the folders themselves: a skill is replaced as a whole
//! folder, and the guarantee that matters to the agent is that it never reads half a skill. A
//! journaled plan writes the files one by one, so between a crash and the next osctl run (which
//! restores the journal) the agent could see a folder with some files new and some old. And a
//! download can take as long as `--timeout` allows, which must not hold the device lock. So:
//!
//! 1. Without the device lock, a sync takes its runtime's staging lock
//!    (`/var/lib/osctl/skills-staging/<runtime>.lock`; a second sync of the same runtime waits
//!    up to `--lock-timeout`), removes whatever a killed sync left, and makes a fresh staging
//!    folder, `/var/lib/osctl/skills-staging/<runtime>/`, 0700 whatever the umask, inside the
//!    0700 `skills-staging` folder, so no agent reads it and no local user can plant anything in
//!    it. Each zip is downloaded (in memory), checked, unpacked and checked again, and written to
//!    `new/<name>` there. When the state folder is on another filesystem than
//!    the skills folder (a rename cannot cross it), the staging folder is
//!    `<skills>/.osctl-staging` instead (made the same way), hidden from the skill scan.
//! 2. One `syncfs` makes all staged bytes durable, still without the device lock. Under it, each
//!    staged folder's FolderHash is checked against the hash of what was unpacked, and each
//!    skill is swapped in with `renameat2(RENAME_EXCHANGE)` (`apply::stage::swap_in`). The skills folder is fsynced;
//!    only then does the caller plan the state-file write, which the plan/apply engine makes
//!    atomic and journaled.
//! 3. The staging folder is removed and the staging lock released. A sync that finds a staging
//!    folder while nothing is pending removes it too, when no sync of that runtime runs.
//!
//! A crash before step 2 leaves only staging debris (removed by the next sync); a crash after a
//! swap but before the state file is written leaves a whole new skill with the old version
//! recorded, so the next sync downloads it again and ends in the same place. Removals (prunes)
//! and the small hook files do go through the plan, where the journal covers them. Every write
//! here is made by `apply::stage`.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::apply::lock::STATE_DIR;
use crate::apply::stage::{self, StageLock};
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;

use super::archive::{Entry, as_tree};

/// The hidden staging folder used when the state folder is on another filesystem.
pub(crate) const LOCAL_STAGING: &str = ".osctl-staging";

/// Device path of the folder that holds every runtime's staging folder and lock.
fn staging_parent() -> DevPath {
    DevPath::new(STATE_DIR).join("skills-staging")
}

/// A staging folder for one sync of one runtime's skills, with its lock held.
pub(crate) struct Staging {
    /// Host path of the staging folder.
    root: PathBuf,
    /// Host path of the skills folder.
    skills: PathBuf,
    /// Host path of the shared staging parent (removed when empty).
    parent: PathBuf,
    /// Device path of the staging folder, for messages.
    pub dev: DevPath,
    lock: Option<StageLock>,
}

/// Where a runtime's staging lives, and its lock.
struct Places {
    parent: PathBuf,
    lock: PathBuf,
    lock_dev: DevPath,
    shared: (PathBuf, DevPath),
    local: (PathBuf, DevPath),
    skills: PathBuf,
}

fn places(fs: &RootFs, skills_dir: &DevPath, rt: RuntimeId) -> Result<Places> {
    let parent_dev = staging_parent();
    let parent = fs.host(&DevPath::new(STATE_DIR))?.join("skills-staging");
    let lock_dev = parent_dev.join(format!("{}.lock", rt.as_str()));
    let shared_dev = parent_dev.join(rt.as_str());
    let local_dev = skills_dir.join(LOCAL_STAGING);
    Ok(Places {
        lock: parent.join(format!("{}.lock", rt.as_str())),
        shared: (parent.join(rt.as_str()), shared_dev),
        local: (fs.host_nofollow(&local_dev)?, local_dev),
        skills: fs.host(skills_dir)?,
        parent,
        lock_dev,
    })
}

/// Makes the state folder and the private staging parent.
fn prepare_parent(p: &Places) -> Result<()> {
    if let Some(state) = p.parent.parent() {
        stage::ensure_dir(state).map_err(|e| Error::io("create", STATE_DIR, &e))?;
    }
    stage::private_parent(&p.parent).map_err(|e| Error::io("prepare", staging_parent(), &e))
}

impl Staging {
    /// Takes the runtime's staging lock (waiting up to `timeout` for another sync of it), clears
    /// what a killed sync left, and makes an empty private staging folder on the skills folder's
    /// filesystem.
    pub(crate) fn open(
        fs: &RootFs,
        skills_dir: &DevPath,
        rt: RuntimeId,
        timeout: Duration,
    ) -> Result<Staging> {
        let p = places(fs, skills_dir, rt)?;
        let lock = loop {
            prepare_parent(&p)?;
            match StageLock::acquire(
                &p.lock,
                &p.lock_dev,
                timeout,
                &format!("another `osctl skills sync` of {}", rt.as_str()),
            ) {
                Ok(lock) => break lock,
                // The last holder of another runtime removed the empty parent just now.
                Err(e) if !stage::is_dir(&p.parent) && e.code == "io_error" => continue,
                Err(e) => return Err(e),
            }
        };
        for (host, dev) in [&p.shared, &p.local] {
            stage::clear(host).map_err(|e| Error::io("remove", dev, &e))?;
        }
        // The skills folder may not exist yet: its filesystem is that of its nearest folder.
        let same_fs = stage::filesystem_of(&p.skills) == stage::filesystem_of(&p.parent);
        let (root, dev) = if same_fs {
            p.shared.clone()
        } else {
            stage::ensure_dir(&p.skills).map_err(|e| Error::io("create", skills_dir, &e))?;
            p.local.clone()
        };
        stage::private_dir(&root).map_err(|e| Error::io("create", &dev, &e))?;
        for sub in ["new", "old"] {
            stage::private_dir(&root.join(sub)).map_err(|e| Error::io("create", &dev, &e))?;
        }
        Ok(Staging {
            root,
            skills: p.skills,
            parent: p.parent,
            dev,
            lock: Some(lock),
        })
    }

    /// Removes what an interrupted sync of this runtime left, unless a sync of it is running now.
    pub(crate) fn sweep(fs: &RootFs, skills_dir: &DevPath, rt: RuntimeId) -> Result<()> {
        let p = places(fs, skills_dir, rt)?;
        let debris = [&p.shared, &p.local]
            .iter()
            .any(|(host, _)| stage::is_present(host));
        if !debris {
            return Ok(());
        }
        prepare_parent(&p)?;
        let Some(lock) = StageLock::try_acquire(&p.lock, &p.lock_dev)? else {
            return Ok(());
        };
        for (host, dev) in [&p.shared, &p.local] {
            stage::clear(host).map_err(|e| Error::io("remove", dev, &e))?;
        }
        lock.release();
        stage::remove_if_empty(&p.parent);
        Ok(())
    }

    /// Writes a verified skill into staging.
    pub(crate) fn stage(&self, name: &str, entries: &[Entry]) -> io::Result<()> {
        stage::write_tree(&self.staged_path(name), &as_tree(entries))
    }

    /// Host path of a staged skill (for hashing it before the swap).
    pub(crate) fn staged_path(&self, name: &str) -> PathBuf {
        self.root.join("new").join(name)
    }

    /// Host path of the installed skill.
    pub(crate) fn target_path(&self, name: &str) -> PathBuf {
        self.skills.join(name)
    }

    /// Removes a staged skill that will not be swapped in.
    pub(crate) fn discard(&self, name: &str) {
        let _ = stage::clear(&self.staged_path(name));
    }

    /// Makes every staged byte durable (one `syncfs` for the whole filesystem).
    pub(crate) fn sync(&self) -> io::Result<()> {
        stage::sync_fs(&self.root)
    }

    /// Swaps a staged skill into the skills folder (created if needed); the old folder, if any,
    /// is removed.
    pub(crate) fn swap_in(&self, name: &str) -> io::Result<()> {
        stage::ensure_dir(&self.skills)?;
        stage::swap_in(
            &self.staged_path(name),
            &self.target_path(name),
            &self.root.join("old").join(name),
        )
    }

    /// Fsyncs the skills folder (the swaps are durable), then removes the staging folder.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        if stage::is_dir(&self.skills) {
            stage::sync_dir(&self.skills)?;
        }
        self.close();
        Ok(())
    }

    fn close(&mut self) {
        let _ = stage::clear(&self.root);
        if let Some(lock) = self.lock.take() {
            lock.release();
        }
        stage::remove_if_empty(&self.parent);
    }
}

/// A staging folder is never left behind by a sync that returns, whatever it returns.
impl Drop for Staging {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
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
        let st = Staging::open(&fs, &skills, RuntimeId::Openclaw, Duration::ZERO).unwrap();
        // A second sync of the same runtime waits for the first.
        let busy = Staging::open(&fs, &skills, RuntimeId::Openclaw, Duration::ZERO);
        assert_eq!(busy.err().unwrap().code, "busy");
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
