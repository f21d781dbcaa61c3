//! `osctl switch` inside a real systemd (a throwaway `systemd-nspawn --boot` container, see
//! `tests/it/support/systemd_lab.rs`): every scenario asserts unit states, as systemd reports
//! them, and config.json afterwards. The runtimes are small scripts these tests write: a unit
//! that stays up, one whose binary is missing, one that crash-loops into its start limit, a
//! verify hook that fails, installers that fail, succeed, or succeed on the second try, and the
//! embedded picoclaw installer with the network tools stubbed.
//!
//! Skipped where the lab cannot run (not root, no systemd-nspawn, no rootfs), except under
//! `CI=true` or `OSCTL_REQUIRE_SYSTEMD=1`, where that is a failure.

use crate::support::systemd_lab;

use std::process::Output;
use std::time::{Duration, Instant};

use crate::support::systemd_lab::{Lab, require_lab};

const CONFIG: &str = "{\n  \"httpPort\": 5000,\n  \"agent_runtime\": \"openclaw\",\n  \"llm_model\": \"Auto-AI\"\n}\n";

/// A script that stays up, as an agent's main process does.
const STAYS_UP: &str = "#!/bin/sh\nexec sleep infinity\n";

fn unit(exec: &str, extra: &str) -> String {
    format!(
        "[Unit]\nDescription=osctl test runtime %N\n[Service]\nExecStart={exec}\n{extra}\n[Install]\nWantedBy=multi-user.target\n"
    )
}

/// A container whose device runs openclaw (a test unit, enabled and active), with osctl.
struct Device {
    lab: Lab,
}

impl Device {
    fn boot(name: &str) -> Option<Device> {
        let lab = require_lab(name)?;
        lab.copy_in(env!("CARGO_BIN_EXE_osctl"), "/usr/local/bin/osctl", 0o755);
        lab.write("/root/config/config.json", CONFIG, 0o644);
        lab.write("/opt/openclaw/agent", STAYS_UP, 0o755);
        lab.write(
            "/etc/systemd/system/openclaw.service",
            unit("/opt/openclaw/agent", ""),
            0o644,
        );
        let d = Device { lab };
        d.ok(&["systemctl", "daemon-reload"]);
        d.ok(&["systemctl", "enable", "--now", "openclaw.service"]);
        assert_eq!(
            d.lab.wait_is_active("openclaw.service", "active", 10),
            "active"
        );
        Some(d)
    }

    /// hermes installed: its unit (running `exec` with `extra`) and the `hermes` CLI.
    fn hermes(&self, exec: &str, extra: &str) {
        self.lab.write("/usr/local/bin/hermes", STAYS_UP, 0o755);
        self.lab.write(
            "/etc/systemd/system/hermes-gateway.service",
            unit(exec, extra),
            0o644,
        );
        self.ok(&["systemctl", "daemon-reload"]);
    }

    /// An installer script at `path` that counts its runs in `<path>.runs`.
    fn installer(&self, path: &str, body: &str) {
        let script = format!(
            "#!/bin/bash\nset -eu\nn=$(( $(cat {path}.runs 2>/dev/null || echo 0) + 1 ))\necho $n > {path}.runs\necho \"installer run $n for $OSCTL_RUNTIME ($OSCTL_UNIT, home $OSCTL_RUNTIME_HOME)\"\n{body}\n"
        );
        self.lab.write(path, script, 0o755);
    }

    fn runs(&self, path: &str) -> u32 {
        self.lab
            .read(&format!("{path}.runs"))
            .map(|s| s.trim().parse().unwrap())
            .unwrap_or(0)
    }

    fn osctl(&self, args: &[&str]) -> Output {
        let mut argv = vec!["osctl"];
        argv.extend_from_slice(args);
        self.lab.exec(&argv)
    }

    fn ok(&self, argv: &[&str]) {
        let out = self.lab.exec(argv);
        assert!(out.status.success(), "{argv:?}: {}", text(&out));
    }

