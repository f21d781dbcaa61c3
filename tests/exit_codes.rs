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
    assert_eq!(doc["exit_code"], 6);
    assert_eq!(doc["changed"], false);
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

/// The exit-code table of `osctl --help`: (code, meaning), continuation lines joined.
fn help_table() -> Vec<(i32, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let section = text
        .split("Exit status:\n")
        .nth(1)
        .expect("--help has an Exit status section");
    let mut rows: Vec<(i32, String)> = Vec::new();
    for line in section.lines() {
        if line.trim().is_empty() {
            break;
        }
        let trimmed = line.trim_start();
        match trimmed.split_once(char::is_whitespace) {
            Some((code, meaning)) if code.parse::<i32>().is_ok() => {
                rows.push((code.parse().unwrap(), meaning.trim().to_string()))
            }
            _ => {
                let last = rows.last_mut().expect("a continuation line after a row");
                last.1.push(' ');
                last.1.push_str(trimmed);
            }
        }
    }
    rows
}

/// The README's "Exit codes" table: (code, meaning) with Markdown code spans unwrapped.
fn readme_table() -> Vec<(i32, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = readme
        .split("\n## Exit codes\n")
        .nth(1)
        .expect("README has an Exit codes section");
    section
        .lines()
        .skip_while(|l| !l.starts_with("| code"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            (cells[0].parse().unwrap(), cells[1].replace('`', ""))
        })
        .collect()
}

#[test]
fn the_readme_exit_code_table_is_the_binarys_help_table() {
    let help = help_table();
    let readme = readme_table();
    assert!(help.len() >= 8, "{help:?}");
    assert_eq!(readme, help);
    let codes: Vec<i32> = help.iter().map(|(c, _)| *c).collect();
    let known: Vec<i32> = osctl::error::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(codes, known, "the table lists exactly the codes osctl has");
    // No signal handling: 130 is not produced, so it is not in the table.
    assert!(!codes.contains(&130));
}

fn osctl_in(root: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env_remove("OSCTL_FAULT")
        .env_remove("OSCTL_ROOT")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn an_unknown_runtime_and_an_unknown_channel_exit_alike() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("root/config")).unwrap();
    std::fs::write(
        dir.path().join("root/config/config.json"),
        "{\"agent_runtime\": \"openclaw\"}\n",
    )
    .unwrap();
    // On the command line, refused by the value parser or the command: usage (2).
    for args in [
        &["switch", "nanoclaw"][..],
        &["mcp", "list", "--runtime", "nanoclaw"],
        &["skills", "list", "--runtime", "remote"],
        &["channel", "add", "carrier-pigeon"],
    ] {
        let out = osctl_in(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let mut json = vec!["--json"];
        json.extend_from_slice(args);
        let out = osctl_in(dir.path(), &json);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: one document: {e}: {out:?}"));
        assert_eq!(doc["exit_code"], 2);
        assert_eq!(doc["ok"], false);
    }
    // Read from a file: bad input (1).
    std::fs::write(
        dir.path().join("root/config/config.json"),
        "{\"agent_runtime\": \"nanoclaw\"}\n",
    )
    .unwrap();
    let out = osctl_in(dir.path(), &["--json", "mcp", "list"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["exit_code"], 1);
}
