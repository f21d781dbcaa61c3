//! The channel re-apply of a switch, from each runtime to each other runtime.
//!
//! After a switch's commit point `agent_runtime` names the new runtime while
//! `channels_applied_runtime` still names the old one; `osctl reconcile --only channels` then
//! sorts the channels config.json has credentials for into those the new runtime runs and those
//! it cannot (`channels_unsupported`), keeps every credential, and advances the marker. Each pair
//! starts from the golden fixture of the old runtime with all four channels configured, runs
//! with a fake systemctl, checks the result (and, where the new runtime runs channels itself,
//! that its presync wrote them into its own config), checks that a second run has nothing to
//! do, and then switches back to check that the old runtime's view is restored.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// Every registered runtime (the test-only seventh too, under `--features test-runtime`).
use osctl::runtime::NAMES as RUNTIMES;

use crate::support::registry;

/// What each runtime can run, per the contract (docs/device-contract.md §2; `SupportedChannels`)
/// for the six the package ships; what the registry declares for any other.
fn supports(rt: &str, ch: &str) -> bool {
    match rt {
        "openclaw" => ["telegram", "slack", "discord", "whatsapp"].contains(&ch),
        "hermes" => ["telegram", "slack", "discord", "imessage"].contains(&ch),
        "picoclaw" => ch == "telegram",
        "codex" | "claudecode" | "opencode" => ["telegram", "slack", "discord"].contains(&ch),
        _ => registry::spec(rt).channels.iter().any(|c| c.as_str() == ch),
    }
}

const CREDS: [(&str, &str); 9] = [
    (
        "telegram_bot_token",
        "111111:AAExampleExampleExampleExample",
    ),
    ("telegram_user_id", "42"),
    ("slack_bot_token", "xoxb-0000-1111-example"),
    ("slack_app_token", "xapp-1-A000-example-token"),
    ("slack_user_id", "U0123"),
    ("discord_bot_token", "MTExMTEx.discord.example-token"),
    ("discord_guild_id", "987654321"),
    ("discord_user_id", "123456789"),
    ("whatsapp_user_id", "+84900000000"),
];

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
    systemctl: PathBuf,
}

impl Device {
    fn new(from: &str) -> Device {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("device");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/channel");
        let own = fixtures.join(format!("_{from}"));
        // The golden fixtures are one device per packaged runtime, the same tree with the runtime
        // named in config.json; a runtime without one (the test-only one) starts from openclaw's
        // with its own name there.
        let derived = !own.is_dir();
        copy_tree(
            &if derived {
                fixtures.join("_openclaw")
            } else {
                own
            },
            &root,
        );
        let systemctl = dir.path().join("systemctl");
        std::fs::write(&systemctl, "#!/bin/sh\nexit 0\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&systemctl, std::fs::Permissions::from_mode(0o755)).unwrap();
        let d = Device {
            _dir: dir,
            root,
            systemctl,
        };
        if derived {
            for k in [
                "agent_runtime",
                "channels_applied_runtime",
                "mcp_applied_runtime",
            ] {
                d.set(k, json!(from));
            }
        }
        for (k, v) in CREDS {
            d.set(k, json!(v));
        }
        d
    }

    fn config_path(&self) -> PathBuf {
        self.root.join("root/config/config.json")
    }

    fn config(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.config_path()).unwrap()).unwrap()
    }

    fn set(&self, key: &str, value: Value) {
        let mut v = self.config();
        v[key] = value;
        std::fs::write(
            self.config_path(),
            serde_json::to_string_pretty(&v).unwrap(),
        )
        .unwrap();
    }

    fn reconcile(&self) -> (Output, Value) {
        let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(&self.root)
            .args(["--json", "reconcile", "--only", "channels"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("OSCTL_SYSTEMCTL", &self.systemctl)
            .output()
            .unwrap();
        let doc = serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter::<Value>()
            .next()
            .and_then(|r| r.ok())
            .unwrap_or(Value::Null);
        (out, doc)
    }
}

fn expected_unsupported(rt: &str) -> Vec<&'static str> {
    ["telegram", "slack", "discord", "whatsapp"]
        .into_iter()
        .filter(|c| !supports(rt, c))
        .collect()
}

