//! A seventh runtime, `testclaw`, defined only for tests (`--features test-runtime`): the proof
//! that a runtime is one folder (`src/runtime/testclaw/`, `embedded/testclaw/`) and one registry
//! line. The real osctl binary runs the whole life of a runtime against it on a copy of the
//! sample device: status, presync, MCP, channels, migrate both ways with each of the six, reset
//! and a switch under the fake systemctl.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Output, Stdio};

use crate::reliability_support as rs;

/// The six the package ships, from the registry.
use osctl::runtime::PACKAGED_NAMES as SIX;

struct Dev {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

impl Dev {
    /// The sample device with `runtime` active.
    fn new(runtime: &str) -> Dev {
        let tmp = rs::sandbox();
        let root = tmp.path().join("device");
        let state = tmp.path().join("systemctl");
        std::fs::create_dir_all(&state).unwrap();
        rs::copy_tree(&rs::repo().join("examples/device"), &root);
        let d = Dev {
            _tmp: tmp,
            root,
            state,
        };
        d.set_runtime(runtime);
        d
    }

    fn set_runtime(&self, runtime: &str) {
        let p = self.root.join("root/config/config.json");
        let mut cfg: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        cfg["agent_runtime"] = runtime.into();
        std::fs::write(&p, serde_json::to_string_pretty(&cfg).unwrap()).unwrap();
    }

    fn config(&self) -> serde_json::Value {
        serde_json::from_str(&self.read("root/config/config.json")).unwrap()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn write(&self, rel: &str, text: &str, mode: u32) {
        rs::write(&self.root, rel, text.as_bytes(), mode);
    }

    fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).symlink_metadata().is_ok()
    }

    fn unit(&self, unit: &str, key: &str, value: &str) {
        std::fs::write(
            self.state.join(format!("{unit}.{key}")),
            format!("{value}\n"),
        )
        .unwrap();
    }

    fn osctl_in(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = rs::osctl(&self.root);
        cmd.env("OSCTL_SYSTEMCTL", rs::fake_systemctl())
            .env("FAKE_SYSTEMCTL_DIR", &self.state)
            .env("FAKE_SYSTEMCTL_ROOT", &self.root)
            .args(args);
        if stdin.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn().unwrap();
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        child.wait_with_output().unwrap()
    }

    fn osctl(&self, args: &[&str]) -> Output {
        self.osctl_in(args, None)
    }

