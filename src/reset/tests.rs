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
        &format!("{{\"agent_runtime\": \"{active}\", \"timezone\": \"Asia/Ho_Chi_Minh\"}}\n"),
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
        // A backup of an inactive runtime's config holds the owner's settings too.
        "/root/.openclaw/openclaw.json.bak.1",
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

fn apply_plan(fs: &RootFs, plan: &Plan) {
    let out = crate::output::Printer::new(false, true, 0, crate::output::ColorChoice::Never, true);
    let services = crate::system::services::Services::Offline;
    let target = crate::apply::Target {
        fs,
        services: &services,
        out: &out,
        command: "test",
    };
    crate::apply::apply(&target, plan).unwrap();
}

/// A retried `reset --yes` (a script, a playbook) used to resolve another runtime (config.json
/// is gone, so the image default answers) and delete that runtime's workspace and skills.
#[test]
fn regression_reset_twice_deletes_nothing() {
    for rt in RuntimeId::ALL {
        let (d, fs) = device(rt.as_str());
        // The image default differs from the runtime reset, as on most devices.
        let other = if rt == RuntimeId::Hermes {
            "codex"
        } else {
            "hermes"
        };
        write(
            d.path(),
            "/root/config/f_r_default_agent",
            &format!("{other}\n"),
        );
        let planned = plan_for(&fs, false).unwrap();
        apply_plan(&fs, &planned.files);
        let again = plan_for(&fs, false).unwrap();
        assert!(
            again.combined().is_empty(),
            "{rt}: a second reset still plans {:#?}",
            again.combined()
        );
        assert!(
            again
                .combined()
                .warnings
                .iter()
                .any(|w| w.contains("own reset is skipped")),
            "{rt}: {:?}",
            again.combined().warnings
        );
    }
}

/// After a reset the next boot's reconcile writes its baselines (and a seeded `agent_runtime`,
/// and a one-entry history): still nobody's device, so a retried reset deletes nothing.
#[test]
fn a_reset_device_after_its_first_boot_still_has_nothing_to_reset() {
    let (d, fs) = device("hermes");
    let planned = plan_for(&fs, false).unwrap();
    apply_plan(&fs, &planned.files);
    write(
        d.path(),
        "/root/config/config.json",
        "{\"agent_runtime\": \"openclaw\", \"mcp_applied_runtime\": \"openclaw\", \"channels_applied_runtime\": \"openclaw\", \"llm_config_applied_runtime\": \"openclaw\"}\n",
    );
    write(
        d.path(),
        "/root/config/agent_state.json",
        "{\"history\": [{\"runtime\": \"openclaw\", \"at\": 1}]}\n",
    );
    let again = plan_for(&fs, false).unwrap();
    assert!(
        !again.files.has_file_changes()
            || deleted(&again.files)
                .iter()
                .all(|p| p.starts_with("/root/config/")),
        "{:#?}",
        deleted(&again.files)
    );
    assert!(
        !deleted(&again.files)
            .iter()
            .any(|p| p.starts_with("/root/.openclaw"))
    );
    // An owner's setting is an owner: the runtime's own reset runs.
    write(
        d.path(),
        "/root/config/config.json",
        "{\"agent_runtime\": \"openclaw\", \"llm_api_key\": \"sk-new-owner-000000\"}\n",
    );
    let owned = plan_for(&fs, false).unwrap();
    assert!(
        deleted(&owned.files).contains(&"/root/.openclaw/workspace".to_string()),
        "{:#?}",
        deleted(&owned.files)
    );
}

