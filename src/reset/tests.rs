use super::*;
use crate::plan::{FileState, Step};
use crate::runtime::Loc;

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel.trim_start_matches('/'));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A device that has been through every runtime: persona files everywhere.
fn device(active: &str) -> (tempfile::TempDir, RootFs) {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "/root/config/config.json",
        &format!("{{\"agent_runtime\": \"{active}\"}}\n"),
    );
    write(r, "/root/config/agent_state.json", "{\"history\": []}\n");
    write(r, "/root/config/bootstrap.json", "{}\n");
    write(r, "/root/config/f_r_default_agent", "openclaw\n");
    for ws in [
        "/root/.openclaw/workspace",
        "/root/.picoclaw/workspace",
        "/root/.codex/workspace",
        "/root/.claudecode/workspace",
        "/root/.opencode/workspace",
    ] {
        for f in [
            "SOUL.md",
            "IDENTITY.md",
            "USER.md",
            "KNOWLEDGE.md",
            "MEMORY.md",
        ] {
            write(r, &format!("{ws}/{f}"), "- **Name:** Ngân\n");
        }
        write(r, &format!("{ws}/USER.md.bak-1751846400123456789"), "old\n");
        write(r, &format!("{ws}/memory/2026-01-01.md"), "- day\n");
        write(r, &format!("{ws}/skills/audio/SKILL.md"), "skill\n");
    }
    write(r, "/root/.hermes/SOUL.md", "soul\n");
    write(r, "/root/.hermes/SOUL.md.bak-17518464", "old soul\n");
    write(r, "/root/.hermes/memories/MEMORY.md", "m\n");
    write(r, "/root/.hermes/config.yaml", "model: {}\n");
    write(r, "/root/.hermes/.env", "A=1\n");
    write(r, "/root/.hermes/state.db", "db\n");
    write(r, "/root/.hermes/sessions/s1.json", "{}\n");
    write(r, "/root/.hermes/skills/authored/mine/SKILL.md", "mine\n");
    write(
        r,
        "/root/.codex/workspace/AGENTS.md",
        &format!(
            "{PERSONA_INLINE_START}\nI am Ngân's lamp.\n{PERSONA_INLINE_END}\n\n# Agents\nrules\n"
        ),
    );
    write(r, "/root/.codex/config.toml", "model = \"x\"\n");
    write(r, "/root/.codex/sessions/a.jsonl", "{}\n");
    write(r, "/root/.openclaw/openclaw.json", "{}\n");
    write(r, "/root/.openclaw/openclaw.json.bak.1", "{}\n");
    write(r, "/root/.openclaw/npm/x", "x\n");
    let fs = RootFs::new(r).unwrap();
    (dir, fs)
}

fn plan_for(fs: &RootFs, keep_runtime_state: bool) -> Result<ResetPlan> {
    let env = DeviceEnv::default();
    let device = load_device(fs, &env)?;
    let input = Input {
        device: &device,
        active: device.active()?,
        keep_runtime_state,
        mounts: &[],
    };
    plan(fs, &input)
}

fn deleted(plan: &Plan) -> Vec<String> {
    plan.file_changes()
        .filter(|c| c.after == FileState::Absent)
        .map(|c| c.path.to_string())
        .collect()
}

#[test]
fn backups_are_recognised_by_their_nanosecond_suffix() {
    assert!(is_backup_of("SOUL.md.bak-1751846400123456789", "SOUL.md"));
    assert!(!is_backup_of("SOUL.md.bak-", "SOUL.md"));
    assert!(!is_backup_of("SOUL.md.bak-12x", "SOUL.md"));
    assert!(!is_backup_of("SOUL.md.bak", "SOUL.md"));
    assert!(!is_backup_of("XSOUL.md.bak-1", "SOUL.md"));
    assert!(!is_backup_of("SOUL.md", "SOUL.md"));
}

