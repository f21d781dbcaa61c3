//! A reset device is the most normal state there is (a factory-fresh device looks the same): no
//! config.json, no agent_state.json. Every command works on it, resolving the runtime through
//! the chain (`f_r_default_agent`, ROBOT.md `gateway.default`, openclaw), and the first write
//! creates config.json. A root that is really wrong (no device config folder) is still refused.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::reliability_support::{copy_tree, osctl, repo, text};

/// A copy of the sample device after `osctl reset --yes`.
fn reset_device() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("examples/device"), dir.path());
    let out = osctl(dir.path()).args(["reset", "--yes"]).output().unwrap();
    assert!(out.status.success(), "reset: {}", text(&out));
    assert!(!dir.path().join("root/config/config.json").exists());
    assert!(!dir.path().join("root/config/agent_state.json").exists());
    dir
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    osctl(root).args(args).output().unwrap()
}

/// After `reset`, `status`, `presync`, `reconcile`, `mcp list`, `switch`, `skills list` all
/// exited 1 with "/root/config/config.json does not exist".
#[test]
fn regression_every_command_works_on_a_reset_device() {
    let dev = reset_device();
    let root = dev.path();
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["--dry-run", "presync"],
        &["--dry-run", "presync", "hermes"],
        &["--dry-run", "presync", "picoclaw"],
        &["--dry-run", "presync", "codex"],
        &["--dry-run", "presync", "claudecode"],
        &["--dry-run", "presync", "opencode"],
        &["--dry-run", "reconcile"],
        &["mcp", "list"],
        &["mcp", "list", "--runtime", "hermes"],
        &["skills", "list"],
        &["skills", "verify"],
        &["channel", "list"],
        &["--dry-run", "switch", "hermes"],
        &["--dry-run", "mcp", "add", "x", "--", "cat"],
        &[
            "--dry-run",
            "migrate",
            "--from",
            "openclaw",
            "--to",
            "hermes",
        ],
    ] {
        let out = run(root, args);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {all}");
        assert!(!all.contains("does not exist\n"), "{args:?}: {all}");
    }
    let out = run(root, &["status"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("active runtime   openclaw (/root/config/f_r_default_agent)\n"),
        "{stdout}"
    );
    // Nothing above wrote anything: they were reads and previews.
    assert!(!root.join("root/config/config.json").exists());
}

/// What the contract's "restore paths" (docs/device-contract.md §6) say comes back after a reset
/// comes back from presync and reconcile on the reset device itself, with no config.json yet.
#[test]
fn presync_and_reconcile_restore_a_reset_device() {
    let dev = reset_device();
    let root = dev.path();
    // hermes' imported skills come back through `hermes claw migrate` (planned: the runtime's
    // own program runs only on the live device).
    let out = run(root, &["presync", "hermes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("hermes claw migrate"),
        "presync hermes: {}",
        text(&out)
    );
    let out = run(root, &["presync"]);
    assert!(out.status.success(), "{}", text(&out));
    let agents = std::fs::read_to_string(root.join("root/.openclaw/workspace/AGENTS.md")).unwrap();
    assert!(agents.contains("<!-- OS DO NOT REMOVE -->"), "{agents}");
    // reconcile records its baselines: config.json is created, holding no secret.
    let out = run(root, &["reconcile"]);
    assert!(out.status.success(), "{}", text(&out));
    let cfg = root.join("root/config/config.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    assert_eq!(doc["mcp_applied_runtime"], "openclaw", "{doc}");
    assert_eq!(doc["channels_applied_runtime"], "openclaw", "{doc}");
    // A second run has nothing to do.
    let out = run(root, &["--check", "reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // And the device is still nobody's: a reset now deletes nothing of openclaw's.
    let out = run(root, &["--dry-run", "reset"]);
    assert!(out.status.success(), "{}", text(&out));
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(
        !listing.contains("delete  /root/.openclaw/workspace/  (") && !listing.contains("skills"),
        "{}",
        text(&out)
    );
}

/// The first write on a reset device creates config.json, readable by its owner only when it
/// holds a secret.
#[test]
fn the_first_write_creates_config_json() {
    let dev = reset_device();
    let root = dev.path();
    let out = run(
        root,
        &[
            "channel",
            "add",
            "telegram",
            "--token",
            "123456789:AAResetResetResetResetReset",
            "--user-id",
            "4242",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let cfg = root.join("root/config/config.json");
    let mode = std::fs::metadata(&cfg).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    assert_eq!(doc["telegram_user_id"], "4242");
    assert_eq!(doc["channel"], "telegram");

    let dev = reset_device();
    let root = dev.path();
    let out = run(
        root,
        &[
            "mcp",
            "add",
            "search",
            "--user-tool",
            "--url",
            "https://mcp.example.invalid/search",
            "--header",
            "Authorization=Bearer tok-reset-0123456789",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let cfg = root.join("root/config/config.json");
    let mode = std::fs::metadata(&cfg).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(
        std::fs::read_to_string(&cfg)
            .unwrap()
            .contains("\"mcp_tools\"")
    );
}

#[test]
fn a_root_without_the_device_config_folder_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("root")).unwrap();
    for args in [&["status"][..], &["presync"], &["reset", "--yes"]] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains("is not a device root: /root/config does not exist"),
            "{args:?}: {}",
            text(&out)
        );
    }
    let out = run(dir.path(), &["--json", "status"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "not_a_device_root");
}
