//! Crash suite: every mutating command is killed at random points, then run again.
//!
//! Each scenario (a command on a sample device) is first run uninterrupted, twice, to learn the
//! tree it leaves (`once`, and `twice` for a run that finished before the kill and is followed by
//! a second one). Then, round-robin over the scenarios, a fresh copy of the device is hit by:
//! - the debug build's `OSCTL_FAULT=abort-write:N` (an abort before the Nth file step, like a
//!   power cut: no destructor runs, the journal stays), N random within the plan's steps; or
//! - a real `kill -9` after a random delay within 1.5× the uninterrupted run's time.
//!
//! After the kill, every file and link a runtime could see (everything outside osctl's lock and
//! its holder's note, journal and skill staging) must be wholly old or wholly new: its bytes and
//! mode equal the original's or the finished run's, and no path exists that neither has (no temp
//! file, no torn file). One exception is counted apart (`pending_temporaries`): an atomic write killed
//! between naming its synced file `.<name>.osctl-tmp` and renaming it over `<name>` leaves that
//! name, with the whole new content, next to a still wholly old `<name>`; the next write of the
//! file or the next run's journal restore removes it, which the rerun's convergence checks. And a switch killed after its
//! commit point but before its reconcile steps all wrote their markers leaves config.json whole
//! and final except for those markers: the steps are retried by `osctl reconcile` (the boot
//! path), which the suite runs after the rerun in that case.
//!
//! Then the same command runs again and must leave exactly the uninterrupted tree,
//! with no journal left, and nothing outside the device root may have changed. The lock holder's
//! note counts as bookkeeping: a run killed after its last write but before it removed its note
//! leaves the note, and a rerun with nothing to do (presync in sync takes no lock) leaves it
//! too; osctl never believes the note of a dead process, and the suite checks that any note left
//! is such a stale one.
//!
//! `OSCTL_CRASH_KILLS` sets the number of kills over all scenarios (default 300, within a few
//! minutes on 2 cores); `OSCTL_RELIABILITY_SEED` replays a run (the seed is printed).

use crate::skills_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::reliability_support::*;

/// The six runtimes the package ships, from the registry: each scenario starts from a runtime's
/// tree under `examples/presync/`, which `tests/cli/presync/make-trees.py` makes for them (a
/// registered runtime without one is killed mid-run by `seventh_runtime` and `lifecycle`).
use osctl::runtime::PACKAGED_NAMES as RUNTIMES;

/// One command on one kind of device.
struct Scenario {
    name: String,
    /// Lays the device out under the given root (which does not exist yet).
    setup: Box<dyn Fn(&Path)>,
    args: Vec<String>,
    /// A fake systemd (switch): its state folder is part of what must converge.
    fake_systemd: bool,
}

struct Reference {
    /// A switch: config.json may be between its commit point and its reconcile markers.
    switch: bool,
    before: Tree,
    once: Tree,
    twice: Tree,
    units_once: Vec<String>,
    units_twice: Vec<String>,
    steps: u64,
    duration: Duration,
}

/// A sandbox for one run: the device root, the fake systemd state, a folder outside the root.
struct Run {
    root: PathBuf,
    units: PathBuf,
    outside: PathBuf,
}

impl Run {
    fn fresh(base: &Path, s: &Scenario) -> Run {
        let r = Run {
            root: base.join("device"),
            units: base.join("systemd"),
            outside: base.join("outside"),
        };
        for p in [&r.root, &r.units, &r.outside] {
            let _ = std::fs::remove_dir_all(p);
        }
        (s.setup)(&r.root);
        std::fs::create_dir_all(&r.units).unwrap();
        if s.fake_systemd {
            for (unit, key, value) in [
                ("openclaw.service", "active", "active"),
                ("openclaw.service", "enabled", "enabled"),
            ] {
                std::fs::write(r.units.join(format!("{unit}.{key}")), format!("{value}\n"))
                    .unwrap();
            }
        }
        std::fs::create_dir_all(&r.outside).unwrap();
        std::fs::write(r.outside.join("notes.md"), "not the device's\n").unwrap();
        r
    }

    fn command(&self, s: &Scenario, fault: Option<&str>) -> Command {
        self.command_with(s, &s.args, fault)
    }