#[test]
fn every_persona_copy_backup_and_inline_block_goes_and_kept_files_stay() {
    let (_d, fs) = device("hermes");
    let planned = plan_for(&fs, false).unwrap();
    let gone = deleted(&planned.files);
    for ws in [
        "/root/.openclaw/workspace",
        "/root/.picoclaw/workspace",
        "/root/.codex/workspace",
        "/root/.claudecode/workspace",
        "/root/.opencode/workspace",
    ] {
        for f in [
            "SOUL.md",
            "IDENTITY.md",
            "USER.md",
            "KNOWLEDGE.md",
            "memory",
        ] {
            let p = format!("{ws}/{f}");
            assert!(gone.contains(&p), "{p} survives: {gone:#?}");
        }
        assert!(gone.contains(&format!("{ws}/USER.md.bak-1751846400123456789")));
        assert!(!gone.iter().any(|g| g.contains("skills")), "{gone:#?}");
    }
    // picoclaw keeps MEMORY.md in memory/, so its root MEMORY.md is not a persona file.
    assert!(!gone.contains(&"/root/.picoclaw/workspace/MEMORY.md".to_string()));
    for p in [
        "/root/.hermes/SOUL.md",
        "/root/.hermes/SOUL.md.bak-17518464",
        "/root/.hermes/memories",
        "/root/.hermes/sessions",
        "/root/.hermes/state.db",
        "/root/config/config.json",
        "/root/config/agent_state.json",
    ] {
        assert!(gone.contains(&p.to_string()), "{p}: {gone:#?}");
    }
    for kept in [
        "/root/.hermes/.env",
        "/root/.hermes/config.yaml",
        "/root/.hermes/skills/authored",
        "/root/config/bootstrap.json",
        "/root/config/f_r_default_agent",
        "/root/.codex/config.toml",
        "/root/.openclaw/openclaw.json",
        "/root/.openclaw/openclaw.json.bak.1",
    ] {
        assert!(
            !gone
                .iter()
                .any(|g| DevPath::new(kept).starts_with(&DevPath::new(g))),
            "{kept} removed"
        );
    }
    let agents = planned
        .files
        .planned_content(&DevPath::new("/root/.codex/workspace/AGENTS.md"))
        .unwrap();
    assert_eq!(std::str::from_utf8(agents).unwrap(), "# Agents\nrules\n");
    // Service actions come first, in their own part.
    assert!(
        planned
            .runtime
            .steps
            .iter()
            .all(|s| !matches!(s, Step::File(_)))
    );
}

#[test]
fn codex_home_is_emptied_down_to_its_two_folders() {
    let (d, fs) = device("codex");
    std::fs::create_dir_all(d.path().join("root/.codex/attachments/x")).unwrap();
    let planned = plan_for(&fs, false).unwrap();
    let gone = deleted(&planned.files);
    for p in [
        "/root/.codex/config.toml",
        "/root/.codex/sessions",
        "/root/.codex/attachments/x",
        "/root/.codex/workspace/AGENTS.md",
        "/root/.codex/workspace/skills",
    ] {
        assert!(gone.contains(&p.to_string()), "{p}: {gone:#?}");
    }
    assert!(!gone.contains(&"/root/.codex/workspace".to_string()));
    // AGENTS.md goes whole; its inline block is not edited on the way out.
    assert!(
        planned
            .files
            .planned_content(&DevPath::new("/root/.codex/workspace/AGENTS.md"))
            .is_none()
    );
    // Other runtimes' skills stay.
    assert!(!gone.contains(&"/root/.openclaw/workspace/skills".to_string()));
}

#[test]
fn keep_runtime_state_only_stops_the_unit_and_wipes_personas() {
    let (d, fs) = device("hermes");
    write(
        d.path(),
        "/etc/systemd/system/hermes-gateway.service",
        "[Unit]\n",
    );
    let planned = plan_for(&fs, true).unwrap();
    assert_eq!(
        planned.runtime.steps,
        vec![Step::Service(ServiceAction::Stop("hermes-gateway".into()))]
    );
    let gone = deleted(&planned.files);
    assert!(gone.contains(&"/root/.hermes/SOUL.md".to_string()));
    assert!(!gone.contains(&"/root/.hermes/sessions".to_string()));
    assert!(!gone.contains(&"/root/.hermes/state.db".to_string()));
}

#[test]
fn a_second_plan_after_a_reset_has_nothing_to_delete() {
    for rt in RuntimeId::ALL {
        let (_d, fs) = device(rt.as_str());
        let planned = plan_for(&fs, false).unwrap();
        let out =
            crate::output::Printer::new(false, true, 0, crate::output::ColorChoice::Never, true);
        let services = crate::system::services::Services::Offline;
        let target = crate::apply::Target {
            fs: &fs,
            services: &services,
            out: &out,
            command: "test",
        };
        crate::apply::apply(&target, &planned.files).unwrap();
        // config.json is gone: the image default (openclaw) is the active runtime now.
        let again = plan_for(&fs, false).unwrap();
        assert!(
            !again.files.has_file_changes() || rt != RuntimeId::Openclaw,
            "{rt}: {:#?}",
            again.files
        );
        assert!(
            deleted(&again.files)
                .iter()
                .all(|p| p.starts_with("/root/.openclaw/")),
            "{rt}: a second reset deletes more than openclaw's state: {:#?}",
            deleted(&again.files)
        );
    }
}

#[test]
fn a_runtime_folder_pointed_at_the_agent_home_is_refused() {
    let (d, fs) = device("openclaw");
    write(
        d.path(),
        "/root/config/config.json",
        "{\"agent_runtime\": \"codex\"}\n",
    );
    let env = DeviceEnv::default();
    let mut device = load_device(&fs, &env).unwrap();
    // As CODEX_HOME=/root would on the live device.
    device.layout.codex_home = DevPath::new("/root");
    let input = Input {
        device: &device,
        active: RuntimeId::Codex,
        keep_runtime_state: false,
        mounts: &[],
    };
    let err = plan(&fs, &input).unwrap_err();
    assert_eq!(err.code, "reset_refused");
    let causes = err.causes.join("\n");
    assert!(causes.contains("/root/config holds"), "{causes}");
    assert!(causes.contains("/root/.hermes"), "{causes}");
}

