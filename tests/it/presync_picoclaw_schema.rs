//! PicoClaw has no installable package, so no runtime can judge osctl's picoclaw files (see
//! `tests/oracles/README.md`). This test checks them against the shape the device contract
//! gives for picoclaw's `config.json` and `.security.yml` (docs/device-contract.md §2.3), for every
//! `llm_config_mode`: the keys presync owns have the types and values picoclaw reads, and every
//! key it does not own (MCP servers, unknown settings) is still there.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

const REPO: &str = env!("CARGO_MANIFEST_DIR");
const KEY: &str = "sk-live-2222222222222222beef";
const BASE_V1: &str = "https://campaign-api.autonomous.ai/api/v1/ai/v1";

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

fn presynced(tree: &str) -> (tempfile::TempDir, Value, Value, u32) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(REPO).join(tree), dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .args(["--root"])
        .arg(dir.path())
        .args(["presync", "picoclaw"])
        .env_clear()
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let home = dir.path().join("root/.picoclaw");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("config.json")).unwrap())
            .expect("config.json is strict JSON");
    let sec_path = home.join(".security.yml");
    let security: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&sec_path).unwrap()).unwrap();
    let mode = std::fs::metadata(&sec_path).unwrap().permissions().mode() & 0o777;
    (dir, config, security, mode)
}

fn model<'v>(config: &'v Value, name: &str) -> Vec<&'v Value> {
    config["model_list"]
        .as_array()
        .expect("model_list is a list")
        .iter()
        .filter(|e| e["model_name"] == name)
        .collect()
}

fn check(tree: &str, mode: &str) {
    let (_dir, config, security, sec_mode) = presynced(tree);
    let what = format!("{tree} ({mode})");
    let d = &config["agents"]["defaults"];
    assert_eq!(d["restrict_to_workspace"], false, "{what}");
    assert_eq!(d["allow_read_outside_workspace"], true, "{what}");
    // Every model_list entry has the four string fields picoclaw reads.
    for e in config["model_list"].as_array().unwrap() {
        for k in ["model_name", "provider", "model", "api_base"] {
            assert!(
                e[k].is_string(),
                "{what}: model_list entry without string {k}: {e}"
            );
        }
    }
    if mode == "runtime" {
        // The owner's native wiring stays as it was.
        assert_eq!(d["provider"], "openai", "{what}");
        assert_eq!(d["model_name"], "gpt-4o-mini", "{what}");
        assert!(model(&config, "autonomous_vision").is_empty(), "{what}");
        assert!(
            security["model_list"].get("autonomous:0").is_none(),
            "{what}"
        );
    } else {
        assert_eq!(d["provider"], "anthropic-messages", "{what}");
        assert_eq!(d["model_name"], "autonomous", "{what}");
        assert_eq!(d["image_model"], "autonomous_vision", "{what}");
        let [main] = model(&config, "autonomous")[..] else {
            panic!("{what}: exactly one autonomous model");
        };
        let [vision] = model(&config, "autonomous_vision")[..] else {
            panic!("{what}: exactly one autonomous_vision model");
        };
        let want = if mode == "os" {
            "claude-opus-4-6"
        } else {
            "Auto-AI"
        };
        assert_eq!(main["model"], want, "{what}");
        assert_eq!(main["provider"], "anthropic-messages", "{what}");
        assert_eq!(main["api_base"], BASE_V1, "{what}");
        assert_eq!(
            main["request_timeout"], 120,
            "{what}: the owner's key is kept"
        );
        assert_eq!(vision["model"], "qwen/qwen3.6-plus", "{what}");
        assert_eq!(vision["api_base"], BASE_V1, "{what}");
        for entry in ["autonomous:0", "autonomous_vision:0"] {
            assert_eq!(
                security["model_list"][entry]["api_keys"],
                json!([KEY]),
                "{what}"
            );
        }
    }
    assert_eq!(
        config["gateway"],
        json!({"host": "localhost", "port": 18790, "hot_reload": false, "log_level": "warn"}),
        "{what}"
    );
    let pico = &config["channel_list"]["pico"];
    assert_eq!(pico["enabled"], true, "{what}");
    assert_eq!(pico["type"], "pico", "{what}");
    assert!(pico["settings"].is_object(), "{what}");
    assert_eq!(
        security["channel_list"]["pico"]["settings"]["token"], "darren_pico_token",
        "{what}"
    );
    for ch in ["telegram", "discord", "slack", "whatsapp"] {
        let c = &config["channel_list"][ch];
        assert_eq!(c["type"], ch, "{what}");
        assert_eq!(
            c["enabled"], true,
            "{what}: {ch} has credentials in config.json"
        );
        assert!(
            c["placeholder"].is_object() && c["typing"].is_object(),
            "{what}: {ch}"
        );
        assert!(c["reasoning_channel_id"].is_string(), "{what}: {ch}");
    }
    let s = &security["channel_list"];
    assert_eq!(
        s["telegram"]["settings"]["token"], "123456789:AAExampleExampleExampleExample",
        "{what}"
    );
    assert_eq!(
        s["telegram"]["settings"]["allow_from"],
        json!(["42"]),
        "{what}"
    );
    assert_eq!(
        s["discord"]["settings"]["allow_from"],
        json!(["7001"]),
        "{what}"
    );
    assert_eq!(
        s["slack"]["settings"]["bot_token"], "xoxb-example-000000000000",
        "{what}"
    );
    assert_eq!(
        s["slack"]["settings"]["app_token"], "xapp-example-000000000000",
        "{what}"
    );
    assert_eq!(
        s["whatsapp"]["settings"]["allow_from"],
        json!(["+84900000000"]),
        "{what}"
    );
    let wa = &config["channel_list"]["whatsapp"]["settings"];
    assert_eq!(wa["use_native"], true, "{what}");
    assert_eq!(
        wa["session_store_path"], "/root/.picoclaw/workspace/whatsapp",
        "{what}"
    );
    // Keys presync does not own: MCP servers (type kept, enabled) and unknown settings.
    let mcp = &config["tools"]["mcp"];
    assert_eq!(mcp["enabled"], true, "{what}");
    assert_eq!(mcp["servers"]["fake"]["type"], "stdio", "{what}");
    assert_eq!(
        mcp["servers"]["docs"]["url"], "http://127.0.0.1:9/mcp",
        "{what}"
    );
    assert_eq!(
        config["tools"]["web"]["duckduckgo"]["max_results"], 5,
        "{what}"
    );
    assert_eq!(config["heartbeat"]["interval"], 30, "{what}");
    assert_eq!(
        security["model_list"]["gpt-4o-mini:0"]["api_keys"],
        json!(["sk-openai-example-4444444444444444"]),
        "{what}"
    );
    assert_eq!(sec_mode, 0o600, "{what}: .security.yml holds secrets");
}

