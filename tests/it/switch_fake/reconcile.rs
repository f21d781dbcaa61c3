//! The reconcile a switch runs after its commit point, against the fake systemctl: a failed
//! restart undoes only its own step, the exit codes of a partial reconcile (4, 5), a switch
//! killed after its commit point.

use super::*;

/// A device just switched from openclaw to hermes whose reconcile steps have not run: the markers
/// name openclaw, openclaw holds one MCP server, and hermes runs with restarts that fail.
fn lagging_device() -> Dev {
    let d = Dev::new();
    d.write(
        "root/config/config.json",
        "{\n  \"agent_runtime\": \"hermes\",\n  \"llm_config_mode\": \"runtime\",\n  \"llm_config_applied_runtime\": \"openclaw\",\n  \"channels_applied_runtime\": \"openclaw\",\n  \"mcp_applied_runtime\": \"openclaw\"\n}\n",
        0o644,
    );
    d.write(
        "root/.openclaw/openclaw.json",
        "{\n  \"mcp\": {\"servers\": {\"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"}}},\n}\n",
        0o644,
    );
    d.write(
        "root/.hermes/config.yaml",
        "model:\n  default: Auto-AI\n",
        0o644,
    );
    d.set("openclaw.service", "active", "inactive");
    d.set("hermes-gateway.service", "active", "active");
    d.set("hermes-gateway.service", "on-restart", "fail");
    d
}

fn json_doc(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

#[test]
fn regression_a_failed_restart_after_the_mcp_step_rolled_back_every_step() {
    let d = lagging_device();
    let yaml = std::fs::read(d.root.join("root/.hermes/config.yaml")).unwrap();
    let out = d.osctl(&["--json", "reconcile"]);
    // The MCP step's restart failed: that step alone is rolled back; the others landed.
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    let doc = json_doc(&out);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["code"], "reconcile_partly_applied");
    let outcome = |step: &str| {
        doc["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == step)
            .map(|s| (s["status"].clone(), s["outcome"].clone()))
            .unwrap()
    };
    assert_eq!(outcome("mcp"), ("failed".into(), "rolled-back".into()));
    assert_eq!(outcome("llm"), ("skipped".into(), "applied".into()));
    assert_eq!(outcome("channels"), ("reconciled".into(), "applied".into()));
    assert_eq!(outcome("persona"), ("baseline".into(), "applied".into()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("reconcile partly applied: persona, llm, channels landed; mcp failed"),
        "{stderr}"
    );
    let config: serde_json::Value = serde_json::from_str(&d.config()).unwrap();
    assert_eq!(config["llm_config_applied_runtime"], "hermes");
    assert_eq!(config["channels_applied_runtime"], "hermes");
    assert_eq!(
        config["mcp_applied_runtime"], "openclaw",
        "kept for the retry"
    );
    assert!(d.root.join("root/config/agent_state.json").exists());
    assert_eq!(
        std::fs::read(d.root.join("root/.hermes/config.yaml")).unwrap(),
        yaml,
        "the MCP step's write was rolled back"
    );

    // The next run retries only the MCP step, which now goes through.
    std::fs::remove_file(d.state.join("hermes-gateway.service.on-restart")).unwrap();
    d.set("hermes-gateway.service", "active", "active");
    let out = d.osctl(&["--json", "reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = json_doc(&out);
    let statuses: Vec<&str> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "up-to-date",
            "up-to-date",
            "up-to-date",
            "up-to-date",
            "reconciled",
            // mcp-tools: config.json lists none
            "up-to-date"
        ]
    );
    let config: serde_json::Value = serde_json::from_str(&d.config()).unwrap();
    assert_eq!(config["mcp_applied_runtime"], "hermes");
    let yaml = std::fs::read_to_string(d.root.join("root/.hermes/config.yaml")).unwrap();
    assert!(yaml.contains("docs"), "{yaml}");
}

#[test]
fn a_reconcile_whose_only_change_is_rolled_back_exits_4() {
    let d = lagging_device();
    let before = d.tree();
    let out = d.osctl(&["reconcile", "--only", "mcp"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("reconcile step mcp failed; what it wrote was rolled back"),
        "{stderr}"
    );
    assert_eq!(d.tree(), before);
}

#[test]
fn a_switch_whose_reconcile_step_fails_stands_and_exits_5() {
    let d = Dev::new();
    d.write(
        "root/config/config.json",
        &CONFIG.replace(
            "\"llm_model\"",
            "\"mcp_applied_runtime\": \"openclaw\",\n  \"llm_model\"",
        ),
        0o644,
    );
    d.write(
        "root/.openclaw/openclaw.json",
        "{\n  \"mcp\": {\"servers\": {\"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"}}},\n}\n",
        0o644,
    );
    d.set("hermes-gateway.service", "on-restart", "fail");
    let out = d.osctl(&["--json", "switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    let last: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(last["phase"], "success");
    assert_eq!(last["ok"], false);
    assert_eq!(last["exit_code"], 5);
    assert_eq!(last["error"]["code"], "reconcile_step_failed");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the switch stands, but reconcile step mcp failed"),
        "{last}"
    );
    let config: serde_json::Value = serde_json::from_str(&d.config()).unwrap();
    assert_eq!(config["agent_runtime"], "hermes", "the switch stands");
    assert_eq!(config["mcp_applied_runtime"], "openclaw");
    assert_eq!(config["channels_applied_runtime"], "hermes");
    assert!(!d.root.join("var/lib/osctl/switch.json").exists());
}

#[test]
fn regression_a_switch_killed_after_its_commit_point_was_never_finished() {
    let d = Dev::new();
    d.write(
        "root/config/config.json",
        &CONFIG.replace(
            "\"llm_model\"",
            "\"mcp_applied_runtime\": \"openclaw\",\n  \"llm_model\"",
        ),
        0o644,
    );
    d.write(
        "root/.openclaw/openclaw.json",
        "{\n  \"mcp\": {\"servers\": {\"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"}}},\n}\n",
        0o644,
    );
    // Killed in the MCP step's restart, after the commit point: hermes is active, the MCP step
    // lags behind.
    std::fs::write(
        d.state.join("kill-on"),
        "try-restart hermes-gateway.service\n",
    )
    .unwrap();
    let out = d.osctl(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), None, "killed: {}", text(&out));
    std::fs::remove_file(d.state.join("kill-on")).unwrap();
    let config: serde_json::Value = serde_json::from_str(&d.config()).unwrap();
    assert_eq!(config["agent_runtime"], "hermes");
    assert_eq!(config["mcp_applied_runtime"], "openclaw");

    // Its preview shows what is left to do.
    let out = d.osctl(&["--dry-run", "switch", "hermes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("# hermes is already the active runtime, but its switch did not finish"),
        "{stdout}"
    );
    assert!(stdout.contains("# reconcile mcp: reconciled"), "{stdout}");

    // Asking for hermes again finishes the switch.
    let out = d.osctl(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let config: serde_json::Value = serde_json::from_str(&d.config()).unwrap();
    assert_eq!(config["mcp_applied_runtime"], "hermes");
    let yaml = std::fs::read_to_string(d.root.join("root/.hermes/config.yaml")).unwrap();
    assert!(yaml.contains("https://docs.example.com/mcp"), "{yaml}");

    // Then it is done: the same switch again is a no-op.
    let before = d.tree();
    let out = d.osctl(&["switch", "hermes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("hermes is already the active runtime: nothing to do"),
        "{}",
        text(&out)
    );
    assert_eq!(d.tree(), before);
}
