//! `osctl skills sync` against a real HTTP server on loopback (see `skills_support`).

use crate::skills_support;

use std::os::unix::fs::PermissionsExt;

use crate::skills_support::{Cdn, Device, Reply, json_of, stderr};

/// The lamp of these tests: audio and light, no vision, no motion, no expression.
const LAMP: &[&str] = &["audio", "light"];

/// audio (needs audio), dance (motion or audio), camera (vision), and a CDN skill the embedded
/// catalog does not know (fail-open).
fn publish_standard(cdn: &mut Cdn) {
    cdn.publish(
        "audio",
        &[
            ("SKILL.md", b"# Audio\nPlay sounds.\n"),
            ("scripts/play.py", b"print('play')\n"),
        ],
    );
    cdn.publish("dance", &[("SKILL.md", b"# Dance\n")]);
    cdn.publish("camera", &[("SKILL.md", b"# Camera\n")]);
    cdn.publish(
        "lamp-extra",
        &[
            ("SKILL.md", b"# Extra\n"),
            ("skill.json", b"{\"name\":\"lamp-extra\"}"),
        ],
    );
    cdn.hook("turn-gate", "# turn-gate\n", "export default () => {};\n");
    cdn.hook(
        "emotion-acknowledge",
        "# ack\n",
        "export default () => {};\n",
    );
}

fn sync(dev: &Device, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--json", "skills", "sync"];
    args.extend_from_slice(extra);
    dev.osctl(&args)
}

#[test]
fn first_sync_installs_supported_skills_into_each_runtime_folder() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let cases = [
        ("openclaw", "root/.openclaw/workspace/skills", "skills"),
        (
            "hermes",
            "root/.hermes/skills/openclaw-imports",
            "skills/openclaw-imports",
        ),
        ("picoclaw", "root/.picoclaw/workspace/skills", "skills"),
        ("codex", "root/.codex/skills", "/root/.codex/skills"),
        ("claudecode", "root/.claude/skills", "/root/.claude/skills"),
        (
            "opencode",
            "root/.config/opencode/skills",
            "/root/.config/opencode/skills",
        ),
    ];
    // Another registered runtime (the test-only one, `--features test-runtime`): its skills
    // folder and prompt prefix from the registry.
    let others: Vec<(&str, String, String)> = crate::support::registry::test_only()
        .map(|rt| {
            let skills = crate::support::registry::spec(rt).skills;
            let dir = crate::support::registry::dev_path(skills.dir);
            let prefix = skills
                .prompt_prefix
                .map_or_else(|| format!("/{dir}"), str::to_string);
            (rt, dir, prefix)
        })
        .collect();
    let cases = cases
        .iter()
        .map(|(rt, dir, prefix)| (*rt, dir.to_string(), prefix.to_string()))
        .chain(others);
    for (rt, dir, prefix) in cases {
        let (dir, prefix) = (dir.as_str(), prefix.as_str());
        let dev = Device::new(&cdn.server, LAMP, None);
        let out = sync(&dev, &["--runtime", rt]);
        assert_eq!(out.status.code(), Some(0), "{rt}: {}", stderr(&out));
        let doc = json_of(&out);
        assert_eq!(doc["runtime"], rt);
        assert_eq!(doc["skills_dir"], format!("/{dir}"));
        assert_eq!(
            doc["updated"],
            serde_json::json!(["audio", "dance", "lamp-extra"]),
            "{rt}"
        );
        let prompt = doc["prompt"].as_str().unwrap();
        assert!(
            prompt.contains(&format!("\n- {prefix}/audio/SKILL.md\n")),
            "{rt}: {prompt}"
        );
        assert!(prompt.ends_with("\n[via:system]"));
        assert_eq!(
            dev.read(&format!("{dir}/audio/scripts/play.py")).as_deref(),
            Some("print('play')\n")
        );
        assert!(dev.path(&format!("{dir}/dance/SKILL.md")).is_file());
        assert!(dev.path(&format!("{dir}/lamp-extra/SKILL.md")).is_file());
        assert!(!dev.path(&format!("{dir}/camera")).exists(), "{rt}: gated");
        let mode = |p: &str| std::fs::metadata(dev.path(p)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&format!("{dir}/audio/scripts/play.py")), 0o644);
        assert_eq!(mode(&format!("{dir}/audio/scripts")), 0o755);
        let state: serde_json::Value =
            serde_json::from_str(&dev.read("var/lib/osctl/skills.json").unwrap()).unwrap();
        assert_eq!(
            state["runtimes"][rt]["skills"]["audio"]["version"],
            cdn.versions["audio"].as_str()
        );
        assert!(state["runtimes"][rt]["skills"].get("camera").is_none());
        assert!(
            !dev.path("var/lib/osctl/skills-staging").exists(),
            "{rt}: staging cleaned"
        );
    }
    let requested = cdn.zip_requests();
    assert!(
        !requested.iter().any(|p| p.contains("camera")),
        "an unsupported skill is never downloaded: {requested:?}"
    );
}

