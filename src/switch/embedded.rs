//! What osctl embeds for a runtime, and writing it on every switch
//! (docs/device-contract.md §10 item 2).
//!
//! For the runtime being switched to: its installer, the `service` file where the unit name is
//! not the runtime's, its verify and ready hooks, the unit file where osctl owns the unit, and the
//! presync hook shim. They are written on **every** switch, not only on install, because an
//! installer runs once per device: a fix in any of these files must still reach a device that
//! installed the runtime long ago (the seed guide's "activation gap"). Only files whose bytes or
//! mode differ are rewritten, so a repeated switch writes nothing.

use crate::error::Result;
use crate::path::DevPath;
use crate::plan::Draft;
use crate::runtime::{Runtime, presync_hook, runtime_lib_dir};

/// The presync hook shim: one file for all six runtimes (it reads the runtime from its name).
pub const PRESYNC_HOOK: &str = include_str!("../../embedded/presync-hook");

/// Where systemd finds the unit files osctl owns.
pub const UNIT_DIR: &str = "/etc/systemd/system";

/// One embedded file and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub path: DevPath,
    pub content: String,
    pub mode: u32,
    /// What the file is, for plan reasons.
    pub what: &'static str,
}

/// Every file osctl writes for `rt` on a switch, in the order they are written.
pub fn items(rt: &Runtime) -> Vec<Item> {
    let dir = DevPath::new(runtime_lib_dir(rt.id));
    let e = &rt.embedded;
    let mut out = Vec::new();
    let mut add = |path: DevPath, content: String, mode: u32, what: &'static str| {
        out.push(Item {
            path,
            content,
            mode,
            what,
        })
    };
    if let Some(s) = e.installer {
        add(dir.join("install.sh"), s.into(), 0o755, "installer");
    }
    if rt.declares_unit() {
        add(
            dir.join("service"),
            format!("{}\n", rt.unit),
            0o644,
            "unit name",
        );
    }
    if let Some(s) = e.verify {
        add(dir.join("verify"), s.into(), 0o755, "verify hook");
    }
    if let Some(s) = e.ready {
        add(dir.join("ready"), s.into(), 0o755, "ready hook");
    }
    if let Some(s) = e.unit_file {
        add(unit_file(rt), s.into(), 0o644, "unit file");
    }
    add(
        DevPath::new(presync_hook(rt.id)),
        PRESYNC_HOOK.into(),
        0o755,
        "presync hook",
    );
    out
}

/// `/etc/systemd/system/<unit>.service` of the unit osctl owns for `rt`.
pub fn unit_file(rt: &Runtime) -> DevPath {
    DevPath::new(UNIT_DIR).join(format!("{}.service", rt.unit))
}

/// Plans the embedded files of `rt` into `draft`; returns the paths whose bytes or mode differ.
pub fn plan(draft: &mut Draft<'_>, rt: &Runtime) -> Result<Vec<DevPath>> {
    let mut changed = Vec::new();
    for item in items(rt) {
        let reason = format!("osctl's {} for {}", item.what, rt.name);
        if draft.write(
            &item.path,
            item.content.as_bytes(),
            Some(item.mode),
            &reason,
        )? {
            changed.push(item.path);
        }
    }
    let drop_in = crate::setup::plan_drop_in(draft, rt)?;
    if drop_in.state == crate::setup::State::Written {
        changed.push(drop_in.path);
    }
    Ok(changed)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::runtime::REGISTRY;
    use crate::system::fs::RootFs;

    #[test]
    fn every_runtime_but_openclaw_has_an_installer_and_a_verify_hook() {
        for rt in REGISTRY {
            let names: Vec<String> = items(rt).iter().map(|i| i.path.to_string()).collect();
            let has = |suffix: &str| names.iter().any(|n| n.ends_with(suffix));
            assert_eq!(has("/install.sh"), rt.name != "openclaw", "{names:?}");
            assert_eq!(has("/verify"), rt.name != "openclaw", "{names:?}");
            assert!(has("/ready"), "{} has no ready hook", rt.name);
            assert!(names.contains(&presync_hook(rt.id)));
            // The `service` file exists exactly where the unit name is not the runtime's.
            assert_eq!(has("/service"), rt.unit != rt.name, "{names:?}");
        }
    }

    #[test]
    fn verify_hooks_check_what_the_registry_says() {
        // The registry's `verify` data is what osctl checks from the files under a non-live
        // root; the hook is what runs on the device. They must agree.
        for rt in REGISTRY {
            let Some(hook) = rt.embedded.verify else {
                assert!(rt.verify.on_path.is_empty() && rt.verify.executables.is_empty());
                continue;
            };
            for cmd in rt.verify.on_path {
                assert!(
                    hook.contains(&format!("command -v {cmd} ")),
                    "{}: {cmd}",
                    rt.name
                );
            }
            for exe in rt.verify.executables {
                assert!(
                    hook.contains(&format!("[ -x {exe} ]")),
                    "{}: {exe}",
                    rt.name
                );
            }
        }
    }

    #[test]
    fn owned_unit_files_name_the_binary_the_verify_hook_checks() {
        for rt in REGISTRY {
            let Some(unit) = rt.embedded.unit_file else {
                continue;
            };
            assert!(unit.contains("\n[Install]\nWantedBy=multi-user.target\n"));
            let exec = unit
                .lines()
                .find_map(|l| l.strip_prefix("ExecStart="))
                .unwrap();
            let bin = exec.split_whitespace().next().unwrap();
            let checked = rt.verify.executables.contains(&bin)
                || rt
                    .verify
                    .on_path
                    .iter()
                    .any(|c| bin.ends_with(&format!("/{c}")));
            assert!(checked, "{}: {bin} is not checked by verify", rt.name);
        }
    }

    #[test]
    fn a_second_switch_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let rt = crate::runtime::RuntimeId::Hermes.spec();
        let mut draft = Draft::new(&fs);
        let changed = plan(&mut draft, rt).unwrap();
        assert_eq!(changed.len(), 6, "five files and the presync drop-in");
        let drop_in = crate::setup::drop_in_path(rt.unit);
        let host = fs.host(&drop_in).unwrap();
        std::fs::create_dir_all(host.parent().unwrap()).unwrap();
        let binary = crate::path::DevPath::new(crate::setup::PACKAGED_BINARY);
        std::fs::write(&host, crate::setup::drop_in(rt, &binary)).unwrap();
        for item in items(rt) {
            let host = fs.host(&item.path).unwrap();
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(&host, &item.content).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&host, std::fs::Permissions::from_mode(item.mode)).unwrap();
        }
        let mut draft = Draft::new(&fs);
        assert!(plan(&mut draft, rt).unwrap().is_empty());
        assert!(draft.finish().is_empty());
        // A changed hook is rewritten, and only that one.
        std::fs::write(
            fs.host(&DevPath::new("/usr/local/lib/os-runtimes/hermes/verify"))
                .unwrap(),
            "#!/bin/sh\nexit 0\n",
        )
        .unwrap();
        let mut draft = Draft::new(&fs);
        let changed = plan(&mut draft, rt).unwrap();
        assert_eq!(
            changed,
            vec![DevPath::new("/usr/local/lib/os-runtimes/hermes/verify")]
        );
    }
}
