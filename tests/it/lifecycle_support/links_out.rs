//! Start trees with a symbolic link inside a runtime's tree that leads out of it (issue 26): an
//! inactive runtime's persona file and another's memory folder linked to `/outside/...`, a
//! place inside the root that is no runtime's. While such a link is there, every writer refuses
//! the device (exit 1) and writes nothing; `status` reports it; a factory reset removes the
//! link itself, as a link, and resets the rest (exit 0). What the link points at never changes,
//! whatever the life does.
//!
//! Each tree is `tests/lifecycle_support/links-out/<name>/`: a `BASE` file naming the repository
//! tree it starts from, a `LINKS` file (`path -> target`, one per line: git stores no link the
//! suite would have to trust), and the files laid over the base (`outside/` among them).

use std::collections::BTreeMap;
use std::path::Path;

use crate::reliability_support as rs;

const DIR: &str = "tests/lifecycle_support/links-out";

/// The links-out start trees, as `starts()` lists them.
pub fn starts() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(rs::repo().join(DIR))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("LINKS").is_file())
        .map(|e| format!("{DIR}/{}", e.file_name().to_string_lossy()))
        .collect();
    names.sort();
    assert!(names.len() >= 2, "links-out start trees: {names:?}");
    names
}

/// Makes the links `start`'s `LINKS` file names under `root` (after its files are laid over the
/// base), each in place of what the base has there.
pub fn make_links(start: &str, root: &Path) {
    let Ok(list) = std::fs::read_to_string(rs::repo().join(start).join("LINKS")) else {
        return;
    };
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (path, target) = line.split_once(" -> ").expect("LINKS: `path -> target`");
        let at = root.join(path.trim());
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&at).unwrap(),
            Ok(_) => std::fs::remove_file(&at).unwrap(),
            Err(_) => std::fs::create_dir_all(at.parent().unwrap()).unwrap(),
        }
        std::os::unix::fs::symlink(target.trim(), &at).unwrap();
    }
}

/// The links into `/outside` under the agent home now (the test's own walk, not osctl's).
pub fn planted(root: &Path) -> Vec<String> {
    let home = root.join("root");
    walkdir::WalkDir::new(&home)
        .max_depth(4)
        .into_iter()
        .flatten()
        .filter(|e| e.path_is_symlink())
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|t| t.starts_with("/outside")))
        .map(|e| e.path().strip_prefix(root).unwrap().display().to_string())
        .collect()
}

/// Every file under the root's `/outside`, with its bytes: what the links point at.
pub fn outside(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let dir = root.join("outside");
    walkdir::WalkDir::new(&dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(&dir).unwrap().display().to_string();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}
