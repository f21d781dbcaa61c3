//! The real runtimes judge presync: for five runtimes and every `llm_config_mode`, osctl
//! presyncs the golden sample device (`tests/cli/presync/<rt>-<mode>/in`), then the runtime's own
//! release (installed by `tests/oracles/install.sh`) loads the result offline and reports what it
//! resolved: model, provider, base URL and MCP servers, compared with what osctl meant to write.
//! (PicoClaw has no installable package: `tests/it/presync_picoclaw_schema.rs` checks its files
//! against docs/device-contract.md §2.3 instead.)
//!
//! Gate: without the oracles under `${OSCTL_ORACLES_DIR:-~/.cache/osctl-oracles}` each test
//! prints `SKIP` and passes, unless `CI=true` or `OSCTL_REQUIRE_ORACLES=1`, where it fails (CI
//! installs them). Each runtime's calls take seconds (openclaw: tens of seconds): the tests are
//! slow by nature, not by sleeping.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

const REPO: &str = env!("CARGO_MANIFEST_DIR");
/// The stdio MCP server of the sample devices, replaced by the oracle harness' fake server.
const FAKE_MCP: &str = "/usr/local/bin/fake-mcp";

fn oracles_dir() -> PathBuf {
    match std::env::var_os("OSCTL_ORACLES_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/osctl-oracles")
        }
    }
}

fn oracle_sh() -> PathBuf {
    Path::new(REPO).join("tests/oracles/oracle.sh")
}

