//! `channel add slack` keeps the credentials contract: a signing secret is refused (exit 1,
//! nothing written) on a runtime whose slack channel takes none, never dropped with exit 0.

use std::path::Path;
use std::process::Command;

const REPO: &str = env!("CARGO_MANIFEST_DIR");

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        // The command lock is osctl's own, taken before anything is checked.
        .filter(|e| e.file_type().is_file() && !e.path().ends_with("var/lib/osctl/lock"))
        .map(|e| {
            (
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_signing_secret_on_a_runtime_that_takes_none_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(REPO).join("tests/cli/channel/_hermes"),
        dir.path(),
    );
    let before = snapshot(dir.path());
    let secret = "0123456789abcdef0123456789abcdef";
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(dir.path())
        .args([
            "channel",
            "add",
            "slack",
            "--token",
            "xoxb-0000-1111-example",
        ])
        .args(["--signing-secret", secret])
        .env_clear()
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("signing secret"), "{stderr}");
    assert!(!stderr.contains(secret), "the secret is shown: {stderr}");
    assert_eq!(snapshot(dir.path()), before, "something was written");
}
