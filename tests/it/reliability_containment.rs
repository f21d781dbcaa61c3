//! Containment suite: every path osctl writes or deletes stays inside `--root`, whatever links
//! and `..` the device holds.
//!
//! The sample device (`examples/device`) is first brought to the state where every runtime's
//! files exist (a presync of each registered runtime, a skills sync against a loopback CDN).
//! Then, in each round, one kind of trap is planted on a fresh copy, next to a sibling folder
//! `outside/` that holds a copy of everything a trap points at:
//!
//! - `file-links-relative` / `file-links-absolute`: every file of the runtimes (persona files,
//!   native configs, `.env` files, skills) is replaced by a symlink to its copy outside, by a
//!   relative target that climbs out with `..` or by the absolute host path;
//! - `dir-links-relative` / `dir-links-absolute`: every folder two levels down (`/root/.hermes`,
//!   `/root/.codex`, `/opt/devices`, ...) or three (`/root/.openclaw/workspace`, the skill
//!   folders, ...) is such a symlink;
//! - `config-links`: config.json, agent_state.json and bootstrap.json are such symlinks;
//! - `dotdot`: `..` in the values osctl turns into paths: `openclaw_config_dir` and ROBOT.md's
//!   `soul_ref` climb out of the root towards real files outside.
//!
//! Every mutating command then runs on its own fresh copy of the round's tree: `presync` of each
//! runtime, `migrate` (two pairs), `reset --yes`, `reconcile`, `skills sync`, `mcp add` (into four
//! runtimes' files) and `channel add`. Whatever each
//! one decides (apply, or refuse with an error), no byte, mode or entry of `outside/` may
//! change, and no run may panic. `OSCTL_CONTAINMENT_VERBOSE=1` prints what each run said.

use crate::skills_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::reliability_support::*;
use crate::skills_support::{Reply, Server};

/// Every registered runtime (the test-only seventh too, under `--features test-runtime`).
use osctl::runtime::NAMES as RUNTIMES;

fn commands() -> Vec<Vec<&'static str>> {
    let mut c: Vec<Vec<&str>> = RUNTIMES.iter().map(|rt| vec!["presync", rt]).collect();
    c.push(vec!["migrate", "--from", "openclaw", "--to", "hermes"]);
    c.push(vec!["migrate", "--from", "hermes", "--to", "codex"]);
    c.push(vec!["reset", "--yes"]);
    c.push(vec!["reconcile"]);
    c.push(vec!["skills", "sync"]);
    for rt in ["hermes", "codex", "openclaw", "claudecode"] {
        c.push(vec![
            "mcp",
            "add",
            "audit",
            "--runtime",
            rt,
            "--url",
            "https://mcp.example.invalid/audit",
            "--header",
            "Authorization=Bearer plContainment0123456789",
        ]);
    }
    c.push(vec![
        "channel",
        "add",
        "telegram",
        "--token",
        "222222:BBNewTokenNewTokenNewTokenNew",
        "--user-id",
        "4242",
    ]);
    c
}

fn serve(server: &Server) {
    let zip = skills_support::skill_zip(&[("SKILL.md", b"# Audio\n")]);
    let mut skills = BTreeMap::new();
    skills.insert("audio".to_string(), skills_support::version_of(&zip));
    server.set("/os/skills/audio.zip", Reply::Ok(zip));
    server.set(
        "/os/ota/metadata.json",
        Reply::Ok(serde_json::to_vec(&skills_support::metadata(&skills)).unwrap()),
    );
    for hook in ["turn-gate", "emotion-acknowledge"] {
        server.set(
            &format!("/os/hooks/{hook}/HOOK.md"),
            Reply::Ok(format!("# {hook}\n").into_bytes()),
        );
        server.set(
            &format!("/os/hooks/{hook}/handler.ts"),
            Reply::Ok(b"export default () => {};\n".to_vec()),
        );
    }
}

/// The sample device with every runtime's files in place.
fn primed(at: &Path, server: &Server) {
    copy_tree(&repo().join("examples/device"), at);
    write(
        at,
        "root/config/bootstrap.json",
        format!("{{\"metadata_url\": \"{}\"}}\n", server.metadata_url()).as_bytes(),
        0o600,
    );
    for rt in RUNTIMES {
        let out = osctl(at).args(["presync", rt]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "prime {rt}: {}", text(&out));
    }
    let out = osctl(at).args(["skills", "sync"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "prime skills: {}", text(&out));
}

/// Moves `rel` (a file or folder under `root`) to `outside/<rel>` and leaves a symlink to it.
fn link_out(root: &Path, outside: &Path, rel: &str, absolute: bool) {
    let from = root.join(rel);
    let to = outside.join(rel);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::rename(&from, &to).unwrap();
    let target = if absolute {
        to.clone()
    } else {
        // From the link's folder up to the sandbox, then down into outside/.
        let depth = Path::new(rel).components().count(); // the link's folder + the root
        let mut t = PathBuf::new();
        for _ in 0..depth {
            t.push("..");
        }
        t.push(outside.file_name().unwrap());
        t.push(rel);
        t
    };
    std::os::unix::fs::symlink(&target, &from).unwrap();
    assert!(
        std::fs::symlink_metadata(&from).is_ok() && from.exists(),
        "the trap resolves on the host: {rel} -> {}",
        target.display()
    );
}

fn entries(root: &Path, depth: usize, dirs: bool) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .min_depth(depth)
        .max_depth(if dirs { depth } else { usize::MAX })
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| {
            if dirs {
                e.file_type().is_dir()
            } else {
                e.file_type().is_file()
            }
        })
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|rel| !rel.starts_with("var/") && !rel.starts_with("root/config"))
        .collect()
}

