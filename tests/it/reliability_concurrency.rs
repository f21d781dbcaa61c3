//! Concurrency suite: many osctl writers at once on one device, and a lock holder killed.
//!
//! `sixteen_writers_lose_no_update`: each round starts 16 writers together on a fresh copy of
//! the sample device (`examples/device`): `presync` of each of the six runtimes twice (they share
//! files: the openclaw persona codex and opencode import, `config.json`, the profile script) and
//! four more `presync`s with `--lock-timeout 0`. Each writer must either apply its change, find
//! it done (it waited for the lock, or a twin did the work), or exit 6 with the busy message;
//! nothing else (no other exit code, no panic). Every runtime has two writers
//! that wait, so the device must end exactly as the six presyncs run one after another leave
//! it: any difference is an update lost to a race. No journal may be left.
//!
//! `mixed_writers_lose_no_update`: 16 writers of different kinds at once on the channel sample
//! device (hermes): 8 `mcp add` into hermes' config.yaml and 4 into codex's config.toml, each
//! with its own name, `channel add` telegram and discord (both edit config.json and hermes'
//! .env), and two `presync`s that do not wait. Every writer that applied must find its update
//! on the device at the end (`mcp list`, the tokens in config.json and .env).
//!
//! `a_killed_holder_releases_the_lock`: a switch holds the lock while a (fake) systemctl hangs;
//! it is killed with SIGKILL (its systemctl child lives on); the next run with
//! `--lock-timeout 0` (codex's presync, which has work to do) must get the lock at once.
//!
//! `OSCTL_CONCURRENCY_ROUNDS` sets the rounds (default 8).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use crate::reliability_support::*;

/// The six runtimes the package ships, from the registry: the suite's 16 writers are two presyncs
/// of each of them and four MCP writers; which runtimes they write for is not what it tests.
use osctl::runtime::PACKAGED_NAMES as RUNTIMES;

const BUSY: &str = "another osctl run holds the device lock";

/// One writer: its arguments and whether it waits for the lock.
struct Writer {
    args: Vec<String>,
    waits: bool,
}

fn writers() -> Vec<Writer> {
    let mut w = Vec::new();
    for rt in RUNTIMES {
        for _ in 0..2 {
            w.push(Writer {
                args: vec![
                    "--lock-timeout".into(),
                    "120".into(),
                    "presync".into(),
                    rt.into(),
                ],
                waits: true,
            });
        }
    }
    for rt in ["openclaw", "codex", "hermes", "opencode"] {
        w.push(Writer {
            args: vec![
                "--lock-timeout".into(),
                "0".into(),
                "presync".into(),
                rt.into(),
            ],
            waits: false,
        });
    }
    assert_eq!(w.len(), 16);
    w
}

#[derive(Default)]
struct Tally {
    writers: usize,
    applied: usize,
    found_done: usize,
    busy: usize,
    lost: usize,
    bad: Vec<String>,
}

/// What one writer did; a problem when it did something else.
fn classify(w: &Writer, out: &Output, t: &mut Tally) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) if stderr.contains("changed ") => t.applied += 1,
        Some(0) => t.found_done += 1,
        // The holder's name is best effort (read while a new holder may be rewriting it).
        Some(6) if !w.waits && stderr.contains(BUSY) => t.busy += 1,
        _ => t.bad.push(format!("{:?}: {}", w.args, text(out))),
    }
}

#[test]
fn sixteen_writers_lose_no_update() {
    let scratch = sandbox();
    let reference = {
        let root = scratch.path().join("reference");
        copy_tree(&repo().join("examples/device"), &root);
        for rt in RUNTIMES {
            let out = osctl(&root).args(["presync", rt]).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{rt}: {}", text(&out));
        }
        snapshot(&root)
    };
    let rounds = budget("OSCTL_CONCURRENCY_ROUNDS", 8);
    let mut t = Tally::default();
    for round in 0..rounds {
        let root = scratch.path().join(format!("round-{round}"));
        copy_tree(&repo().join("examples/device"), &root);
        let ws = writers();
        let children: Vec<Child> = ws
            .iter()
            .map(|w| osctl(&root).args(&w.args).spawn().unwrap())
            .collect();
        for (w, c) in ws.iter().zip(children) {
            let out = c.wait_with_output().unwrap();
            t.writers += 1;
            classify(w, &out, &mut t);
        }
        let after = snapshot(&root);
        if after != reference {
            t.lost += 1;
            t.bad.push(format!(
                "round {round}: the device differs from the serial runs': {}",
                describe_diff(&reference, &after)
            ));
        }
        if !journals(&root).is_empty() {
            t.bad.push(format!(
                "round {round}: a journal was left: {:?}",
                journals(&root)
            ));
        }
        let _ = std::fs::remove_dir_all(&root);
    }
    figures(
        "concurrency",
        &[
            ("rounds", rounds.to_string()),
            ("writers", t.writers.to_string()),
            ("applied", t.applied.to_string()),
            ("found_done", t.found_done.to_string()),
            ("busy_exit6", t.busy.to_string()),
            ("lost_updates", t.lost.to_string()),
        ],
    );
    assert!(t.bad.is_empty(), "{}", t.bad.join("\n"));
    assert!(
        t.applied >= RUNTIMES.len(),
        "every runtime's presync applied"
    );
}