fn check(d: &Device, from: &str, to: &str) {
    let (out, doc) = d.reconcile();
    assert!(
        out.status.success(),
        "{from} -> {to}: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        doc
    );
    assert_eq!(
        doc["steps"][0]["status"], "reconciled",
        "{from} -> {to}: {doc}"
    );
    let cfg = d.config();
    assert_eq!(cfg["channels_applied_runtime"], to, "{from} -> {to}");
    let want = expected_unsupported(to);
    let got = cfg
        .get("channels_unsupported")
        .cloned()
        .unwrap_or(json!([]));
    assert_eq!(got, json!(want), "{from} -> {to}: channels_unsupported");
    for (k, v) in CREDS {
        assert_eq!(cfg[k], v, "{from} -> {to}: {k} must stay in config.json");
    }
    let detail = doc["steps"][0]["detail"].as_str().unwrap_or("");
    for ch in &want {
        assert!(detail.contains(ch), "{from} -> {to}: {detail}");
    }
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("AAExampleExampleExampleExample"),
        "{from} -> {to}: the telegram token leaked"
    );
    native(d, from, to);
    let (_, again) = d.reconcile();
    assert_eq!(again["steps"][0]["status"], "up-to-date", "{from} -> {to}");
}

/// Where the new runtime runs channels itself, its own config now holds the supported ones
/// (written by its presync from config.json); the device-run ones need nothing there.
fn native(d: &Device, from: &str, to: &str) {
    match to {
        "hermes" => {
            let env = std::fs::read_to_string(d.root.join("root/.hermes/.env")).unwrap();
            for line in [
                "TELEGRAM_BOT_TOKEN=111111:AAExampleExampleExampleExample",
                "SLACK_BOT_TOKEN=xoxb-0000-1111-example",
                "DISCORD_BOT_TOKEN=MTExMTEx.discord.example-token",
                "DISCORD_GUILD_ID=987654321",
            ] {
                assert!(
                    env.lines().any(|l| l == line),
                    "{from} -> {to}: .env lacks {line}\n{env}"
                );
            }
        }
        "openclaw" => {
            let text =
                std::fs::read_to_string(d.root.join("root/.openclaw/openclaw.json")).unwrap();
            let v: Value = jsonc(&text);
            for ch in ["telegram", "slack", "discord", "whatsapp"] {
                assert_eq!(
                    v["plugins"]["entries"][ch]["enabled"], true,
                    "{from} -> {to}: plugins.entries.{ch}\n{text}"
                );
                assert!(
                    v["channels"].get(ch).is_some(),
                    "{from} -> {to}: channels.{ch}\n{text}"
                );
            }
            assert_eq!(
                v["channels"]["telegram"]["botToken"],
                "111111:AAExampleExampleExampleExample"
            );
            assert_eq!(
                v["channels"]["discord"]["token"],
                "MTExMTEx.discord.example-token"
            );
        }
        _ => {}
    }
}

/// openclaw.json as a value: the fixture's JSON with `//` comment lines and trailing commas,
/// which presync keeps.
fn jsonc(text: &str) -> Value {
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let s = collapse_trailing_commas(&stripped);
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("openclaw.json: {e}\n{s}"))
}

/// Drops a comma that only whitespace separates from a closing bracket.
fn collapse_trailing_commas(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut in_str = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            out.push(c);
            if c == '\\' && i + 1 < chars.len() {
                out.push(chars[i + 1]);
                i += 2;
                continue;
            }
            if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
            out.push(c);
        } else if c == ',' {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if j < chars.len() && (chars[j] == '}' || chars[j] == ']') {
                i += 1;
                continue;
            }
            out.push(c);
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

#[test]
fn channels_are_reapplied_from_every_runtime_to_every_other() {
    let mut pairs = 0;
    for from in RUNTIMES {
        for to in RUNTIMES {
            if from == to {
                continue;
            }
            let d = Device::new(from);
            d.set("agent_runtime", json!(to));
            check(&d, from, to);
            // Switching back restores the old runtime's view from the kept credentials.
            d.set("agent_runtime", json!(from));
            check(&d, to, from);
            pairs += 1;
        }
    }
    assert_eq!(pairs, RUNTIMES.len() * (RUNTIMES.len() - 1));
}

#[test]
fn first_run_records_a_baseline_only() {
    let d = Device::new("hermes");
    let mut cfg = d.config();
    cfg.as_object_mut()
        .unwrap()
        .remove("channels_applied_runtime");
    std::fs::write(d.config_path(), serde_json::to_string_pretty(&cfg).unwrap()).unwrap();
    d.set("agent_runtime", json!("picoclaw"));
    let (out, doc) = d.reconcile();
    assert!(out.status.success());
    assert_eq!(doc["steps"][0]["status"], "baseline");
    let cfg = d.config();
    assert_eq!(cfg["channels_applied_runtime"], "picoclaw");
    assert!(cfg.get("channels_unsupported").is_none(), "{cfg}");
}
