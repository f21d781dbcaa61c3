//! The MCP carry-over of a switch, from each runtime to each other runtime.
//!
//! A switch, after its commit point, sets `agent_runtime` to the new runtime and then runs the
//! reconcilers; `mcp_applied_runtime` still names the old one. Each pair starts from the fixture
//! device of the golden cases (every runtime's native file with comments and a `docs` server),
//! adds two servers to the old runtime with `osctl mcp add` (a stdio one with env, a remote one
//! with a bearer header), points `agent_runtime` at the new runtime and runs
//! `osctl reconcile --only mcp` with a fake systemctl. The new runtime must then list the same
//! canonical entries (read back from its own file), keep its comments, restart its unit, and the
//! marker must name it; a second run must find nothing to do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// Every registered runtime (the test-only seventh too, under `--features test-runtime`).
use osctl::runtime::NAMES as RUNTIMES;

use crate::support::registry;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/mcp/_device")
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

struct Device {
    _dir: tempfile::TempDir,
    root: PathBuf,
    systemctl_log: PathBuf,
    systemctl: PathBuf,
}

fn device() -> Device {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("device");
    copy_tree(&fixture(), &root);
    let systemctl_log = dir.path().join("systemctl.log");
    let systemctl = dir.path().join("systemctl");
    std::fs::write(
        &systemctl,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\n", systemctl_log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&systemctl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let d = Device {
        _dir: dir,
        root,
        systemctl_log,
        systemctl,
    };
    // A registered runtime whose file the fixture lacks (the test-only one) gets the fixture's
    // `docs` server from `osctl mcp add`, the canonical entry every fixture file holds.
    for rt in RUNTIMES {
        if !d.root.join(file_of(rt)).exists() {
            let out = osctl(
                &d,
                &[
                    "mcp",
                    "add",
                    "docs",
                    "--runtime",
                    rt,
                    "--allow-uninstalled",
                    "--url",
                    "https://docs.example.com/mcp",
                    "--header",
                    "X-Team=docs",
                ],
                None,
            );
            ok(&out, &format!("mcp add docs --runtime {rt}"));
        }
    }
    d
}

