//! `osctl mcp add` checked by the real runtimes (tests/oracles): after osctl writes a stdio server
//! (with env) and a remote one (with headers) into each installable runtime's own file, the
//! runtime itself must list both with the intended command, args, env, URL and headers, next to
//! the entry and the comments that were there before.
//!
//! The device's agent home is the runtimes' HOME: `/root/.openclaw/openclaw.json`,
//! `/root/.codex/config.toml`, `/root/.hermes/config.yaml` and
//! `/root/.config/opencode/opencode.json` are where each runtime looks under `HOME=<root>/root`.
//! Claude Code's device file is the project file `workspace/.mcp.json`, so it is asked from that
//! folder (`claude mcp get NAME` run there).
//!
//! The oracles are installed by `tests/oracles/install.sh` under
//! `${OSCTL_ORACLES_DIR:-~/.cache/osctl-oracles}`. Without them this test says so and passes;
//! with `CI=true` (or `OSCTL_REQUIRE_ORACLES=1`) it fails. PicoClaw has no installable release
//! (tests/oracles/README.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn oracles_dir() -> PathBuf {
    std::env::var_os("OSCTL_ORACLES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/osctl-oracles")
        })
}

/// Whether the oracles can run here; otherwise a note, or a failure in CI.
fn oracles_present() -> bool {
    let out = Command::new("bash")
        .arg(repo().join("tests/oracles/oracle.sh"))
        .arg("available")
        .env("OSCTL_ORACLES_DIR", oracles_dir())
        .output()
        .unwrap();
    if out.status.success() {
        return true;
    }
    let why = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("OSCTL_REQUIRE_ORACLES").is_ok_and(|v| v == "1")
    {
        panic!("the runtime oracles are required in CI: {why}");
    }
    eprintln!("note: skipping the runtime oracles: {why}");
    false
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

fn osctl(root: &Path, args: &[&str], stdin: &str) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "osctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const TOKEN: &str = "Bearer osctl_oracle_0123456789abcdef";

/// A device whose `rt` has the fixture's `docs` server (pointed at loopback, since Claude Code
/// dials URLs it lists) plus `fake` and `web` added by osctl.
fn device(rt: &str, fake_mcp: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("device");
    copy_tree(&repo().join("tests/cli/mcp/_installed"), &root);
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let text = text.replace("https://docs.example.com/mcp", "http://127.0.0.1:9/docs");
            std::fs::write(entry.path(), text).unwrap();
        }
    }
    let fake = fake_mcp.to_string_lossy();
    osctl(
        &root,
        &[
            "mcp",
            "add",
            "fake",
            "--runtime",
            rt,
            "--env",
            "FAKE_MODE=echo",
            "--env-file",
            "-",
            "--",
            "/usr/bin/python3",
            &fake,
        ],
        "FAKE_TOKEN=tok_0123456789abcdefghijkl\n",
    );
    osctl(
        &root,
        &[
            "mcp",
            "add",
            "web",
            "--runtime",
            rt,
            "--url",
            "http://127.0.0.1:9/mcp",
            "--header",
            "X-Team=osctl",
            "--header-file",
            "-",
        ],
        &format!("Authorization: {TOKEN}\n"),
    );
    (dir, root)
}

