//! A reset device plus presync gives a runtime that starts from a clean state
//! (docs/device-contract.md §6, "restore paths"): for each runtime, the reset golden case's device
//! (persona copies in every tree, one-time migrate markers, backups) is reset, provisioned again
//! the way setup does it (a fresh config.json: device type, runtime, LLM settings; no channels
//! yet), and presynced. Then:
//!
//! - nothing of the previous owner is anywhere on the device (every line of every persona file
//!   the device held before the reset is looked for in every file after it);
//! - presync restored what the runtime needs: its OS blocks, and the restore step the contract
//!   names (hermes `claw migrate`, the one-time migrate of picoclaw, codex and opencode whose
//!   marker the reset wiped, claudecode's skills folder, picoclaw's `onboard`);
//! - the files converged: a second presync plans no file change (under a fixture root the
//!   runtimes' own commands are planned, not run, so they are planned again).
//!
//! openclaw's skills come back through the daemon's onboarding (`osctl skills sync`), which is
//! not presync's job; its test stops at the OS blocks.

use std::collections::BTreeSet;
use std::path::Path;

use crate::reliability_support::{copy_tree, osctl as osctl_command, repo};

fn osctl(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = osctl_command(root).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const PERSONA_FILES: [&str; 4] = ["USER.md", "MEMORY.md", "IDENTITY.md", "SOUL.md"];

/// The lines that carry the previous owner: every line of the persona files of the device
/// before the reset (SOUL.md only where it is not the device's own soul, which comes back),
/// headings and short lines left out.
fn owner_lines(tree: &Path, device_soul: &str) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    for entry in walkdir::WalkDir::new(tree).into_iter().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy();
        let daily = path.parent().is_some_and(|p| {
            p.file_name()
                .is_some_and(|n| n == "memory" || n == "memories")
        });
        if !entry.file_type().is_file() || !(PERSONA_FILES.contains(&&*name) || daily) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines().map(str::trim) {
            let generic = line.starts_with('#')
                || line.starts_with("<!--")
                || line.len() < 16
                || device_soul.contains(line);
            if !generic {
                lines.insert(line.to_string());
            }
        }
    }
    lines
}

/// config.json as setup writes it for a new owner: the device's type, runtime and LLM settings.
fn provision(root: &Path, before: &Path) {
    let old: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(before.join("root/config/config.json")).unwrap(),
    )
    .unwrap();
    let mut fresh = serde_json::Map::new();
    for key in [
        "device_type",
        "agent_runtime",
        "llm_config_mode",
        "llm_api_key",
        "llm_base_url",
        "llm_model",
    ] {
        if let Some(v) = old.get(key) {
            fresh.insert(key.into(), v.clone());
        }
    }
    let text = serde_json::to_string_pretty(&fresh).unwrap() + "\n";
    std::fs::write(root.join("root/config/config.json"), text).unwrap();
}

/// What the contract says presync brings back for `rt` after a reset.
fn restored(rt: &str, root: &Path, stderr: &str) {
    let exists = |p: &str| root.join(p).exists();
    let os_block = |p: &str| {
        std::fs::read_to_string(root.join(p))
            .unwrap_or_else(|e| panic!("{rt}: {p}: {e}"))
            .contains("<!-- OS DO NOT REMOVE -->")
    };
    match rt {
        "openclaw" => {
            assert!(os_block("root/.openclaw/workspace/AGENTS.md"));
            assert!(os_block("root/.openclaw/workspace/HEARTBEAT.md"));
        }
        "hermes" => {
            assert!(os_block("root/.hermes/AGENTS.md"));
            assert!(stderr.contains("hermes claw migrate"), "{rt}: {stderr}");
        }
        "picoclaw" => {
            assert!(os_block("root/.picoclaw/workspace/HEARTBEAT.md"));
            assert!(stderr.contains("picoclaw onboard"), "{rt}: {stderr}");
            assert!(stderr.contains("one-time migrate"), "{rt}: {stderr}");
        }
        "codex" | "opencode" => {
            let home = format!("root/.{rt}");
            assert!(
                exists(&format!("{home}/.openclaw-migrated")),
                "{rt}: marker"
            );
            assert!(os_block(&format!("{home}/workspace/AGENTS.md")));
            let skills = if rt == "codex" {
                "root/.codex/skills/audio/SKILL.md"
            } else {
                "root/.config/opencode/skills/audio/SKILL.md"
            };
            assert!(
                exists(skills),
                "{rt}: the one-time migrate copies the skills"
            );
        }
        "claudecode" => {
            assert!(os_block("root/.claude/CLAUDE.md"));
            assert!(root.join("root/.claude/skills").is_dir(), "{rt}: skills");
        }
        _ => unreachable!(),
    }
}

#[test]
fn a_reset_device_plus_presync_starts_clean() {
    for rt in [
        "openclaw",
        "hermes",
        "picoclaw",
        "codex",
        "claudecode",
        "opencode",
    ] {
        let before = repo().join(format!("tests/cli/reset/active-{rt}/in"));
        let soul = std::fs::read_to_string(before.join("opt/devices/lamp/souls/lamp.md"))
            .unwrap_or_default();
        let owner = owner_lines(&before, &soul);
        assert!(owner.len() >= 5, "{rt}: the fixture holds a persona");

        let dir = tempfile::tempdir().unwrap();
        copy_tree(&before, dir.path());
        let (code, _, err) = osctl(dir.path(), &["reset", "--yes"]);
        assert_eq!(code, 0, "{rt}: reset: {err}");
        provision(dir.path(), &before);
        let (code, _, err) = osctl(dir.path(), &["presync", rt]);
        assert_eq!(code, 0, "{rt}: presync: {err}");

        for entry in walkdir::WalkDir::new(dir.path()).into_iter().flatten() {
            if !entry.file_type().is_file() {
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
            for line in &owner {
                assert!(
                    !text.contains(line.as_str()),
                    "{rt}: {} still holds the previous owner's `{line}`",
                    entry.path().strip_prefix(dir.path()).unwrap().display()
                );
            }
        }
        restored(rt, dir.path(), &err);

        let (code, out, err) = osctl(dir.path(), &["--json", "--dry-run", "presync", rt]);
        assert_eq!(code, 0, "{rt}: second presync: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            doc["plan"]["summary"]["files"], 0,
            "{rt}: the second presync still changes files: {out}"
        );
    }
}