/// Plants one round's traps; returns how many.
fn plant(round: &str, root: &Path, outside: &Path) -> usize {
    match round {
        "file-links-relative" | "file-links-absolute" => {
            let files = entries(root, 1, false);
            for rel in &files {
                link_out(root, outside, rel, round.ends_with("absolute"));
            }
            files.len()
        }
        "dir-links-relative" | "dir-links-absolute" => {
            let absolute = round.ends_with("absolute");
            let mut n = 0;
            // Three levels down where the two-level folder is the runtime's own (so both kinds
            // of folders are covered: `/root/.openclaw/workspace` here, `/root/.hermes` below).
            for rel in entries(root, 3, true) {
                if rel.starts_with("root/.openclaw") || rel.starts_with("root/.claude/") {
                    link_out(root, outside, &rel, absolute);
                    n += 1;
                }
            }
            for rel in entries(root, 2, true) {
                if !(rel == "root/.openclaw" || rel == "root/.claude") {
                    link_out(root, outside, &rel, absolute);
                    n += 1;
                }
            }
            n
        }
        "config-links" => {
            for rel in [
                "root/config/config.json",
                "root/config/agent_state.json",
                "root/config/bootstrap.json",
            ] {
                link_out(root, outside, rel, false);
            }
            3
        }
        "dotdot" => {
            // Real files where the `..` paths would land if they were resolved on the host.
            let climb = "../".repeat(root.components().count() + 2);
            let target = format!(
                "{}{}",
                climb,
                outside.to_string_lossy().trim_start_matches('/')
            );
            copy_tree(&root.join("root/.openclaw"), &outside.join("dotdot"));
            write(outside, "soul.md", b"# an outside soul\n", 0o644);
            let config = root.join("root/config/config.json");
            let mut v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
            v["openclaw_config_dir"] = format!("/root/{target}/dotdot").into();
            write(
                root,
                "root/config/config.json",
                serde_json::to_string_pretty(&v).unwrap().as_bytes(),
                0o600,
            );
            let robot = root.join("opt/devices/lamp/ROBOT.md");
            let text = std::fs::read_to_string(&robot).unwrap();
            let text = text.replacen("---\n", &format!("---\nsoul_ref: {target}/soul.md\n"), 1);
            let text = if text.matches("soul_ref:").count() > 1 {
                // Keep only the planted soul_ref (the first).
                let mut seen = false;
                text.lines()
                    .filter(|l| {
                        if l.starts_with("soul_ref:") {
                            let keep = !seen;
                            seen = true;
                            keep
                        } else {
                            true
                        }
                    })
                    .map(|l| format!("{l}\n"))
                    .collect()
            } else {
                text
            };
            write(root, "opt/devices/lamp/ROBOT.md", text.as_bytes(), 0o644);
            2
        }
        _ => unreachable!(),
    }
}

const ROUNDS: [&str; 6] = [
    "file-links-relative",
    "file-links-absolute",
    "dir-links-relative",
    "dir-links-absolute",
    "config-links",
    "dotdot",
];

#[test]
fn nothing_outside_the_root_changes() {
    let scratch = sandbox();
    let server = Server::start();
    serve(&server);
    let base = scratch.path().join("primed");
    primed(&base, &server);
    let (mut runs, mut traps, mut changed, mut panics) = (0, 0, 0, 0);
    let mut exits: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for round in ROUNDS {
        for args in commands() {
            let root = scratch.path().join("device");
            let outside = scratch.path().join("outside");
            let _ = std::fs::remove_dir_all(&root);
            let _ = std::fs::remove_dir_all(&outside);
            copy_tree(&base, &root);
            std::fs::create_dir_all(&outside).unwrap();
            let n = plant(round, &root, &outside);
            assert!(n > 0, "{round}: nothing planted");
            traps += n;
            let before = snapshot_with(&outside, &|_| false);
            let out = osctl(&root).args(&args).output().unwrap();
            runs += 1;
            *exits.entry(format!("{:?}", out.status.code())).or_default() += 1;
            if std::env::var_os("OSCTL_CONTAINMENT_VERBOSE").is_some() {
                eprintln!(
                    "{round} {args:?}: exit {:?}\n{}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            if matches!(out.status.code(), Some(101) | None) {
                panics += 1;
                failures.push(format!("{round} {args:?}: panicked: {}", text(&out)));
            }
            let after = snapshot_with(&outside, &|_| false);
            if after != before {
                changed += 1;
                failures.push(format!(
                    "{round} {args:?}: outside the root changed: {}\n  exit {:?}: {}",
                    describe_diff(&before, &after),
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    figures(
        "containment",
        &[
            ("rounds", ROUNDS.len().to_string()),
            ("runs", runs.to_string()),
            ("traps_planted", traps.to_string()),
            ("outside_changed", changed.to_string()),
            ("panics", panics.to_string()),
            (
                "exits",
                exits
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "{}:{v}",
                            k.trim_start_matches("Some(").trim_end_matches(')')
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        ],
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