    /// Runs osctl and requires exit 0; returns its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.osctl(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", rs::text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

fn testclaw_config(d: &Dev) -> serde_json::Value {
    serde_json::from_str(&d.read("root/.testclaw/config.json")).unwrap()
}

#[test]
fn status_names_testclaw_as_the_active_runtime() {
    let d = Dev::new("testclaw");
    let out = d.ok(&["--json", "status"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["active"]["runtime"], "testclaw", "{out}");
    let rts = doc["runtimes"].as_array().unwrap();
    assert_eq!(rts.len(), 7, "{out}");
    let me = rts.iter().find(|r| r["name"] == "testclaw").unwrap();
    assert_eq!(me["active"], true, "{out}");
    assert_eq!(me["unit"], "testclaw.service", "{out}");
    let others = rts.iter().filter(|r| r["active"] == true).count();
    assert_eq!(others, 1, "{out}");
    let text = d.ok(&["status"]);
    assert!(text.contains("testclaw"), "{text}");
}

#[test]
fn presync_writes_its_config_and_soul_then_has_nothing_left_to_do() {
    let d = Dev::new("testclaw");
    d.ok(&["presync", "testclaw"]);
    let cfg = testclaw_config(&d);
    assert_eq!(cfg["llm"]["api_key"], "sk-example-0000000000000000c0de");
    assert_eq!(
        cfg["llm"]["base_url"],
        "https://campaign-api.autonomous.ai/api/v1/ai/v1"
    );
    assert_eq!(cfg["llm"]["model"], "Auto-AI");
    assert_eq!(cfg["workspace"], "/root/.testclaw/workspace");
    let soul = d.read("root/.testclaw/workspace/SOUL.md");
    assert!(!soul.trim().is_empty());
    assert!(d.exists("root/.testclaw/workspace/KNOWLEDGE.md"));
    let before = rs::snapshot(&d.root);
    d.ok(&["presync", "testclaw"]);
    assert_eq!(
        rs::snapshot(&d.root),
        before,
        "a second presync changed something"
    );
    d.ok(&["--check", "presync", "testclaw"]);
}

#[test]
fn mcp_add_list_remove_in_its_config() {
    let d = Dev::new("testclaw");
    d.ok(&["presync", "testclaw"]);
    d.ok(&[
        "mcp",
        "add",
        "x",
        "--runtime",
        "testclaw",
        "--",
        "/bin/true",
    ]);
    let cfg = testclaw_config(&d);
    assert_eq!(cfg["mcpServers"]["x"]["command"], "/bin/true", "{cfg}");
    // What presync wrote stays.
    assert_eq!(cfg["llm"]["model"], "Auto-AI");
    let list = d.ok(&["mcp", "list", "--runtime", "testclaw"]);
    assert!(list.contains('x') && list.contains("/bin/true"), "{list}");
    d.ok(&["mcp", "remove", "x", "--runtime", "testclaw"]);
    let cfg = testclaw_config(&d);
    assert!(cfg["mcpServers"].get("x").is_none(), "{cfg}");
}

#[test]
fn channel_add_telegram_is_the_devices_and_an_unsupported_one_is_refused() {
    let d = Dev::new("testclaw");
    let out = d.osctl_in(
        &[
            "channel",
            "add",
            "telegram",
            "--token-file",
            "-",
            "--user-id",
            "4242",
        ],
        Some("222222:BBNewTokenNewTokenNewTokenNew\n"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", rs::text(&out));
    let cfg = d.config();
    assert_eq!(
        cfg["telegram_bot_token"],
        "222222:BBNewTokenNewTokenNewTokenNew"
    );
    assert_eq!(cfg["telegram_user_id"], "4242");
    // Device-owned: nothing of the token in testclaw's own files.
    if d.exists("root/.testclaw/config.json") {
        assert!(!d.read("root/.testclaw/config.json").contains("BBNewToken"));
    }
    let out = d.osctl_in(
        &[
            "channel",
            "add",
            "discord",
            "--token-file",
            "-",
            "--user-id",
            "1",
        ],
        Some("tok\n"),
    );
    assert_eq!(out.status.code(), Some(1), "{}", rs::text(&out));
    assert!(
        rs::text(&out).contains("channel_not_supported") || rs::text(&out).contains("testclaw")
    );
}

/// Where each runtime keeps SOUL.md (device-relative).
fn soul_of(rt: &str) -> &'static str {
    match rt {
        "openclaw" => "root/.openclaw/workspace/SOUL.md",
        "hermes" => "root/.hermes/SOUL.md",
        "picoclaw" => "root/.picoclaw/workspace/SOUL.md",
        "codex" => "root/.codex/workspace/SOUL.md",
        "claudecode" => "root/.claudecode/workspace/SOUL.md",
        "opencode" => "root/.opencode/workspace/SOUL.md",
        "testclaw" => "root/.testclaw/workspace/SOUL.md",
        _ => unreachable!(),
    }
}

#[test]
fn migrate_carries_the_soul_to_and_from_each_of_the_six() {
    let mut pairs = 0;
    for other in SIX {
        for (from, to) in [(other, "testclaw"), ("testclaw", other)] {
            let d = Dev::new(from);
            let mark = format!("I am the owner's lamp, carried from {from} to {to}.");
            d.write(soul_of(from), &format!("# Soul\n\n{mark}\n"), 0o644);
            let out = d.osctl(&["migrate", "--from", from, "--to", to]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{from} -> {to}\n{}",
                rs::text(&out)
            );
            let got = std::fs::read_to_string(d.root.join(soul_of(to)))
                .unwrap_or_else(|e| panic!("{from} -> {to}: {} {e}", soul_of(to)));
            // The text arrives (its brand words may be rewritten, the sentence's end is not).
            assert!(
                got.contains("carried from") && got.contains("owner's lamp"),
                "{from} -> {to}: {got}"
            );
            pairs += 1;
        }
    }
    assert_eq!(pairs, 12);
}

#[test]
fn reset_leaves_none_of_its_secrets() {
    let d = Dev::new("testclaw");
    d.ok(&["presync", "testclaw"]);
    let secret = "sk-testclaw-planted-secret-0123456789";
    let cfg = d.read("root/.testclaw/config.json");
    d.write(
        "root/.testclaw/config.json",
        &cfg.replace("sk-example-0000000000000000c0de", secret),
        0o600,
    );
    d.write(
        "root/.testclaw/credentials.json",
        &format!("{{\"token\": \"{secret}-owner\"}}\n"),
        0o600,
    );
    d.write(
        "root/.testclaw/workspace/MEMORY.md",
        &format!("- the key is {secret}\n"),
        0o644,
    );
    d.write(
        "root/.testclaw/install.log",
        "== testclaw installed\n",
        0o644,
    );
    d.ok(&["reset", "--yes"]);
    for e in walkdir::WalkDir::new(&d.root) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let bytes = std::fs::read(e.path()).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{} still holds the planted secret",
                e.path().display()
            );
        }
    }
    assert!(!d.exists("root/.testclaw/config.json"));
    assert!(!d.exists("root/.testclaw/credentials.json"));
    assert!(!d.exists("root/.testclaw/workspace/SOUL.md"));
    // What its reset keeps.
    assert_eq!(
        d.read("root/.testclaw/install.log"),
        "== testclaw installed\n"
    );
}

