//! Exit codes that need more than one process: a held device lock (6).

use std::process::Command;
use std::time::Duration;

use osctl::apply::lock::DeviceLock;
use osctl::system::fs::RootFs;

#[test]
fn a_held_lock_makes_the_next_run_exit_6_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("root/config")).unwrap();
    std::fs::write(dir.path().join("root/config/config.json"), "{}\n").unwrap();
    let fs = RootFs::new(dir.path()).unwrap();
    let held = DeviceLock::acquire(&fs, Duration::from_secs(1)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .args([
            "--root",
            dir.path().to_str().unwrap(),
            "--lock-timeout",
            "0",
            "--json",
            "recover",
        ])
        .env_remove("OSCTL_FAULT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("another osctl run holds the device lock /var/lib/osctl/lock"),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "busy");
    drop(held);
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .args([
            "--root",
            dir.path().to_str().unwrap(),
            "--lock-timeout",
            "0",
            "recover",
        ])
        .env_remove("OSCTL_FAULT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
