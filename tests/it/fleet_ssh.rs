//! The real fleet: the osctl.device collection over real SSH to three devices that are systemd
//! containers (tests/lab/osctl-systemd-lab.sh with `OSCTL_LAB_VARIANT=ssh`: the lab rootfs with
//! openssh-server and python3 added, each container's sshd on its own 127.0.0.1 port, a key
//! generated per run), osctl installed as a device has it. ansible/tests/fleet_ssh.py boots them
//! and runs the checks of the fast variant (fleet_local.py): check mode and diff first, the real
//! run, a second run with nothing changed, check-mode predictions against the files that
//! really changed, a rolling switch that stops at the lamp whose new runtime crash-loops (it
//! stays on its old runtime, as systemd reports, with every file as it was; the third lamp is
//! not touched), and no secret in any -vvv output. It prints the `FLEET:` line the book quotes.
//!
//! Skipped with a note where the lab or the venv cannot run (not root, no systemd-nspawn, no ssh
//! rootfs, no ansible venv); under `CI=true` or `OSCTL_REQUIRE_SYSTEMD=1` that is a failure.

use crate::support::systemd_lab;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn venv() -> PathBuf {
    match std::env::var_os("OSCTL_ANSIBLE_VENV") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/osctl-ansible-venv"),
    }
}

/// Why the fleet cannot run here, if it cannot.
fn unavailable(venv: &Path) -> Option<String> {
    if !venv.join("bin/ansible-playbook").exists() {
        return Some(format!(
            "no ansible-playbook in {} (run ansible/setup-venv.sh)",
            venv.display()
        ));
    }
    for bin in ["ssh", "ssh-keygen"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {bin}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            return Some(format!("{bin} not found (apt-get install openssh-client)"));
        }
    }
    let check = match Command::new("bash")
        .arg(systemd_lab::script())
        .arg("check")
        .env("OSCTL_LAB_VARIANT", "ssh")
        .stdin(Stdio::null())
        .output()
    {
        Ok(out) => out,
        Err(e) => return Some(format!("cannot run the lab script: {e}")),
    };
    if check.status.success() {
        None
    } else {
        Some(format!(
            "ssh lab: {}{} (OSCTL_LAB_VARIANT=ssh tests/lab/osctl-systemd-lab.sh build)",
            String::from_utf8_lossy(&check.stdout).trim(),
            String::from_utf8_lossy(&check.stderr).trim()
        ))
    }
}

#[test]
fn fleet_over_ssh_predicts_applies_and_stops_the_wave() {
    let venv = venv();
    if let Err(why) = systemd_lab::lab_wanted() {
        eprintln!("skipped: {why}");
        return;
    }
    if let Some(why) = unavailable(&venv) {
        assert!(
            !systemd_lab::lab_required(),
            "the fleet must run here: {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(repo.join("ansible/tests/fleet_ssh.py"))
        .arg("--osctl")
        .arg(env!("CARGO_BIN_EXE_osctl"))
        .arg("--venv")
        .arg(&venv)
        .arg("--repo")
        .arg(repo)
        .arg("--work")
        .arg(work.path().join("fleet"))
        .arg("--lab")
        .arg(systemd_lab::script())
        .env_remove("OSCTL_ROOT")
        .env_remove("OSCTL_SYSTEMCTL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(out.status.success(), "fleet_ssh.py failed: {stderr}");
    let fleet = stdout
        .lines()
        .find(|l| l.starts_with("FLEET: "))
        .expect("a FLEET line");
    for want in [
        "mode=ssh hosts=3 ",
        " mismatches=0 ",
        " second_run_changed=0 ",
        " secrets_leaked=0 ",
        " stopped_at=lamp2",
    ] {
        assert!(fleet.contains(want), "{want:?} not in {fleet}");
    }
}