/// Someone set the device up again (config.json exists): the runtime it names is reset.
#[test]
fn a_device_set_up_again_after_a_reset_is_reset_again() {
    let (d, fs) = device("codex");
    let planned = plan_for(&fs, false).unwrap();
    apply_plan(&fs, &planned.files);
    write(
        d.path(),
        "/root/config/config.json",
        "{\"agent_runtime\": \"hermes\"}\n",
    );
    write(d.path(), "/root/.hermes/sessions/s2.json", "{}\n");
    let again = plan_for(&fs, false).unwrap();
    let gone = deleted(&again.files);
    assert!(
        gone.contains(&"/root/.hermes/sessions".to_string()),
        "{gone:#?}"
    );
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
fn links_inside_a_runtimes_tree_are_followed_and_a_link_is_removed_as_a_link() {
    let (d, fs) = device("hermes");
    let r = d.path();
    // A persona file that is a link to a file elsewhere in its own tree.
    std::fs::remove_file(r.join("root/.opencode/workspace/SOUL.md")).unwrap();
    write(r, "/root/.opencode/souls/mine.md", "mine\n");
    std::os::unix::fs::symlink(
        "/root/.opencode/souls/mine.md",
        r.join("root/.opencode/workspace/SOUL.md"),
    )
    .unwrap();
    // A workspace that is a link to a folder inside the runtime's tree.
    std::fs::remove_dir_all(r.join("root/.claudecode/workspace")).unwrap();
    write(r, "/root/.claudecode/data/SOUL.md", "soul\n");
    std::os::unix::fs::symlink("data", r.join("root/.claudecode/workspace")).unwrap();
    let planned = plan_for(&fs, false).unwrap();
    let soul = planned
        .files
        .file_changes()
        .find(|c| c.path == DevPath::new("/root/.opencode/workspace/SOUL.md"))
        .unwrap();
    assert_eq!(
        soul.before,
        FileState::Symlink {
            target: "/root/.opencode/souls/mine.md".into()
        }
    );
    let gone = deleted(&planned.files);
    assert!(
        gone.contains(&"/root/.claudecode/data/SOUL.md".to_string()),
        "{gone:#?}"
    );
    assert!(!gone.contains(&"/root/.opencode/souls/mine.md".to_string()));
    assert!(!gone.contains(&"/root/.claudecode/workspace".to_string()));
}

/// A runtime's folder or file linked out of its own tree (to `/etc`, to another partition) was
/// warned about and then cleared where it led. A runtime folder that is itself a link out of the
/// agent home refuses the reset (nothing is planned); a link inside a runtime's tree is removed
/// as a link, first, and nothing is planned at or below where it leads.
#[test]
fn regression_runtime_home_linked_out_of_its_tree_is_refused() {
    let refused: [(&str, &str, &str); 2] = [
        (
            "root/.hermes",
            "/etc",
            "hermes's folder /root/.hermes (at /etc)",
        ),
        (
            "root/.openclaw",
            "/root",
            "openclaw's folder /root/.openclaw (at /root)",
        ),
    ];
    let removed: [(&str, &str, &str); 2] = [
        ("root/.claudecode/workspace", "../../data/cc", "/data/cc"),
        (
            "root/.opencode/workspace/SOUL.md",
            "/etc/passwd",
            "/etc/passwd",
        ),
    ];
    let set_up = |link: &str, target: &str| {
        let (d, fs) = device("hermes");
        let r = d.path();
        write(r, "/etc/passwd", "root:x:0:0\n");
        write(r, "/data/cc/SOUL.md", "soul\n");
        let host = r.join(link);
        if host.is_dir() {
            std::fs::remove_dir_all(&host).unwrap();
        } else {
            std::fs::remove_file(&host).unwrap();
        }
        std::os::unix::fs::symlink(target, &host).unwrap();
        (d, fs)
    };
    for (link, target, expect) in refused {
        let (_d, fs) = set_up(link, target);
        let err = plan_for(&fs, false).unwrap_err();
        assert_eq!(err.code, "path_not_contained", "{link}: {err:?}");
        assert!(
            err.causes.iter().any(|c| c.contains(expect)),
            "{link}: {:?}",
            err.causes
        );
    }
    for (link, target, led_to) in removed {
        let (_d, fs) = set_up(link, target);
        let planned = plan_for(&fs, false).unwrap();
        let whole = planned.combined();
        let at = format!("/{link}");
        assert_eq!(planned.links.len(), 1, "{link}: {:?}", planned.links);
        assert_eq!(planned.links[0].link.to_string(), at);
        assert_eq!(planned.links[0].target, target);
        // The link goes in the runtime part, before any runtime command, as a link.
        let first = planned
            .runtime
            .file_changes()
            .next()
            .expect("the link's removal");
        assert_eq!(first.path.to_string(), at);
        assert!(
            matches!(&first.before, FileState::Symlink { target: t } if t == target),
            "{link}: {:?}",
            first.before
        );
        for c in whole.file_changes() {
            assert!(
                !c.path.starts_with(&crate::path::DevPath::new(led_to)),
                "{link}: the plan reaches where the link led: {}",
                c.path
            );
        }
    }
}

/// `openclaw_config_dir` set to a system folder made a reset delete it.
#[test]
fn regression_openclaw_config_dir_outside_its_tree_is_refused() {
    for dir in [
        "/",
        "/var",
        "/etc",
        "/usr",
        "/root",
        "/root/config",
        "/root/.hermes",
        "/root/.hermes/oc",
        "/root/../etc",
        "relative/dir",
        "/opt/openclaw",
    ] {
        let (d, fs) = device("openclaw");
        write(d.path(), "/etc/hostname", "lamp\n");
        write(
            d.path(),
            "/root/config/config.json",
            &format!("{{\"agent_runtime\": \"openclaw\", \"openclaw_config_dir\": \"{dir}\"}}\n"),
        );
        let err = plan_for(&fs, false).unwrap_err();
        assert_eq!(err.code, "path_not_contained", "{dir}: {err:?}");
        assert!(d.path().join("etc/hostname").exists());
    }
    // A folder of its own inside the agent home is fine.
    let (d, fs) = device("openclaw");
    write(
        d.path(),
        "/root/config/config.json",
        "{\"agent_runtime\": \"openclaw\", \"openclaw_config_dir\": \"/root/.oc\"}\n",
    );
    plan_for(&fs, false).unwrap();
}

/// Everything of the previous owner goes from every runtime's files, active or not; the rest of
/// each file stays, and the plan lists what it clears, masked.
#[test]
fn regression_reset_leaves_no_owner_value_in_any_runtime() {
    let (d, fs) = device("codex");
    let r = d.path();
    write(
        r,
        "/root/config/config.json",
        r#"{"agent_runtime": "codex", "llm_api_key": "sk-owner-0123456789abcdef",
            "llm_base_url": "https://llm.owner.example/v1",
            "telegram_bot_token": "123456:AAOwnerOwnerOwner", "telegram_user_id": "42",
            "mcp_tools": [{"name": "s", "url": "https://tools.owner.example/mcp",
                           "headers": {"Authorization": "Bearer tok-owner-987654321"}}]}
"#,
    );
    write(
        r,
        "/root/.hermes/.env",
        "# mine\nAUTONOMOUS_API_KEY=sk-owner-0123456789abcdef\nTELEGRAM_BOT_TOKEN=123456:AAOwnerOwnerOwner\nTELEGRAM_ALLOWED_USERS=42\nAPI_SERVER_KEY=hermes-local-api-key\nKEEP=me\n",
    );
    write(
        r,
        "/root/.hermes/config.yaml",
        "# hermes\ncustom_providers:\n- name: autonomous\n  base_url: https://llm.owner.example/v1\n  key_env: AUTONOMOUS_API_KEY\nmcp_servers:\n  tool_s:\n    url: https://tools.owner.example/mcp\n    headers:\n      Authorization: Bearer tok-owner-987654321\n    enabled: true\nterminal:\n  cwd: /root/.hermes\n",
    );
    write(
        r,
        "/root/.openclaw/openclaw.json",
        r#"{
  // mine
  "channels": {"telegram": {"enabled": true, "botToken": "123456:AAOwnerOwnerOwner", "allowFrom": ["42"]}},
  "models": {"providers": {"autonomous": {"apiKey": "sk-owner-0123456789abcdef", "api": "openai-completions"}}},
  "gateway": {"port": 18789}
}
"#,
    );
    write(
        r,
        "/root/.openclaw/workspace/configs/notion_access_tokens.json",
        "{\"t\": \"x\"}\n",
    );
    let planned = plan_for(&fs, false).unwrap();
    apply_plan(&fs, &planned.files);
    for owner in [
        "sk-owner-0123456789abcdef",
        "123456:AAOwnerOwnerOwner",
        "llm.owner.example",
        "tools.owner.example",
        "tok-owner-987654321",
        "\"42\"",
        "=42",
    ] {
        for entry in walkdir::WalkDir::new(r).into_iter().flatten() {
            if entry.file_type().is_file() {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                assert!(
                    !text.contains(owner),
                    "{} still holds {owner}:\n{text}",
                    entry.path().display()
                );
            }
        }
    }
    let env = std::fs::read_to_string(r.join("root/.hermes/.env")).unwrap();
    assert_eq!(
        env,
        "# mine\nAPI_SERVER_KEY=hermes-local-api-key\nKEEP=me\n"
    );
    let yaml = std::fs::read_to_string(r.join("root/.hermes/config.yaml")).unwrap();
    assert!(
        yaml.starts_with("# hermes\n") && yaml.contains("key_env: AUTONOMOUS_API_KEY"),
        "{yaml}"
    );
    assert!(yaml.contains("cwd: /root/.hermes"), "{yaml}");
    let oc = std::fs::read_to_string(r.join("root/.openclaw/openclaw.json")).unwrap();
    assert!(
        oc.contains("// mine") && oc.contains("18789") && oc.contains("openai-completions"),
        "{oc}"
    );
    assert!(!r.join("root/.openclaw/workspace/configs").exists());
    // The listing names each value it clears, masked.
    let env_items = &planned
        .cleared
        .iter()
        .find(|(p, _)| *p == DevPath::new("/root/.hermes/.env"))
        .unwrap()
        .1;
    assert!(
        env_items.contains(&"AUTONOMOUS_API_KEY = sk-…cdef".to_string()),
        "{env_items:?}"
    );
    let listing = render::listing(&planned.combined(), &planned.cleared, false, false);
    assert!(
        listing.contains("TELEGRAM_BOT_TOKEN = 123…wner"),
        "{listing}"
    );
    assert!(!listing.contains("AAOwnerOwnerOwner"), "{listing}");
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