    /// osctl with `args` in the scenario's environment (its fake systemctl, a fault point).
    fn command_with(&self, s: &Scenario, args: &[String], fault: Option<&str>) -> Command {
        let mut cmd = osctl(&self.root);
        cmd.args(args);
        if s.fake_systemd {
            cmd.env("OSCTL_SYSTEMCTL", fake_systemctl())
                .env("FAKE_SYSTEMCTL_DIR", &self.units)
                .env("FAKE_SYSTEMCTL_ROOT", &self.root);
        }
        if let Some(f) = fault {
            cmd.env("OSCTL_FAULT", f);
        }
        cmd
    }

    fn run_ok(&self, s: &Scenario) -> Output {
        let out = self.command(s, None).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0)),
            "{}: osctl {:?} failed: {}",
            s.name,
            s.args,
            text(&out)
        );
        out
    }

    /// The units' state files of the fake systemd (active/enabled), as lines.
    fn units(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.units)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".active") || n.ends_with(".enabled"))
            .map(|n| {
                let value = std::fs::read_to_string(self.units.join(&n)).unwrap();
                format!("{n}={}", value.trim())
            })
            .collect();
        v.sort();
        v
    }
}

fn reference(base: &Path, s: &Scenario) -> Reference {
    let run = Run::fresh(base, s);
    let before = snapshot(&run.root);
    let mut dry = run.command(s, None);
    dry.args(["--json", "--dry-run"]);
    let out = dry.output().unwrap();
    // The file steps of the plan: an upper bound for abort-write:N (a switch applies more than
    // one plan; a kill drawn past the last step is counted as "finished before the kill").
    let steps = serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .and_then(|d| {
            let s = &d["plan"]["summary"];
            Some(s["files"].as_u64()? + s["folders"].as_u64().unwrap_or(0))
        })
        .unwrap_or(8)
        .max(2);
    let started = Instant::now();
    run.run_ok(s);
    let duration = started.elapsed();
    let once = snapshot(&run.root);
    let units_once = if s.fake_systemd { run.units() } else { vec![] };
    run.run_ok(s);
    let twice = snapshot(&run.root);
    let units_twice = if s.fake_systemd { run.units() } else { vec![] };
    assert!(
        journals(&run.root).is_empty(),
        "{}: a journal was left",
        s.name
    );
    assert_ne!(before, once, "{}: the command changed nothing", s.name);
    Reference {
        switch: s.fake_systemd,
        before,
        once,
        twice,
        units_once,
        units_twice,
        steps,
        duration,
    }
}

/// Whether `path` is the named temporary of an atomic write of a file the run writes, holding
/// that file's whole new content: osctl links its (synced) file as `.<name>.osctl-tmp` and then
/// renames it over `<name>`, so a kill between the two leaves it. It is no torn file (the target
/// is still wholly old), and the next write of the file, or the next run's journal restore,
/// removes it (the rerun must converge to a tree without it).
fn pending_temporary(path: &str, node: &Node, r: &Reference) -> bool {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let Some(name) = file
        .strip_prefix('.')
        .and_then(|rest| rest.strip_suffix(".osctl-tmp"))
    else {
        return false;
    };
    let target = if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    };
    let Node::File(bytes, _) = node else {
        return false;
    };
    [&r.once, &r.twice]
        .iter()
        .any(|t| matches!(t.get(&target), Some(Node::File(b, _)) if b == bytes))
}

/// The reconcile markers a switch writes into config.json after its commit point.
const MARKERS: [&str; 4] = [
    "llm_config_applied_runtime",
    "channels_applied_runtime",
    "channels_unsupported",
    "mcp_applied_runtime",
];

/// Whether `node` is config.json as a switch leaves it between its commit point and the end of
/// its reconcile steps: whole JSON, equal to the finished run's except for the reconcile markers
/// (each step writes its own, and the next run retries the missing ones by design).
fn committed_config(path: &str, node: &Node, r: &Reference) -> bool {
    let strip = |n: Option<&Node>| -> Option<serde_json::Value> {
        let Some(Node::File(bytes, _)) = n else {
            return None;
        };
        let mut v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        for m in MARKERS {
            v.as_object_mut()?.remove(m);
        }
        Some(v)
    };
    r.switch
        && path == "root/config/config.json"
        && strip(Some(node)).is_some()
        && strip(Some(node)) == strip(r.once.get(path))
        && matches!((node, r.once.get(path)), (Node::File(_, a), Some(Node::File(_, b))) if a == b)
}

