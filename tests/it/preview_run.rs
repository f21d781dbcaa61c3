//! Preview = run: for every command that changes the device, replaying its `--dry-run` diff on a
//! copy of the device must give, byte for byte, the tree the real run leaves.
//!
//! Two sets of cases:
//!
//! - **every mutating golden case** (`tests/cli/**`, found here the way `tests/golden.rs` finds
//!   them): a case whose command changes the device (presync, migrate, switch, reconcile, reset,
//!   recover, mcp add/remove, channel add/remove, skills sync), whatever flags it was recorded
//!   with. Its command is run twice from its `in/` tree: once with `--dry-run` (the diff is
//!   replayed on a fresh copy by `support/patch.rs`) and once for real. A switch runs against the
//!   fake systemctl, so its real run goes through. A new mutating case is covered without a line
//!   here;
//! - **the ordered switch pairs** of the registered runtimes (30 of the six; 42 with the test-only
//!   seventh): the sample device is first switched to each runtime (for real, fake systemd),
//!   then from there to each other runtime, previewed and run.
//!
//! Backups count by name too: the clock is fixed (`OSCTL_TEST_NOW`, as `SOURCE_DATE_EPOCH` fixes
//! it in a release build), so a preview must name the very `<file>.bak-<nanoseconds>` its run
//! writes; file and folder modes count. Secrets are masked in a preview, so a masked line stands for the real line with the same
//! text around each mask (3 and 4 characters are kept of a long secret): the check then tells
//! every line apart but for those characters. (A `--json` plan carrying a hash of each unmasked
//! file would prove the hidden bytes too, but a hash of a file whose other lines are known is a
//! dictionary attack on a weak password; osctl prints none.) A case run with an injected fault
//! (`OSCTL_FAULT`) is skipped: the fault fails the real run on purpose, which no preview can
//! foresee. `osctl recover` is covered like the others: its preview is planned from the decisions
//! its run acts on, so its diff puts back what the run puts back.

use crate::support::golden_tree;
use crate::support::patch;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const NOW: &str = "1767225600";

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Copies a tree as the golden harness does (modes as a fresh clone has them).
fn copy_tree(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to).unwrap();
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else if entry.file_name() != ".keep" {
            std::fs::copy(entry.path(), &dest).unwrap();
            let exec = entry.metadata().unwrap().permissions().mode() & 0o111 != 0;
            let mode = if exec { 0o755 } else { 0o644 };
            std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

/// Copies a tree exactly (modes kept): a device a real run left.
fn clone_tree(from: &Path, to: &Path) {
    let out = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

struct Run<'a> {
    root: &'a Path,
    args: &'a [String],
    env: &'a [(String, String)],
    stdin: Option<&'a str>,
    /// The fake systemd's state folder, when the command talks to systemd.
    systemd: Option<&'a Path>,
}

fn osctl(r: &Run<'_>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.args(r.args)
        .current_dir(r.root)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(if r.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in r.env {
        cmd.env(k, v.replace("[ROOT]", &r.root.to_string_lossy()));
    }
    if let Some(state) = r.systemd {
        std::fs::create_dir_all(state).unwrap();
        cmd.env(
            "OSCTL_SYSTEMCTL",
            manifest().join("tests/support/fake-systemctl"),
        )
        .env("FAKE_SYSTEMCTL_DIR", state)
        .env("FAKE_SYSTEMCTL_ROOT", r.root);
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = r.stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// How a preview and a run of the same command compared.
enum Verdict {
    Same,
    Differs(String),
}

/// Runs `args` (without preview flags) as a preview on one copy of `input` and for real on
/// another, replays the preview on a third, and compares.
fn compare(
    input: &Path,
    args: &[String],
    env: &[(String, String)],
    stdin: Option<&str>,
    systemd: Option<&Path>,
) -> Verdict {
    let sandbox = tempfile::tempdir().unwrap();
    let [preview_root, run_root, replay_root] =
        ["preview", "run", "replay"].map(|n| sandbox.path().join(n));
    for r in [&preview_root, &run_root, &replay_root] {
        clone_tree(input, r);
    }
    // The fake systemd starts from the same state for each.
    let state = |name: &str| {
        systemd.map(|s| {
            let dest = sandbox.path().join(name);
            clone_tree(s, &dest);
            dest
        })
    };
    let (preview_state, run_state) = (state("preview-systemd"), state("run-systemd"));

    let mut preview_args = args.to_vec();
    preview_args.insert(command_index(args), "--dry-run".into());
    // A reset lists what it deletes; -v adds the diff.
    preview_args.insert(command_index(args), "-v".into());
    let before = patch::tree(&preview_root);
    let preview = osctl(&Run {
        root: &preview_root,
        args: &preview_args,
        env,
        stdin,
        systemd: preview_state.as_deref(),
    });
    if patch::tree(&preview_root) != before {
        return Verdict::Differs(format!(
            "the preview changed the device\n{}",
            show(&preview)
        ));
    }
    let real = osctl(&Run {
        root: &run_root,
        args,
        env,
        stdin,
        systemd: run_state.as_deref(),
    });
    let (p_exit, r_exit) = (preview.status.code(), real.status.code());
    if r_exit != Some(0) && r_exit != p_exit {
        return Verdict::Differs(format!(
            "the run exits {r_exit:?}, its preview {p_exit:?}\n--- preview: {}\n--- run: {}",
            show(&preview),
            show(&real)
        ));
    }
    let diff = String::from_utf8_lossy(&preview.stdout);
    let problems = match patch::replay_differences(&replay_root, &diff, &run_root) {
        Ok(problems) => problems,
        Err(e) => return Verdict::Differs(format!("{e}\n{}", show(&preview))),
    };
    if problems.is_empty() {
        Verdict::Same
    } else {
        Verdict::Differs(format!(
            "{}\n--- preview: {}\n--- run: {}",
            problems.join("\n"),
            show(&preview),
            show(&real)
        ))
    }
}

/// Global flags that take a value.
const VALUED: &[&str] = &["--root", "--lock-timeout", "--color"];

/// Where the subcommand starts in `args`.
fn command_index(args: &[String]) -> usize {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if VALUED.contains(&a) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return i;
        }
    }
    args.len()
}

/// The subcommand, as one or two words, when it is one that changes the device.
fn mutating(args: &[String]) -> Option<String> {
    let i = command_index(args);
    let words: Vec<&str> = args[i..].iter().take(2).map(String::as_str).collect();
    let name = match words.as_slice() {
        [
            "presync" | "migrate" | "switch" | "reconcile" | "reset" | "recover" | "setup",
            ..,
        ] => words[0].to_string(),
        [group @ ("mcp" | "channel"), sub @ ("add" | "remove"), ..] => format!("{group} {sub}"),
        ["skills", "sync", ..] => "skills sync".into(),
        _ => return None,
    };
    Some(name)
}

/// The command line without the flags that make it a preview or change its output.
fn as_run(args: &[String], command: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dry-run" | "-n" | "--check" | "--json" | "-q" | "-v" | "-vv" => {}
            "--settle" => {
                it.next();
            }
            _ => out.push(a.clone()),
        }
    }
    match command {
        // The settle window is a wait, not a change.
        "switch" => out.extend(["--settle".into(), "0".into()]),
        // A preview asks nothing; the run it previews is the confirmed one.
        "reset" if !out.iter().any(|a| a == "--yes" || a == "-y") => out.push("--yes".into()),
        _ => {}
    }
    out
}

