//! Exit codes: the table (the book's Exit codes chapter = `--help` = code), one real run per code of the table, every
//! golden case's code in the table, a held device lock (6), and interrupts (130).

use crate::reliability_support;

use std::path::Path;
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

/// The book's "Exit codes" table (docs/book/src/exit-codes.md): (code, meaning) with Markdown code spans unwrapped.
fn readme_table() -> Vec<(i32, String)> {
    let section = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/book/src/exit-codes.md"
    ))
    .unwrap();
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

/// The device under `root` is as `before` (osctl's bookkeeping aside).
fn assert_unchanged(root: &Path, before: &reliability_support::Tree, what: &str) {
    let after = reliability_support::snapshot(root);
    assert!(
        *before == after,
        "{what}:\n{}",
        reliability_support::describe_diff(before, &after)
    );
}

/// How a scenario makes its code: a device tree (examples/device), maybe prepared, then a run.
struct Scenario {
    code: i32,
    what: &'static str,
    /// Run before the measured run, on the copied tree (may hold the lock: the guard lives as
    /// long as the run).
    prepare: fn(&Path) -> Option<DeviceLock>,
    fault: Option<&'static str>,
    args: &'static [&'static str],
}

fn nothing(_: &Path) -> Option<DeviceLock> {
    None
}

fn break_hermes_config(root: &Path) -> Option<DeviceLock> {
    std::fs::write(root.join("root/.hermes/config.yaml"), "model: [unclosed\n").unwrap();
    None
}

fn hold_the_lock(root: &Path) -> Option<DeviceLock> {
    Some(DeviceLock::acquire(&RootFs::new(root).unwrap(), Duration::from_secs(1)).unwrap())
}

/// A presync killed mid-run (as by a power cut) leaves a journal for `recover` to restore.
fn leave_a_journal(root: &Path) -> Option<DeviceLock> {
    let out = reliability_support::osctl(root)
        .env("OSCTL_FAULT", "abort-write:2")
        .arg("presync")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "killed: {out:?}");
    assert!(reliability_support::restorable_journal(root));
    None
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        code: 0,
        what: "presync heals the device",
        prepare: nothing,
        fault: None,
        args: &["presync"],
    },
    Scenario {
        code: 1,
        what: "presync refuses a config it cannot parse",
        prepare: break_hermes_config,
        fault: None,
        args: &["presync"],
    },
    Scenario {
        code: 2,
        what: "a flag presync does not have",
        prepare: nothing,
        fault: None,
        args: &["presync", "--no-such-flag"],
    },
    Scenario {
        code: 3,
        what: "presync --check finds changes",
        prepare: nothing,
        fault: None,
        args: &["presync", "--check"],
    },
    Scenario {
        code: 4,
        what: "the second write fails, and the first is rolled back",
        prepare: nothing,
        fault: Some("fail-write:2"),
        args: &["presync"],
    },
    Scenario {
        code: 5,
        what: "recover cannot restore the journal a killed run left",
        prepare: leave_a_journal,
        fault: Some("fail-restore"),
        args: &["recover"],
    },
    Scenario {
        code: 6,
        what: "another run holds the device lock",
        prepare: hold_the_lock,
        fault: None,
        args: &["--lock-timeout", "0", "presync"],
    },
    Scenario {
        code: 101,
        what: "a panic",
        prepare: nothing,
        fault: Some("panic"),
        args: &["presync"],
    },
    Scenario {
        code: 130,
        what: "SIGINT before the second write: the first is rolled back",
        prepare: nothing,
        fault: Some("signal-write:2:INT"),
        args: &["presync"],
    },
];

