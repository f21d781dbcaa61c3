//! Writes: a plan that changes one file keeps no journal and costs at most three fsync-class
//! calls, and a file reached by two names is written once.

use std::path::Path;
use std::process::Command;

use super::{device, names, state, stderr};
use crate::reliability_support::*;

/// fsync-class calls of one osctl run, by strace (None when strace cannot trace here).
fn sync_calls(root: &Path, args: &[&str]) -> Option<u64> {
    let log = root.parent().unwrap().join("strace.log");
    let mut c = Command::new("strace");
    c.args([
        "-f",
        "-c",
        "-e",
        "trace=fsync,fdatasync,syncfs,sync_file_range",
        "-o",
    ])
    .arg(&log)
    .arg(env!("CARGO_BIN_EXE_osctl"))
    .arg("--root")
    .arg(root)
    .args(args)
    .env_clear()
    .env("PATH", std::env::var("PATH").unwrap_or_default())
    .env("OSCTL_TEST_NOW", TEST_NOW);
    let out = c.output().ok()?;
    if !out.status.success() {
        return None;
    }
    let table = std::fs::read_to_string(&log).ok()?;
    let total = table
        .lines()
        .find(|l| l.trim_end().ends_with("total"))
        .and_then(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            cols.get(cols.len().checked_sub(2)?)
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0);
    Some(total)
}

/// `osctl mcp add` made 12 fsync-class calls (journal copy, manifest, journal folder, the file,
/// cleanup, and one more per write from atomic-write-file): a plan that changes one file and
/// runs nothing needs no journal, and one write costs the file's fsync and its folder's.
#[test]
fn regression_a_one_file_plan_keeps_no_journal_and_syncs_at_most_three_times() {
    let (_s, root) = device("tests/cli/mcp/_installed");
    let out = osctl(&root)
        .args([
            "mcp",
            "add",
            "probe",
            "--runtime",
            "codex",
            "--",
            "/bin/true",
        ])
        .env("OSCTL_FAULT", "abort-write:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "one step only: {}", text(&out));
    assert!(
        !state(&root).join("journal").exists(),
        "no journal was made: {:?}",
        names(&state(&root))
    );
    let (_s, root) = device("tests/cli/mcp/_device");
    match sync_calls(
        &root,
        &[
            "mcp",
            "add",
            "probe",
            "--runtime",
            "codex",
            "--",
            "/bin/true",
        ],
    ) {
        Some(n) => assert!(n <= 3, "{n} fsync-class calls"),
        None => eprintln!("note: strace cannot trace here; the sync count is not checked"),
    }
    // A journaled plan: the journal costs 4 syncs to begin and 1 to finish, each file 1, each
    // distinct folder 1 (presync hermes: 4 files in 3 folders).
    let (_s, root) = device("examples/presync/hermes");
    let plan = osctl(&root)
        .args(["--json", "--dry-run", "presync"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let summary = &doc["plan"]["summary"];
    let files = summary["files"].as_u64().unwrap() + summary["folders"].as_u64().unwrap_or(0);
    let mut folders: Vec<String> = doc["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "file")
        .filter_map(|c| c["path"].as_str())
        .map(|p| p.rsplit_once('/').unwrap().0.to_string())
        .collect();
    folders.sort();
    folders.dedup();
    if let Some(n) = sync_calls(&root, &["presync"]) {
        let most = files + folders.len().max(1) as u64 + 5;
        assert!(
            n <= most,
            "{n} fsync-class calls for {files} files (at most {most})"
        );
    }
}
/// presync planned two changes for one file reached by two names (a workspace AGENTS.md linked
/// to the global one; a workspace `.claude` linked to `~/.claude`): the file was written twice,
/// and the second write found it changed by the first, so the run failed (exit 4) on every boot.
#[test]
fn regression_a_file_reached_by_two_names_is_written_once() {
    let (_s, root) = device("examples/presync/codex");
    std::fs::rename(
        root.join("root/.codex/workspace/AGENTS.md"),
        root.join("root/.codex/AGENTS.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../AGENTS.md", root.join("root/.codex/workspace/AGENTS.md"))
        .unwrap();
    let (_s2, claude) = device("examples/presync/claudecode");
    std::os::unix::fs::symlink(
        "/root/.claude",
        claude.join("root/.claudecode/workspace/.claude"),
    )
    .unwrap();
    for (root, shared) in [
        (&root, "root/.codex/AGENTS.md"),
        (&claude, "root/.claude/settings.json"),
    ] {
        let plan = osctl(root)
            .args(["--json", "--dry-run", "presync"])
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
        let resolved: Vec<String> = doc["plan"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["path"].as_str())
            .map(|p| {
                let host = root.join(p.trim_start_matches('/'));
                std::fs::canonicalize(&host)
                    .unwrap_or(host)
                    .display()
                    .to_string()
            })
            .collect();
        let mut unique = resolved.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            resolved.len(),
            unique.len(),
            "one change per file: {resolved:?}"
        );
        let out = osctl(root).arg("presync").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let again = osctl(root).arg("presync").output().unwrap();
        assert_eq!(again.status.code(), Some(0), "{}", text(&again));
        assert!(stderr(&again).contains("nothing to do"), "{}", text(&again));
        assert!(root.join(shared).is_file());
    }
    // Both blocks live in the one shared AGENTS.md.
    let agents = std::fs::read_to_string(root.join("root/.codex/AGENTS.md")).unwrap();
    assert!(agents.contains("OS PERSONA INLINE"), "{agents}");
    assert!(
        agents.contains("This machine is an Autonomous device"),
        "{agents}"
    );
}