/// Paths (outside osctl's bookkeeping) whose state after the kill is neither the original nor
/// the finished one, how many pending temporaries of atomic writes were found, and how many
/// switch config.json files between the commit point and the markers.
fn torn(after: &Tree, r: &Reference) -> (Vec<String>, usize, usize) {
    let mut bad = Vec::new();
    let mut temporaries = 0;
    let mut committed = 0;
    for (path, node) in after {
        if matches!(node, Node::EmptyDir(_)) {
            continue; // a parent created ahead of its file, or a folder emptied by a move
        }
        if pending_temporary(path, node, r) {
            temporaries += 1;
            continue;
        }
        if committed_config(path, node, r) && r.once.get(path) != Some(node) {
            committed += 1;
            continue;
        }
        let known = [&r.before, &r.once, &r.twice]
            .iter()
            .any(|t| t.get(path) == Some(node));
        // osctl's own crash record (switch.json) is read by osctl only, never by a runtime.
        if !known && !path.starts_with("var/lib/osctl/") {
            let what = match [&r.before, &r.once, &r.twice]
                .iter()
                .any(|t| t.contains_key(path))
            {
                true => "torn or mixed",
                false => "stray",
            };
            bad.push(format!("{path} ({what})"));
        } else if !known
            && [&r.before, &r.once, &r.twice]
                .iter()
                .any(|t| t.contains_key(path))
        {
            bad.push(format!("{path} (torn or mixed)"));
        }
    }
    (bad, temporaries, committed)
}

fn scenarios(cdn: &skills_support::Cdn, cdn2: &skills_support::Cdn) -> Vec<Scenario> {
    let mut v = Vec::new();
    for rt in RUNTIMES {
        v.push(Scenario {
            name: format!("presync {rt}"),
            setup: Box::new(move |root| copy_tree(&repo().join("examples/presync").join(rt), root)),
            args: vec!["presync".into()],
            fake_systemd: false,
        });
    }
    for (from, to) in [("openclaw", "hermes"), ("hermes", "codex")] {
        v.push(Scenario {
            name: format!("migrate {from} -> {to}"),
            setup: Box::new(move |root| {
                copy_tree(&repo().join("examples/presync").join(from), root);
                if from == "hermes" {
                    // the destination has a persona of its own, which is backed up and replaced
                    copy_tree(
                        &repo().join("examples/presync/codex/root/.codex"),
                        &root.join("root/.codex"),
                    );
                }
            }),
            args: ["migrate", "--from", from, "--to", to]
                .map(String::from)
                .to_vec(),
            fake_systemd: false,
        });
    }
    v.push(Scenario {
        name: "reset --yes".into(),
        setup: Box::new(|root| copy_tree(&repo().join("tests/cli/reset/active-hermes/in"), root)),
        args: vec!["reset".into(), "--yes".into()],
        fake_systemd: false,
    });
    v.push(Scenario {
        name: "switch hermes (fake systemctl)".into(),
        setup: Box::new(switch_device),
        args: ["switch", "hermes", "--settle", "0"]
            .map(String::from)
            .to_vec(),
        fake_systemd: true,
    });
    // MCP servers: a remote one with a bearer header into each native format (codex TOML,
    // hermes YAML, openclaw JSON5), and a removal.
    for rt in ["codex", "hermes", "openclaw"] {
        v.push(Scenario {
            name: format!("mcp add (remote, header) on {rt}"),
            setup: Box::new(|root| copy_tree(&repo().join("tests/cli/mcp/_installed"), root)),
            args: [
                "mcp",
                "add",
                "notion",
                "--runtime",
                rt,
                "--url",
                "https://mcp.notion.com/mcp",
                "--header",
                "Authorization=Bearer ntn_live_0123456789abcdefghij",
            ]
            .map(String::from)
            .to_vec(),
            fake_systemd: false,
        });
    }
    v.push(Scenario {
        name: "mcp remove docs on picoclaw".into(),
        setup: Box::new(|root| copy_tree(&repo().join("tests/cli/mcp/_installed"), root)),
        args: ["mcp", "remove", "docs", "--runtime", "picoclaw"]
            .map(String::from)
            .to_vec(),
        fake_systemd: false,
    });
    // Channels: config.json and the runtime's own files (hermes .env; openclaw's plugin entry).
    for (rt, channel, extra) in [
        (
            "hermes",
            "telegram",
            &[
                "--token",
                "222222:BBNewTokenNewTokenNewTokenNew",
                "--user-id",
                "4242",
            ][..],
        ),
        (
            "openclaw",
            "discord",
            &[
                "--token",
                "MTExMTEx.discord.example-token",
                "--guild-id",
                "987654321",
                "--user-id",
                "123456789",
            ][..],
        ),
    ] {
        let mut args = vec!["channel".to_string(), "add".into(), channel.into()];
        args.extend(extra.iter().map(|a| a.to_string()));
        v.push(Scenario {
            name: format!("channel add {channel} on {rt}"),
            setup: Box::new(move |root| {
                copy_tree(
                    &repo().join("tests/cli/channel").join(format!("_{rt}")),
                    root,
                )
            }),
            args,
            fake_systemd: false,
        });
    }
    let (meta1, meta2) = (cdn.server.metadata_url(), cdn2.server.metadata_url());
    v.push(Scenario {
        name: "skills sync (first, loopback CDN)".into(),
        setup: Box::new(move |root| skills_device(root, &meta1)),
        args: vec!["skills".into(), "sync".into()],
        fake_systemd: false,
    });
    let meta1 = cdn.server.metadata_url();
    v.push(Scenario {
        name: "skills sync (update, loopback CDN)".into(),
        setup: Box::new(move |root| {
            skills_device(root, &meta1);
            let out = osctl(root).args(["skills", "sync"]).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        }),
        args: vec![
            "skills".into(),
            "sync".into(),
            "--metadata-url".into(),
            meta2,
        ],
        fake_systemd: false,
    });
    v
}