#[test]
fn a_second_sync_downloads_and_notifies_nothing() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let marker = dev.path("notified.txt");
    let notify = format!("cat > {}", marker.display());
    let out = sync(&dev, &["--notify-cmd", &notify]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = std::fs::read_to_string(&marker).unwrap();
    assert!(first.starts_with("[system] The following skills have been updated."));
    assert!(first.contains("\n- skills/dance/SKILL.md\n"));
    std::fs::remove_file(&marker).unwrap();
    cdn.zip_requests();

    let state_before = dev.read("var/lib/osctl/skills.json");
    let out = sync(&dev, &["--notify-cmd", &notify]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["prompt"], serde_json::Value::Null);
    assert_eq!(doc["updated"], serde_json::json!([]));
    assert_eq!(doc["changed"], false);
    assert!(cdn.zip_requests().is_empty(), "nothing downloaded");
    assert!(!marker.exists(), "nothing notified");
    assert_eq!(dev.read("var/lib/osctl/skills.json"), state_before);
}

#[test]
fn a_changed_version_is_reinstalled_and_notified_unchanged_content_is_not() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    cdn.zip_requests();

    // audio changes; dance is re-packed (another zip, another version) with the same files.
    let audio_v2 = cdn.publish("audio", &[("SKILL.md", b"# Audio v2\n")]);
    let dance = skills_support::skill_zip_stored(&[("SKILL.md", b"# Dance\n")]);
    let dance_v2 = skills_support::version_of(&dance);
    assert_ne!(&dance_v2, &cdn.versions["dance"]);
    cdn.publish_raw("dance", dance, &dance_v2);
    let marker = dev.path("notified.txt");
    let out = sync(
        &dev,
        &["--notify-cmd", &format!("cat > {}", marker.display())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["updated"], serde_json::json!(["audio"]));
    let mut zips = cdn.zip_requests();
    zips.sort();
    assert_eq!(zips, vec!["/os/skills/audio.zip", "/os/skills/dance.zip"]);
    let sent = std::fs::read_to_string(&marker).unwrap();
    assert_eq!(
        sent,
        "[system] The following skills have been updated. Re-read them now — files on disk have changed. Follow the updated instructions strictly. After re-reading, output exactly NO_REPLY and nothing else; do not announce or acknowledge this maintenance update to the user.\n- skills/audio/SKILL.md\n[via:system]"
    );
    let base = "root/.openclaw/workspace/skills";
    assert_eq!(
        dev.read(&format!("{base}/audio/SKILL.md")).unwrap(),
        "# Audio v2\n"
    );
    assert!(
        !dev.path(&format!("{base}/audio/scripts")).exists(),
        "the old folder is replaced whole"
    );
    let state: serde_json::Value =
        serde_json::from_str(&dev.read("var/lib/osctl/skills.json").unwrap()).unwrap();
    let skills = &state["runtimes"]["openclaw"]["skills"];
    assert_eq!(skills["audio"]["version"], audio_v2.as_str());
    assert_eq!(skills["dance"]["version"], dance_v2.as_str());
}