/// Every code in the table is produced by a real run, with its JSON `exit_code` equal to the
/// process's, and a run that promises "nothing changed" (1, 2, 4, 6, 130) leaves the tree as it
/// was. A code added to the table without a scenario fails here.
#[test]
fn every_code_in_the_table_is_produced_by_a_real_run() {
    for exit in osctl::error::ALL {
        let code = exit.code();
        let scenario = SCENARIOS
            .iter()
            .find(|s| s.code == code)
            .unwrap_or_else(|| panic!("exit {code} has no scenario here: add one"));
        let dir = reliability_support::sandbox();
        let root = dir.path().join("device");
        reliability_support::copy_tree(&reliability_support::repo().join("examples/device"), &root);
        let _lock = (scenario.prepare)(&root);
        let before = reliability_support::snapshot(&root);
        let mut cmd = reliability_support::osctl(&root);
        if let Some(fault) = scenario.fault {
            cmd.env("OSCTL_FAULT", fault);
        }
        let out = cmd.arg("--json").args(scenario.args).output().unwrap();
        let what = format!(
            "exit {code} ({}): {}",
            scenario.what,
            reliability_support::text(&out)
        );
        assert_eq!(out.status.code(), Some(code), "{what}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{what}: one JSON document: {e}"));
        assert_eq!(doc["exit_code"], code, "{what}");
        assert_eq!(doc["ok"], code == 0 || code == 3, "{what}");
        if [1, 2, 4, 6, 130].contains(&code) {
            assert_eq!(doc["changed"], false, "{what}");
            assert_unchanged(&root, &before, &format!("{what}: the tree changed"));
        }
    }
}

/// The other direction: every golden case expects a code the table has.
#[test]
fn every_golden_case_expects_a_code_of_the_table() {
    let known: Vec<i64> = osctl::error::ALL.iter().map(|e| e.code() as i64).collect();
    let cases = reliability_support::repo().join("tests/cli");
    let mut seen = 0;
    for entry in walkdir::WalkDir::new(&cases).min_depth(3).max_depth(3) {
        let entry = entry.unwrap();
        if entry.file_name() != "cmd.toml" {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let cmd: toml::Table = text.parse().unwrap();
        let status = cmd.get("status").and_then(|v| v.as_integer()).unwrap_or(0);
        assert!(
            known.contains(&status),
            "{}: status {status} is not in the exit-code table",
            entry.path().display()
        );
        seen += 1;
    }
    assert!(seen > 200, "found only {seen} golden cases");
}

/// A real SIGTERM from outside (the fake systemctl sends it to osctl as the new unit starts):
/// the switch stops at its next phase, rolls back every file and unit, and exits 130.
#[test]
fn sigterm_during_a_switch_rolls_it_back() {
    let dir = reliability_support::sandbox();
    let root = dir.path().join("device");
    let state = dir.path().join("systemctl");
    std::fs::create_dir_all(&state).unwrap();
    reliability_support::copy_tree(&reliability_support::repo().join("examples/device"), &root);
    for (file, value) in [
        ("hermes-gateway.service.active", "active"),
        ("hermes-gateway.service.sub", "running"),
        ("hermes-gateway.service.enabled", "enabled"),
        ("signal-on", "enable --now openclaw.service\nTERM"),
    ] {
        std::fs::write(state.join(file), format!("{value}\n")).unwrap();
    }
    let before = reliability_support::snapshot(&root);
    let out = reliability_support::osctl(&root)
        .env("OSCTL_SYSTEMCTL", reliability_support::fake_systemctl())
        .env("FAKE_SYSTEMCTL_DIR", &state)
        .env("FAKE_SYSTEMCTL_ROOT", &root)
        .args(["--json", "switch", "openclaw"])
        .output()
        .unwrap();
    let what = reliability_support::text(&out);
    assert_eq!(out.status.code(), Some(130), "{what}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "interrupted", "{what}");
    assert_eq!(doc["changed"], false, "{what}");
    assert_unchanged(
        &root,
        &before,
        &format!("{what}\nthe switch was rolled back"),
    );
    let read = |f: &str| std::fs::read_to_string(state.join(f)).unwrap_or_default();
    assert_eq!(
        read("hermes-gateway.service.active").trim(),
        "active",
        "{what}"
    );
    assert_eq!(read("openclaw.service.active").trim(), "inactive", "{what}");
    assert_eq!(
        read("openclaw.service.enabled").trim(),
        "disabled",
        "{what}"
    );
}

/// A switch on the sample device (hermes → openclaw) with fake systemd, optionally with a
/// fault; returns the exit code, the JSON document and the state folder of the fake systemctl.
fn faulted_switch(
    root: &Path,
    state: &Path,
    fault: Option<&str>,
) -> (Option<i32>, serde_json::Value, String) {
    let mut cmd = reliability_support::osctl(root);
    cmd.env("OSCTL_SYSTEMCTL", reliability_support::fake_systemctl())
        .env("FAKE_SYSTEMCTL_DIR", state)
        .env("FAKE_SYSTEMCTL_ROOT", root)
        .args(["--json", "switch", "openclaw"]);
    match fault {
        Some(f) => cmd.env("OSCTL_FAULT", f),
        None => cmd.env_remove("OSCTL_FAULT"),
    };
    let out = cmd.output().unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), doc, reliability_support::text(&out))
}