/// openclaw active and enabled; hermes installed (unit file and binary) but stopped.
fn switch_device(root: &Path) {
    write(
        root,
        "root/config/config.json",
        b"{\n  \"httpPort\": 5000,\n  \"agent_runtime\": \"openclaw\",\n  \"llm_model\": \"Auto-AI\"\n}\n",
        0o644,
    );
    write(
        root,
        "etc/systemd/system/openclaw.service",
        b"[Service]\n",
        0o644,
    );
    write(
        root,
        "etc/systemd/system/hermes-gateway.service",
        b"[Service]\n",
        0o644,
    );
    write(root, "usr/local/bin/hermes", b"#!/bin/sh\n", 0o755);
    copy_tree(
        &repo().join("examples/presync/openclaw/root/.openclaw"),
        &root.join("root/.openclaw"),
    );
}

/// A lamp (audio, light) running openclaw, its bootstrap.json naming the loopback CDN.
fn skills_device(root: &Path, metadata_url: &str) {
    write(
        root,
        "root/config/config.json",
        b"{\"agent_runtime\": \"openclaw\", \"device_type\": \"lamp\"}\n",
        0o644,
    );
    write(
        root,
        "root/config/bootstrap.json",
        format!("{{\"metadata_url\": \"{metadata_url}\"}}\n").as_bytes(),
        0o644,
    );
    write(
        root,
        "opt/devices/lamp/ROBOT.md",
        b"---\nname: Lamp\ncapabilities:\n  audio: yes\n  light: yes\n---\n# Lamp\n",
        0o644,
    );
    write(
        root,
        "root/.openclaw/openclaw.json",
        skills_support::OPENCLAW_JSON.as_bytes(),
        0o644,
    );
    // an authored skill osctl must leave alone
    write(
        root,
        "root/.openclaw/workspace/skills/my-own/SKILL.md",
        b"# mine\n",
        0o644,
    );
}

fn publish(cdn: &mut skills_support::Cdn, v: &str) {
    let body = format!("# Audio {v}\nPlay sounds.\n");
    cdn.publish(
        "audio",
        &[
            ("SKILL.md", body.as_bytes()),
            ("scripts/play.py", b"print('play')\n"),
        ],
    );
    cdn.publish(
        "dance",
        &[("SKILL.md", format!("# Dance {v}\n").as_bytes())],
    );
    cdn.publish("camera", &[("SKILL.md", b"# Camera\n")]);
    let extra: &[(&str, &[u8])] = if v == "v1" {
        &[
            ("SKILL.md", b"# Extra\n"),
            ("notes/a.md", b"a\n"),
            ("notes/b.md", b"b\n"),
        ]
    } else {
        &[("SKILL.md", b"# Extra v2\n")]
    };
    cdn.publish("lamp-extra", extra);
    cdn.hook("turn-gate", "# turn-gate\n", "export default () => {};\n");
}