/// Every failure a download can meet leaves the installed skill and the state file exactly as
/// they were, and the run says it failed.
#[test]
fn every_failure_leaves_the_installed_skill_and_the_state_file_untouched() {
    use crate::skills_support::{bomb_zip, skill_zip, symlink_zip, version_of};
    let good = skill_zip(&[("SKILL.md", b"# Audio v2\n")]);
    let v2 = version_of(&good);
    let cases: Vec<(&str, Reply, String, &str)> = vec![
        (
            "hash mismatch",
            Reply::Ok(skill_zip(&[("SKILL.md", b"# not what was signed off\n")])),
            v2.clone(),
            "hash_mismatch",
        ),
        (
            "zip slip",
            Reply::Ok(skill_zip(&[("../../../../etc/evil", b"x")])),
            String::new(),
            "unsafe_path",
        ),
        (
            "absolute path",
            Reply::Ok(skill_zip(&[("/etc/evil", b"x")])),
            String::new(),
            "unsafe_path",
        ),
        (
            "symlink entry",
            Reply::Ok(symlink_zip()),
            String::new(),
            "symlink_entry",
        ),
        (
            "zip bomb",
            Reply::Ok(bomb_zip(110)),
            String::new(),
            "zip_bomb",
        ),
        (
            "truncated download",
            Reply::Truncated {
                body: good[..good.len() / 2].to_vec(),
                claimed: good.len(),
            },
            v2.clone(),
            "download_truncated",
        ),
        ("404", Reply::Status(404), v2.clone(), "http_not_found"),
        (
            "stall",
            Reply::Stall { secs: 4 },
            v2.clone(),
            "download_timeout",
        ),
        (
            "secret in package",
            Reply::Ok(skill_zip(&[(
                "keys/deploy.pem",
                b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----\n",
            )])),
            String::new(),
            "package_secret",
        ),
        (
            "webhook in package",
            Reply::Ok(skill_zip(&[(
                "scripts/notify.py",
                b"URL = 'https://hooks.slack.com/services/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'\n",
            )])),
            String::new(),
            "package_secret",
        ),
    ];
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let skills = "root/.openclaw/workspace/skills";
    let installed = dev.snapshot(skills);
    let state = dev.read("var/lib/osctl/skills.json").unwrap();
    for (what, reply, version, code) in cases {
        // A version that matches the served bytes where the case is not about the version.
        let version = match (&reply, version.is_empty()) {
            (Reply::Ok(z), true) => version_of(z),
            _ => version,
        };
        cdn.publish_reply("audio", reply, &version);
        let out = sync(&dev, &["--timeout", "1"]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        let doc = json_of(&out);
        assert_eq!(doc["ok"], false, "{what}");
        let audio = doc["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "audio")
            .unwrap();
        assert_eq!(audio["action"], "failed", "{what}");
        assert_eq!(audio["error"]["code"], code, "{what}: {audio}");
        assert!(
            !audio.to_string().contains("Zx9kLm2Qa7Rb4Tc1Yd8We5Vf"),
            "{what}: a finding never quotes the secret"
        );
        assert_eq!(dev.snapshot(skills), installed, "{what}: skill untouched");
        assert_eq!(
            dev.read("var/lib/osctl/skills.json").unwrap(),
            state,
            "{what}: state untouched"
        );
        assert!(!dev.path("etc/evil").exists(), "{what}");
        assert_eq!(doc["prompt"], serde_json::Value::Null, "{what}");
    }
}

#[test]
fn one_bad_skill_does_not_block_the_others() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let old_audio = cdn.versions["audio"].clone();
    cdn.publish_reply("audio", Reply::Status(500), "aaaaaaaaaaaa");
    let dance_v2 = cdn.publish("dance", &[("SKILL.md", b"# Dance v2\n")]);
    // The preview downloads as the run does, so it foresees the run's exit, and writes nothing.
    let before = dev.snapshot("root");
    let out = sync(&dev, &["--dry-run"]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "a run would be partly applied: 1 would land (dance); 1 would not: audio (http_status)"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(dev.snapshot("root"), before);
    let out = sync(&dev, &[]);
    assert_eq!(
        out.status.code(),
        Some(5),
        "partly applied: {}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("partly applied: 1 landed (dance); 1 did not: audio (http_status)"),
        "{}",
        stderr(&out)
    );
    let doc = json_of(&out);
    assert_eq!(doc["updated"], serde_json::json!(["dance"]));
    assert_eq!(doc["landed"], serde_json::json!(["dance"]));
    assert_eq!(doc["exit_code"], 5);
    let state: serde_json::Value =
        serde_json::from_str(&dev.read("var/lib/osctl/skills.json").unwrap()).unwrap();
    let skills = &state["runtimes"]["openclaw"]["skills"];
    assert_eq!(
        skills["audio"]["version"],
        old_audio.as_str(),
        "not advanced"
    );
    assert_eq!(skills["dance"]["version"], dance_v2.as_str());
    // The failed skill is retried by the next sync.
    let audio_v3 = cdn.publish("audio", &[("SKILL.md", b"# Audio v3\n")]);
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json_of(&out)["updated"], serde_json::json!(["audio"]));
    let state: serde_json::Value =
        serde_json::from_str(&dev.read("var/lib/osctl/skills.json").unwrap()).unwrap();
    assert_eq!(
        state["runtimes"]["openclaw"]["skills"]["audio"]["version"],
        audio_v3.as_str()
    );
}

#[test]
fn signed_metadata_is_verified_and_a_bad_signature_changes_nothing() {
    let mut cdn = Cdn::new(true);
    publish_standard(&mut cdn);
    let key = skills_support::public_key_b64(&skills_support::test_key());
    let dev = Device::new(&cdn.server, LAMP, Some(&key));
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["signature"]["status"], "verified");
    assert_eq!(doc["signature"]["key_id"], "test-key");
    let tree = dev.snapshot("root");
    let state = dev.read("var/lib/osctl/skills.json");

    // Signed by another key: refused whole, nothing downloaded, nothing written.
    cdn.publish("audio", &[("SKILL.md", b"# Audio v2\n")]);
    cdn.key = Some(ed25519_dalek::SigningKey::from_bytes(&[1u8; 32]));
    cdn.refresh();
    cdn.zip_requests();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["error"]["code"], "metadata_bad_signature");
    assert!(cdn.zip_requests().is_empty());
    assert_eq!(dev.snapshot("root"), tree);
    assert_eq!(dev.read("var/lib/osctl/skills.json"), state);

    // Unsigned: refused as well.
    cdn.key = None;
    cdn.refresh();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["error"]["code"], "metadata_unsigned");
    assert_eq!(dev.snapshot("root"), tree);

    // A tampered unsigned top level beside a valid signature is ignored.
    cdn.key = Some(skills_support::test_key());
    cdn.refresh();
    let good = cdn.server.clone();
    let mut doc = cdn.payload();
    let signed = skills_support::signed_envelope(&doc, &skills_support::test_key());
    let mut hybrid: serde_json::Value = serde_json::from_slice(&signed).unwrap();
    doc["skills"]["audio"]["version"] = "ffffffffffff".into();
    hybrid["skills"] = doc["skills"].clone();
    good.set(
        "/os/ota/metadata.json",
        Reply::Ok(serde_json::to_vec(&hybrid).unwrap()),
    );
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("differs from the signed payload"));
    assert_eq!(json_of(&out)["updated"], serde_json::json!(["audio"]));
}

