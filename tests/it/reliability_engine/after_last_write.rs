//! A failure after the last write: a finished change is never undone by a failed cleanup or
//! a kill, and recovery never overwrites what something else wrote since.

use super::{device, mode, names, state, stderr};
use crate::reliability_support::*;

/// Discarding the journal failed (EIO, EMFILE, EPERM) after the last write: osctl exited 1
/// ("failed before any write") although the change was live, and the next run restored the
/// journal blindly, reverting the change.
#[test]
fn regression_a_journal_cleanup_failure_after_the_last_write_reports_success_and_is_never_undone() {
    let (_s, reference) = device("examples/presync/hermes");
    let out = osctl(&reference).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let (_s2, root) = device("examples/presync/hermes");
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "fail-cleanup")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the change is live: {}",
        text(&out)
    );
    assert!(
        stderr(&out)
            .contains("is finished (nothing in it will be restored) but could not be removed"),
        "{}",
        text(&out)
    );
    assert_eq!(
        snapshot(&root),
        snapshot(&reference),
        "the whole change landed"
    );
    let journal = state(&root).join("journal");
    let left = names(&journal);
    assert_eq!(left.len(), 1, "the finished journal waits for its cleanup");
    assert!(journal.join(&left[0]).join("done.json").exists());
    assert!(!journal.join(&left[0]).join("manifest.json").exists());

    // The runtime saves its config meanwhile; the next run finishes the cleanup and keeps it.
    write(
        &root,
        "root/.hermes/config.yaml",
        b"model: the runtime's own\n",
        0o600,
    );
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        std::fs::read(root.join("root/.hermes/config.yaml")).unwrap(),
        b"model: the runtime's own\n"
    );
    assert!(names(&journal).is_empty(), "the cleanup was finished");
    assert!(!state(&root).join("kept").exists());
}

/// osctl was killed just after its last write: the next run restored the journal blindly, so
/// what a runtime wrote to one of those files in between was lost.
#[test]
fn regression_a_run_killed_after_its_last_write_leaves_a_later_rewrite_alone() {
    let (_s, root) = device("examples/presync/hermes");
    let before = snapshot(&root);
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "abort-before-done")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    let journal = state(&root).join("journal");
    let id = names(&journal).pop().expect("the open journal");
    assert!(journal.join(&id).join("manifest.json").exists());

    // The runtime rewrites one of the files the killed run wrote.
    let mine = b"model: the runtime wrote this after the kill\n";
    write(&root, "root/.hermes/config.yaml", mine, 0o600);
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = stderr(&out);
    assert!(
        err.contains("/root/.hermes/config.yaml: changed by something else after the interrupted run wrote it; left as it is"),
        "{err}"
    );
    assert!(
        err.contains(&format!("kept in /var/lib/osctl/kept/{id}")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(root.join("root/.hermes/config.yaml")).unwrap(),
        mine
    );
    // Everything else the killed run wrote went back.
    let mut after = snapshot(&root);
    let mut expected = before.clone();
    after.remove("root/.hermes/config.yaml");
    expected.remove("root/.hermes/config.yaml");
    after.retain(|k, _| !k.starts_with("var/lib/osctl/kept"));
    assert_eq!(after, expected, "{}", describe_diff(&expected, &after));
    // The original of the file left alone is kept where a person can find it.
    let kept = state(&root).join("kept").join(&id);
    assert!(kept.join("manifest.json").exists());
    assert_eq!(mode(&state(&root).join("kept")), 0o700);
    assert!(names(&journal).is_empty());
    // And the device stays operable.
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(stderr(&out).contains("nothing to do"), "{}", text(&out));
}

/// Marking the journal done can fail too: then the change is not recorded as made, so it is
/// rolled back at once (exit 4) rather than left for the next run to undo.
#[test]
fn regression_a_journal_that_cannot_be_marked_done_is_rolled_back_now() {
    let (_s, root) = device("examples/presync/hermes");
    let before = snapshot(&root);
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "fail-done")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        stderr(&out).contains("cannot mark as done the journal"),
        "{}",
        text(&out)
    );
    assert!(
        stderr(&out).contains("every file osctl had changed was restored"),
        "{}",
        text(&out)
    );
    assert_eq!(snapshot(&root), before);
    // Every original is back. The journal could not be marked done after the rollback either
    // (the fault stays), so it may stay open: the next run restores it, which changes nothing.
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(snapshot(&root), before);
    assert!(names(&state(&root).join("journal")).is_empty());
}
