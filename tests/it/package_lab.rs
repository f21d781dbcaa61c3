//! The osctl Debian package on a booted device: a real systemd in a throwaway container
//! (`tests/it/support/systemd_lab.rs`) that holds a device tree, where the amd64 package
//! (`scripts/build-deb`, before `cargo test` in `.ci/run`) is installed with `dpkg -i`:
//!
//! - the package's units are enabled (by its maintainer scripts), the skills timer is running
//!   and has a next run, the runtime unit carries the presync `ExecStartPre=`;
//! - the boot transaction (`systemctl start multi-user.target` with the boot pass and the
//!   runtime stopped, as systemd starts them at boot; a real reboot would lose the container's
//!   volatile overlay) runs the boot pass before the runtime, and the pass reconciles: the
//!   markers are recorded and config.json's `mcp_tools` reach the runtime;
//! - starting the runtime runs presync first (its files are healed before `ExecStart=`);
//! - the timer's service succeeds against a CDN on the container's loopback, installing a skill;
//! - `dpkg -r` removes the units and drop-ins and leaves the device's files alone; `dpkg --purge`
//!   also takes the enable links and deb-systemd-helper's masks.
//!
//! Skipped where the lab cannot run or the package was not built (`target/debian/`), except
//! under `CI=true` or `OSCTL_REQUIRE_SYSTEMD=1`, where either is a failure.

use crate::skills_support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Output;

use crate::support::systemd_lab::{Lab, lab_required, require_lab};

pub(crate) fn deb() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("OSCTL_DEB") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "target/debian/osctl_{}-1_amd64.deb",
        env!("CARGO_PKG_VERSION")
    ));
    if p.is_file() {
        return Some(p);
    }
    let why = format!("{} not built (scripts/build-deb)", p.display());
    if lab_required() {
        panic!("the package test is required (CI=true) but {why}");
    }
    eprintln!("SKIP package_lab: {why}");
    None
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "{} stdout={} stderr={}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(lab: &Lab, argv: &[&str]) -> String {
    let out = lab.exec(argv);
    assert!(out.status.success(), "{argv:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn show(lab: &Lab, unit: &str, prop: &str) -> String {
    ok(lab, &["systemctl", "show", "-p", prop, "--value", unit])
        .trim()
        .to_string()
}

fn exists(lab: &Lab, path: &str) -> bool {
    std::fs::symlink_metadata(lab.path(path)).is_ok()
}

const CONFIG: &str = r#"{
  "httpPort": 5000,
  "agent_runtime": "",
  "llm_api_key": "sk-lab-0000000000000000000000000000c0de",
  "llm_model": "Auto-AI",
  "mcp_tools": [{"name": "search", "url": "https://search.example/mcp/", "headers": {}}]
}
"#;

