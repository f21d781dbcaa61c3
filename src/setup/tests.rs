use super::*;
use crate::apply::{Target, apply};
use crate::output::{ColorChoice, Printer};
use crate::plan::{FileState, Step};
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;
use crate::system::services::Services;

fn root(files: &[(&str, &str)]) -> (tempfile::TempDir, RootFs) {
    let dir = tempfile::tempdir().unwrap();
    for (p, t) in files {
        let host = dir.path().join(p);
        std::fs::create_dir_all(host.parent().unwrap()).unwrap();
        std::fs::write(host, t).unwrap();
    }
    let fs = RootFs::new(dir.path()).unwrap();
    (dir, fs)
}

fn apply_plan(fs: &RootFs, draft: Draft<'_>) {
    let plan = draft.finish();
    let services = Services::new(false, None, None);
    let out = Printer::new(false, true, 0, ColorChoice::Never, true);
    let t = Target {
        fs,
        services: &services,
        out: &out,
        command: "osctl setup",
    };
    apply(&t, &plan).unwrap();
}

const HERMES_UNIT: (&str, &str) = (
    "etc/systemd/system/hermes-gateway.service",
    "[Service]\nExecStart=/usr/local/bin/hermes gateway\n",
);

#[test]
fn a_fresh_image_gets_the_units_their_links_and_the_drop_ins_of_existing_runtimes() {
    let (dir, fs) = root(&[HERMES_UNIT]);
    let mut draft = Draft::new(&fs);
    let report = plan(&mut draft).unwrap();
    assert!(report.units.iter().all(|u| u.state == State::Written));
    let names: Vec<&str> = report.drop_ins.iter().map(|d| d.runtime).collect();
    assert_eq!(names, ["hermes"]);
    assert_eq!(report.runtimes_without_unit.len(), REGISTRY.len() - 1);
    let planned = draft.clone().finish();
    let links: Vec<(String, String)> = planned
        .file_changes()
        .filter_map(|c| match &c.after {
            FileState::Symlink { target } => Some((c.path.to_string(), target.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        links,
        [
            (
                "/etc/systemd/system/multi-user.target.wants/osctl-boot.service".to_string(),
                "/etc/systemd/system/osctl-boot.service".to_string()
            ),
            (
                "/etc/systemd/system/timers.target.wants/osctl-skills-sync.timer".to_string(),
                "/etc/systemd/system/osctl-skills-sync.timer".to_string()
            ),
        ]
    );
    // daemon-reload comes before the timer's start, and both come after every file.
    let services: Vec<String> = planned
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Service(a) => Some(a.describe()),
            _ => None,
        })
        .collect();
    assert_eq!(
        services,
        [
            "systemctl daemon-reload",
            "systemctl start osctl-skills-sync.timer"
        ]
    );
    apply_plan(&fs, draft);
    let link = dir
        .path()
        .join("etc/systemd/system/multi-user.target.wants/osctl-boot.service");
    assert_eq!(
        std::fs::read_link(link).unwrap(),
        std::path::Path::new("/etc/systemd/system/osctl-boot.service")
    );
    let dropin = std::fs::read_to_string(
        dir.path()
            .join("etc/systemd/system/hermes-gateway.service.d/10-osctl-presync.conf"),
    )
    .unwrap();
    assert!(dropin.contains("\nExecStartPre=-/usr/bin/osctl presync hermes\n"));
    // A second run plans nothing at all, not even a reload.
    let mut draft = Draft::new(&fs);
    let report = plan(&mut draft).unwrap();
    assert!(report.units.iter().all(|u| u.state == State::InPlace));
    assert!(draft.finish().is_empty());
}

#[test]
fn files_the_package_installed_are_left_to_it() {
    let mut files = vec![HERMES_UNIT];
    let vendor: Vec<(String, &str)> = UNITS
        .iter()
        .map(|u| (format!("lib/systemd/system/{}", u.name), u.content))
        .collect();
    let hermes = drop_in(RuntimeId::Hermes.spec(), &DevPath::new(PACKAGED_BINARY));
    let vendor_drop_in = (
        "lib/systemd/system/hermes-gateway.service.d/10-osctl-presync.conf".to_string(),
        hermes.as_str(),
    );
    for (p, t) in vendor.iter().chain(std::iter::once(&vendor_drop_in)) {
        files.push((p.as_str(), t));
    }
    let (_dir, fs) = root(&files);
    let mut draft = Draft::new(&fs);
    let report = plan(&mut draft).unwrap();
    assert!(report.units.iter().all(|u| u.state == State::Packaged));
    assert_eq!(report.drop_ins[0].state, State::Packaged);
    let plan = draft.finish();
    // Only the enable links (to the package's files) and the reload: no copy in /etc.
    let paths: Vec<String> = plan.file_changes().map(|c| c.path.to_string()).collect();
    assert_eq!(
        paths,
        [
            "/etc/systemd/system/multi-user.target.wants/osctl-boot.service",
            "/etc/systemd/system/timers.target.wants/osctl-skills-sync.timer"
        ]
    );
    assert!(plan.file_changes().all(|c| matches!(
        &c.after,
        FileState::Symlink { target } if target.starts_with("/lib/systemd/system/")
    )));
}

#[test]
fn a_masked_unit_stays_masked_and_a_dangling_link_is_replaced() {
    let (dir, fs) = root(&[]);
    let etc = dir.path().join("etc/systemd/system");
    std::fs::create_dir_all(etc.join("multi-user.target.wants")).unwrap();
    std::os::unix::fs::symlink("/dev/null", etc.join("osctl-boot.service")).unwrap();
    std::os::unix::fs::symlink(
        "/lib/systemd/system/gone.timer",
        etc.join("multi-user.target.wants/stale"),
    )
    .unwrap();
    std::fs::create_dir_all(etc.join("timers.target.wants")).unwrap();
    std::os::unix::fs::symlink(
        "/lib/systemd/system/osctl-skills-sync.timer",
        etc.join("timers.target.wants/osctl-skills-sync.timer"),
    )
    .unwrap();
    let mut draft = Draft::new(&fs);
    let report = plan(&mut draft).unwrap();
    assert_eq!(report.units[0].state, State::Masked);
    let plan = draft.finish();
    assert!(
        plan.file_changes()
            .all(|c| !c.path.to_string().contains("osctl-boot")),
        "the masked unit was touched"
    );
    // The timer's link led nowhere (no package): it is made to point at osctl's own copy.
    let timer_link = plan
        .file_changes()
        .find(|c| {
            c.path
                .to_string()
                .ends_with("timers.target.wants/osctl-skills-sync.timer")
        })
        .unwrap();
    assert!(matches!(timer_link.before, FileState::Symlink { .. }));
    assert_eq!(
        timer_link.after,
        FileState::Symlink {
            target: "/etc/systemd/system/osctl-skills-sync.timer".into()
        }
    );
}

#[test]
fn the_boot_unit_runs_before_every_runtime_unit() {
    let boot = UNITS[0].content;
    let before: Vec<&str> = boot
        .lines()
        .find_map(|l| l.strip_prefix("Before="))
        .unwrap()
        .split_whitespace()
        .collect();
    let units: Vec<String> = crate::runtime::packaged()
        .iter()
        .map(|r| format!("{}.service", r.unit))
        .collect();
    assert_eq!(before, units);
    assert!(boot.contains("\nAfter=local-fs.target\n"));
    assert!(boot.contains("\nType=oneshot\n"));
    assert!(boot.contains("\nExecStart=/usr/bin/osctl reconcile\n"));
    assert!(boot.contains("\n[Install]\nWantedBy=multi-user.target\n"));
}

#[test]
fn the_timer_spreads_the_fleet_and_catches_up() {
    let timer = UNITS[2].content;
    for line in [
        "OnCalendar=*:0/5",
        "RandomizedDelaySec=5min",
        "FixedRandomDelay=yes",
        "Persistent=yes",
        "WantedBy=timers.target",
    ] {
        assert!(timer.lines().any(|l| l == line), "{line}");
    }
    assert!(
        UNITS[1]
            .content
            .contains("\nExecStart=/usr/bin/osctl skills sync\n")
    );
}

#[test]
fn every_runtime_gets_its_own_presync_line() {
    for rt in REGISTRY {
        let text = drop_in(rt, &DevPath::new(PACKAGED_BINARY));
        let pre: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("ExecStartPre="))
            .collect();
        assert_eq!(
            pre,
            [format!("ExecStartPre=-/usr/bin/osctl presync {}", rt.name)]
        );
        assert!(!text.contains('@'), "{text}");
    }
    assert_eq!(
        drop_in_path("hermes-gateway").to_string(),
        "/etc/systemd/system/hermes-gateway.service.d/10-osctl-presync.conf"
    );
}

