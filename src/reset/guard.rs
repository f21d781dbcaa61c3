//! What keeps a reset from deleting the wrong thing.
//!
//! - **Inside the root.** Every path is resolved by [`RootFs`] the way a `chroot` resolves it
//!   (a `..` never climbs above the root, an absolute link target is taken from the root), every
//!   folder above it followed and the last component not; the result is checked once more to lie
//!   under the root before it is planned. A reset deletes a path where it really is, so a link
//!   in a folder above leads to the real place inside the root, never outside it.
//! - **Links are removed as links.** The last component is never followed: a symlink at a
//!   persona path goes, the file it points to stays.
//! - **Mount points are refused.** A path that is a mount point, or holds one below it, would
//!   move or delete another filesystem's files (a folder removed whole is renamed into the
//!   journal and deleted on commit). Mount points come from the mount table (bind mounts of the
//!   same filesystem included) and, as a second net, from a device-id change
//!   ([`RootFs::is_mount_point`]).
//! - **Kept paths stay kept.** The agent home, the device config folder, bootstrap.json,
//!   f_r_default_agent, osctl's journal, and every home, workspace, skills folder and config of
//!   the runtimes whose state a reset keeps can be neither removed nor have a folder above them
//!   removed (a misconfigured `openclaw_config_dir` or `CODEX_HOME` pointing at `/root` is
//!   refused, not obeyed).
//!
//! Refusals are collected and reported together; any refusal stops the reset before anything is
//! written (exit 1).

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::system::fs::RootFs;

pub(crate) struct Guard {
    /// Real paths that may not be removed, nor a folder above them, with what they are.
    protected: Vec<(DevPath, String)>,
    /// Host paths of mount points.
    mounts: Vec<PathBuf>,
    refusals: Vec<String>,
}

impl Guard {
    pub(crate) fn new(
        fs: &RootFs,
        protected: Vec<(DevPath, String)>,
        mounts: Vec<PathBuf>,
    ) -> Result<Guard> {
        let mut real = Vec::new();
        for (path, what) in protected {
            let resolved = inside(fs, &path)?;
            if resolved != path {
                real.push((path, what.clone()));
            }
            real.push((resolved, what));
        }
        Ok(Guard {
            protected: real,
            mounts,
            refusals: Vec::new(),
        })
    }

    /// Where `path` really is: folders above it resolved under the root, the last component not
    /// followed. An error if that is not inside the root.
    pub(crate) fn inside(&self, fs: &RootFs, path: &DevPath) -> Result<DevPath> {
        inside(fs, path)
    }

    /// Whether `real` (where `path` really is) may be removed; a refusal is recorded otherwise.
    pub(crate) fn check_removal(
        &mut self,
        fs: &RootFs,
        path: &DevPath,
        real: &DevPath,
    ) -> Result<bool> {
        let shown = if real == path {
            real.to_string()
        } else {
            format!("{path} (at {real})")
        };
        if real.is_root() {
            return Ok(self.refuse(format!("{shown} is the device root")));
        }
        if let Some((p, what)) = self
            .protected
            .iter()
            .find(|(p, _)| p == real || p.starts_with(real))
        {
            let msg = if p == real {
                format!("{shown} is {what}, which a reset keeps")
            } else {
                format!("{shown} holds {p} ({what}), which a reset keeps")
            };
            return Ok(self.refuse(msg));
        }
        let host = fs.root().join(real.relative());
        if let Some(m) = self.mounts.iter().find(|m| m.starts_with(&host)) {
            let msg = if *m == host {
                format!("{shown} is a mount point")
            } else {
                format!("{shown} holds the mount point {}", device_path(fs, m))
            };
            return Ok(self.refuse(msg));
        }
        if fs.is_mount_point(real)? {
            return Ok(self.refuse(format!("{shown} is a mount point (another filesystem)")));
        }
        Ok(true)
    }

    /// A file a reset edits in place must not be a mount point (a bind-mounted file).
    pub(crate) fn check_edit(&mut self, fs: &RootFs, real: &DevPath) -> Result<()> {
        let host = fs.host(real)?;
        if self.mounts.contains(&host) {
            self.refuse(format!("{real} is a mount point"));
        }
        Ok(())
    }

    fn refuse(&mut self, msg: String) -> bool {
        if !self.refusals.contains(&msg) {
            self.refusals.push(msg);
        }
        false
    }

    /// Ok when nothing was refused; otherwise the error that stops the reset.
    pub(crate) fn finish(&self) -> Result<()> {
        if self.refusals.is_empty() {
            return Ok(());
        }
        let n = self.refusals.len();
        let mut err = Error::input(
            "reset_refused",
            format!(
                "osctl reset refuses to run: {n} path{} cannot be removed safely",
                if n == 1 { "" } else { "s" }
            ),
        );
        for r in &self.refusals {
            err = err.cause(r.clone());
        }
        Err(err.hint(
            "nothing was deleted; unmount what is mounted there (or fix the setting that points a runtime's folder at a kept one) and run the reset again",
        ))
    }
}

/// See [`Guard::inside`].
pub(crate) fn inside(fs: &RootFs, path: &DevPath) -> Result<DevPath> {
    let host = fs.host_nofollow(path)?;
    match host.strip_prefix(fs.root()) {
        Ok(rel) => Ok(DevPath::new(rel)),
        Err(_) => Err(Error::input(
            "outside_root",
            format!(
                "{path} resolves to {}, outside the device root {}",
                host.display(),
                fs.root().display()
            ),
        )
        .hint("nothing was deleted")),
    }
}

/// A host path shown as a device path when it is under the root.
fn device_path(fs: &RootFs, host: &std::path::Path) -> String {
    match host.strip_prefix(fs.root()) {
        Ok(rel) => DevPath::new(rel).to_string(),
        Err(_) => host.display().to_string(),
    }
}
