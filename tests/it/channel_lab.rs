//! `osctl channel add` on the live device (`--root /` inside a throwaway real-systemd container,
//! see `tests/it/support/systemd_lab.rs`), where programs really run: openclaw's plugin installer
//! edits openclaw.json itself, and the add must plan its files on what the installer left.
//!
//! Skipped where the lab cannot run (not root, no systemd-nspawn, no rootfs), except under
//! `CI=true` or `OSCTL_REQUIRE_SYSTEMD=1`, where that is a failure.

use std::process::Output;

use crate::support::systemd_lab::require_lab;

fn text(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A stand-in for openclaw's CLI: `plugins install @openclaw/<ch>` unpacks the plugin and, as
/// openclaw does, records it in openclaw.json.
const OPENCLAW_CLI: &str = r#"#!/bin/sh
set -eu
[ "$1 $2" = "plugins install" ] || exit 2
name=${3#@openclaw/}
mkdir -p "$HOME/.openclaw/extensions/$name"
echo '{"name": "'"$name"'"}' >"$HOME/.openclaw/extensions/$name/package.json"
sed -i "1i // plugin @openclaw/$name installed by openclaw" "$HOME/.openclaw/openclaw.json"
"#;

#[test]
fn regression_a_plugin_installer_that_edits_openclaw_json_rolled_the_channel_add_back() {
    let Some(lab) = require_lab("channel-plugin") else {
        return;
    };
    lab.copy_in(env!("CARGO_BIN_EXE_osctl"), "/usr/local/bin/osctl", 0o755);
    lab.write(
        "/root/config/config.json",
        "{\n  \"agent_runtime\": \"openclaw\",\n  \"llm_config_mode\": \"os\",\n  \"llm_api_key\": \"sk-example-0000000000000000c0de\",\n  \"openclaw_config_dir\": \"/root/.openclaw\"\n}\n",
        0o644,
    );
    lab.write(
        "/root/.openclaw/openclaw.json",
        "{\n  // openclaw reads this file as JSON5\n  gateway: {mode: \"local\"},\n}\n",
        0o600,
    );
    lab.write("/usr/local/bin/openclaw", OPENCLAW_CLI, 0o755);
    lab.write(
        "/opt/openclaw/agent",
        "#!/bin/sh\nexec sleep infinity\n",
        0o755,
    );
    lab.write(
        "/etc/systemd/system/openclaw.service",
        "[Service]\nExecStart=/opt/openclaw/agent\n[Install]\nWantedBy=multi-user.target\n",
        0o644,
    );
    for argv in [
        &["systemctl", "daemon-reload"][..],
        &["systemctl", "enable", "--now", "openclaw.service"],
    ] {
        let out = lab.exec(argv);
        assert!(out.status.success(), "{argv:?}: {}", text(&out));
    }
    let out = lab.exec(&[
        "osctl",
        "channel",
        "add",
        "slack",
        "--token",
        "xoxb-0000-1111-example",
        "--app-token",
        "xapp-1-A000-example-token",
        "--user-id",
        "U0123",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json5 = lab.read("/root/.openclaw/openclaw.json").unwrap();
    assert!(
        json5.starts_with("// plugin @openclaw/slack installed by openclaw\n"),
        "the installer's own edit is kept: {json5}"
    );
    assert!(json5.contains("slack"), "{json5}");
    assert!(
        json5.contains("xoxb-0000-1111-example") || json5.contains("botToken"),
        "osctl wrote the channel: {json5}"
    );
    let config = lab.read("/root/config/config.json").unwrap();
    assert!(
        config.contains("\"slack_bot_token\": \"xoxb-0000-1111-example\""),
        "{config}"
    );
    assert!(
        lab.read("/root/.openclaw/extensions/slack/package.json")
            .is_some()
    );
}