fn sample_with_fake_systemd(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = dir.join("device");
    let state = dir.join("systemctl");
    std::fs::create_dir_all(&state).unwrap();
    reliability_support::copy_tree(&reliability_support::repo().join("examples/device"), &root);
    for (file, value) in [
        ("hermes-gateway.service.active", "active"),
        ("hermes-gateway.service.sub", "running"),
        ("hermes-gateway.service.enabled", "enabled"),
    ] {
        std::fs::write(state.join(file), format!("{value}\n")).unwrap();
    }
    (root, state)
}

/// A SIGTERM before each file step of a switch in turn, from the first to past the last: before
/// the commit point the switch rolls back (device unchanged, 130); after it the switch stands
/// and what it had not done yet is left to the next `osctl reconcile` (130, `changed`), which
/// then leaves the device as an uninterrupted switch does. Never "partly applied" (5): an
/// interrupt is not a failure of a step.
#[test]
fn a_signal_at_any_write_of_a_switch_rolls_it_back_or_lets_it_stand() {
    let reference = reliability_support::sandbox();
    let (ref_root, ref_state) = sample_with_fake_systemd(reference.path());
    let (code, _, what) = faulted_switch(&ref_root, &ref_state, None);
    assert_eq!(code, Some(0), "{what}");
    let finished = reliability_support::snapshot(&ref_root);
    let mut stood = 0;
    let mut rolled = 0;
    for n in 1.. {
        assert!(n < 200, "the switch never ran past its last write");
        let dir = reliability_support::sandbox();
        let (root, state) = sample_with_fake_systemd(dir.path());
        let before = reliability_support::snapshot(&root);
        let fault = format!("signal-write:{n}:TERM");
        let (code, doc, what) = faulted_switch(&root, &state, Some(&fault));
        if code == Some(0) {
            // Past the last write: the signal was never sent.
            assert_eq!(reliability_support::snapshot(&root), finished, "{what}");
            break;
        }
        assert_eq!(code, Some(130), "{fault}: {what}");
        assert_eq!(doc["exit_code"], 130, "{fault}: {what}");
        assert_eq!(doc["error"]["code"], "interrupted", "{fault}: {what}");
        let config = std::fs::read_to_string(root.join("root/config/config.json")).unwrap();
        if config.contains("\"openclaw\"") {
            stood += 1;
            assert_eq!(doc["changed"], true, "{fault}: {what}");
            let out = reliability_support::osctl(&root)
                .env("OSCTL_SYSTEMCTL", reliability_support::fake_systemctl())
                .env("FAKE_SYSTEMCTL_DIR", &state)
                .env("FAKE_SYSTEMCTL_ROOT", &root)
                .env_remove("OSCTL_FAULT")
                .arg("reconcile")
                .output()
                .unwrap();
            let said = reliability_support::text(&out);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{fault}: reconcile after: {said}"
            );
            let got = reliability_support::snapshot(&root);
            assert!(
                got == finished,
                "{fault}: after the next reconcile the device differs from a whole switch:\n{}",
                reliability_support::describe_diff(&finished, &got)
            );
        } else {
            rolled += 1;
            assert_eq!(doc["changed"], false, "{fault}: {what}");
            assert_unchanged(&root, &before, &format!("{fault}: {what}"));
        }
    }
    assert!(
        stood > 0 && rolled > 0,
        "stood {stood}, rolled back {rolled}"
    );
}