#[test]
fn the_package_ships_the_same_drop_ins_and_units() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
    for rt in crate::runtime::packaged() {
        let rel = format!("debian/presync/{}.service.d/{DROP_IN}", rt.unit);
        let shipped = std::fs::read_to_string(repo.join(&rel)).unwrap();
        assert_eq!(
            shipped,
            drop_in(rt, &DevPath::new(PACKAGED_BINARY)),
            "{rel} differs from what the package's binary path gives"
        );
        assert!(
            manifest.contains(&format!("\"{rel}\"")),
            "{rel} is not a package asset"
        );
    }
    // cargo-deb picks the units from embedded/units by their names.
    for unit in UNITS {
        let stem = unit.name.rsplit_once('.').unwrap().0;
        assert!(
            manifest.contains(&format!("unit-name = \"{stem}\"")),
            "{} is not a package unit",
            unit.name
        );
    }
}

/// Every `Exec` line of what setup writes names a binary by its absolute path, the one found
/// under the root (a bare `osctl` is refused by `systemd-analyze verify`).
#[test]
fn the_units_call_the_binary_found_under_the_root_by_its_absolute_path() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, fs) = root(&[HERMES_UNIT, ("usr/local/bin/osctl", "#!/bin/sh\n")]);
    let bin = dir.path().join("usr/local/bin/osctl");
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut draft = Draft::new(&fs);
    let report = plan(&mut draft).unwrap();
    assert_eq!(report.binary.to_string(), "/usr/local/bin/osctl");
    let warnings = draft.clone().finish().warnings;
    assert!(warnings.is_empty(), "{warnings:?}");
    apply_plan(&fs, draft);
    let mut execs = Vec::new();
    let runtime_drop_in = format!("{}.d/{DROP_IN}", HERMES_UNIT.0);
    for rel in [
        "etc/systemd/system/osctl-boot.service",
        "etc/systemd/system/osctl-skills-sync.service",
        runtime_drop_in.as_str(),
    ] {
        let text = std::fs::read_to_string(dir.path().join(rel)).unwrap();
        execs.extend(
            text.lines()
                .filter(|l| l.starts_with("Exec"))
                .map(str::to_string),
        );
    }
    assert_eq!(
        execs,
        [
            "ExecStart=/usr/local/bin/osctl reconcile",
            "ExecStart=/usr/local/bin/osctl skills sync",
            format!(
                "ExecStartPre=-/usr/local/bin/osctl presync {}",
                report.drop_ins[0].runtime
            )
            .as_str(),
        ]
    );
    // Without a binary under the root: the package's path, and a warning that says so.
    let (_dir, fs) = root(&[HERMES_UNIT]);
    let mut draft = Draft::new(&fs);
    assert_eq!(
        plan(&mut draft).unwrap().binary.to_string(),
        PACKAGED_BINARY
    );
    let warnings = draft.finish().warnings;
    assert!(
        warnings.iter().any(|w| w.contains("no osctl binary")),
        "{warnings:?}"
    );
}