fn osctl(d: &Device, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.arg("--root")
        .arg(&d.root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("OSCTL_SYSTEMCTL", &d.systemctl)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

fn ok(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout: {}\nstderr: {stderr}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

fn set_config(d: &Device, key: &str, value: &str) {
    let p = d.root.join("root/config/config.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    v[key] = json!(value);
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

fn config(d: &Device) -> Value {
    serde_json::from_str(&std::fs::read_to_string(d.root.join("root/config/config.json")).unwrap())
        .unwrap()
}

/// name → canonical entry, as `osctl mcp list --json` reads them from the runtime's own file.
fn listed(d: &Device, rt: &str) -> serde_json::Map<String, Value> {
    let out = osctl(d, &["--json", "mcp", "list", "--runtime", rt], None);
    ok(&out, "mcp list");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s["entry"].clone()))
        .collect()
}

fn unit(rt: &str) -> &str {
    if rt == "hermes" { "hermes-gateway" } else { rt }
}

/// The runtime's MCP file: the contract's for the six, the registry's for any other.
fn file_of(rt: &str) -> String {
    match rt {
        "openclaw" => "root/.openclaw/openclaw.json".into(),
        "hermes" => "root/.hermes/config.yaml".into(),
        "picoclaw" => "root/.picoclaw/config.json".into(),
        "codex" => "root/.codex/config.toml".into(),
        "claudecode" => "root/.claudecode/workspace/.mcp.json".into(),
        "opencode" => "root/.config/opencode/opencode.json".into(),
        _ => registry::dev_path(registry::spec(rt).mcp.file),
    }
}

/// The native MCP file and a comment it carries in the fixture (openclaw JSON5, hermes YAML,
/// codex TOML, opencode JSONC); picoclaw and Claude Code files are strict JSON.
fn comment_of(rt: &str) -> Option<(&'static str, &'static str)> {
    match rt {
        "openclaw" => Some(("root/.openclaw/openclaw.json", "// the team's docs server")),
        "hermes" => Some(("root/.hermes/config.yaml", "# the team's docs server")),
        "codex" => Some(("root/.codex/config.toml", "# the team's docs server")),
        "opencode" => Some((
            "root/.config/opencode/opencode.json",
            "// the team's docs server",
        )),
        _ => None,
    }
}

#[test]
fn mcp_servers_are_carried_from_every_runtime_to_every_other() {
    let token = "Bearer ntn_live_0123456789abcdefghij";
    let mut pairs = 0;
    for from in RUNTIMES {
        for to in RUNTIMES {
            if from == to {
                continue;
            }
            let d = device();
            ok(
                &osctl(
                    &d,
                    &[
                        "mcp",
                        "add",
                        "fake",
                        "--runtime",
                        from,
                        // The device has no unit files: the runtimes count as not installed.
                        "--allow-uninstalled",
                        "--env",
                        "FAKE_MODE=echo",
                        "--",
                        "/usr/bin/python3",
                        "/opt/fake-mcp.py",
                        "--quiet",
                    ],
                    None,
                ),
                "mcp add fake",
            );
            ok(
                &osctl(
                    &d,
                    &[
                        "mcp",
                        "add",
                        "notion",
                        "--runtime",
                        from,
                        "--replace",
                        "--allow-uninstalled",
                        "--url",
                        "https://mcp.notion.com/mcp",
                        "--header-file",
                        "-",
                    ],
                    Some(&format!("Authorization: {token}\n")),
                ),
                "mcp add notion",
            );
            let source = listed(&d, from);
            assert_eq!(source.len(), 3, "{from}: {source:?}");
            set_config(&d, "agent_runtime", to);
            set_config(&d, "mcp_applied_runtime", from);
            std::fs::write(&d.systemctl_log, "").unwrap();

            let out = osctl(&d, &["--json", "reconcile", "--only", "mcp"], None);
            let stderr = ok(&out, &format!("reconcile {from} -> {to}"));
            assert!(
                !stderr.contains("ntn_live_0123456789abcdefghij")
                    && !String::from_utf8_lossy(&out.stdout)
                        .contains("ntn_live_0123456789abcdefghij"),
                "{from} -> {to}: the token leaked"
            );
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                doc["steps"][0]["status"], "reconciled",
                "{from} -> {to}: {doc}"
            );

            // The new runtime lists the same canonical entries.
            let target = listed(&d, to);
            for name in ["fake", "notion", "docs"] {
                assert_eq!(target.get(name), source.get(name), "{from} -> {to}: {name}");
            }
            // Output masks the token; the file holds it.
            let native = std::fs::read_to_string(d.root.join(file_of(to))).unwrap();
            assert!(native.contains(token), "{from} -> {to}: {native}");
            if let Some((file, comment)) = comment_of(to) {
                let text = std::fs::read_to_string(d.root.join(file)).unwrap();
                assert!(
                    text.contains(comment),
                    "{from} -> {to}: comment lost\n{text}"
                );
            }
            assert_eq!(config(&d)["mcp_applied_runtime"], to, "{from} -> {to}");
            let log = std::fs::read_to_string(&d.systemctl_log).unwrap();
            assert!(
                log.contains(&format!("try-restart {}.service", unit(to))),
                "{from} -> {to}: systemctl saw {log:?}"
            );

            // Guarded: the second run has nothing to do.
            let out = osctl(&d, &["--json", "reconcile", "--only", "mcp"], None);
            ok(&out, "second reconcile");
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(doc["steps"][0]["status"], "up-to-date", "{from} -> {to}");
            assert_eq!(doc["changed"], false, "{from} -> {to}");
            pairs += 1;
        }
    }
    assert_eq!(pairs, RUNTIMES.len() * (RUNTIMES.len() - 1));
}

#[test]
fn first_run_records_a_baseline_and_a_broken_source_leaves_the_marker() {
    let d = device();
    let p = d.root.join("root/config/config.json");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace("  \"mcp_applied_runtime\": \"hermes\",\n", ""),
    )
    .unwrap();
    set_config(&d, "agent_runtime", "codex");
    let out = osctl(&d, &["--json", "reconcile", "--only", "mcp"], None);
    ok(&out, "baseline");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["steps"][0]["status"], "baseline");
    assert_eq!(config(&d)["mcp_applied_runtime"], "codex");
    assert_eq!(
        listed(&d, "codex").len(),
        1,
        "nothing carried on a baseline"
    );

    // A source that cannot be parsed fails the step and keeps the marker for a retry.
    set_config(&d, "agent_runtime", "opencode");
    let yaml = d.root.join("root/.codex/config.toml");
    std::fs::write(&yaml, "[mcp_servers.docs\nurl = 1\n").unwrap();
    let out = osctl(&d, &["--json", "reconcile", "--only", "mcp"], None);
    assert_eq!(out.status.code(), Some(1));
    // (`reconcile --json` prints its report, then the error document: read the first.)
    let doc: Value = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(doc["steps"][0]["status"], "failed", "{doc}");
    assert_eq!(config(&d)["mcp_applied_runtime"], "codex");
}

#[test]
fn entries_a_target_refuses_are_left_behind_with_a_warning() {
    let d = device();
    ok(
        &osctl(
            &d,
            &[
                "mcp",
                "add",
                "py",
                "--runtime",
                "hermes",
                "--env",
                "PYTHONPATH=/opt/lib",
                "--",
                "python3",
                "-m",
                "srv",
            ],
            None,
        ),
        "add",
    );
    set_config(&d, "agent_runtime", "openclaw");
    let out = osctl(&d, &["reconcile", "--only", "mcp"], None);
    let stderr = ok(&out, "reconcile");
    assert!(
        stderr.contains("`py` is not carried to openclaw"),
        "{stderr}"
    );
    assert!(stderr.contains("left behind: py"), "{stderr}");
    assert!(!listed(&d, "openclaw").contains_key("py"));
    assert_eq!(config(&d)["mcp_applied_runtime"], "openclaw");
}
