//! Special files (a FIFO, a device node, a huge sparse file) where a config or note should be
//! are refused at once, by name, never read until they hang.

use std::path::Path;
use std::time::Duration;

use super::{bounded, device, stderr};
use crate::reliability_support::*;

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path in our sandbox.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A FIFO at openclaw.json blocked `status`, `presync` (the boot path) and `mcp add` forever,
/// the last two holding the device lock.
#[test]
fn regression_a_fifo_at_a_runtime_config_is_an_error_at_once() {
    let (_s, root) = device("examples/presync/openclaw");
    mkfifo(&root.join("root/.openclaw/openclaw.json"));
    let limit = Duration::from_secs(20);
    let mut status = osctl(&root);
    status.arg("status");
    let out = bounded(status, limit);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("its MCP servers cannot be read: /root/.openclaw/openclaw.json"),
        "{}",
        text(&out)
    );
    for args in [
        &["presync", "openclaw"][..],
        &[
            "mcp",
            "add",
            "probe",
            "--runtime",
            "openclaw",
            "--",
            "/bin/true",
        ][..],
    ] {
        let mut c = osctl(&root);
        c.args(args);
        let out = bounded(c, limit);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(
            stderr(&out).contains(
                "cannot read /root/.openclaw/openclaw.json: it is a FIFO (named pipe), not a regular file"
            ),
            "{}",
            text(&out)
        );
    }
    // Nothing holds the lock afterwards.
    let mut c = osctl(&root);
    c.args(["--lock-timeout", "0", "recover"]);
    assert_eq!(bounded(c, limit).status.code(), Some(0));
}

/// A FIFO daily note blocked `migrate`.
#[test]
fn regression_a_fifo_daily_note_fails_migrate_at_once() {
    let (_s, root) = device("tests/cli/migrate/openclaw-to-codex/in");
    mkfifo(&root.join("root/.openclaw/workspace/memory/2026-07-02.md"));
    let mut c = osctl(&root);
    c.args(["migrate", "--from", "openclaw", "--to", "codex"]);
    let out = bounded(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("/root/.openclaw/workspace/memory/2026-07-02.md: it is a FIFO"),
        "{}",
        text(&out)
    );
}

/// A character device was read without bound, and a 1 GB sparse config.json was read whole to
/// show `status`.
#[test]
fn regression_a_device_node_or_a_huge_sparse_file_is_refused_by_name() {
    let (_s, root) = device("examples/presync/openclaw");
    let config = root.join("root/config/config.json");
    let original = std::fs::read(&config).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&config)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let mut c = osctl(&root);
    c.arg("status");
    let out = bounded(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("cannot read /root/config/config.json: it is 1073741824 bytes"),
        "{}",
        text(&out)
    );
    std::fs::write(&config, &original).unwrap();

    let node = root.join("root/.openclaw/openclaw.json");
    std::fs::remove_file(&node).unwrap();
    let c_path = std::ffi::CString::new(node.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mknod on a NUL-terminated path in our sandbox (1,5 is /dev/zero).
    if unsafe { libc::mknod(c_path.as_ptr(), libc::S_IFCHR | 0o644, libc::makedev(1, 5)) } != 0 {
        eprintln!("note: mknod is not permitted here; the character device case is skipped");
        return;
    }
    let mut c = osctl(&root);
    c.args(["presync", "openclaw"]);
    let out = bounded(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("openclaw.json: it is a character device"),
        "{}",
        text(&out)
    );
}