    fn prop(&self, unit: &str, prop: &str) -> String {
        let out = self.lab.systemctl(&["show", "-p", prop, "--value", unit]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// (ActiveState, UnitFileState) as systemd reports them.
    fn state(&self, unit: &str) -> (String, String) {
        (
            self.prop(unit, "ActiveState"),
            self.prop(unit, "UnitFileState"),
        )
    }

    fn agent_runtime(&self) -> String {
        let text = self.lab.read("/root/config/config.json").unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["agent_runtime"].as_str().unwrap_or_default().to_string()
    }

    fn exists(&self, path: &str) -> bool {
        std::fs::symlink_metadata(self.lab.path(path)).is_ok()
    }

    /// Waits up to 30 s for `path` to appear (a script's sign that it got that far).
    fn wait_for(&self, path: &str, never: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.exists(path) {
            assert!(Instant::now() < deadline, "{never}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// No switch record and no journal left behind.
    fn assert_clean_state(&self) {
        assert!(
            !self.exists("/var/lib/osctl/switch.json"),
            "a switch record is left"
        );
        let journals = std::fs::read_dir(self.lab.path("/var/lib/osctl/journal"))
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(journals, 0, "a journal is left");
    }

    /// After a rollback: openclaw runs and is enabled, config.json is untouched, and none of
    /// osctl's hermes files is left.
    fn assert_rolled_back(&self) {
        assert_eq!(
            self.state("openclaw.service"),
            ("active".into(), "enabled".into())
        );
        let (active, enabled) = self.state("hermes-gateway.service");
        assert_ne!(active, "active");
        assert_ne!(enabled, "enabled");
        assert_eq!(self.lab.read("/root/config/config.json").unwrap(), CONFIG);
        for p in [
            "/usr/local/lib/os-runtimes/hermes",
            "/usr/local/bin/runtime-hermes-presync",
        ] {
            assert!(!self.exists(p), "{p} is left after the rollback");
        }
        self.assert_clean_state();
    }
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The run's one `--json` document, as a list of one (the phases are on `--events`).
fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(&out.stdout);
    vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))]
}

#[test]
fn a_clean_switch_from_a_to_b() {
    let Some(d) = Device::boot("switch-clean") else {
        return;
    };
    d.hermes("/usr/local/bin/hermes gateway", "");
    let out = d.osctl(&["--json", "switch", "hermes", "--settle", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{}", text(&out));
    assert_eq!(lines[0]["phase"], "success");
    let lines = [serde_json::Value::Null, lines[0].clone()];
    assert_eq!(lines[1]["to_unit"], "hermes-gateway");
    // The switch writes the new unit's presync drop-in (the book, Install on a device), which
    // systemd reads only after a daemon-reload.
    assert_eq!(
        lines[1]["actions"],
        serde_json::json!([
            "systemctl daemon-reload",
            "systemctl enable --now hermes-gateway.service",
            "systemctl disable --now openclaw.service"
        ])
    );
    assert_eq!(
        d.state("hermes-gateway.service"),
        ("active".into(), "enabled".into())
    );
    assert_eq!(
        d.state("openclaw.service"),
        ("inactive".into(), "disabled".into())
    );
    assert_eq!(d.agent_runtime(), "hermes");
    assert_eq!(
        without_markers(&d.lab.read("/root/config/config.json").unwrap()),
        without_markers(&CONFIG.replace("\"openclaw\"", "\"hermes\"")),
        "only agent_runtime changed (and the reconcile markers were recorded)"
    );
    assert_eq!(
        d.lab
            .read("/usr/local/lib/os-runtimes/hermes/service")
            .unwrap(),
        "hermes-gateway\n"
    );
    let out = d.lab.exec(&[
        "stat",
        "-c",
        "%a",
        "/usr/local/lib/os-runtimes/hermes/verify",
        "/usr/local/bin/runtime-hermes-presync",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "755\n755\n");
    d.assert_clean_state();
}

#[test]
fn switching_to_the_active_runtime_touches_no_unit() {
    let Some(d) = Device::boot("switch-same") else {
        return;
    };
    let id = d.prop("openclaw.service", "InvocationID");
    let since = d.prop("openclaw.service", "ActiveEnterTimestampMonotonic");
    let out = d.osctl(&["switch", "openclaw"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("openclaw is already the active runtime: nothing to do")
    );
    assert_eq!(d.prop("openclaw.service", "InvocationID"), id, "restarted");
    assert_eq!(
        d.prop("openclaw.service", "ActiveEnterTimestampMonotonic"),
        since
    );
    assert_eq!(d.lab.read("/root/config/config.json").unwrap(), CONFIG);
    assert!(
        !d.exists("/usr/local/lib/os-runtimes"),
        "files were written"
    );
}

#[test]
fn a_new_unit_whose_binary_is_missing_is_rolled_back() {
    let Some(d) = Device::boot("switch-missing-bin") else {
        return;
    };
    d.hermes("/opt/hermes/missing-binary gateway", "");
    d.installer("/root/noop-install.sh", "echo 'nothing to fix here'");
    let out = d.osctl(&[
        "--json",
        "switch",
        "hermes",
        "--settle",
        "1",
        "--installer",
        "/root/noop-install.sh",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let last = json_lines(&out).pop().unwrap();
    assert_eq!(last["phase"], "failure");
    assert_eq!(last["error"]["code"], "unit_not_active");
    assert_eq!(last["rolled_back"], true);
    // Nothing was installed in this run, so the installer ran once before the second try.
    assert_eq!(d.runs("/root/noop-install.sh"), 1);
    let log = d.lab.read("/root/.hermes/install.log").unwrap();
    assert!(
        log.contains("installer run 1 for hermes (hermes-gateway, home /root/.hermes)"),
        "{log}"
    );
    d.assert_rolled_back();
}

/// The field engineer's first question after a failed switch is "why": the new unit's own last
/// journal lines come with the error, on stderr and in the `--json` document, secrets masked.
#[test]
fn a_new_unit_that_fails_shows_its_journal_in_the_text_and_the_json() {
    let Some(d) = Device::boot("switch-journal") else {
        return;
    };
    d.lab.write(
        "/opt/hermes/run",
        "#!/bin/sh\necho 'hermes: cannot bind 127.0.0.1:8642: address already in use' >&2\necho 'hermes: api_key=sk-planted-0123456789abcdef' >&2\nexit 1\n",
        0o755,
    );
    d.hermes("/opt/hermes/run", "");
    d.installer("/root/noop-install.sh", "true");
    let out = d.osctl(&[
        "--json",
        "switch",
        "hermes",
        "--settle",
        "1",
        "--installer",
        "/root/noop-install.sh",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let doc = json_lines(&out).pop().unwrap();
    assert_eq!(doc["error"]["code"], "unit_not_active");
    let journal = &doc["journal"];
    assert_eq!(journal["unit"], "hermes-gateway.service", "{doc:#}");
    assert_eq!(
        journal["command"],
        "journalctl -u hermes-gateway.service -n 20 --no-pager"
    );
    let lines: Vec<&str> = journal["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(lines.len() <= 20, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("address already in use")),
        "{lines:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the last journal lines of hermes-gateway.service"),
        "{stderr}"
    );
    assert!(stderr.contains("address already in use"), "{stderr}");
    assert!(
        stderr.contains("its last journal lines are above"),
        "{stderr}"
    );
    let all = format!("{}{stderr}", String::from_utf8_lossy(&out.stdout));
    assert!(!all.contains("sk-planted-0123456789abcdef"), "{all}");
    d.assert_rolled_back();
}

#[test]
fn a_crash_loop_at_its_start_limit_is_reset_reinstalled_and_retried() {
    let Some(d) = Device::boot("switch-crashloop") else {
        return;
    };
    d.lab.write(
        "/opt/hermes/run",
        "#!/bin/sh\necho crashing >&2\nexit 1\n",
        0o755,
    );
    d.hermes("/opt/hermes/run", "Restart=always\nRestartSec=100ms");
    // Drive it into its start limit first: it crash-loops until systemd gives up, and then
    // refuses every start until reset-failed.
    let _ = d.lab.systemctl(&["start", "hermes-gateway.service"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while d.prop("hermes-gateway.service", "ActiveState") != "failed" {
        assert!(Instant::now() < deadline, "it never stopped restarting");
        std::thread::sleep(Duration::from_millis(50));
    }
    let again = d.lab.systemctl(&["start", "hermes-gateway.service"]);
    assert!(
        !again.status.success(),
        "a start at the limit is refused: {}",
        text(&again)
    );
    // (systemd 252 keeps Result=exit-code here; the refused start is what shows the limit.)
    d.lab.write("/opt/stage/run", STAYS_UP, 0o755);
    d.installer(
        "/root/fix-install.sh",
        "install -m 0755 /opt/stage/run /opt/hermes/run",
    );
    let out = d.osctl(&[
        "-v",
        "switch",
        "hermes",
        "--settle",
        "2",
        "--installer",
        "/root/fix-install.sh",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reinstalling hermes once"), "{stderr}");
    assert!(
        stderr.contains("systemctl reset-failed hermes-gateway.service"),
        "{stderr}"
    );
    assert_eq!(d.runs("/root/fix-install.sh"), 1);
    assert_eq!(
        d.state("hermes-gateway.service"),
        ("active".into(), "enabled".into())
    );
    assert_eq!(d.state("openclaw.service").0, "inactive");
    assert_eq!(d.agent_runtime(), "hermes");
    d.assert_clean_state();
}

#[test]
fn an_old_unit_that_refuses_to_stop_rolls_the_switch_back() {
    let Some(d) = Device::boot("switch-refuse-stop") else {
        return;
    };
    // systemd refuses to stop it on request (the unit stays active, `disable --now` fails).
    let refuses =
        unit("/opt/openclaw/agent", "").replace("[Unit]\n", "[Unit]\nRefuseManualStop=yes\n");
    d.lab
        .write("/etc/systemd/system/openclaw.service", refuses, 0o644);
    d.ok(&["systemctl", "daemon-reload"]);
    d.hermes("/usr/local/bin/hermes gateway", "");
    let out = d.osctl(&["switch", "hermes", "--settle", "1"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("openclaw.service did not stop after 3 tries"),
        "{stderr}"
    );
    d.assert_rolled_back();
}

#[test]
fn of_two_concurrent_switches_one_is_busy() {
    let Some(d) = Device::boot("switch-concurrent") else {
        return;
    };
    d.lab.write(
        "/etc/systemd/system/hermes-gateway.service",
        unit("/usr/local/bin/hermes gateway", ""),
        0o644,
    );
    d.ok(&["systemctl", "daemon-reload"]);
    d.lab.write("/opt/stage/hermes", STAYS_UP, 0o755);
    d.installer(
        "/root/slow-install.sh",
        "touch /run/installing\nsleep 6\ninstall -m 0755 /opt/stage/hermes /usr/local/bin/hermes",
    );
    std::thread::scope(|s| {
        let first = s.spawn(|| {
            d.osctl(&[
                "switch",
                "hermes",
                "--settle",
                "1",
                "--installer",
                "/root/slow-install.sh",
            ])
        });
        d.wait_for(
            "/run/installing",
            "the first switch never started installing",
        );
        let started = Instant::now();
        let second = d.osctl(&["--json", "switch", "picoclaw"]);
        assert_eq!(second.status.code(), Some(6), "{}", text(&second));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the second switch waited"
        );
        let last = json_lines(&second).pop().unwrap();
        assert_eq!(last["error"]["code"], "busy");
        assert!(
            last["error"]["message"]
                .as_str()
                .unwrap()
                .contains("a switch from openclaw to hermes is in progress")
        );
        let first = first.join().unwrap();
        assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    });
    assert_eq!(d.agent_runtime(), "hermes");
    assert_eq!(d.state("hermes-gateway.service").0, "active");
    assert_eq!(
        d.state("picoclaw.service").1,
        "",
        "picoclaw was never touched"
    );
}

#[test]
fn a_switch_killed_midway_is_converged_by_the_next_run() {
    let Some(d) = Device::boot("switch-sigkill") else {
        return;
    };
    d.hermes("/usr/local/bin/hermes gateway", "");
    std::thread::scope(|s| {
        // A long settle window: both units run while osctl waits.
        let switch = s.spawn(|| d.osctl(&["switch", "hermes", "--settle", "60"]));
        let deadline = Instant::now() + Duration::from_secs(30);
        while d.prop("hermes-gateway.service", "ActiveState") != "active" {
            assert!(Instant::now() < deadline, "the new unit never started");
            std::thread::sleep(Duration::from_millis(50));
        }
        let record: serde_json::Value =
            serde_json::from_str(&d.lab.read("/var/lib/osctl/switch.json").unwrap()).unwrap();
        assert_eq!(record["phase"], "starting");
        let pid = record["pid"].to_string();
        d.ok(&["sh", "-c", "kill -KILL \"$0\"", &pid]);
        let out = switch.join().unwrap();
        assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    });
    // Killed between start and commit: config.json still names openclaw, both units run.
    assert_eq!(d.agent_runtime(), "openclaw");
    assert_eq!(d.state("hermes-gateway.service").0, "active");
    assert_eq!(d.state("openclaw.service").0, "active");
    assert!(d.exists("/usr/local/lib/os-runtimes/hermes/verify"));

    let out = d.osctl(&["--json", "status"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["switch"]["to"], "hermes");
    assert_eq!(doc["switch"]["running"], false);
    assert_eq!(doc["runtimes"][1]["unit_state"]["active"], "active");

    let out = d.osctl(&["reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("services converged: openclaw runs"),
        "{}",
        text(&out)
    );
    assert_eq!(
        d.state("openclaw.service"),
        ("active".into(), "enabled".into())
    );
    assert_eq!(
        d.state("hermes-gateway.service"),
        ("inactive".into(), "disabled".into())
    );
    assert_eq!(
        without_markers(&d.lab.read("/root/config/config.json").unwrap()),
        without_markers(CONFIG)
    );
    assert!(
        !d.exists("/usr/local/lib/os-runtimes/hermes"),
        "the journal restored the files"
    );
    d.assert_clean_state();
}

#[test]
fn regression_a_switch_killed_after_stopping_the_old_unit_left_the_new_one_running() {
    let Some(d) = Device::boot("switch-fileless") else {
        return;
    };
    // openclaw takes a few seconds to stop, so osctl can be killed inside its `disable --now`.
    d.lab.write(
        "/etc/systemd/system/openclaw.service",
        unit("/opt/openclaw/agent", "ExecStop=/bin/sleep 3"),
        0o644,
    );
    d.ok(&["systemctl", "daemon-reload"]);
    // codex installed: its CLI and the bridge its unit runs. The unit file is osctl's own, so
    // the switch writes it and the journal restore after the kill removes it again.
    d.lab.write("/usr/local/bin/codex", STAYS_UP, 0o755);
    d.lab.write("/usr/local/bin/os-server", STAYS_UP, 0o755);
    d.ok(&["mkdir", "-p", "/root/.codex"]);
    std::thread::scope(|s| {
        let switch = s.spawn(|| d.osctl(&["switch", "codex", "--settle", "1"]));
        let deadline = Instant::now() + Duration::from_secs(60);
        while d.prop("openclaw.service", "ActiveState") != "deactivating" {
            assert!(Instant::now() < deadline, "the old unit was never stopped");
            std::thread::sleep(Duration::from_millis(20));
        }
        let record: serde_json::Value =
            serde_json::from_str(&d.lab.read("/var/lib/osctl/switch.json").unwrap()).unwrap();
        assert_eq!(record["phase"], "stopping-old");
        let pid = record["pid"].to_string();
        d.ok(&["sh", "-c", "kill -KILL \"$0\"", &pid]);
        let out = switch.join().unwrap();
        assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    });
    assert_eq!(
        d.lab.wait_is_active("openclaw.service", "inactive", 30),
        "inactive"
    );
    assert_eq!(d.agent_runtime(), "openclaw");
    assert_eq!(
        d.state("codex.service"),
        ("active".into(), "enabled".into())
    );
    assert!(d.exists("/etc/systemd/system/codex.service"));

    let out = d.osctl(&["reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        !d.exists("/etc/systemd/system/codex.service"),
        "the journal removed the unit file the switch wrote"
    );
    assert_ne!(
        d.prop("codex.service", "ActiveState"),
        "active",
        "codex runs on without its unit file: {}",
        text(&out)
    );
    assert_eq!(
        d.state("openclaw.service"),
        ("active".into(), "enabled".into())
    );
    d.assert_clean_state();
}

#[test]
fn wait_ready_retries_the_ready_hook_and_rolls_back_when_it_never_passes() {
    let Some(d) = Device::boot("switch-ready") else {
        return;
    };
    // A health endpoint on hermes' port (osctl's own ready hook asks it), served by a socket
    // that the fake gateway opens two seconds after it starts.
    d.lab.write(
        "/etc/systemd/system/hermes-health.socket",
        "[Socket]\nListenStream=127.0.0.1:8642\nAccept=yes\n",
        0o644,
    );
    d.lab.write(
        "/etc/systemd/system/hermes-health@.service",
        "[Service]\nExecStart=/bin/sh -c 'printf \"HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n\"'\nStandardInput=socket\n",
        0o644,
    );
    d.lab.write(
        "/opt/hermes/gateway",
        "#!/bin/sh\nif [ -e /opt/hermes/healthy ]; then sleep 2; systemctl start hermes-health.socket; fi\nexec sleep infinity\n",
        0o755,
    );
    d.hermes("/opt/hermes/gateway", "");

    // Never healthy: 3 tries, then the switch rolls back.
    let out = d.osctl(&[
        "switch",
        "hermes",
        "--settle",
        "0.5",
        "--wait-ready",
        "--ready-tries",
        "3",
        "--ready-interval",
        "0.2",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "hermes did not become ready: /usr/local/lib/os-runtimes/hermes/ready failed 3 times"
        ),
        "{}",
        text(&out)
    );
    d.assert_rolled_back();

    // Healthy two seconds after it starts: the hook fails at first, then passes.
    d.lab.write("/opt/hermes/healthy", "", 0o644);
    let out = d.osctl(&[
        "switch",
        "hermes",
        "--settle",
        "0.5",
        "--wait-ready",
        "--ready-tries",
        "40",
        "--ready-interval",
        "0.25",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tries: u32 = stderr
        .split("passed, try ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        tries > 1,
        "ready at once, so the retry was not exercised: {stderr}"
    );
    assert_eq!(d.agent_runtime(), "hermes");
    assert_eq!(d.state("hermes-gateway.service").0, "active");
}

/// config.json without the reconcile markers, which the reconcilers after a switch (or a
/// convergence) record; the switch tests check everything else.
fn without_markers(text: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    v.as_object_mut()
        .unwrap()
        .retain(|k, _| !k.ends_with("_applied_runtime") && k != "channels_unsupported");
    v
}

mod installers;