struct Case {
    name: String,
    dir: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<String>,
}

fn golden_cases() -> Vec<Case> {
    let root = manifest().join("tests/cli");
    let filter = std::env::var("OSCTL_CASE").unwrap_or_default();
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_name() != "cmd.toml" {
            continue;
        }
        let dir = entry.path().parent().unwrap();
        let name = dir.strip_prefix(&root).unwrap().display().to_string();
        if !name.contains(&filter) {
            continue;
        }
        let doc: toml_edit::DocumentMut = std::fs::read_to_string(entry.path())
            .unwrap()
            .parse()
            .unwrap();
        let args = doc["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let env = doc
            .get("env")
            .and_then(|v| v.as_table_like())
            .map(|t| {
                t.iter()
                    .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        out.push(Case {
            name,
            dir: dir.to_path_buf(),
            args,
            env,
            stdin: doc
                .get("stdin")
                .and_then(|v| v.as_str())
                .map(str::to_string),
        });
    }
    out
}

#[test]
fn every_mutating_golden_case_previews_what_it_does() {
    let mut same = 0;
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    let cases = golden_cases();
    for case in &cases {
        // Its expected tree (the input with its delta applied) differs from its input.
        let changes = golden_tree::expected_tree(&case.dir)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name))
            != golden_tree::plain(
                &golden_tree::input_tree(&case.dir)
                    .unwrap_or_else(|e| panic!("{}: {e}", case.name)),
            );
        let Some(command) = mutating(&case.args) else {
            assert!(
                !changes,
                "{}: changes the device but is not known as mutating here",
                case.name
            );
            continue;
        };
        if case.env.iter().any(|(k, _)| k == "OSCTL_FAULT") {
            skipped.push(format!("{} (an injected fault)", case.name));
            continue;
        }
        let sandbox = tempfile::tempdir().unwrap();
        let input = sandbox.path().join("in");
        golden_tree::write_input(&case.dir, &input).unwrap();
        let systemd = (command == "switch").then(|| sandbox.path().join("systemd"));
        if let Some(s) = &systemd {
            std::fs::create_dir_all(s).unwrap();
        }
        let mut env = case.env.clone();
        if !env.iter().any(|(k, _)| k == "OSCTL_TEST_NOW") {
            env.push(("OSCTL_TEST_NOW".into(), NOW.into()));
        }
        let args = as_run(&case.args, &command);
        match compare(
            &input,
            &args,
            &env,
            case.stdin.as_deref(),
            systemd.as_deref(),
        ) {
            Verdict::Same => same += 1,
            Verdict::Differs(why) => {
                failures.push(format!("=== {} ({})\n{why}", case.name, args.join(" ")))
            }
        }
    }
    eprintln!(
        "preview = run: {same} golden cases agree, {} skipped: {}",
        skipped.len(),
        skipped.join(", ")
    );
    assert!(
        failures.is_empty(),
        "{} of {} mutating golden cases preview something else than they do:\n\n{}",
        failures.len(),
        failures.len() + same,
        failures.join("\n\n")
    );
    assert!(same > 0 || !std::env::var("OSCTL_CASE").unwrap_or_default().is_empty());
}

