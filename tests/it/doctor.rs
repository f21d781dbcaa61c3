//! `osctl doctor` end to end: a healthy device (examples/device once presync has run: the
//! golden harness gives every input mode 0644, so the 0600 secret files a healthy device has
//! cannot be a golden case), the unit part against the fake systemctl
//! (`tests/support/fake-systemctl`, via `OSCTL_SYSTEMCTL`) with a fake journalctl
//! (`OSCTL_JOURNALCTL`), and a run that holds the lock. Each also proves doctor wrote nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use osctl::apply::lock::{DeviceLock, Holder};
use osctl::system::fs::RootFs;

struct Dev {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
    journalctl: PathBuf,
}

impl Dev {
    /// A copy of examples/device after `osctl presync`: hermes active, in sync, reconciled.
    fn healthy() -> Dev {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("device");
        let state = tmp.path().join("systemd");
        std::fs::create_dir_all(&state).unwrap();
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/device");
        copy(&example, &root);
        let journalctl = tmp.path().join("journalctl");
        std::fs::write(
            &journalctl,
            "#!/bin/sh\necho \"$*\" >>\"$FAKE_SYSTEMCTL_DIR/journalctl-calls\"\n\
             case \"$*\" in '-o json'*) cat \"$FAKE_SYSTEMCTL_DIR/switch-log\" 2>/dev/null; exit 0 ;; esac\n\
             echo 'Dec 02 04:00:01 lamp hermes[812]: loading config.yaml'\n\
             echo 'Dec 02 04:00:02 lamp hermes[812]: error: provider custom:autonomous refused the key'\n",
        )
        .unwrap();
        chmod(&journalctl, 0o755);
        let d = Dev {
            _tmp: tmp,
            root,
            state,
            journalctl,
        };
        let out = d.run(&["presync"], false);
        assert!(out.status.success(), "{}", text(&out.stderr));
        // The lock file and journal folder a writer leaves are not part of the device.
        std::fs::remove_dir_all(d.root.join("var")).unwrap();
        d
    }

    fn set(&self, unit: &str, key: &str, value: &str) {
        std::fs::write(
            self.state.join(format!("{unit}.{key}")),
            format!("{value}\n"),
        )
        .unwrap();
    }

    /// Runs osctl on the device; `systemd`: with the fake systemctl and journalctl.
    fn run(&self, args: &[&str], systemd: bool) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
        cmd.arg("--root").arg(&self.root).args(args);
        cmd.env_remove("OSCTL_SYSTEMCTL")
            .env_remove("OSCTL_JOURNALCTL")
            .env("FAKE_SYSTEMCTL_DIR", &self.state)
            .env("FAKE_SYSTEMCTL_ROOT", &self.root);
        if systemd {
            let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake-systemctl");
            cmd.env("OSCTL_SYSTEMCTL", fake)
                .env("OSCTL_JOURNALCTL", &self.journalctl);
        }
        cmd.output().unwrap()
    }

    fn calls(&self, name: &str) -> String {
        std::fs::read_to_string(self.state.join(name)).unwrap_or_default()
    }
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn copy(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// Every path under `root` with its bytes and mode (what doctor must leave as it was).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let bytes = if meta.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (e.path().to_path_buf(), (bytes, meta.permissions().mode()))
        })
        .collect()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_healthy_device_has_no_findings_exits_0_and_is_left_as_it_was() {
    let d = Dev::healthy();
    let before = snapshot(&d.root);
    let out = d.run(&["doctor"], false);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.ends_with("\nnext: nothing to do\n"), "{stdout}");
    assert!(
        stdout.contains("presync    ok       hermes in sync"),
        "{stdout}"
    );
    assert!(!stdout.contains("finding"), "{stdout}");

    let out = d.run(&["--json", "doctor"], false);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "doctor");
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["healthy"], true);
    assert_eq!(doc["findings"], serde_json::json!([]));
    assert_eq!(doc["next"], "nothing to do");
    // Not even the lock file: doctor never takes the lock.
    assert_eq!(snapshot(&d.root), before);
}

#[test]
fn a_failed_unit_shows_its_journal_and_the_next_command_is_journalctl() {
    let d = Dev::healthy();
    d.set("hermes-gateway.service", "active", "failed");
    d.set("hermes-gateway.service", "sub", "failed");
    d.set("hermes-gateway.service", "restarts", "3");
    let before = snapshot(&d.root);
    let out = d.run(&["doctor"], true);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "error [units] hermes-gateway.service is failed (failed, 3 restarts)\n      Dec 02 04:00:01 lamp hermes[812]: loading config.yaml\n      Dec 02 04:00:02 lamp hermes[812]: error: provider custom:autonomous refused the key\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("\nnext: journalctl -u hermes-gateway.service -n 50 --no-pager\n"),
        "{stdout}"
    );
    // The other installed runtime (stopped) and osctl's own units are read, and are fine.
    assert!(stdout.contains("  openclaw.service"), "{stdout}");
    assert!(stdout.contains("  osctl-boot.service"), "{stdout}");
    assert_eq!(stdout.matches("error [units]").count(), 1, "{stdout}");
    // Only reads: `systemctl show`, and the journal of the failed unit alone.
    let calls = d.calls("calls");
    assert!(
        calls.lines().all(|l| l.starts_with("show ")),
        "doctor asked systemd to act: {calls}"
    );
    assert_eq!(
        d.calls("journalctl-calls"),
        format!("{LAST_SWITCH}\n-u hermes-gateway.service -n 10 --no-pager\n")
    );
    assert_eq!(snapshot(&d.root), before);
}