#[test]
fn picoclaw_files_match_the_spec_in_every_mode() {
    for mode in ["legacy", "os", "runtime"] {
        check(&format!("tests/cli/presync/picoclaw-{mode}/in"), mode);
    }
    check("examples/presync/picoclaw", "legacy");
}

/// The one-time migrate from openclaw stops openclaw's unit through the services door (so
/// `OSCTL_SYSTEMCTL` sees it, and a preview prints it as a service action), never from inside
/// the migrate's shell script.
#[test]
fn the_one_time_migrate_stops_openclaw_through_the_services_door() {
    let tree = "tests/cli/presync/picoclaw-migrate-and-onboard-dry-run/in";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("device");
    let state = dir.path().join("systemd");
    std::fs::create_dir_all(&state).unwrap();
    copy_tree(&Path::new(REPO).join(tree), &root);
    let unit = root.join("etc/systemd/system/openclaw.service");
    std::fs::create_dir_all(unit.parent().unwrap()).unwrap();
    std::fs::write(&unit, "[Service]\n").unwrap();
    std::fs::write(state.join("openclaw.service.active"), "active\n").unwrap();
    let fake = Path::new(REPO).join("tests/support/fake-systemctl");
    let osctl = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(&root)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("OSCTL_SYSTEMCTL", &fake)
            .env("FAKE_SYSTEMCTL_DIR", &state)
            .env("FAKE_SYSTEMCTL_ROOT", &root)
            .env("OSCTL_TEST_NOW", "1764460800")
            .output()
            .unwrap()
    };
    let preview = osctl(&["--dry-run", "presync", "picoclaw"]);
    let shown = String::from_utf8_lossy(&preview.stdout).to_string();
    assert!(preview.status.success(), "{shown}");
    let run_line = shown
        .lines()
        .find(|l| l.contains("picoclaw-migrate"))
        .unwrap_or_else(|| panic!("no migrate command in the preview:\n{shown}"));
    assert!(
        !run_line.contains("systemctl"),
        "the migrate's script runs systemctl itself: {run_line}"
    );
    let stop = shown
        .lines()
        .position(|l| l == "# systemctl stop openclaw.service")
        .unwrap_or_else(|| panic!("no service action stopping openclaw:\n{shown}"));
    let migrate = shown.lines().position(|l| l == run_line).unwrap();
    assert!(
        stop < migrate,
        "openclaw is stopped after the migrate:\n{shown}"
    );

    let out = osctl(&["presync", "picoclaw"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calls = std::fs::read_to_string(state.join("calls")).unwrap_or_default();
    assert!(
        calls.lines().any(|l| l == "stop openclaw.service"),
        "OSCTL_SYSTEMCTL never saw the stop: {calls:?}"
    );
    assert_eq!(
        std::fs::read_to_string(state.join("openclaw.service.active"))
            .unwrap()
            .trim(),
        "inactive"
    );
}
