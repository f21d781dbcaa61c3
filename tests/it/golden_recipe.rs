//! The book's "Golden tests of your own migrations", in the user's shape: the ready CI job
//! `examples/ci/golden-migrate.sh` run twice, as a CI job would, on two fresh copies of the
//! committed input, compared with the committed expected tree (`examples/ci/`). `.ci/run` also
//! runs it with the release binary.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The job, with no terminal and nothing of the developer's environment that fixes the clock.
fn job(epoch: Option<&str>, expected: &Path) -> Output {
    let mut c = Command::new(repo().join("examples/ci/golden-migrate.sh"));
    c.current_dir(repo())
        .arg("examples/device")
        .arg(expected)
        .args(["openclaw", "hermes"])
        .env("OSCTL", env!("CARGO_BIN_EXE_osctl"))
        .env_remove("OSCTL_TEST_NOW")
        .env_remove("SOURCE_DATE_EPOCH")
        .stdin(Stdio::null());
    if let Some(e) = epoch {
        c.env("SOURCE_DATE_EPOCH", e);
    }
    c.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_ci_job_run_twice_matches_the_committed_tree() {
    let expected = repo().join("examples/ci/lamp-openclaw-to-hermes");
    for run in 1..=2 {
        let o = job(None, &expected);
        assert_eq!(o.status.code(), Some(0), "run {run}: {}", text(&o));
    }
    // The committed tree holds a backup named from the job's SOURCE_DATE_EPOCH, so the
    // comparison covers a name osctl made from the time.
    assert!(
        expected
            .join("root/.hermes/SOUL.md.bak-1767225600000000000")
            .is_file()
    );
}

/// The check can fail: another time gives other backup names, and the job says so.
#[test]
fn another_time_gives_another_tree_and_the_job_fails() {
    let expected = repo().join("examples/ci/lamp-openclaw-to-hermes");
    let o = job(Some("1767225601"), &expected);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("SOUL.md.bak-1767225601000000000"),
        "{}",
        text(&o)
    );
}

/// A value that is not a time is refused, naming the variable, and nothing is written.
#[test]
fn a_bad_source_date_epoch_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("device");
    crate::reliability_support::copy_tree(&repo().join("examples/device"), &dev);
    let before = crate::reliability_support::snapshot(&dev);
    let o = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(&dev)
        .args(["migrate", "--from", "openclaw", "--to", "hermes"])
        .env_remove("OSCTL_TEST_NOW")
        .env("SOURCE_DATE_EPOCH", "2026-01-01")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("SOURCE_DATE_EPOCH=\"2026-01-01\" is not a time"),
        "{}",
        text(&o)
    );
    assert_eq!(crate::reliability_support::snapshot(&dev), before);
}