/// doctor's query for the last switch osctl logged to the journal.
const LAST_SWITCH: &str = "-o json -n 1 --no-pager OSCTL_SWITCH=failed OSCTL_SWITCH=landed";

#[test]
fn a_rolled_back_last_switch_is_a_warning_that_points_at_the_units_journal() {
    let d = Dev::healthy();
    d.set("hermes-gateway.service", "active", "active");
    d.set("hermes-gateway.service", "sub", "running");
    let failed = r#"{"MESSAGE":"switch hermes -> openclaw failed: openclaw.service did not stay active","OSCTL_SWITCH":"failed","OSCTL_FROM":"hermes","OSCTL_TO":"openclaw","OSCTL_UNIT":"openclaw.service"}"#;
    std::fs::write(d.state.join("switch-log"), format!("{failed}\n")).unwrap();
    let out = d.run(&["doctor"], true);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "the last switch, hermes -> openclaw, failed and was rolled back: openclaw.service did not stay active"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("journalctl -u openclaw.service -n 50 --no-pager"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("error [switch]"),
        "a warning, not an error: {stdout}"
    );
    // A switch that landed since: nothing to say.
    let landed = r#"{"MESSAGE":"switch openclaw -> hermes landed: switched openclaw -> hermes","OSCTL_SWITCH":"landed","OSCTL_FROM":"openclaw","OSCTL_TO":"hermes","OSCTL_UNIT":""}"#;
    std::fs::write(d.state.join("switch-log"), format!("{landed}\n")).unwrap();
    let stdout = text(&d.run(&["doctor"], true).stdout);
    assert!(!stdout.contains("rolled back"), "{stdout}");
}

#[test]
fn running_units_as_the_device_wants_them_are_healthy() {
    let d = Dev::healthy();
    d.set("hermes-gateway.service", "active", "active");
    d.set("hermes-gateway.service", "sub", "running");
    let out = d.run(&["doctor"], true);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  hermes-gateway.service      active (running)\n"),
        "{stdout}"
    );
    // The journal is read for the last switch's outcome only.
    assert_eq!(d.calls("journalctl-calls"), format!("{LAST_SWITCH}\n"));

    // The other runtime running too is a finding, with the command that stops it.
    d.set("openclaw.service", "active", "active");
    let out = d.run(&["doctor"], true);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.ends_with("\nnext: systemctl disable --now openclaw.service\n"),
        "{stdout}"
    );
}

#[test]
fn a_run_holding_the_lock_is_named_and_doctor_does_not_wait_for_it() {
    let d = Dev::healthy();
    let fs = RootFs::new(&d.root).unwrap();
    let _held = DeviceLock::acquire_as(
        &fs,
        Duration::ZERO,
        &Holder::me("switch", "osctl switch codex"),
        true,
    )
    .unwrap();
    let started = Instant::now();
    let out = d.run(&["doctor"], false);
    let stdout = text(&out.stdout);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "lock       findings held by pid {} (osctl switch codex)",
            std::process::id()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("next: wait for it to finish"), "{stdout}");
}

/// The book's doctor chapter (docs/book/src/doctor.md) shows what doctor prints on the sample device, run where a reader runs it (paths
/// appear under `--root` as given), and doctor leaves the sample device as it was.
#[test]
fn the_readme_section_is_what_doctor_prints_on_the_sample_device() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let before = snapshot(&repo.join("examples/device"));
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .current_dir(repo)
        .args(["--root", "examples/device", "doctor"])
        .env_remove("OSCTL_SYSTEMCTL")
        .env_remove("OSCTL_ROOT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let readme = std::fs::read_to_string(repo.join("docs/book/src/doctor.md")).unwrap();
    let prompt = "$ cargo run -q -- --root examples/device doctor\n";
    let start = readme.find(prompt).expect("the doctor example") + prompt.len();
    let end = start + readme[start..].find("```").expect("the end of the block");
    assert_eq!(&readme[start..end], text(&out.stdout));
    assert_eq!(snapshot(&repo.join("examples/device")), before);
}

/// A failed unit's journal may quote the device's secrets in plain words; doctor's output masks
/// them (text and JSON), as every osctl output does.
#[test]
fn secrets_in_a_failed_units_journal_are_masked() {
    let d = Dev::healthy();
    d.set("hermes-gateway.service", "active", "failed");
    std::fs::write(
        &d.journalctl,
        "#!/bin/sh\necho 'hermes[9]: provider refused sk-example-0000000000000000c0de'\n\
         echo 'hermes[9]: telegram rejected 123456789:AAExampleExampleExampleExample'\n",
    )
    .unwrap();
    for json in [false, true] {
        let args: &[&str] = if json {
            &["--json", "doctor"]
        } else {
            &["doctor"]
        };
        let out = d.run(args, true);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{stdout}");
        assert!(stdout.contains("hermes[9]: provider refused"), "{stdout}");
        assert!(
            !stdout.contains("sk-example-0000000000000000c0de"),
            "{stdout}"
        );
        assert!(
            !stdout.contains("AAExampleExampleExampleExample"),
            "{stdout}"
        );
    }
}

/// Exit 1 only when doctor cannot run at all: a root that is not a device.
#[test]
fn a_root_that_is_not_a_device_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(dir.path())
        .args(["--json", "doctor"])
        .env_remove("OSCTL_SYSTEMCTL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "not_a_device_root");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