/// Every registered runtime (the test-only seventh too, under `--features test-runtime`).
use osctl::runtime::NAMES as RUNTIMES;

/// The sample device switched (for real, fake systemd) to `rt`: its tree and systemd state.
fn device_on(rt: &str, dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join(format!("{rt}-device"));
    let state = dir.join(format!("{rt}-systemd"));
    copy_tree(&manifest().join("examples/device"), &root);
    std::fs::create_dir_all(&state).unwrap();
    for (k, v) in [("active", "active"), ("enabled", "enabled")] {
        std::fs::write(
            state.join(format!("hermes-gateway.service.{k}")),
            format!("{v}\n"),
        )
        .unwrap();
    }
    if rt != "hermes" {
        let args: Vec<String> = ["--root", ".", "switch", rt, "--settle", "0"]
            .map(String::from)
            .to_vec();
        let env = [("OSCTL_TEST_NOW".to_string(), NOW.to_string())];
        let out = osctl(&Run {
            root: &root,
            args: &args,
            env: &env,
            stdin: None,
            systemd: Some(&state),
        });
        assert_eq!(out.status.code(), Some(0), "switch to {rt}: {}", show(&out));
        let _ = std::fs::remove_file(state.join("calls"));
    }
    (root, state)
}

#[test]
fn every_switch_pair_previews_what_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut same = 0;
    let env = [("OSCTL_TEST_NOW".to_string(), NOW.to_string())];
    let devices: BTreeMap<&str, (PathBuf, PathBuf)> = RUNTIMES
        .iter()
        .map(|rt| (*rt, device_on(rt, dir.path())))
        .collect();
    for from in RUNTIMES {
        for to in RUNTIMES.iter().filter(|t| **t != from) {
            let (root, state) = &devices[from];
            let args: Vec<String> = ["--root", ".", "switch", to, "--settle", "0"]
                .map(String::from)
                .to_vec();
            match compare(root, &args, &env, None, Some(state)) {
                Verdict::Same => same += 1,
                Verdict::Differs(why) => failures.push(format!("=== {from} -> {to}\n{why}")),
            }
        }
    }
    let pairs = RUNTIMES.len() * (RUNTIMES.len() - 1);
    eprintln!("preview = run: {same} of {pairs} switch pairs agree");
    assert!(
        failures.is_empty(),
        "{} of {pairs} switch pairs preview something else than they do:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(same, pairs);
}

/// The sample device (hermes) previewed a switch to codex with `root/.codex/.env` twice (the
/// second time as a new 2-line file, where the run leaves 7 lines), a switch to openclaw with
/// KNOWLEDGE.md, AGENTS.md and HEARTBEAT.md twice as new files, and persona counts the run did not
/// reach: the reconcile steps were planned on the files as they were before the switch's presync.
#[test]
fn regression_switch_preview_planned_reconcile_before_presync() {
    let dir = tempfile::tempdir().unwrap();
    let (root, state) = device_on("hermes", dir.path());
    let env = [("OSCTL_TEST_NOW".to_string(), NOW.to_string())];
    for to in ["codex", "openclaw"] {
        let args: Vec<String> = ["--root", ".", "switch", to, "--settle", "0"]
            .map(String::from)
            .to_vec();
        if let Verdict::Differs(why) = compare(&root, &args, &env, None, Some(&state)) {
            panic!("hermes -> {to}:\n{why}");
        }
        // The persona step reports the same counts in the preview and in the run.
        let scratch = dir.path().join(format!("scratch-{to}"));
        let persona_line = |preview: bool| {
            let _ = std::fs::remove_dir_all(&scratch);
            clone_tree(&root, &scratch);
            let systemd = dir.path().join(format!("systemd-{to}-{preview}"));
            clone_tree(&state, &systemd);
            let mut a = args.clone();
            if preview {
                a.insert(2, "--dry-run".into());
            }
            let out = osctl(&Run {
                root: &scratch,
                args: &a,
                env: &env,
                stdin: None,
                systemd: Some(&systemd),
            });
            let text = String::from_utf8_lossy(if preview { &out.stdout } else { &out.stderr })
                .into_owned();
            text.lines()
                .find_map(|l| {
                    l.trim_start_matches("# ")
                        .strip_prefix("reconcile persona: ")
                })
                .map(str::to_string)
                .unwrap_or_else(|| panic!("no persona line: {}", show(&out)))
        };
        assert_eq!(persona_line(true), persona_line(false), "hermes -> {to}");
    }
}