/// One mixed round's writers: 8 `mcp add` on hermes (one YAML file), 4 on codex (one TOML
/// file), `channel add` telegram and discord (config.json and hermes' .env), and two
/// presyncs that do not wait.
fn mixed_writers() -> Vec<Writer> {
    let long = |args: &[&str]| {
        let mut a = vec!["--lock-timeout".to_string(), "120".into()];
        a.extend(args.iter().map(|s| s.to_string()));
        Writer {
            args: a,
            waits: true,
        }
    };
    let mut w = Vec::new();
    for i in 0..12 {
        let rt = if i < 8 { "hermes" } else { "codex" };
        let name = format!("w{i}");
        let url = format!("https://mcp{i}.example.invalid/mcp");
        // --allow-uninstalled: the sample device has the runtimes' files but not their units.
        w.push(long(&[
            "mcp",
            "add",
            &name,
            "--runtime",
            rt,
            "--allow-uninstalled",
            "--url",
            &url,
        ]));
    }
    w.push(long(&[
        "channel",
        "add",
        "telegram",
        "--token",
        "222222:BBNewTokenNewTokenNewTokenNew",
        "--user-id",
        "4242",
    ]));
    w.push(long(&[
        "channel",
        "add",
        "discord",
        "--token",
        "MTExMTEx.discord.example-token",
        "--guild-id",
        "987654321",
        "--user-id",
        "123456789",
    ]));
    for _ in 0..2 {
        w.push(Writer {
            args: ["--lock-timeout", "0", "presync", "hermes"]
                .map(String::from)
                .to_vec(),
            waits: false,
        });
    }
    assert_eq!(w.len(), 16);
    w
}

