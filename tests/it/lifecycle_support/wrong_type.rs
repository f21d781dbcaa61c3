//! Start trees whose state files hold a key of the wrong type (issue 26): `agent_runtime` as a
//! list (the user's shape, on a hermes device) and as a number, `channels_unsupported` as a
//! string, ROBOT.md `gateway.default` as a list. Every command that reads the file refuses it
//! (exit 1, or doctor's finding) and writes nothing, until a provision (the app writing a new
//! owner's config.json) replaces it; the suite's checks hold on every step of such a life.
//!
//! Each tree is `tests/lifecycle_support/wrong-type/<name>/`: a `BASE` file naming the repository
//! tree it starts from, and the files that replace that tree's (so the wrong value is the only
//! difference from a device the suite already walks).

use std::path::Path;

use crate::reliability_support as rs;

const DIR: &str = "tests/lifecycle_support/wrong-type";

/// The wrong-type start trees, as `starts()` lists them.
pub fn starts() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(rs::repo().join(DIR))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("BASE").is_file())
        .map(|e| format!("{DIR}/{}", e.file_name().to_string_lossy()))
        .collect();
    names.sort();
    assert!(names.len() >= 4, "wrong-type start trees: {names:?}");
    names
}

/// Copies the start tree `start` to `root`: a tree with a `BASE` file is its base tree with its
/// own files laid over it (and the links of a `LINKS` file, see [`super::links_out`]); any other
/// tree is copied as it is.
pub fn copy_start(start: &str, root: &Path) {
    let dir = rs::repo().join(start);
    let Ok(base) = std::fs::read_to_string(dir.join("BASE")) else {
        rs::copy_tree(&dir, root);
        return;
    };
    rs::copy_tree(&rs::repo().join(base.trim()), root);
    for entry in walkdir::WalkDir::new(&dir).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(&dir).unwrap();
        if rel == Path::new("BASE") || rel == Path::new("LINKS") || entry.file_type().is_dir() {
            continue;
        }
        let to = root.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(entry.path(), &to).unwrap();
    }
    super::links_out::make_links(start, root);
}

/// Whether a `--json` run refused a key of the wrong type, as it must: `error.code` is
/// `wrong_type`, and the error names the file with its line and column, and the key.
pub fn refused(stdout: &str, stderr: &str) -> bool {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(stdout) else {
        return false;
    };
    let e = &doc["error"];
    e["code"] == "wrong_type"
        && e["line"].as_u64().is_some()
        && e["column"].as_u64().is_some()
        && e["message"]
            .as_str()
            .is_some_and(|m| m.contains(" must be "))
        && stderr.contains("nothing was written")
}

/// The wrong-typed value the device holds now, if any (the test's own reading of the files the
/// start trees plant, not osctl's): `agent_runtime` not a string, `channels_unsupported` not a
/// list of strings, ROBOT.md `gateway.default` a list. While one is there, every osctl command a
/// step runs must refuse (exit 1), which also means it writes nothing.
pub fn planted(root: &Path) -> Option<String> {
    let config = std::fs::read(root.join("root/config/config.json")).ok();
    let doc: serde_json::Value = config.and_then(|b| serde_json::from_slice(&b).ok())?;
    let rt = &doc["agent_runtime"];
    if !(rt.is_null() || rt.is_string()) {
        return Some(format!("config.json agent_runtime is {rt}"));
    }
    let unsupported = &doc["channels_unsupported"];
    if !(unsupported.is_null()
        || unsupported
            .as_array()
            .is_some_and(|a| a.iter().all(serde_json::Value::is_string)))
    {
        return Some(format!("config.json channels_unsupported is {unsupported}"));
    }
    let device_type = doc["device_type"].as_str()?;
    let robot = std::fs::read_to_string(root.join(format!("opt/devices/{device_type}/ROBOT.md")));
    robot
        .ok()?
        .lines()
        .find(|l| l.trim_start().starts_with("default: ["))
        .map(|l| format!("ROBOT.md gateway.{}", l.trim()))
}
