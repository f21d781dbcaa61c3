//! The engine's promises, each checked against the defect that broke it (found by trying osctl
//! as a new user and as an attacker): a finished change is never undone by a failed cleanup or
//! a kill, recovery never overwrites what something else wrote since, one undeletable file never
//! wedges the device, special files never hang a read, two switches at once end 0 and 6, the
//! state folder is root's alone, and no secret reaches the lock, the journal or a busy message.
//! A plan that changes one file keeps no journal and costs at most 3 fsync-class calls.
//!
//! **Parts.** This file owns the harness (a bounded run, a device, its state folder); each part
//! is one promise: `after_last_write` (a finished change is never undone), `undeletable` (one
//! file never wedges the device), `special_files` (never a hanging read), `two_switches` (0 and
//! 6), `state_folder` (root's alone; planted journals and linked locks refused), `secrets` (none
//! in the lock, the journal or any output; command lines masked) and `writes` (the one-file fast
//! path, one write per file reached by two names).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::reliability_support::*;

mod after_last_write;
mod secrets;
mod special_files;
mod state_folder;
mod two_switches;
mod undeletable;
mod writes;

/// Runs `cmd` and waits at most `limit`; a run still going then is killed and the test fails
/// (the defects here were hangs).
fn bounded(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("osctl hung for {limit:?}: {}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

fn device(from: &str) -> (tempfile::TempDir, PathBuf) {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join(from), &root);
    (sandbox, root)
}

fn state(root: &Path) -> PathBuf {
    root.join("var/lib/osctl")
}

/// The names in a folder (none when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