#[test]
fn every_mutating_command_survives_kills_and_converges() {
    let kills = budget("OSCTL_CRASH_KILLS", 300) as usize;
    let seed = seed();
    eprintln!("crash suite: {kills} kills, OSCTL_RELIABILITY_SEED={seed}");
    let mut rng = Rng(seed);
    let mut cdn = skills_support::Cdn::new(false);
    publish(&mut cdn, "v1");
    let mut cdn2 = skills_support::Cdn::new(false);
    publish(&mut cdn2, "v2");
    let scenarios = scenarios(&cdn, &cdn2);
    let sandbox = sandbox();
    let refs: Vec<Reference> = scenarios
        .iter()
        .map(|s| reference(sandbox.path(), s))
        .collect();

    let started = Instant::now();
    let (mut interrupted, mut finished_first, mut converged) = (0usize, 0usize, 0usize);
    let mut torn_found = 0usize;
    let mut temporaries_found = 0usize;
    let mut committed_found = 0usize;
    let mut recover_checks = 0usize;
    let mut failures = Vec::new();
    for i in 0..kills {
        let k = i % scenarios.len();
        let (s, r) = (&scenarios[k], &refs[k]);
        let run = Run::fresh(sandbox.path(), s);
        let outside_before = snapshot_all(&run.outside);
        let how = if (i / scenarios.len()).is_multiple_of(2) {
            let n = 1 + rng.below(r.steps);
            let f = format!("abort-write:{n}");
            let _ = run.command(s, Some(&f)).output().unwrap();
            f
        } else {
            let span = (r.duration.as_micros() as u64 * 3 / 2).max(1);
            let delay = Duration::from_micros(rng.below(span));
            let mut child = run.command(s, None).spawn().unwrap();
            std::thread::sleep(delay);
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
            let _ = child.wait();
            format!("kill -9 after {delay:?}")
        };
        let after_kill = snapshot(&run.root);
        let (bad, temporaries, committed) = torn(&after_kill, r);
        temporaries_found += temporaries;
        committed_found += committed;
        if !bad.is_empty() {
            torn_found += bad.len();
            failures.push(format!(
                "kill {i} ({}, {how}): not wholly old or new after the kill: {bad:?}",
                s.name
            ));
        }
        if !journals(&run.root).is_empty() || run.root.join("var/lib/osctl/switch.json").exists() {
            recover_checks += 1;
            let units = s.fake_systemd.then_some(run.units.as_path());
            if let Err(e) = recover_previews_what_it_does(&run.root, units, sandbox.path()) {
                failures.push(format!("kill {i} ({}, {how}): {e}", s.name));
            }
        }
        let done_already = after_kill == r.once
            && !restorable_journal(&run.root)
            && !run.root.join("var/lib/osctl/switch.json").exists()
            && (!s.fake_systemd || run.units() == r.units_once);
        if done_already {
            finished_first += 1;
        } else {
            interrupted += 1;
        }
        let again = run.command(s, None).output().unwrap();
        if again.status.code() != Some(0) {
            failures.push(format!(
                "kill {i} ({}, {how}): the rerun failed: {}",
                s.name,
                text(&again)
            ));
            continue;
        }
        if committed > 0 {
            // A switch killed after its commit point: the rerun finds the runtime active and has
            // nothing to switch; the reconcile steps it left are `osctl reconcile`'s, which the
            // device runs at boot (and which does nothing when the rerun already converged).
            let out = run
                .command_with(s, &["reconcile".to_string()], None)
                .output()
                .unwrap();
            if out.status.code() != Some(0) {
                failures.push(format!(
                    "kill {i} ({}, {how}): osctl reconcile after the rerun failed: {}",
                    s.name,
                    text(&out)
                ));
                continue;
            }
        }
        let (expected, units) = if done_already {
            (&r.twice, &r.units_twice)
        } else {
            (&r.once, &r.units_once)
        };
        let got = snapshot(&run.root);
        let mut ok = true;
        if &got != expected {
            ok = false;
            failures.push(format!(
                "kill {i} ({}, {how}): the rerun did not converge to the uninterrupted tree\n  {}",
                s.name,
                describe_diff(expected, &got)
            ));
        }
        if s.fake_systemd && &run.units() != units {
            ok = false;
            failures.push(format!(
                "kill {i} ({}, {how}): units {:?}, expected {units:?}",
                s.name,
                run.units()
            ));
        }
        if !journals(&run.root).is_empty() {
            ok = false;
            failures.push(format!("kill {i} ({}, {how}): a journal was left", s.name));
        }
        if let Err(e) = stale_lock_note(&run.root) {
            ok = false;
            failures.push(format!("kill {i} ({}, {how}): {e}", s.name));
        }
        if snapshot_all(&run.outside) != outside_before {
            ok = false;
            failures.push(format!(
                "kill {i} ({}, {how}): a file outside the root changed",
                s.name
            ));
        }
        converged += ok as usize;
    }
    figures(
        "crash",
        &[
            ("scenarios", scenarios.len().to_string()),
            ("kills", kills.to_string()),
            ("interrupted", interrupted.to_string()),
            ("finished_before_kill", finished_first.to_string()),
            ("torn_files", torn_found.to_string()),
            ("pending_temporaries", temporaries_found.to_string()),
            ("committed_before_markers", committed_found.to_string()),
            ("converged_reruns", format!("{converged}/{kills}")),
            ("recover_preview_equals_run", recover_checks.to_string()),
            ("seconds", format!("{:.1}", started.elapsed().as_secs_f64())),
            ("seed", seed.to_string()),
        ],
    );
    assert!(
        failures.is_empty(),
        "{} failure(s) (replay with OSCTL_RELIABILITY_SEED={seed} OSCTL_CRASH_KILLS={kills}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        interrupted >= kills / 2,
        "too few kills landed inside a run ({interrupted} of {kills}): the suite proves little"
    );
}