/// The MCP server names a runtime has (`osctl mcp list --json`).
fn servers(root: &Path, rt: &str) -> Vec<String> {
    let out = osctl(root)
        .args(["--json", "mcp", "list", "--runtime", rt])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// 16 writers of different kinds at once: every `mcp add` and `channel add` that said it
/// applied must be on the device at the end (an update overwritten by a concurrent writer's
/// stale copy of the same file would be missing).
#[test]
fn mixed_writers_lose_no_update() {
    let scratch = sandbox();
    let rounds = budget("OSCTL_CONCURRENCY_ROUNDS", 8);
    let mut t = Tally::default();
    let mut checked = 0;
    for round in 0..rounds {
        let root = scratch.path().join(format!("mixed-{round}"));
        copy_tree(&repo().join("tests/cli/channel/_hermes"), &root);
        let ws = mixed_writers();
        let children: Vec<Child> = ws
            .iter()
            .map(|w| osctl(&root).args(&w.args).spawn().unwrap())
            .collect();
        let mut outs = Vec::new();
        for (w, c) in ws.iter().zip(children) {
            let out = c.wait_with_output().unwrap();
            t.writers += 1;
            classify(w, &out, &mut t);
            outs.push(out);
        }
        let hermes = servers(&root, "hermes");
        let codex = servers(&root, "codex");
        let config = std::fs::read_to_string(root.join("root/config/config.json")).unwrap();
        let env = std::fs::read_to_string(root.join("root/.hermes/.env")).unwrap_or_default();
        let mut lost = Vec::new();
        for (w, out) in ws.iter().zip(&outs) {
            if out.status.code() != Some(0) {
                continue;
            }
            match w.args[2].as_str() {
                "mcp" => {
                    let (name, rt) = (&w.args[4], &w.args[6]);
                    checked += 1;
                    let have = if rt == "hermes" { &hermes } else { &codex };
                    if !have.contains(name) {
                        lost.push(format!("mcp {name} on {rt}"));
                    }
                }
                "channel" => {
                    checked += 1;
                    let token = &w.args[6];
                    if !config.contains(token.as_str()) || !env.contains(token.as_str()) {
                        lost.push(format!("channel {}", w.args[4]));
                    }
                }
                _ => {}
            }
        }
        if !lost.is_empty() {
            t.lost += lost.len();
            t.bad.push(format!("round {round}: lost {lost:?}"));
        }
        if !journals(&root).is_empty() {
            t.bad.push(format!(
                "round {round}: a journal was left: {:?}",
                journals(&root)
            ));
        }
        let _ = std::fs::remove_dir_all(&root);
    }
    figures(
        "concurrency-mixed",
        &[
            ("rounds", rounds.to_string()),
            ("writers", t.writers.to_string()),
            ("applied", t.applied.to_string()),
            ("found_done", t.found_done.to_string()),
            ("busy_exit6", t.busy.to_string()),
            ("updates_checked", checked.to_string()),
            ("lost_updates", t.lost.to_string()),
        ],
    );
    assert!(t.bad.is_empty(), "{}", t.bad.join("\n"));
    assert!(
        checked >= 14 * rounds as usize,
        "every waiting writer applied"
    );
}

/// A systemctl that hangs (the switch calls it while it holds the lock).
fn hanging_systemctl(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("systemctl");
    let script = format!(
        "#!/bin/sh\necho $$ >> '{}'\nexec sleep 120\n",
        dir.join("pids").display()
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn lock_is_held(root: &Path) -> bool {
    let fs = osctl::system::fs::RootFs::new(root).unwrap();
    osctl::apply::lock::DeviceLock::acquire(&fs, Duration::ZERO).is_err()
}

#[test]
fn a_killed_holder_releases_the_lock() {
    let scratch = sandbox();
    let root = scratch.path().join("device");
    copy_tree(&repo().join("examples/device"), &root);
    let systemctl = hanging_systemctl(scratch.path());
    let mut holder = osctl(&root);
    holder
        .args(["switch", "openclaw"])
        .env("OSCTL_SYSTEMCTL", &systemctl);
    let mut holder = holder.spawn().unwrap();
    let holder_pid = holder.id();
    // Wait (bounded) until the switch holds the lock.
    let started = Instant::now();
    while !lock_is_held(&root) {
        assert!(
            holder.try_wait().unwrap().is_none(),
            "the switch ended before it held the lock: {}",
            text(&holder.wait_with_output().unwrap())
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the switch never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // While it holds the lock, a run that does not wait is refused with exit 6 (codex's
    // presync has work to do on this device, so it needs the lock).
    let busy = osctl(&root)
        .args(["--lock-timeout", "0", "presync", "codex"])
        .output()
        .unwrap();
    let busy_stderr = String::from_utf8_lossy(&busy.stderr).into_owned();
    // Kill osctl only: its hanging systemctl child lives on (it must not hold the lock).
    holder.kill().unwrap();
    let killed = holder.wait().unwrap();
    let next = osctl(&root)
        .args(["--lock-timeout", "0", "presync", "codex"])
        .output()
        .unwrap();
    // osctl runs systemctl in a process group of its own: end the hanging ones by their pid.
    let pids = std::fs::read_to_string(scratch.path().join("pids")).unwrap_or_default();
    for pid in pids.split_whitespace() {
        let _ = Command::new("kill").args(["-KILL", pid]).status();
    }
    assert_eq!(busy.status.code(), Some(6), "{}", text(&busy));
    assert!(
        busy_stderr.contains(BUSY)
            && busy_stderr.contains("held by pid")
            && busy_stderr.contains("switch openclaw"),
        "{busy_stderr}"
    );
    assert_eq!(killed.code(), None, "the holder was killed by a signal");
    assert_eq!(
        next.status.code(),
        Some(0),
        "the killed holder was pid {holder_pid}: {}",
        text(&next)
    );
    assert!(!lock_is_held(&root));
    figures(
        "concurrency-kill",
        &[
            ("holders_killed", "1".into()),
            ("lock_released", (next.status.code() == Some(0)).to_string()),
        ],
    );
}