#[test]
fn switch_from_hermes_to_testclaw_and_back_under_the_fake_systemctl() {
    let d = Dev::new("hermes");
    d.write(
        "etc/systemd/system/hermes-gateway.service",
        "[Service]\n",
        0o644,
    );
    d.write("usr/local/bin/hermes", "#!/bin/sh\n", 0o755);
    d.write("usr/local/bin/testclaw", "#!/bin/sh\n", 0o755);
    d.unit("hermes-gateway.service", "active", "active");
    d.unit("hermes-gateway.service", "sub", "running");
    d.unit("hermes-gateway.service", "enabled", "enabled");

    d.ok(&["switch", "testclaw", "--settle", "0"]);
    assert_eq!(d.config()["agent_runtime"], "testclaw");
    // osctl owns the unit: the embedded one, byte for byte, and its hooks.
    assert_eq!(
        d.read("etc/systemd/system/testclaw.service"),
        include_str!("../../embedded/testclaw/testclaw.service")
    );
    assert_eq!(
        d.read("usr/local/lib/os-runtimes/testclaw/verify"),
        include_str!("../../embedded/testclaw/verify")
    );
    // Presync ran: the OS key is in testclaw's config.
    assert!(d.read("root/.testclaw/config.json").contains("\"api_key\""));
    let calls = std::fs::read_to_string(d.state.join("calls")).unwrap();
    let start = calls.find("enable --now testclaw.service").expect(&calls);
    let stop = calls
        .find("disable --now hermes-gateway.service")
        .expect(&calls);
    assert!(
        start < stop,
        "the new unit starts before the old stops:\n{calls}"
    );

    d.ok(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(d.config()["agent_runtime"], "hermes");
    let calls = std::fs::read_to_string(d.state.join("calls")).unwrap();
    assert!(calls.contains("disable --now testclaw.service"), "{calls}");
    assert!(
        calls.contains("enable --now hermes-gateway.service"),
        "{calls}"
    );
    assert!(d.root.join("root/.testclaw/workspace/SOUL.md").is_file());
}