#[test]
fn regression_reset_left_the_record_of_the_owners_mcp_tools() {
    // Found by the lifecycle suite (a boot killed before its mcp-tools step, then a reset,
    // ended unlike the same reset after a whole boot): the reset removes every MCP server, so
    // osctl's record of the tools it synced from the owner's config.json must go too.
    let (d, fs) = device("hermes");
    write(
        d.path(),
        "/var/lib/osctl/mcp-tools.json",
        "{\"schema\": 1, \"runtimes\": {\"hermes\": {\"tool_search\": \"00\"}}}\n",
    );
    let planned = plan_for(&fs, false).unwrap();
    assert!(
        deleted(&planned.combined()).contains(&"/var/lib/osctl/mcp-tools.json".to_string()),
        "{:?}",
        deleted(&planned.combined())
    );
}

#[test]
fn regression_reset_left_an_emptied_mcp_container_behind() {
    // Found by the lifecycle suite (a boot killed before its MCP step, then a reset, ended
    // unlike the same reset after a whole boot): removing the owner's last server left
    // `"mcp": {"servers": {}}` in openclaw.json and `mcp_servers: {}` in hermes' config.yaml,
    // which a device whose owner never added a server does not have. A container that still
    // holds something of the runtime's own stays.
    let (d, fs) = device("hermes");
    let r = d.path();
    write(
        r,
        "/root/.hermes/config.yaml",
        "# hermes\nmcp_servers:\n  notion:\n    url: https://mcp.notion.com/mcp\nterminal:\n  cwd: /root/.hermes\n",
    );
    write(
        r,
        "/root/.openclaw/openclaw.json",
        "{\n  // mine\n  \"gateway\": {\"port\": 18789},\n  \"mcp\": {\"servers\": {\"notion\": {\"url\": \"https://mcp.notion.com/mcp\"}}, \"timeoutMs\": 5000}\n}\n",
    );
    let planned = plan_for(&fs, true).unwrap();
    apply_plan(&fs, &planned.files);
    let yaml = std::fs::read_to_string(r.join("root/.hermes/config.yaml")).unwrap();
    assert_eq!(yaml, "# hermes\nterminal:\n  cwd: /root/.hermes\n");
    let oc = std::fs::read_to_string(r.join("root/.openclaw/openclaw.json")).unwrap();
    assert!(!oc.contains("notion") && !oc.contains("servers"), "{oc}");
    assert!(
        oc.contains("\"timeoutMs\": 5000") && oc.contains("// mine"),
        "{oc}"
    );
}
