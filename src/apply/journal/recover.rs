//! Recovery: listing the journals left by runs that did not finish ([`pending`]), and
//! finishing each (rolled forward, restored or cleaned up) before the next run plans.

use std::os::unix::fs::PermissionsExt;

use serde::Serialize;

use super::{
    DONE, Pending, journal_root,
    restore::{Outcome, restore},
    validate::{Found, journals_host, masked, names, open},
    write::{cleanup, mark_done},
};
use crate::error::Result;
use crate::system::fs::RootFs;
use crate::system::services::Services;

/// Journals left on disk by runs that did not finish, newest first. A journal osctl would
/// refuse is listed with why.
pub(crate) fn pending(fs: &RootFs) -> Result<Vec<Pending>> {
    let root = match journals_host(fs) {
        Ok(Some(root)) => root,
        Ok(None) => return Ok(Vec::new()),
        // Shown as a refused journal (status stays read-only and says why the next run stops).
        Err(e) if e.code == "untrusted_state" => {
            return Ok(vec![Pending {
                id: "journal".into(),
                path: journal_root(),
                command: String::new(),
                pid: 0,
                started: 0,
                paths: 0,
                rolls_forward: false,
                refused: Some(e.message.clone()),
            }]);
        }
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for name in names(&root, &journal_root())? {
        let dev_dir = journal_root().join(&name);
        let mut p = Pending {
            id: name.clone(),
            path: dev_dir,
            command: "(unknown: killed before the journal was written)".into(),
            pid: 0,
            started: 0,
            paths: 0,
            rolls_forward: false,
            refused: None,
        };
        match open(&root, &name) {
            Ok(Found::Finished) => {
                if std::fs::symlink_metadata(root.join(&name).join(DONE)).is_ok() {
                    continue;
                }
            }
            Ok(Found::Open(m)) => {
                p.command = masked(&m.command);
                p.pid = m.pid;
                p.started = m.started;
                p.paths = m.entries.len();
                p.rolls_forward = m.written;
            }
            Err(e) => p.refused = Some(e.message.clone()),
        }
        out.push(p);
    }
    Ok(out)
}

/// Whether the journal folder holds any journal at all: an interrupted run's ([`pending`]), a
/// refused one, or a finished run's whose cleanup was cut short (marked done, never restored,
/// but its originals are still on disk until a run that takes the lock removes them).
pub(crate) fn any(fs: &RootFs) -> Result<bool> {
    match journals_host(fs) {
        Ok(Some(root)) => Ok(!names(&root, &journal_root())?.is_empty()),
        Ok(None) => Ok(false),
        Err(e) if e.code == "untrusted_state" => Ok(true),
        Err(e) => Err(e),
    }
}

/// What recovery did with one journal.
#[derive(Clone, Debug, Serialize)]
pub struct Recovered {
    pub id: String,
    pub command: String,
    /// Its run had finished (marked done): only the cleanup was left.
    pub finished: bool,
    /// Every write of its run had landed: the files were kept and its remaining service actions
    /// run again (rolled forward, not restored).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rolled_forward: bool,
    /// Service actions recovery ran: the ones left after a rolled-forward run's last write, or
    /// the ones that put the units back after a restore.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// What recovery could not run (a failed or offline service action, a program it does not
    /// re-run), with why: the operator's to do.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Runs `systemctl` for each of `actions`, in order; what ran, and what did not with why.
pub(crate) fn run_actions(
    services: &Services,
    actions: &[Vec<String>],
) -> (Vec<String>, Vec<String>) {
    let (mut ran, mut not_run) = (Vec::new(), Vec::new());
    for args in actions {
        let what = format!("systemctl {}", args.join(" "));
        match services.systemctl(args) {
            Ok(None) => not_run.push(format!("{what}: not run (no systemd under this root)")),
            Ok(Some(out)) if out.success() => ran.push(what),
            Ok(Some(out)) => not_run.push(format!(
                "{what} failed ({}): {}",
                out.describe(),
                out.stderr_text().trim()
            )),
            Err(e) => not_run.push(format!("{what} could not run: {}", e.message)),
        }
    }
    (ran, not_run)
}

/// Restores every interrupted run, newest first, and finishes the cleanup of done ones (the caller
/// holds the device lock). A run whose writes had all landed
/// ([`Manifest::written`](super::Manifest::written)) is rolled forward instead: its files stay, its
/// remaining service actions run again. After a restore the journal's
/// [`Manifest::undo`](super::Manifest::undo) actions put the units back. A journal osctl does not
/// trust is an error (exit 1) and is not touched; a path that cannot be put back is in the
/// outcome, never an error, so it cannot wedge the device.
pub(crate) fn recover_all(fs: &RootFs, services: &Services) -> Result<Vec<Recovered>> {
    let Some(root) = journals_host(fs)? else {
        return Ok(Vec::new());
    };
    // A journal folder others could write is refused by `journals_host`; one that others could
    // merely read (an older osctl made it 0755) is closed now.
    let _ = std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700));
    let mut out = Vec::new();
    for name in names(&root, &journal_root())? {
        let dev_dir = journal_root().join(&name);
        let dir = root.join(&name);
        match open(&root, &name)? {
            Found::Finished => {
                let done = std::fs::symlink_metadata(dir.join(DONE)).is_ok();
                let cleanup = cleanup(&dir, &dev_dir, true);
                // A folder without a manifest (its run died before writing one) is no news.
                if done || cleanup.is_some() {
                    out.push(Recovered {
                        id: name,
                        command: String::new(),
                        finished: true,
                        rolled_forward: false,
                        actions: Vec::new(),
                        not_run: Vec::new(),
                        outcome: Outcome {
                            cleanup,
                            ..Outcome::default()
                        },
                    });
                }
            }
            Found::Open(manifest) if manifest.written => {
                // Run what was left, then finish: a kill before `done` runs them again, which
                // changes nothing (each action is idempotent).
                let (actions, mut not_run) = run_actions(services, &manifest.pending);
                not_run.extend(manifest.pending_commands.iter().map(|c| {
                    format!("{c}: not run again by recovery (run it by hand if it is needed)")
                }));
                let cleanup = match mark_done(&dir) {
                    Ok(()) => cleanup(&dir, &dev_dir, true),
                    Err(e) => Some(format!(
                        "the journal {dev_dir} could not be marked done ({e}); the next run rolls it forward again"
                    )),
                };
                out.push(Recovered {
                    id: name,
                    command: masked(&manifest.command),
                    finished: false,
                    rolled_forward: true,
                    actions,
                    not_run,
                    outcome: Outcome {
                        cleanup,
                        ..Outcome::default()
                    },
                });
            }
            Found::Open(manifest) => {
                let (mut actions, mut not_run) = run_actions(services, &manifest.undo_first);
                let outcome = restore(fs, &dir, &dev_dir, &manifest, true);
                let (after, after_not_run) = run_actions(services, &manifest.undo);
                actions.extend(after);
                not_run.extend(after_not_run);
                out.push(Recovered {
                    id: name,
                    command: masked(&manifest.command),
                    finished: false,
                    rolled_forward: false,
                    actions,
                    not_run,
                    outcome,
                });
            }
        }
    }
    Ok(out)
}