/// `Some(prefix)` when the oracles are installed; otherwise skip (or fail in CI).
fn require_oracles(what: &str) -> Option<PathBuf> {
    let dir = oracles_dir();
    let out = Command::new("bash")
        .arg(oracle_sh())
        .arg("available")
        .env("ORACLES", &dir)
        .output()
        .expect("run oracle.sh");
    if out.status.success() {
        return Some(dir);
    }
    let why = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let required = std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("OSCTL_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    if required {
        panic!("{what}: the runtime oracles are required here but unavailable: {why}");
    }
    eprintln!("SKIP {what}: {why} (tests/oracles/install.sh installs them)");
    None
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.file_name() != ".keep" {
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// Replaces text in every UTF-8 file under `root`.
fn rewrite(root: &Path, pairs: &[(&str, String)]) {
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let mut new = text.clone();
        for (from, to) in pairs {
            new = new.replace(from, to);
        }
        if new != text {
            std::fs::write(entry.path(), new).unwrap();
        }
    }
}

fn osctl(root: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn oracle(oracles: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("bash")
        .arg(oracle_sh())
        .args(args)
        .env("ORACLES", oracles)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Runs a shell snippet with `lib.sh` sourced (for `_oracle_run` and friends).
fn oracle_bash(oracles: &Path, script: &str) -> (bool, String) {
    let lib = Path::new(REPO).join("tests/oracles/lib.sh");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("source '{}'; {script}", lib.display()))
        .env("ORACLES", oracles)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A presynced device and the HOME the runtime reads: the device's `/root` with absolute
/// `/root/` (and openclaw's `/var/log`) paths pointed into the copy.
struct Run {
    _dir: tempfile::TempDir,
    device: PathBuf,
    home: PathBuf,
}

fn presync(oracles: &Path, rt: &str, mode: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let device = dir.path().join("device");
    let case = Path::new(REPO).join(format!("tests/cli/presync/{rt}-{mode}/in"));
    copy_tree(&case, &device);
    let out = osctl(&device, &["presync", rt]);
    assert!(
        out.status.success(),
        "osctl presync {rt} ({mode}) failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = osctl(&device, &["--check", "presync", rt]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{rt} ({mode}): a second presync would change something"
    );
    let home = dir.path().join("home");
    copy_tree(&device.join("root"), &home);
    let h = home.display().to_string();
    rewrite(
        &home,
        &[
            ("/var/log/openclaw", format!("{h}/log")),
            ("/root/", format!("{h}/")),
        ],
    );
    // After the /root/ rewrite: the oracles may live under /root themselves.
    let fake = oracles.join("bin/fake-mcp.py").display().to_string();
    rewrite(&home, &[(FAKE_MCP, fake)]);
    Run {
        _dir: dir,
        device,
        home,
    }
}

fn validate(oracles: &Path, runtime: &str, home: &Path, names: &[&str]) {
    let mut args = vec!["validate", runtime];
    let h = home.display().to_string();
    args.push(&h);
    args.extend_from_slice(names);
    let (ok, text) = oracle(oracles, &args);
    assert!(
        ok && text.starts_with("OK"),
        "{runtime} rejected presync's files: {text}"
    );
}

fn resolved(oracles: &Path, runtime: &str, home: &Path) -> Value {
    let h = home.display().to_string();
    let (ok, text) = oracle(oracles, &["resolved", runtime, &h]);
    assert!(ok, "{runtime} resolver failed: {text}");
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or("{}");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{runtime}: {e}: {text}"))
}

/// The two MCP servers of every sample device, as the runtime resolved them.
fn assert_mcp(rt: &str, got: &Value, oracles: &Path) {
    let fake = oracles.join("bin/fake-mcp.py").display().to_string();
    let mcp = &got["mcp"];
    assert_eq!(mcp["fake"]["transport"], "stdio", "{rt}: {got}");
    assert_eq!(mcp["fake"]["command"], json!(fake), "{rt}: {got}");
    assert_eq!(mcp["docs"]["transport"], "http", "{rt}: {got}");
    assert_eq!(mcp["docs"]["url"], "http://127.0.0.1:9/mcp", "{rt}: {got}");
}

const MODES: [&str; 3] = ["legacy", "os", "runtime"];

#[test]
fn openclaw_accepts_presync() {
    let Some(oracles) = require_oracles("openclaw oracle") else {
        return;
    };
    for mode in MODES {
        let run = presync(&oracles, "openclaw", mode);
        validate(&oracles, "openclaw", &run.home, &["fake", "docs"]);
        let got = resolved(&oracles, "openclaw", &run.home);
        // legacy and runtime keep the owner's own primary model; os selects the OS model.
        let want = if mode == "os" {
            "autonomous/claude-opus-4-6"
        } else {
            "lan/qwen3"
        };
        assert_eq!(got["model"], want, "openclaw ({mode}): {got}");
        assert_mcp("openclaw", &got, &oracles);
    }
}

#[test]
fn codex_accepts_presync() {
    let Some(oracles) = require_oracles("codex oracle") else {
        return;
    };
    for mode in MODES {
        let run = presync(&oracles, "codex", mode);
        validate(&oracles, "codex", &run.home, &["fake", "docs"]);
        let got = resolved(&oracles, "codex", &run.home);
        match mode {
            // auth.json (a ChatGPT login) in legacy mode, or runtime mode: codex's own model.
            "legacy" | "runtime" => {
                assert_eq!(got["model"], "gpt-5", "codex ({mode}): {got}");
                assert!(got.get("provider").is_none(), "codex ({mode}): {got}");
            }
            _ => {
                assert_eq!(got["model"], "claude-opus-4-6", "codex ({mode}): {got}");
                assert_eq!(got["provider"], "autonomous", "codex ({mode}): {got}");
                assert_eq!(
                    got["base_url"], "https://campaign-api.autonomous.ai/api/v1/ai/v1",
                    "codex ({mode}): {got}"
                );
            }
        }
        assert_mcp("codex", &got, &oracles);
    }
}

#[test]
fn opencode_accepts_presync() {
    let Some(oracles) = require_oracles("opencode oracle") else {
        return;
    };
    for mode in MODES {
        let run = presync(&oracles, "opencode", mode);
        validate(&oracles, "opencode", &run.home, &["fake", "docs"]);
        let got = resolved(&oracles, "opencode", &run.home);
        let want = if mode == "runtime" {
            "campaign/Auto-AI"
        } else {
            "campaign/claude-opus-4-6"
        };
        assert_eq!(got["model"], want, "opencode ({mode}): {got}");
        assert_eq!(got["provider"], "campaign", "opencode ({mode}): {got}");
        assert_eq!(
            got["base_url"], "https://campaign-api.autonomous.ai/api/v1/ai/v1",
            "opencode ({mode}): {got}"
        );
        assert_mcp("opencode", &got, &oracles);
    }
}

#[test]
fn hermes_accepts_presync() {
    let Some(oracles) = require_oracles("hermes oracle") else {
        return;
    };
    for mode in MODES {
        let run = presync(&oracles, "hermes", mode);
        validate(&oracles, "hermes", &run.home, &["fake", "docs"]);
        let got = resolved(&oracles, "hermes", &run.home);
        let (model, provider) = match mode {
            "legacy" => ("Auto-AI", "custom:autonomous"),
            "os" => ("claude-opus-4-6", "custom:autonomous"),
            _ => ("anthropic/claude-sonnet-4", "openrouter"),
        };
        assert_eq!(got["model"], model, "hermes ({mode}): {got}");
        assert_eq!(got["provider"], provider, "hermes ({mode}): {got}");
        assert_mcp("hermes", &got, &oracles);
        // hermes' own loader (PyYAML 1.1): approvals stay a string "off" (a bare off is
        // false), terminal.cwd is absolute, the autonomous provider is found by name.
        let py = r#"
import json
from hermes_cli.config import load_config
c = load_config()
cp = [p for p in (c.get("custom_providers") or []) if isinstance(p, dict) and p.get("name") == "autonomous"]
print(json.dumps({"approvals": c["approvals"]["mode"], "cwd": c["terminal"]["cwd"], "autonomous": cp[0] if cp else None}))
"#;
        let script = format!(
            "_oracle_run '{}' 90 \"$ORACLES/venv/bin/python\" -c \"$_HERMES_NONET\"'{}' 2>/dev/null | tail -1",
            run.home.display(),
            py.replace('\'', "'\\''")
        );
        let (ok, text) = oracle_bash(&oracles, &script);
        assert!(ok, "hermes load_config: {text}");
        let seen: Value =
            serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(seen["approvals"], "off", "hermes ({mode}): {seen}");
        assert_eq!(
            seen["cwd"],
            json!(format!("{}/.hermes", run.home.display())),
            "hermes ({mode}): {seen}"
        );
        if mode == "runtime" {
            assert!(seen["autonomous"].is_null(), "hermes (runtime): {seen}");
        } else {
            assert_eq!(
                seen["autonomous"]["key_env"], "AUTONOMOUS_API_KEY",
                "hermes ({mode}): {seen}"
            );
            assert_eq!(
                seen["autonomous"]["base_url"], "https://campaign-api.autonomous.ai/api/v1/ai/v1",
                "hermes ({mode}): {seen}"
            );
        }
        let _ = &run.device;
    }
}

#[test]
fn claude_code_accepts_presync() {
    let Some(oracles) = require_oracles("claude oracle") else {
        return;
    };
    // The three modes are independent homes, and each asks the real Claude Code several times
    // (about a minute a mode on 2 cores): in parallel, the suite waits for one.
    std::thread::scope(|s| {
        for mode in MODES {
            let oracles = oracles.clone();
            s.spawn(move || {
        let run = presync(&oracles, "claudecode", mode);
        // ~/.claude.json and ~/.claude/settings.json load, and doctor reports no invalid setting.
        validate(&oracles, "claude", &run.home, &[]);
        // The workspace's .mcp.json servers are approved (enableAllProjectMcpServers at user
        // level, docs/device-contract.md §10 item 11): listed from the workspace, none awaits
        // approval.
        let ws = run.home.join(".claudecode/workspace");
        let script = format!(
            "cd '{}' && env -i HOME='{}' PATH=\"$ORACLES/node24/bin:$ORACLES/bin:/usr/bin:/bin\" TMPDIR=\"$ORACLES/tmp\" NO_COLOR=1 \
             CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
             MCP_TIMEOUT=3000 timeout 60 claude mcp list </dev/null 2>&1",
            ws.display(),
            run.home.display()
        );
        let (_, text) = oracle_bash(&oracles, &script);
        assert!(
            !text.contains("Pending approval"),
            "claudecode ({mode}): {text}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("fake:") && l.contains("Connected")),
            "claudecode ({mode}): {text}"
        );
        assert!(
            text.lines().any(|l| l.starts_with("docs:")),
            "claudecode ({mode}): {text}"
        );
        // The model Claude Code starts with, given the bridge's .env (in legacy mode the
        // subscription login: no ANTHROPIC_* at all).
        let env = std::fs::read_to_string(run.home.join(".claudecode/.env")).unwrap();
        let vars: Vec<String> = env
            .lines()
            .filter(|l| {
                l.starts_with("ANTHROPIC_MODEL=") || l.starts_with("ANTHROPIC_SMALL_FAST_MODEL=")
            })
            .map(str::to_string)
            .collect();
        match mode {
            "os" => assert_eq!(
                vars,
                [
                    "ANTHROPIC_MODEL=claude-opus-4-6",
                    "ANTHROPIC_SMALL_FAST_MODEL=claude-opus-4-6"
                ]
            ),
            "legacy" => assert!(vars.is_empty(), "claudecode (legacy, subscription): {env}"),
            _ => assert_eq!(
                vars,
                ["ANTHROPIC_MODEL=Auto-AI"],
                "claudecode (runtime): {env}"
            ),
        }
        if !vars.is_empty() {
            let script = format!(
                "_oracle_run '{}' 60 env {} ANTHROPIC_API_KEY=oracle-dummy claude -p x --strict-mcp-config \
                 --settings '{{\"env\":{{\"ANTHROPIC_BASE_URL\":\"http://127.0.0.1:9\"}}}}' \
                 --output-format stream-json --verbose 2>/dev/null | sed -n 1p",
                run.home.display(),
                vars.join(" ")
            );
            let (_, text) = oracle_bash(&oracles, &script);
            let init: Value =
                serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
            let want = vars[0].trim_start_matches("ANTHROPIC_MODEL=");
            assert_eq!(init["model"], want, "claudecode ({mode}): {init}");
        }
            });
        }
    });
}

/// The real openclaw accepts what `channel add slack` writes, in socket mode (the app token)
/// and in HTTP mode (the signing secret given, never another secret in its place).
#[test]
fn openclaw_accepts_channel_add_slack_in_both_modes() {
    let Some(oracles) = require_oracles("openclaw accepts channel add slack") else {
        return;
    };
    let cases = [
        (
            "socket",
            "--app-token",
            "xapp-1-A0123456789-0123456789012-abcdef0123456789abcdef",
        ),
        (
            "http",
            "--signing-secret",
            "0123456789abcdef0123456789abcdef",
        ),
    ];
    for (mode, flag, value) in cases {
        let dir = tempfile::tempdir().unwrap();
        let device = dir.path().join("device");
        copy_tree(
            &Path::new(REPO).join("tests/cli/channel/_openclaw"),
            &device,
        );
        // The slack plugin set up (osctl refreshes a plugin channel only then).
        let json = device.join("root/.openclaw/openclaw.json");
        std::fs::create_dir_all(json.parent().unwrap()).unwrap();
        std::fs::write(
            &json,
            "{\"plugins\": {\"entries\": {\"slack\": {\"enabled\": true}}}}\n",
        )
        .unwrap();
        let out = osctl(
            &device,
            &[
                "channel",
                "add",
                "slack",
                "--token",
                "xoxb-0123456789-0123456789012-abcdefABCDEF0123",
                flag,
                value,
                "--user-id",
                "U0123ABCD",
            ],
        );
        assert!(
            out.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&json).unwrap();
        assert!(
            text.contains(&format!("\"mode\": \"{mode}\"")),
            "{mode}: {text}"
        );
        assert!(
            text.contains(value),
            "{mode}: the credential given is not written: {text}"
        );
        assert!(
            !text.contains("\"signingSecret\": \"sk-example-0000000000000000c0de\""),
            "{mode}: the LLM key signs slack"
        );
        assert!(
            text.contains("\"allowFrom\": [\"U0123ABCD\"]"),
            "{mode}: {text}"
        );
        let home = dir.path().join("home");
        copy_tree(&device.join("root"), &home);
        let h = home.display().to_string();
        rewrite(
            &home,
            &[
                ("/var/log/openclaw", format!("{h}/log")),
                ("/root/", format!("{h}/")),
            ],
        );
        validate(&oracles, "openclaw", &home, &[]);
    }
}
