//! The sync pass's unit tests: selection, pruning and the state it records.

use super::*;
use crate::runtime::{PruneRule, REGISTRY};

const SKILLS: &str = "/root/skills";

fn caps(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn listed(entries: &[(&str, &str)]) -> BTreeMap<String, Listed> {
    entries
        .iter()
        .map(|(n, v)| {
            let l = if v.is_empty() {
                Listed::Invalid("not a sha256 prefix".into())
            } else {
                Listed::Skill(Wanted {
                    version: v.to_string(),
                    sha256: None,
                })
            };
            (n.to_string(), l)
        })
        .collect()
}

fn record(version: &str, installed: bool) -> SkillRecord {
    SkillRecord {
        version: version.into(),
        hash: None,
        installed,
    }
}

fn device(folders: &[&str]) -> (tempfile::TempDir, RootFs) {
    let dir = tempfile::tempdir().unwrap();
    for f in folders {
        std::fs::create_dir_all(dir.path().join("root/skills").join(f)).unwrap();
        std::fs::write(
            dir.path().join("root/skills").join(f).join("SKILL.md"),
            "x\n",
        )
        .unwrap();
    }
    let fs = RootFs::new(dir.path()).unwrap();
    (dir, fs)
}

/// Each listed skill lands in exactly one bucket, for the reason the state and the folder
/// give: a lamp (audio and light) with some skills installed before.
#[test]
fn select_sorts_every_listed_skill_by_its_state_and_folder() {
    let (_dir, fs) = device(&["dance", "connectors"]);
    let mut rstate = RuntimeState::default();
    rstate
        .skills
        .insert("dance".into(), record("aaaaaaaaaaaa", true));
    rstate
        .skills
        .insert("connectors".into(), record("old000000000", true));
    rstate
        .skills
        .insert("refused-one".into(), record("cccccccccccc", false));
    rstate
        .skills
        .insert("gone".into(), record("dddddddddddd", true));
    let list = listed(&[
        ("dance", "aaaaaaaaaaaa"),       // same version, folder there
        ("connectors", "new000000000"),  // a new version
        ("camera", "bbbbbbbbbbbb"),      // needs vision
        ("refused-one", "cccccccccccc"), // its skill.json ruled the device out
        ("gone", "dddddddddddd"),        // recorded, but its folder was removed
        ("broken", ""),                  // an entry osctl does not act on
        ("fresh", "eeeeeeeeeeee"),       // never installed
    ]);
    let (reports, pending) = select(
        &fs,
        &DevPath::new(SKILLS),
        &list,
        &caps(&["audio", "light"]),
        &rstate,
    )
    .unwrap();
    let action = |n: &str| reports.iter().find(|r| r.name == n).map(|r| r.action);
    assert_eq!(action("dance"), Some("up-to-date"));
    assert_eq!(action("camera"), Some("unsupported"));
    assert!(
        reports
            .iter()
            .find(|r| r.name == "camera")
            .unwrap()
            .reason
            .as_deref()
            == Some("needs one of: vision (the device has: audio, light)")
    );
    assert_eq!(action("refused-one"), Some("unsupported"));
    assert_eq!(action("broken"), Some("failed"));
    let pend: Vec<(&str, &'static str, Option<String>)> = pending
        .iter()
        .map(|p| {
            let r = report_pending(p);
            (p.name.as_str(), r.action, r.previous)
        })
        .collect();
    assert_eq!(
        pend,
        vec![
            ("connectors", "update", Some("old000000000".to_string())),
            ("fresh", "install", None),
            ("gone", "update", Some("dddddddddddd".to_string())),
        ]
    );
    assert_eq!(reports.len() + pending.len(), list.len());
}

/// Without capabilities the device is fail-open: everything in the catalog is supported.
#[test]
fn select_without_capabilities_supports_everything() {
    let (_dir, fs) = device(&[]);
    let list = listed(&[("camera", "bbbbbbbbbbbb"), ("dance", "aaaaaaaaaaaa")]);
    let (reports, pending) = select(
        &fs,
        &DevPath::new(SKILLS),
        &list,
        &[],
        &RuntimeState::default(),
    )
    .unwrap();
    assert!(reports.is_empty(), "{reports:?}");
    assert_eq!(pending.len(), 2);
}

/// A catalog-only runtime prunes the catalog skills the device cannot run and the ones
/// their own skill.json refused, never a folder the catalog does not know (the owner's).
#[test]
fn prune_removes_unsupported_catalog_skills_and_keeps_the_owners_own() {
    let rt = REGISTRY
        .iter()
        .find(|r| matches!(r.skills.prune, PruneRule::CatalogOnly))
        .unwrap();
    let (_dir, fs) = device(&["camera", "dance", "refused-one", "my-own-skill"]);
    let mut rstate = RuntimeState::default();
    rstate
        .skills
        .insert("camera".into(), record("bbbbbbbbbbbb", true));
    rstate
        .skills
        .insert("refused-one".into(), record("cccccccccccc", false));
    let mut draft = Draft::new(&fs);
    let reports = plan_prune(
        &mut draft,
        &DevPath::new(SKILLS),
        rt,
        &caps(&["audio", "light"]),
        &BTreeMap::new(),
        &mut rstate,
    )
    .unwrap();
    let mut pruned: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
    pruned.sort();
    assert_eq!(pruned, ["camera", "refused-one"]);
    let plan = draft.finish();
    let mut removed: Vec<String> = plan.file_changes().map(|c| c.path.to_string()).collect();
    removed.sort();
    assert_eq!(removed, ["/root/skills/camera", "/root/skills/refused-one"]);
    assert!(
        !rstate.skills.contains_key("camera"),
        "its record goes with it"
    );
    assert!(
        rstate.skills.contains_key("refused-one"),
        "a refusal is remembered, so the version is not fetched again"
    );
}