/// Preview = run for `osctl recover` on the state a kill left: `-v --dry-run recover` changes
/// nothing, and its diff replayed on a copy gives the tree a real `recover` leaves on another
/// copy (`support/patch.rs`). With `units` (the fake systemd's state), each run talks to its own
/// copy of it, so an interrupted switch is converged; without, there is no systemd under the
/// root and its record stays. The copies are removed; `root` is left as the kill left it.
fn recover_previews_what_it_does(
    root: &Path,
    units: Option<&Path>,
    sandbox: &Path,
) -> Result<(), String> {
    use crate::support::patch;
    let work = tempfile::tempdir_in(sandbox).unwrap();
    let cp = |from: &Path, to: &Path| {
        let out = Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(to)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    let [replay, real] = ["replay", "real"].map(|n| work.path().join(n));
    for copy in [&replay, &real] {
        cp(root, copy);
    }
    let n = std::cell::Cell::new(0);
    let osctl = |at: &Path, args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
        cmd.arg("--root")
            .arg(at)
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("OSCTL_FAULT");
        if let Some(units) = units {
            n.set(n.get() + 1);
            let state = work.path().join(format!("units-{}", n.get()));
            cp(units, &state);
            cmd.env("OSCTL_SYSTEMCTL", fake_systemctl())
                .env("FAKE_SYSTEMCTL_DIR", &state)
                .env("FAKE_SYSTEMCTL_ROOT", at);
        }
        cmd.output().unwrap()
    };
    let before = patch::tree(root);
    let preview = osctl(root, &["-v", "--dry-run", "recover"]);
    if patch::tree(root) != before {
        return Err(format!(
            "recover --dry-run changed the device: {}",
            text(&preview)
        ));
    }
    let diff = String::from_utf8_lossy(&preview.stdout).into_owned();
    let run = osctl(&real, &["recover"]);
    if run.status.code() != Some(0) || preview.status.code() != Some(0) {
        return Err(format!(
            "recover exits {:?}, its preview {:?}: {}\n{}",
            run.status.code(),
            preview.status.code(),
            text(&run),
            text(&preview)
        ));
    }
    let problems = patch::replay_differences(&replay, &diff, &real)
        .map_err(|e| format!("recover's {e}\n{diff}"))?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "recover's preview shows another change than it makes:\n  {}\n--- preview: {}{diff}\n--- run: {}",
            problems.join("\n  "),
            text(&preview),
            text(&run)
        ))
    }
}

/// The check behind "any note left is stale" can fail: a note naming this (live) test process is
/// refused, the same pid with another start time (a reused pid) is not, and no note is fine.
#[test]
fn a_live_holders_note_is_not_taken_for_stale() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(stale_lock_note(dir.path()), Ok(()));
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let start: u64 = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .parse()
        .unwrap();
    let note = dir.path().join(LOCK_NOTE);
    std::fs::create_dir_all(note.parent().unwrap()).unwrap();
    let pid = std::process::id();
    let write = |start: u64| {
        let text = format!(
            r#"{{"pid":{pid},"start":{start},"operation":"presync","command":"osctl presync"}}"#
        );
        std::fs::write(&note, text).unwrap();
    };
    write(start);
    assert!(stale_lock_note(dir.path()).is_err());
    write(start + 1);
    assert_eq!(stale_lock_note(dir.path()), Ok(()));
}
