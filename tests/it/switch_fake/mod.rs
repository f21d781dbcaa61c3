//! `osctl switch` against a fake systemctl (`tests/support/fake-systemctl`, via
//! `OSCTL_SYSTEMCTL`) under a temporary root: the exact order of service actions on the way
//! forward, on every rollback and after a crash, and what is left on disk. Fast, and runs
//! everywhere; `tests/it/switch_lab/` checks the same against a real systemd.
//!
//! Under a root other than `/` no program runs (installers and hooks would act on this
//! machine), so installs here are planned and skipped; the lab tests run them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use osctl::apply::lock::DeviceLock;
use osctl::system::fs::RootFs;

const CONFIG: &str = "{\n  \"httpPort\": 5000,\n  \"agent_runtime\": \"openclaw\",\n  \"llm_model\": \"Auto-AI\"\n}\n";

struct Dev {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

impl Dev {
    /// openclaw active and enabled; hermes installed (unit file and binary) but stopped.
    fn new() -> Dev {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("device");
        let state = tmp.path().join("systemd");
        std::fs::create_dir_all(&state).unwrap();
        let d = Dev {
            _tmp: tmp,
            root,
            state,
        };
        d.write("root/config/config.json", CONFIG, 0o644);
        d.write("etc/systemd/system/openclaw.service", "[Service]\n", 0o644);
        d.write(
            "etc/systemd/system/hermes-gateway.service",
            "[Service]\n",
            0o644,
        );
        d.write("usr/local/bin/hermes", "#!/bin/sh\n", 0o755);
        d.set("openclaw.service", "active", "active");
        d.set("openclaw.service", "enabled", "enabled");
        d
    }

