//! Regression tests for bugs the reliability suites found, one per bug, named after it.

mod reliability_support;

use std::time::{Duration, Instant};

use reliability_support::*;

/// Found by the crash suite: `osctl presync` on a device already in sync planned without the
/// lock and returned, leaving an interrupted run's journal on disk. The device stayed half
/// through that run when the runtime started, and a journal of a run killed after its last
/// write was later "restored" by whichever run took the lock next, rolling a finished change
/// back. Now a journal on disk while the lock is free makes presync take the lock and restore
/// it first; while another run holds the lock, the journal is that run's own and presync does
/// not wait for it (the switch starts the unit, whose presync runs, while it holds the lock).
#[test]
fn regression_presync_in_sync_skipped_an_interrupted_journal() {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/openclaw"), &root);
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let synced = snapshot(&root);

    // Another command killed like a power cut, after its first write.
    let out = osctl(&root)
        .args(["migrate", "--from", "openclaw", "--to", "hermes"])
        .env("OSCTL_FAULT", "abort-write:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    assert!(restorable_journal(&root));
    assert_ne!(snapshot(&root), synced, "the killed run wrote something");

    // While another run holds the lock, the journal is its own: presync does not wait.
    {
        let fs = osctl::system::fs::RootFs::new(&root).unwrap();
        let _held = osctl::apply::lock::DeviceLock::acquire(&fs, Duration::ZERO).unwrap();
        let started = Instant::now();
        let out = osctl(&root)
            .args(["--lock-timeout", "5", "presync"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "presync waited for the lock"
        );
        assert!(
            restorable_journal(&root),
            "the holder's journal is not touched"
        );
    }

    // With the lock free, presync restores the interrupted run before anything else.
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("left by an interrupted run"),
        "{}",
        text(&out)
    );
    assert!(journals(&root).is_empty(), "the journal was left behind");
    let after = snapshot(&root);
    assert_eq!(after, synced, "{}", describe_diff(&synced, &after));
}