#[test]
fn capability_gating_prunes_unsupported_skills_and_keeps_authored_ones() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    // openclaw: a stale camera install goes, the owner's own skill stays.
    let dev = Device::new(&cdn.server, LAMP, None);
    let ws = "root/.openclaw/workspace/skills";
    dev.write(&format!("{ws}/camera/SKILL.md"), "# old camera\n");
    dev.write(&format!("{ws}/my-notes/SKILL.md"), "# mine\n");
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!dev.path(&format!("{ws}/camera")).exists());
    assert_eq!(
        dev.read(&format!("{ws}/my-notes/SKILL.md")).unwrap(),
        "# mine\n"
    );
    let doc = json_of(&out);
    let camera = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "camera")
        .unwrap()
        .clone();
    assert_eq!(camera["action"], "prune");
    assert!(camera["reason"].as_str().unwrap().contains("vision"));

    // hermes: skills/authored is never touched, nor an unknown folder among the imports.
    let dev = Device::new(&cdn.server, LAMP, None);
    dev.write("root/.hermes/skills/authored/diary/SKILL.md", "# diary\n");
    dev.write(
        "root/.hermes/skills/openclaw-imports/camera/SKILL.md",
        "# cam\n",
    );
    dev.write(
        "root/.hermes/skills/openclaw-imports/migrated/SKILL.md",
        "# m\n",
    );
    let out = sync(&dev, &["--runtime", "hermes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        dev.read("root/.hermes/skills/authored/diary/SKILL.md")
            .unwrap(),
        "# diary\n"
    );
    assert!(
        dev.path("root/.hermes/skills/openclaw-imports/migrated")
            .exists()
    );
    assert!(
        !dev.path("root/.hermes/skills/openclaw-imports/camera")
            .exists()
    );

    // picoclaw: built-ins stay, anything else unsupported goes.
    let dev = Device::new(&cdn.server, LAMP, None);
    let pws = "root/.picoclaw/workspace/skills";
    dev.write(&format!("{pws}/tmux/SKILL.md"), "# tmux\n");
    dev.write(&format!("{pws}/stray/SKILL.md"), "# stray\n");
    let out = sync(&dev, &["--runtime", "picoclaw"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dev.path(&format!("{pws}/tmux/SKILL.md")).exists());
    assert!(!dev.path(&format!("{pws}/stray")).exists());
    assert!(dev.path(&format!("{pws}/audio/SKILL.md")).exists());

    // No capabilities declared: everything is supported (fail-open), nothing pruned.
    let dev = Device::new(&cdn.server, &[], None);
    dev.write(&format!("{ws}/camera/SKILL.md"), "# old camera\n");
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        dev.read(&format!("{ws}/camera/SKILL.md")).unwrap(),
        "# Camera\n"
    );
}