/// What the runtime resolved, in tests/oracles/lib.sh's `<rt>_resolved` form.
fn resolved(oracle: &str, home: &Path) -> Value {
    let out = Command::new("bash")
        .arg(repo().join("tests/oracles/oracle.sh"))
        .args(["resolved", oracle])
        .arg(home)
        .env("OSCTL_ORACLES_DIR", oracles_dir())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "{oracle}: no resolved view ({e}): {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `tests/oracles/oracle.sh validate`: the runtime accepts the file and lists these servers.
fn validate(oracle: &str, home: &Path, names: &[&str]) {
    let out = Command::new("bash")
        .arg(repo().join("tests/oracles/oracle.sh"))
        .args(["validate", oracle])
        .arg(home)
        .args(names)
        .env("OSCTL_ORACLES_DIR", oracles_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{oracle}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Claude Code's view of the project `.mcp.json`: `claude mcp get NAME`, run in the workspace,
/// parsed as tests/oracles/lib.sh's `claude_resolved` parses it.
fn claude_project(home: &Path, names: &[&str]) -> Value {
    let ws = home.join(".claudecode/workspace");
    let o = oracles_dir();
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        o.join("node24/bin").display(),
        o.join("bin").display()
    );
    let mut servers = serde_json::Map::new();
    for name in names {
        let out = Command::new("timeout")
            .args(["-k", "5", "60", "claude", "mcp", "get", name])
            .current_dir(&ws)
            .env_clear()
            .env("HOME", home)
            .env("PATH", &path)
            .env("TMPDIR", o.join("tmp"))
            .env("NO_COLOR", "1")
            .env("TERM", "dumb")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("MCP_TIMEOUT", "3000")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut r = serde_json::Map::new();
        let mut section: Option<&str> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("  ").filter(|l| !l.starts_with(' '))
                && let Some((k, v)) = rest.split_once(':')
            {
                let v = v.trim();
                section = None;
                match k {
                    "Type" => {
                        r.insert("transport".into(), v.into());
                    }
                    "Command" => {
                        r.insert("command".into(), v.into());
                    }
                    "Args" => {
                        r.insert("args".into(), json!(v.split(' ').collect::<Vec<_>>()));
                    }
                    "URL" => {
                        r.insert("url".into(), v.into());
                    }
                    "Environment" => section = Some("env"),
                    "Headers" => section = Some("headers"),
                    _ => {}
                }
                if let Some(s) = section {
                    r.insert(s.into(), json!({}));
                }
                continue;
            }
            if let (Some(s), Some(item)) = (section, line.strip_prefix("    ")) {
                let (k, v) = match item.split_once('=') {
                    Some((k, v)) if s == "env" => (k, v),
                    _ => item.split_once(": ").unwrap_or((item, "")),
                };
                r.get_mut(s).unwrap()[k] = json!(v);
            }
        }
        if r.is_empty() {
            panic!("claude mcp get {name} in {}: {text}", ws.display());
        }
        servers.insert(name.to_string(), Value::Object(r));
    }
    json!({"runtime": "claude", "mcp": servers})
}

#[test]
fn the_real_runtimes_list_what_osctl_mcp_add_wrote() {
    if !oracles_present() {
        return;
    }
    let fake_mcp = oracles_dir().join("bin/fake-mcp.py");
    let runtimes = [
        ("openclaw", "openclaw"),
        ("codex", "codex"),
        ("hermes", "hermes"),
        ("opencode", "opencode"),
        ("claudecode", "claude"),
    ];
    // One thread per runtime: openclaw alone takes most of a minute on a busy machine.
    let results: Vec<(String, Value, tempfile::TempDir)> = std::thread::scope(|s| {
        let handles: Vec<_> = runtimes
            .iter()
            .map(|&(rt, oracle)| {
                let fake_mcp = fake_mcp.clone();
                s.spawn(move || {
                    let (dir, root) = device(rt, &fake_mcp);
                    let home = root.join("root");
                    if oracle == "hermes" {
                        // Hermes falls back to its defaults on a file it cannot load: also
                        // parse strictly and run its own entry checks.
                        validate(oracle, &home, &["docs", "fake", "web"]);
                    }
                    let view = if oracle == "claude" {
                        claude_project(&home, &["docs", "fake", "web"])
                    } else {
                        resolved(oracle, &home)
                    };
                    (rt.to_string(), view, dir)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (rt, view, _dir) in &results {
        let before = failures.len();
        let mcp = &view["mcp"];
        let mut check = |what: &str, got: &Value, want: Value| {
            if *got != want {
                failures.push(format!("{rt}: {what}: got {got}, want {want}"));
            }
        };
        check(
            "docs listed",
            &json!(mcp.get("docs").is_some()),
            json!(true),
        );
        let fake = &mcp["fake"];
        check("fake transport", &fake["transport"], json!("stdio"));
        check("fake command", &fake["command"], json!("/usr/bin/python3"));
        check(
            "fake args",
            &fake["args"],
            json!([fake_mcp.to_string_lossy()]),
        );
        // opencode masks secret-looking values (headers, a token in env) in what it prints.
        let secret = |v: &str| {
            if rt == "opencode" {
                "***".to_string()
            } else {
                v.to_string()
            }
        };
        check(
            "fake env",
            &fake["env"],
            json!({"FAKE_MODE": "echo", "FAKE_TOKEN": secret("tok_0123456789abcdefghijkl")}),
        );
        let web = &mcp["web"];
        check("web transport", &web["transport"], json!("http"));
        check("web url", &web["url"], json!("http://127.0.0.1:9/mcp"));
        let headers = if rt == "opencode" {
            json!({"X-Team": "***", "Authorization": "***"})
        } else {
            json!({"X-Team": "osctl", "Authorization": TOKEN})
        };
        check("web headers", &web["headers"], headers);
        if !["claudecode"].contains(&rt.as_str()) {
            for name in ["fake", "web"] {
                let enabled = mcp[name].get("enabled").cloned().unwrap_or(json!(true));
                check(&format!("{name} enabled"), &enabled, json!(true));
            }
        }
        if failures.len() == before {
            eprintln!("{rt}: the runtime lists docs, fake and web as osctl wrote them");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
