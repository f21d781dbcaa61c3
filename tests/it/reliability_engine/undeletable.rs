//! One undeletable file (immutable, or in a folder that cannot be removed) never wedges the
//! device: its journal is moved aside and named.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::{bounded, device, names, state, stderr};
use crate::reliability_support::*;

/// Makes `path` immutable with chattr when this machine allows it.
fn chattr(flag: &str, path: &Path) -> bool {
    Command::new("chattr")
        .args([flag, path.to_str().unwrap()])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The reset moves the previous owner's memories into its journal and then cannot delete one
/// immutable file there: every later mutating command, `recover` included, exited 1 until the
/// file was fixed by hand.
fn undeletable_file_in_a_removed_folder(via_chattr: bool) {
    let (_s, root) = device("tests/cli/reset/active-hermes/in");
    // A name of its own, so the fault injection (by file name) hits this file only.
    let memory = root.join("root/.hermes/memories/2026-01-01-undeletable.md");
    std::fs::write(&memory, "- the previous owner's note\n").unwrap();
    let cmd = |args: &[&str]| {
        let mut c = osctl(&root);
        c.args(args);
        if !via_chattr {
            c.env("OSCTL_FAULT", "immutable:2026-01-01-undeletable.md");
        }
        bounded(c, Duration::from_secs(60))
    };
    if via_chattr {
        assert!(chattr("+i", &memory));
    }
    let out = cmd(&["reset", "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the reset is done: {}",
        text(&out)
    );
    assert!(
        stderr(&out).contains("could not be removed")
            && stderr(&out).contains("2026-01-01-undeletable.md"),
        "the file is named: {}",
        text(&out)
    );
    assert!(
        !root.join("root/.hermes/memories").exists(),
        "the reset stands"
    );
    // The next run finishes what it can and moves the rest aside, naming it.
    let out = cmd(&["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        stderr(&out).contains("is kept in /var/lib/osctl/kept/"),
        "{}",
        text(&out)
    );
    // From then on the device is as operable as any.
    for args in [&["recover"][..], &["reset", "--yes"][..], &["recover"][..]] {
        let out = cmd(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        assert!(
            !stderr(&out).contains("could not be removed"),
            "{}",
            text(&out)
        );
    }
    assert!(names(&state(&root).join("journal")).is_empty());
    if via_chattr {
        let kept = state(&root).join("kept");
        for e in walkdir::WalkDir::new(&kept).into_iter().flatten() {
            chattr("-i", e.path());
        }
    }
}

#[test]
fn regression_an_undeletable_file_in_a_removed_folder_never_wedges_the_device() {
    undeletable_file_in_a_removed_folder(false);
    let probe = tempfile::NamedTempFile::new_in(sandbox().path()).unwrap();
    if chattr("+i", probe.path()) {
        chattr("-i", probe.path());
        undeletable_file_in_a_removed_folder(true);
    } else {
        eprintln!("note: chattr +i is not available here; the fault injection stood in for it");
    }
}

/// A persona file the reset cannot remove is left and named (exit 5, partly applied), the rest
/// of the reset lands, and nothing is left behind that stops the next command.
#[test]
fn regression_an_undeletable_persona_file_fails_the_reset_alone() {
    let (_s, root) = device("tests/cli/reset/active-hermes/in");
    let souls: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "SOUL.md")
        .map(|e| e.path().to_path_buf())
        .collect();
    assert!(!souls.is_empty());
    let run = |args: &[&str]| {
        let mut c = osctl(&root);
        c.args(args).env("OSCTL_FAULT", "immutable:SOUL.md");
        bounded(c, Duration::from_secs(60))
    };
    let out = run(&["reset", "--yes"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    assert!(stderr(&out).contains("could not remove"), "{}", text(&out));
    for soul in &souls {
        assert!(
            soul.exists(),
            "{} was removed: {}",
            soul.display(),
            text(&out)
        );
    }
    assert!(
        !root.join("root/config/config.json").exists(),
        "the rest of the reset landed: {}",
        text(&out)
    );
    assert!(names(&state(&root).join("journal")).is_empty());
    let out = run(&["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(stderr(&out).contains("nothing to do"), "{}", text(&out));
    let out = run(&[
        "mcp",
        "add",
        "probe",
        "--runtime",
        "codex",
        "--allow-uninstalled",
        "--",
        "/bin/true",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}