#[test]
fn a_mount_point_at_or_below_a_removed_path_is_refused() {
    let (d, fs) = device("openclaw");
    let memory = fs.root().join("root/.picoclaw/workspace/memory");
    let deep = fs.root().join("root/.openclaw/workspace/skills/audio");
    for (mount, expect) in [
        (memory, "/root/.picoclaw/workspace/memory is a mount point"),
        (
            deep,
            "/root/.openclaw/workspace holds the mount point /root/.openclaw/workspace/skills/audio",
        ),
    ] {
        let env = DeviceEnv::default();
        let device = load_device(&fs, &env).unwrap();
        let mounts = vec![mount];
        let input = Input {
            device: &device,
            active: RuntimeId::Openclaw,
            keep_runtime_state: false,
            mounts: &mounts,
        };
        let err = plan(&fs, &input).unwrap_err();
        assert_eq!(err.code, "reset_refused");
        assert!(err.causes.iter().any(|c| c == expect), "{:?}", err.causes);
    }
    drop(d);
}

#[test]
fn links_lead_to_the_real_place_inside_the_root_and_are_removed_as_links() {
    let (d, fs) = device("hermes");
    let r = d.path();
    // A persona file that is a link to a file elsewhere (absolute: taken from the root).
    std::fs::remove_file(r.join("root/.opencode/workspace/SOUL.md")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", r.join("root/.opencode/workspace/SOUL.md")).unwrap();
    write(r, "/etc/passwd", "root:x:0:0\n");
    // A workspace that is a link to a folder inside the root.
    std::fs::remove_dir_all(r.join("root/.claudecode/workspace")).unwrap();
    write(r, "/data/cc/SOUL.md", "soul\n");
    std::os::unix::fs::symlink("../../data/cc", r.join("root/.claudecode/workspace")).unwrap();
    let planned = plan_for(&fs, false).unwrap();
    let soul = planned
        .files
        .file_changes()
        .find(|c| c.path == DevPath::new("/root/.opencode/workspace/SOUL.md"))
        .unwrap();
    assert_eq!(
        soul.before,
        FileState::Symlink {
            target: "/etc/passwd".into()
        }
    );
    let gone = deleted(&planned.files);
    assert!(gone.contains(&"/data/cc/SOUL.md".to_string()), "{gone:#?}");
    assert!(!gone.iter().any(|g| g.starts_with("/etc")), "{gone:#?}");
    assert!(!gone.contains(&"/root/.claudecode/workspace".to_string()));
}

#[test]
fn reset_steps_never_remove_what_they_keep_or_another_runtimes_state() {
    let layout = Layout::new(&DeviceEnv::default(), None);
    for rt in REGISTRY {
        let mut removed: Vec<DevPath> = Vec::new();
        for step in rt.reset.steps {
            match step {
                ResetStep::Remove(loc) => removed.push(layout.path(*loc)),
                ResetStep::EmptyExcept { dir, .. }
                | ResetStep::RemoveFilesExcept { dir, .. }
                | ResetStep::RemovePrefixed { dir, .. } => {
                    // Clears inside the folder: the folder itself stays.
                    let d = layout.path(*dir);
                    for loc in rt.reset.keep {
                        let k = layout.path(*loc);
                        if let ResetStep::RemoveFilesExcept { keep, .. } = step
                            && k.parent() == Some(d.clone())
                        {
                            assert!(
                                keep.contains(&k.file_name().unwrap()),
                                "{}: {k} is a top-level file the reset removes",
                                rt.name
                            );
                        }
                        if let ResetStep::EmptyExcept { .. } = step {
                            assert!(!k.starts_with(&d), "{}: {k} is emptied", rt.name);
                        }
                    }
                }
                _ => {}
            }
        }
        for other in REGISTRY {
            let kept: Vec<Loc> = if other.id == rt.id {
                rt.reset.keep.to_vec()
            } else {
                let mut v = vec![other.home, other.workspace, other.skills.dir];
                v.extend(other.native.iter().map(|f| f.loc));
                v
            };
            for loc in kept {
                let k = layout.path(loc);
                for r in &removed {
                    assert!(
                        !k.starts_with(r),
                        "{}'s reset removes {r}, which holds {k} of {}",
                        rt.name,
                        other.name
                    );
                }
            }
        }
    }
}

#[test]
fn the_wifi_passphrase_is_masked_in_the_diff_of_its_removal() {
    let (d, fs) = device("hermes");
    write(
        d.path(),
        "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
        "network={\n  ssid=\"home\"\n  psk=\"correct-horse-battery\"\n}\n",
    );
    let planned = plan_for(&fs, false).unwrap();
    let diff = crate::plan::render::diff(&planned.files);
    assert!(diff.contains("wpa_supplicant-wlan0.conf"), "{diff}");
    assert!(!diff.contains("correct-horse-battery"), "{diff}");
}