#[test]
fn a_skill_json_that_rules_the_device_out_is_honoured() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    cdn.publish(
        "lamp-extra",
        &[
            ("SKILL.md", b"# Extra v2\n"),
            (
                "skill.json",
                b"{\"name\":\"lamp-extra\",\"capabilities\":[\"vision\"]}",
            ),
        ],
    );
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !dev.path("root/.openclaw/workspace/skills/lamp-extra")
            .exists()
    );
    cdn.zip_requests();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        cdn.zip_requests().is_empty(),
        "the same version is not fetched again"
    );
}

#[test]
fn openclaw_hooks_are_installed_registered_and_unsupported_ones_removed() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let hooks = "root/.openclaw/workspace/hooks";
    dev.write(&format!("{hooks}/emotion-acknowledge/HOOK.md"), "# old\n");
    dev.write(
        "root/.openclaw/openclaw.json",
        "{\n  // the owner's gateway\n  \"gateway\": {\"port\": 18789},\n  \"hooks\": {\"internal\": {\"entries\": {\"emotion-acknowledge\": {\"enabled\": true}}}}\n}\n",
    );
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        dev.read(&format!("{hooks}/turn-gate/handler.ts")).unwrap(),
        "export default () => {};\n"
    );
    assert!(!dev.path(&format!("{hooks}/emotion-acknowledge")).exists());
    let cfg = dev.read("root/.openclaw/openclaw.json").unwrap();
    assert!(cfg.contains("// the owner's gateway"), "{cfg}");
    let doc = osctl_json5(&cfg);
    assert_eq!(doc["hooks"]["internal"]["enabled"], true);
    assert_eq!(
        doc["hooks"]["internal"]["entries"],
        serde_json::json!({"turn-gate": {"enabled": true}})
    );
    let doc_json = json_of(&out);
    assert_eq!(
        doc_json["applied"]["skipped_offline"],
        serde_json::json!(["systemctl try-restart openclaw.service"]),
        "openclaw is restarted for a hook change (only printed on an offline root)"
    );
    let hooks_report = &doc_json["hooks"];
    assert_eq!(hooks_report[0]["action"], "remove");
    assert_eq!(hooks_report[1]["action"], "install");
    // A second pass changes nothing.
    let out = sync(&dev, &[]);
    assert_eq!(json_of(&out)["changed"], false, "{}", stderr(&out));
}

/// Parses openclaw.json the way osctl does (it may hold comments).
fn osctl_json5(text: &str) -> serde_json::Value {
    osctl::format::json::JsonDoc::parse(text, "openclaw.json")
        .unwrap()
        .value()
}

