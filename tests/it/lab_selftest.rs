//! Smoke test of the real-systemd lab (tests/it/support/systemd_lab.rs): boots one container,
//! checks that a good unit goes `active` and one with a missing binary goes `failed`.
//! Skipped (stderr line) where the lab cannot run, unless CI=true / OSCTL_REQUIRE_SYSTEMD=1.
//! Does not need the osctl binary.

use crate::support::systemd_lab::{machine_name, require_lab};

#[test]
fn machine_names_are_valid_hostnames() {
    assert_eq!(machine_name(42, 0, ""), "it-42-0");
    assert_eq!(machine_name(42, 3, "Switch A->B"), "it-42-3-switch-a--b");
    let long = machine_name(4_194_304, 99, &"x".repeat(200));
    assert!(long.len() <= 64 && long.starts_with("it-4194304-99-"));
    assert!(
        long.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    );
}

#[test]
fn lab_runs_real_systemd_units() {
    let Some(mut lab) = require_lab("selftest") else {
        return;
    };
    let unit = "[Unit]\nDescription=%N\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n";
    lab.write("/etc/systemd/system/good.service", unit, 0o644);
    lab.write(
        "/etc/systemd/system/bad.service",
        unit.replace("/bin/sleep infinity", "/opt/agent/missing"),
        0o644,
    );
    assert!(
        lab.read("/etc/systemd/system/good.service")
            .unwrap()
            .contains("sleep infinity")
    );
    assert_eq!(lab.read("/etc/hostname-does-not-exist"), None);

    assert!(lab.systemctl(&["daemon-reload"]).status.success());
    let out = lab.systemctl(&["enable", "--now", "good.service", "bad.service"]);
    assert!(out.status.success(), "enable --now: {out:?}"); // Type=simple: exec failure is async
    assert_eq!(lab.wait_is_active("good.service", "active", 5), "active");
    assert_eq!(lab.wait_is_active("bad.service", "failed", 5), "failed");
    let out = lab.systemctl(&["is-active", "bad.service"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "is-active of a failed unit exits 3"
    );
    let out = lab.systemctl(&["is-enabled", "good.service"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "enabled");

    // host file copied in and run inside; exit codes propagate
    let tmp = std::env::temp_dir().join(format!("lab-selftest-{}.sh", std::process::id()));
    std::fs::write(&tmp, "#!/bin/sh\necho \"in $(hostname)\"\nexit 7\n").unwrap();
    lab.copy_in(&tmp, "/usr/local/bin/probe", 0o755);
    let _ = std::fs::remove_file(&tmp);
    let out = lab.exec(&["/usr/local/bin/probe"]);
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("in {}", lab.name())
    );

    assert!(lab.root_path().join("etc/os-release").exists());
    lab.down();
    lab.down(); // idempotent; Drop is then a no-op
}