    fn write(&self, rel: &str, text: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn set(&self, unit: &str, key: &str, value: &str) {
        std::fs::write(
            self.state.join(format!("{unit}.{key}")),
            format!("{value}\n"),
        )
        .unwrap();
    }

    fn get(&self, unit: &str, key: &str) -> String {
        std::fs::read_to_string(self.state.join(format!("{unit}.{key}")))
            .unwrap_or_default()
            .trim()
            .to_string()
    }

    fn osctl(&self, args: &[&str]) -> Output {
        let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake-systemctl");
        Command::new(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(&self.root)
            .args(args)
            .env("OSCTL_SYSTEMCTL", &fake)
            .env("FAKE_SYSTEMCTL_DIR", &self.state)
            .env("FAKE_SYSTEMCTL_ROOT", &self.root)
            .env("NO_COLOR", "1")
            .env("OSCTL_TEST_NOW", "1767225600")
            .env_remove("OSCTL_ROOT")
            .env_remove("OSCTL_FAULT")
            .env_remove("RUNTIMES_BASE_URL")
            .output()
            .unwrap()
    }

    /// The calls that change something (reads left out), in order.
    fn actions(&self) -> Vec<String> {
        std::fs::read_to_string(self.state.join("calls"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.starts_with("show ") && !l.starts_with("is-active "))
            .map(str::to_string)
            .collect()
    }

    fn config(&self) -> String {
        std::fs::read_to_string(self.root.join("root/config/config.json")).unwrap()
    }

    /// Every file under the root with its bytes (osctl's lock file left out).
    fn tree(&self) -> BTreeMap<String, Vec<u8>> {
        walkdir::WalkDir::new(&self.root)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e
                    .path()
                    .strip_prefix(&self.root)
                    .unwrap()
                    .display()
                    .to_string();
                (rel, std::fs::read(e.path()).unwrap())
            })
            .filter(|(rel, _)| rel != "var/lib/osctl/lock")
            .collect()
    }
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_clean_switch_starts_the_new_unit_then_stops_the_old_then_commits() {
    let d = Dev::new();
    // The reconcilers after the commit point have their own tests; this one is about the switch.
    let out = d.osctl(&["switch", "hermes", "--settle", "0", "--no-reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        d.actions(),
        vec![
            // the presync drop-in is new (tests/cli/switch shows it)
            "daemon-reload",
            "enable --now hermes-gateway.service",
            "disable --now openclaw.service",
        ]
    );
    assert_eq!(d.get("hermes-gateway.service", "active"), "active");
    assert_eq!(d.get("openclaw.service", "active"), "inactive");
    assert_eq!(d.config(), CONFIG.replace("\"openclaw\"", "\"hermes\""));
    let tree = d.tree();
    assert_eq!(
        tree["usr/local/lib/os-runtimes/hermes/service"],
        b"hermes-gateway\n"
    );
    assert!(tree.contains_key("usr/local/lib/os-runtimes/hermes/install.sh"));
    assert!(tree.contains_key("usr/local/bin/runtime-hermes-presync"));
    assert!(!d.root.join("var/lib/osctl/switch.json").exists());
    assert!(
        !d.root.join("var/lib/osctl/journal").exists()
            || std::fs::read_dir(d.root.join("var/lib/osctl/journal"))
                .unwrap()
                .next()
                .is_none()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("switched to hermes"), "{stderr}");

    // Again: the same runtime is a no-op that touches no unit and no file.
    let before = d.tree();
    let calls = std::fs::read_to_string(d.state.join("calls")).unwrap();
    let out = d.osctl(&["switch", "Hermes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("hermes is already the active runtime: nothing to do")
    );
    assert_eq!(
        std::fs::read_to_string(d.state.join("calls")).unwrap(),
        calls
    );
    assert_eq!(d.tree(), before);
}

/// Runs osctl with `--events 3`, fd 3 the write end of a pipe; returns the output and the
/// lines read from the pipe.
fn with_events_fd(d: &Dev, args: &[&str]) -> (Output, String) {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let (mut reader, writer) = std::io::pipe().unwrap();
    let fd = writer.as_raw_fd();
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake-systemctl");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.arg("--root")
        .arg(&d.root)
        .args(["--events", "3"])
        .args(args)
        .env("OSCTL_SYSTEMCTL", &fake)
        .env("FAKE_SYSTEMCTL_DIR", &d.state)
        .env("FAKE_SYSTEMCTL_ROOT", &d.root)
        .env("NO_COLOR", "1")
        .env("OSCTL_TEST_NOW", "1767225600")
        .env_remove("OSCTL_ROOT")
        .env_remove("OSCTL_FAULT")
        .env_remove("RUNTIMES_BASE_URL");
    // SAFETY: dup2 is async-signal-safe; it gives the child the pipe's write end as fd 3.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(cmd);
    drop(writer);
    let out = child.wait_with_output().unwrap();
    let mut events = String::new();
    reader.read_to_string(&mut events).unwrap();
    (out, events)
}

#[test]
fn json_is_one_document_and_the_phases_stream_on_the_events_fd() {
    let d = Dev::new();
    let (out, events) = with_events_fd(
        &d,
        &[
            "--json",
            "switch",
            "hermes",
            "--settle",
            "0",
            "--no-reconcile",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // stdout is exactly one document, whatever the phases were.
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], 2);
    assert_eq!(doc["command"], "switch");
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["changed"], true);
    assert_eq!(doc["exit_code"], 0);
    assert_eq!(doc["mode"], "apply");
    assert_eq!(doc["phase"], "success");
    assert_eq!(doc["from"], "openclaw");
    assert_eq!(doc["to"], "hermes");
    assert_eq!(doc["to_unit"], "hermes-gateway");
    assert_eq!(doc["installed"], false);
    // The events: one JSON object per line, on fd 3 only.
    let lines: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(lines.len(), 2, "{events}");
    for l in &lines {
        assert_eq!(l["schema"], 2);
        assert_eq!(l["event"], "phase");
        assert_eq!(l["command"], "switch");
    }
    assert_eq!(lines[0]["phase"], "starting");
    assert_eq!(lines[0]["runtime"], "hermes");
    assert_eq!(lines[1]["phase"], "success");
    assert_eq!(lines[1]["exit_code"], 0);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("\"event\""),
        "no event on stderr: {}",
        text(&out)
    );
}

#[test]
fn events_dash_writes_the_phases_to_stderr_and_a_failure_is_an_event_too() {
    let d = Dev::new();
    d.set("hermes-gateway.service", "on-start", "dies");
    let out = d.osctl(&[
        "--json", "--events", "-", "switch", "hermes", "--settle", "0",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["phase"], "failure");
    assert_eq!(doc["exit_code"], 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let events: Vec<serde_json::Value> = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let phases: Vec<&str> = events
        .iter()
        .map(|e| e["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["starting", "failure"], "{stderr}");
    assert_eq!(events[1]["exit_code"], 4);
    assert_eq!(events[1]["rolled_back"], true);
}

#[test]
fn an_events_fd_that_is_not_open_is_a_usage_error_before_anything_runs() {
    let d = Dev::new();
    let before = d.tree();
    let out = d.osctl(&["--json", "--events", "9", "switch", "hermes"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "usage");
    assert_eq!(d.tree(), before);
    assert!(d.actions().is_empty(), "{:?}", d.actions());
}

#[test]
fn a_unit_that_dies_gets_one_reinstall_then_the_switch_rolls_back() {
    let d = Dev::new();
    let before = d.tree();
    d.set("hermes-gateway.service", "on-start", "dies");
    let out = d.osctl(&["--json", "switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert_eq!(
        d.actions(),
        vec![
            "daemon-reload",
            "enable --now hermes-gateway.service",
            // not settled, nothing installed yet: one reinstall (skipped: not the live root)
            "stop hermes-gateway.service",
            "reset-failed hermes-gateway.service",
            "daemon-reload",
            "enable --now hermes-gateway.service",
            // rollback
            "disable --now hermes-gateway.service",
            "daemon-reload",
            "enable --now openclaw.service",
        ]
    );
    assert_eq!(d.get("openclaw.service", "active"), "active");
    assert_eq!(d.get("hermes-gateway.service", "enabled"), "disabled");
    assert_eq!(d.tree(), before, "every file is as it was");
    assert!(!d.root.join("var/lib/osctl/switch.json").exists());
    let last: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(last["phase"], "failure");
    assert_eq!(last["error"]["code"], "unit_not_active");
    assert_eq!(last["exit_code"], 4);
    assert_eq!(last["changed"], false);
    assert_eq!(last["rolled_back"], true);
}

#[test]
fn a_unit_that_comes_up_after_the_reinstall_completes_the_switch() {
    let d = Dev::new();
    d.set("hermes-gateway.service", "on-start", "ok-after:1");
    let out = d.osctl(&["--json", "switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let last: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(last["retried"], true);
    assert_eq!(last["installed"], true);
    assert_eq!(d.get("hermes-gateway.service", "starts"), "2");
    assert!(d.config().contains("\"agent_runtime\": \"hermes\""));
}

#[test]
fn a_crash_loop_at_its_start_limit_is_reset_before_the_retry() {
    let d = Dev::new();
    d.set("hermes-gateway.service", "on-start", "crashloop");
    let out = d.osctl(&["switch", "hermes", "--settle", "0"]);
    // The fake keeps crash-looping, so the retry fails too; what matters is the order.
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let a = d.actions();
    assert_eq!(a[0], "daemon-reload", "the presync drop-in is new");
    assert_eq!(a[1], "enable --now hermes-gateway.service");
    assert_eq!(a[2], "stop hermes-gateway.service");
    assert_eq!(a[3], "reset-failed hermes-gateway.service");
    assert_eq!(a[5], "enable --now hermes-gateway.service");
    // The second start got past the start limit (reset-failed cleared it).
    assert_eq!(d.get("hermes-gateway.service", "starts"), "2");
    assert_eq!(d.get("openclaw.service", "active"), "active");
}

#[test]
fn an_old_unit_that_refuses_to_stop_is_asked_three_times_then_the_switch_rolls_back() {
    let d = Dev::new();
    let before = d.tree();
    d.set("openclaw.service", "on-stop", "refuse");
    let out = d.osctl(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert_eq!(
        d.actions(),
        vec![
            "daemon-reload",
            "enable --now hermes-gateway.service",
            "disable --now openclaw.service",
            "disable --now openclaw.service",
            "disable --now openclaw.service",
            "disable --now hermes-gateway.service",
            // the rollback removed the drop-in
            "daemon-reload",
            "enable --now openclaw.service",
        ]
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("openclaw.service did not stop after 3 tries"),
        "{stderr}"
    );
    assert_eq!(d.get("openclaw.service", "enabled"), "enabled");
    assert_eq!(d.get("hermes-gateway.service", "active"), "inactive");
    assert_eq!(d.tree(), before);
}

#[test]
fn a_crash_mid_switch_is_converged_by_the_next_reconcile() {
    let d = Dev::new();
    let before = d.tree();
    // SIGKILL osctl just as it stops the old unit: the new one runs, the old one too.
    std::fs::write(d.state.join("kill-on"), "disable --now openclaw.service\n").unwrap();
    let out = d.osctl(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), None, "killed: {}", text(&out));
    std::fs::remove_file(d.state.join("kill-on")).unwrap();
    assert_eq!(d.get("hermes-gateway.service", "active"), "active");
    assert!(d.config().contains("\"agent_runtime\": \"openclaw\""));
    assert!(d.root.join("var/lib/osctl/switch.json").exists());

    // status notices it (and changes nothing)
    let out = d.osctl(&["--json", "status"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["switch"]["from"], "openclaw");
    assert_eq!(doc["switch"]["to"], "hermes");
    assert_eq!(doc["switch"]["running"], false);
    assert_eq!(doc["switch"]["phase"], "stopping-old");

    let calls_before = d.actions().len();
    let out = d.osctl(&["reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        d.actions()[calls_before..],
        [
            // The journal's restore disables the new unit first, while its file is there.
            "disable --now hermes-gateway.service",
            "daemon-reload",
            "enable --now openclaw.service",
        ]
    );
    assert_eq!(d.get("openclaw.service", "active"), "active");
    assert_eq!(d.get("hermes-gateway.service", "active"), "inactive");
    // The reconcilers then run for the runtime config.json names: the persona step records its
    // first-boot baseline (openclaw) and the other steps their markers; every file the switch
    // had touched is back as it was.
    let mut after = d.tree();
    let state = after
        .remove("root/config/agent_state.json")
        .expect("persona baseline");
    assert!(String::from_utf8_lossy(&state).contains("\"runtime\": \"openclaw\""));
    let without_markers = |bytes: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        let m = v.as_object_mut().unwrap();
        m.retain(|k, _| !k.ends_with("_applied_runtime") && k != "channels_unsupported");
        v
    };
    let config = "root/config/config.json";
    assert_eq!(
        without_markers(&after.remove(config).unwrap()),
        without_markers(&before[config])
    );
    let mut before = before;
    before.remove(config);
    assert_eq!(after, before, "the journals put every file back");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("a switch from openclaw to hermes was interrupted"),
        "{stderr}"
    );
}

#[test]
fn a_second_switch_while_one_runs_is_busy_at_once() {
    let d = Dev::new();
    let fs = RootFs::new(&d.root).unwrap();
    let _held = DeviceLock::acquire(&fs, Duration::from_secs(1)).unwrap();
    d.write(
        "var/lib/osctl/switch.json",
        r#"{"schema":1,"from":"openclaw","to":"picoclaw","from_unit":"openclaw","to_unit":"picoclaw","pid":4242,"started":1767225600,"phase":"installing"}"#,
        0o644,
    );
    let started = std::time::Instant::now();
    let out = d.osctl(&["--json", "switch", "hermes"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "it did not wait for the lock"
    );
    let last: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(last["error"]["code"], "busy");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("a switch from openclaw to picoclaw is in progress (pid 4242)")
    );
    assert!(d.actions().is_empty());
}

#[test]
fn an_offline_root_is_refused_without_systemd() {
    let d = Dev::new();
    let before = d.tree();
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(&d.root)
        .args(["switch", "hermes"])
        .env_remove("OSCTL_SYSTEMCTL")
        .env_remove("OSCTL_ROOT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a switch needs systemd"));
    assert_eq!(d.tree(), before);
}

#[test]
fn a_runtime_without_an_installer_is_refused_before_anything_changes() {
    let d = Dev::new();
    // config names hermes; openclaw's unit is gone, and osctl embeds no openclaw installer.
    d.write(
        "root/config/config.json",
        &CONFIG.replace("openclaw", "hermes"),
        0o644,
    );
    std::fs::remove_file(d.root.join("etc/systemd/system/openclaw.service")).unwrap();
    let before = d.tree();
    let out = d.osctl(&["switch", "openclaw"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("openclaw is not installed (openclaw.service missing) and osctl embeds no installer for it"), "{stderr}");
    assert!(stderr.contains("--from-cdn"), "{stderr}");
    assert_eq!(d.tree(), before);
    assert!(d.actions().is_empty());
}

#[test]
fn the_presync_hook_runs_osctl_presync_for_the_runtime_it_is_named_after() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("osctl"), "#!/bin/sh\necho \"osctl $*\"\n").unwrap();
    std::fs::set_permissions(bin.join("osctl"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let hook = Path::new(env!("CARGO_MANIFEST_DIR")).join("embedded/presync-hook");
    let run = |name: &str| {
        let p = tmp.path().join(name);
        std::fs::copy(&hook, &p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A fork on another test thread while the copy's file was open for writing inherits
        // that descriptor until its exec, and the kernel refuses to exec a file open for
        // writing (ETXTBSY): try again once that child has exec'd.
        let mut tries = 0;
        loop {
            match Command::new(&p)
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .output()
            {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other.unwrap(),
            }
        }
    };
    // Every registered runtime (the test-only seventh too, under `--features test-runtime`).
    for rt in osctl::runtime::NAMES {
        let out = run(&format!("runtime-{rt}-presync"));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("osctl presync {rt}\n")
        );
    }
    let out = run("presync");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn a_rollback_leaves_an_old_unit_that_was_not_running_as_it_was() {
    let d = Dev::new();
    d.set("openclaw.service", "active", "inactive");
    d.set("openclaw.service", "enabled", "disabled");
    d.set("hermes-gateway.service", "on-start", "fail");
    let out = d.osctl(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        !d.actions().iter().any(|a| a.contains("openclaw")),
        "{:?}",
        d.actions()
    );
    assert_eq!(d.get("openclaw.service", "active"), "inactive");
    assert_eq!(d.get("openclaw.service", "enabled"), "disabled");
}

#[test]
fn regression_a_switch_killed_after_stopping_the_old_unit_left_the_new_one_running() {
    let d = Dev::new();
    // codex's unit file is osctl's own: the switch writes it, so the journal restore after the
    // kill removes it while systemd keeps the unit running.
    std::fs::write(
        d.state.join("kill-after"),
        "disable --now openclaw.service\n",
    )
    .unwrap();
    let out = d.osctl(&["switch", "codex", "--settle", "0"]);
    assert_eq!(out.status.code(), None, "killed: {}", text(&out));
    std::fs::remove_file(d.state.join("kill-after")).unwrap();
    assert_eq!(d.get("codex.service", "active"), "active");
    assert_eq!(d.get("openclaw.service", "active"), "inactive");
    assert_eq!(d.get("openclaw.service", "enabled"), "disabled");
    assert!(d.config().contains("\"agent_runtime\": \"openclaw\""));
    assert!(d.root.join("etc/systemd/system/codex.service").exists());

    let calls_before = d.actions().len();
    let out = d.osctl(&["reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        !d.root.join("etc/systemd/system/codex.service").exists(),
        "the journal removed the unit file the switch wrote"
    );
    assert_eq!(
        d.actions()[calls_before..],
        [
            // Disabled (and stopped) by the journal's restore before it removes the unit file;
            // nothing is left for the convergence to stop by name.
            "disable --now codex.service",
            "daemon-reload",
            "enable --now openclaw.service",
        ]
    );
    assert_eq!(
        d.get("codex.service", "active"),
        "inactive",
        "{}",
        text(&out)
    );
    // No enablement outlives the deleted unit file (killed-switch-leaves-both-running).
    assert_eq!(d.get("codex.service", "enabled"), "disabled");
    assert_eq!(d.get("openclaw.service", "active"), "active");
    assert_eq!(d.get("openclaw.service", "enabled"), "enabled");
    assert!(!d.root.join("var/lib/osctl/switch.json").exists());
}

// The reconcile after the commit point.
mod reconcile;

/// Seen on CI's lifecycle draw (seed 1796296051125870941, life 111, a kill at a time, so a
/// draw does not replay it): a switch killed between its record's link and its rename leaves
/// the record whole under its temporary name, `.switch.json.osctl-tmp`, in osctl's state
/// folder, and nothing else changed. `status` reads the device as it was (no switch in
/// progress), and the next switch removes the temporary as it writes the record.
#[test]
fn a_switch_killed_before_its_records_rename_leaves_a_temporary_the_next_switch_removes() {
    // A real record: the one a switch killed at its first unit action leaves.
    let killed = Dev::new();
    std::fs::write(killed.state.join("kill-on"), "daemon-reload\n").unwrap();
    let out = killed.osctl(&["switch", "hermes", "--settle", "0"]);
    assert_eq!(out.status.code(), None, "killed: {}", text(&out));
    let record = std::fs::read_to_string(killed.root.join("var/lib/osctl/switch.json")).unwrap();

    let d = Dev::new();
    let temp = "var/lib/osctl/.switch.json.osctl-tmp";
    d.write(temp, &record, 0o600);
    let out = d.osctl(&["--json", "status"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["switch"].is_null(), "{}", doc["switch"]);
    assert_eq!(doc["active"]["runtime"], "openclaw", "{doc}");

    let out = d.osctl(&["switch", "hermes", "--settle", "0", "--no-reconcile"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!d.root.join(temp).exists(), "{temp} was left");
    assert!(!d.root.join("var/lib/osctl/switch.json").exists());
}