#[test]
fn the_package_installs_enables_boots_and_removes_cleanly() {
    let Some(deb) = deb() else { return };
    let Some(lab) = require_lab("package") else {
        return;
    };
    // The skills CDN, served on the container's own loopback (it has no other network).
    let skill = skills_support::skill_zip(&[("SKILL.md", b"---\nname: lab\n---\nA skill.\n")]);
    let version = skills_support::version_of(&skill);
    let server = serve_in(&lab);
    let mut skills = BTreeMap::new();
    skills.insert("lab".to_string(), version);
    server.set(
        "/os/ota/metadata.json",
        skills_support::Reply::Ok(serde_json::to_vec(&skills_support::metadata(&skills)).unwrap()),
    );
    server.set("/os/skills/lab.zip", skills_support::Reply::Ok(skill));

    // The device: an image default of hermes, an empty agent_runtime, a hermes unit.
    lab.write("/root/config/config.json", CONFIG, 0o600);
    lab.write("/root/config/f_r_default_agent", "hermes\n", 0o644);
    lab.write(
        "/root/config/bootstrap.json",
        format!("{{\"metadata_url\": \"{}\"}}\n", server.metadata_url()),
        0o600,
    );
    lab.write(
        "/etc/systemd/system/hermes-gateway.service",
        "[Unit]\nDescription=hermes (lab)\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n",
        0o644,
    );
    ok(&lab, &["systemctl", "daemon-reload"]);
    ok(&lab, &["systemctl", "enable", "hermes-gateway.service"]);

    // Install.
    lab.copy_in(&deb, "/tmp/osctl.deb", 0o644);
    ok(&lab, &["dpkg", "-i", "/tmp/osctl.deb"]);
    assert!(exists(&lab, "/usr/bin/osctl"));
    for unit in ["osctl-boot.service", "osctl-skills-sync.timer"] {
        assert_eq!(
            ok(&lab, &["systemctl", "is-enabled", unit]).trim(),
            "enabled",
            "{unit}"
        );
    }
    assert_eq!(
        lab.wait_is_active("osctl-skills-sync.timer", "active", 10),
        "active"
    );
    let next = show(&lab, "osctl-skills-sync.timer", "NextElapseUSecRealtime");
    assert!(
        !next.is_empty() && next != "n/a",
        "timer has no next run: {next:?}"
    );
    let timers = ok(
        &lab,
        &[
            "systemctl",
            "list-timers",
            "--all",
            "osctl-skills-sync.timer",
        ],
    );
    assert!(timers.contains("osctl-skills-sync.timer"), "{timers}");
    eprintln!("list-timers:\n{timers}");
    let pre = show(&lab, "hermes-gateway.service", "ExecStartPre");
    assert!(pre.contains("osctl presync hermes"), "ExecStartPre: {pre}");
    assert!(
        show(&lab, "hermes-gateway.service", "DropInPaths")
            .contains("hermes-gateway.service.d/10-osctl-presync.conf")
    );
    for unit in [
        "osctl-boot.service",
        "osctl-skills-sync.service",
        "osctl-skills-sync.timer",
    ] {
        // `--man=no`: the lab rootfs has no man-db to look up `Documentation=man:osctl(1)`.
        let out = lab.exec(&["systemd-analyze", "verify", "--man=no", unit]);
        assert!(
            out.status.success(),
            "systemd-analyze verify {unit}: {}",
            text(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains(unit),
            "systemd-analyze verify {unit} complains: {err}"
        );
    }

    // The boot transaction: both units stopped, then multi-user.target pulls them in again.
    ok(
        &lab,
        &[
            "systemctl",
            "stop",
            "hermes-gateway.service",
            "osctl-boot.service",
        ],
    );
    lab.write("/root/config/config.json", CONFIG, 0o600);
    let _ = std::fs::remove_dir_all(lab.path("/root/.hermes"));
    ok(&lab, &["systemctl", "start", "multi-user.target"]);
    assert_eq!(
        lab.wait_is_active("hermes-gateway.service", "active", 30),
        "active"
    );
    assert_eq!(show(&lab, "osctl-boot.service", "Result"), "success");
    assert_eq!(show(&lab, "osctl-boot.service", "ActiveState"), "active");
    let boot_done: u64 = show(&lab, "osctl-boot.service", "ActiveEnterTimestampMonotonic")
        .parse()
        .unwrap();
    let runtime_start: u64 = show(
        &lab,
        "hermes-gateway.service",
        "ExecMainStartTimestampMonotonic",
    )
    .parse()
    .unwrap();
    assert!(
        boot_done > 0 && boot_done <= runtime_start,
        "the boot pass ({boot_done}) must finish before hermes starts ({runtime_start})"
    );
    let config: serde_json::Value =
        serde_json::from_str(&lab.read("/root/config/config.json").unwrap()).unwrap();
    assert_eq!(config["mcp_applied_runtime"], "hermes", "{config}");
    let yaml = lab.read("/root/.hermes/config.yaml").unwrap_or_default();
    assert!(yaml.contains("tool_search"), "mcp_tools not synced: {yaml}");
    // Presync ran before hermes started: the provider it writes is there.
    assert!(yaml.contains("custom:autonomous"), "{yaml}");
    let seeded = config["agent_runtime"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(seeded, "hermes", "the boot pass did not seed agent_runtime");

    // Starting the runtime alone runs presync first: a healed file comes back.
    ok(&lab, &["systemctl", "stop", "hermes-gateway.service"]);
    std::fs::remove_file(lab.path("/root/.hermes/.env")).unwrap();
    ok(&lab, &["systemctl", "start", "hermes-gateway.service"]);
    let env = lab.read("/root/.hermes/.env").unwrap_or_default();
    assert!(env.contains("API_SERVER_KEY=hermes-local-api-key"), "{env}");

    // The timer's service against the loopback CDN.
    ok(&lab, &["systemctl", "start", "osctl-skills-sync.service"]);
    assert_eq!(show(&lab, "osctl-skills-sync.service", "Result"), "success");
    assert!(
        lab.read("/root/.hermes/skills/openclaw-imports/lab/SKILL.md")
            .is_some(),
        "the skill was not installed"
    );

    // Remove: units and drop-ins go, the device's files stay.
    let keep = [
        "/root/config/config.json",
        "/root/.hermes/config.yaml",
        "/root/.hermes/.env",
        "/var/lib/osctl/skills.json",
    ];
    let before: Vec<Option<String>> = keep.iter().map(|p| lab.read(p)).collect();
    ok(&lab, &["dpkg", "-r", "osctl"]);
    for p in [
        "/usr/bin/osctl",
        "/usr/lib/systemd/system/osctl-boot.service",
        "/usr/lib/systemd/system/osctl-skills-sync.service",
        "/usr/lib/systemd/system/osctl-skills-sync.timer",
        "/usr/lib/systemd/system/hermes-gateway.service.d/10-osctl-presync.conf",
    ] {
        assert!(!exists(&lab, p), "{p} is left after dpkg -r");
    }
    for unit in ["osctl-skills-sync.timer", "osctl-boot.service"] {
        assert_ne!(show(&lab, unit, "ActiveState"), "active", "{unit}");
    }
    assert!(
        !show(&lab, "hermes-gateway.service", "ExecStartPre").contains("osctl"),
        "the presync drop-in outlived the package"
    );
    let after: Vec<Option<String>> = keep.iter().map(|p| lab.read(p)).collect();
    assert_eq!(before, after, "dpkg -r changed the device's files");
    assert!(before.iter().all(Option::is_some));
    assert_eq!(
        lab.wait_is_active("hermes-gateway.service", "active", 5),
        "active"
    );
    // Debian keeps a removed package's enablement until it is purged (deb-systemd-helper masks
    // the units meanwhile); the purge takes the links and the masks away.
    ok(&lab, &["dpkg", "--purge", "osctl"]);
    for p in [
        "/etc/systemd/system/multi-user.target.wants/osctl-boot.service",
        "/etc/systemd/system/timers.target.wants/osctl-skills-sync.timer",
        "/etc/systemd/system/osctl-boot.service",
        "/etc/systemd/system/osctl-skills-sync.timer",
    ] {
        assert!(!exists(&lab, p), "{p} is left after dpkg --purge");
    }
    let after: Vec<Option<String>> = keep.iter().map(|p| lab.read(p)).collect();
    assert_eq!(before, after, "dpkg --purge changed the device's files");
}

/// A loopback HTTP server inside the container's network namespace: the listening socket is
/// made by a thread that joined that namespace (setns applies to the calling thread only).
fn serve_in(lab: &Lab) -> skills_support::Server {
    let ns = format!("/proc/{}/ns/net", lab.leader());
    std::thread::spawn(move || {
        use std::os::fd::AsRawFd;
        let f = std::fs::File::open(&ns).unwrap();
        // SAFETY: setns on this thread with a namespace fd we hold open.
        let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(rc, 0, "setns: {}", std::io::Error::last_os_error());
        skills_support::Server::start()
    })
    .join()
    .unwrap()
}
