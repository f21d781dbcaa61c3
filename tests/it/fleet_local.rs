//! The fast fleet test: the Ansible collection osctl.device (ansible/) driven by a real
//! `ansible-playbook` over `connection: local` against three device trees copied from
//! examples/device, with tests/support/fake-systemctl as systemd. ansible/tests/fleet_local.py
//! does the work and says what it checks (check mode's predictions equal the real run per task
//! and per file, a second run changes nothing, a rolling switch stops at the rigged lamp, no
//! secret in any output with -vvv); this test builds the inputs and requires it to pass.
//!
//! It needs ansible-core in a virtualenv (ansible/setup-venv.sh, which .ci/run calls):
//! `$OSCTL_ANSIBLE_VENV`, default `~/.cache/osctl-ansible-venv`. Without it the test is
//! skipped with a note, except under `CI=true`, where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn venv() -> PathBuf {
    match std::env::var_os("OSCTL_ANSIBLE_VENV") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/osctl-ansible-venv"),
    }
}

#[test]
fn fleet_over_local_connection_predicts_applies_and_stops_the_wave() {
    let venv = venv();
    if !venv.join("bin/ansible-playbook").exists() {
        let note = format!(
            "no ansible-playbook in {} (run ansible/setup-venv.sh)",
            venv.display()
        );
        assert!(std::env::var("CI").map_or(true, |v| v != "true"), "{note}");
        eprintln!("skipped: {note}");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(repo.join("ansible/tests/fleet_local.py"))
        .arg("--osctl")
        .arg(env!("CARGO_BIN_EXE_osctl"))
        .arg("--venv")
        .arg(&venv)
        .arg("--repo")
        .arg(repo)
        .arg("--work")
        .arg(work.path().join("fleet"))
        .env_remove("OSCTL_ROOT")
        .env_remove("OSCTL_SYSTEMCTL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(out.status.success(), "fleet_local.py failed: {stderr}");
    let fleet = stdout
        .lines()
        .find(|l| l.starts_with("FLEET: "))
        .expect("a FLEET line");
    for want in [
        "hosts=3 ",
        " mismatches=0 ",
        " second_run_changed=0 ",
        " secrets_leaked=0 ",
        " stopped_at=lamp2",
    ] {
        assert!(fleet.contains(want), "{want:?} not in {fleet}");
    }
}

/// The collection's mapping from osctl's JSON and exit codes to Ansible's result
/// (module_utils/osctl.py), on schema-1 and schema-2 documents: needs only python3.
#[test]
fn module_utils_maps_osctls_documents_and_exit_codes() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(repo.join("ansible/tests/test_module_utils.py"))
        .arg("-v")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprint!("{stderr}");
    assert!(out.status.success(), "module_utils tests failed");
    assert!(stderr.contains("\nOK"), "no unittest verdict: {stderr}");
}