/// A `--dry-run` downloads and checks what it shows (`preview.rs`: its diff is the run's
/// change); `--check` only answers whether anything is pending, and downloads no zip. Neither
/// changes the device.
#[test]
fn dry_run_and_check_change_nothing() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let before = dev.snapshot("");
    let out = dev.osctl(&["skills", "sync", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("would install audio (") && stderr(&out).contains(", 2 files)"),
        "{}",
        stderr(&out)
    );
    assert!(
        !cdn.zip_requests().is_empty(),
        "a dry run downloads what it shows"
    );
    let out = dev.osctl(&["skills", "sync", "--check"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(cdn.zip_requests().is_empty(), "a check downloads no zip");
    let mut after = dev.snapshot("");
    after.remove("var/lib/osctl/lock");
    after.remove("var/lib/osctl");
    after.remove("var/lib");
    after.remove("var");
    assert_eq!(after, before);
}

#[test]
fn list_and_verify_report_versions_support_and_drift() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let out = dev.osctl(&["skills", "verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = dev.osctl(&["skills", "list"]);
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    let audio_line = table.lines().find(|l| l.starts_with("audio ")).unwrap();
    assert!(audio_line.contains(&cdn.versions["audio"]), "{table}");
    assert!(audio_line.contains("yes"), "{table}");
    let camera_line = table.lines().find(|l| l.starts_with("camera ")).unwrap();
    assert!(camera_line.contains("no (vision)"), "{table}");

    dev.write(
        "root/.openclaw/workspace/skills/audio/SKILL.md",
        "# edited by hand\n",
    );
    std::fs::remove_dir_all(dev.path("root/.openclaw/workspace/skills/dance")).unwrap();
    let out = dev.osctl(&["--json", "skills", "verify"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["drift"], true);
    let drift: std::collections::BTreeMap<String, String> = doc["checked"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["drift"].is_null())
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["drift"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(drift["audio"], "modified");
    assert_eq!(drift["dance"], "missing");
    // A sync reinstalls the missing folder.
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        dev.path("root/.openclaw/workspace/skills/dance/SKILL.md")
            .exists()
    );
}

#[test]
fn an_unreadable_openclaw_json_fails_the_registration_not_the_skills() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let broken = "{\n  \"gateway\": {\"port\": 18789,,}\n}\n";
    dev.write("root/.openclaw/openclaw.json", broken);
    let out = sync(&dev, &[]);
    assert_eq!(
        out.status.code(),
        Some(5),
        "partly applied: {}",
        stderr(&out)
    );
    let doc = json_of(&out);
    assert_eq!(
        doc["updated"],
        serde_json::json!(["audio", "dance", "lamp-extra"])
    );
    let failed: Vec<_> = doc["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["action"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{}", doc["hooks"]);
    assert_eq!(failed[0]["error"]["code"], "parse_error");
    assert_eq!(
        dev.read("root/.openclaw/openclaw.json").unwrap(),
        broken,
        "never rewritten"
    );
    assert!(
        dev.read("var/lib/osctl/skills.json")
            .unwrap()
            .contains("\"audio\"")
    );
}

/// A power cut after the new folder is swapped in but before the state file is written: the
/// folder is whole, the old version is still recorded, and the next sync ends in the same place
/// (downloading again, and still telling the agent).
#[test]
fn a_crash_before_the_state_write_is_finished_by_the_next_sync() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let state = dev.read("var/lib/osctl/skills.json").unwrap();
    let v2 = cdn.publish("audio", &[("SKILL.md", b"# Audio v2\n")]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(dev.root())
        .args(["skills", "sync"])
        .env("OSCTL_FAULT", "abort-write:1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", stderr(&out));
    let skill = "root/.openclaw/workspace/skills/audio";
    assert_eq!(
        dev.read(&format!("{skill}/SKILL.md")).unwrap(),
        "# Audio v2\n"
    );
    assert!(
        !dev.path(&format!("{skill}/scripts")).exists(),
        "whole, not mixed"
    );
    assert_eq!(
        dev.read("var/lib/osctl/skills.json").unwrap(),
        state,
        "not advanced"
    );
    cdn.zip_requests();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json_of(&out)["updated"], serde_json::json!(["audio"]));
    assert_eq!(cdn.zip_requests(), vec!["/os/skills/audio.zip"]);
    assert!(dev.read("var/lib/osctl/skills.json").unwrap().contains(&v2));
}

#[test]
fn a_failing_notify_command_is_reported_after_the_skills_are_recorded() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let out = sync(
        &dev,
        &[
            "--notify-cmd",
            "cat >/dev/null; echo agent down >&2; exit 7",
        ],
    );
    // The skills landed and are recorded; only the agent was not told: partly applied.
    assert_eq!(out.status.code(), Some(5));
    let doc = json_of(&out);
    assert_eq!(
        doc["updated"],
        serde_json::json!(["audio", "dance", "lamp-extra"])
    );
    let err = stderr(&out);
    assert!(
        err.contains("the --notify-cmd failed (exit status 7)"),
        "{err}"
    );
    assert!(err.contains("agent down"), "{err}");
    assert!(
        dev.read("var/lib/osctl/skills.json")
            .unwrap()
            .contains("\"dance\"")
    );
}

// The hostile CDN and the broken device, each a regression once.
mod hostile;
mod preview_run;
