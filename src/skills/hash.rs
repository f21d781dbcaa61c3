//! FolderHash, exactly as upstream computes it (`system/skills/skillzip.go`).
//!
//! A depth-first walk in lexical order of the names **within each folder** (Go's `filepath.Walk`,
//! which is not the same order as sorting whole paths: `a/x` comes before `a.txt`). For every
//! path: its path relative to the folder (`.` for the folder itself, `/` separators) and a NUL
//! byte; for anything that is not a folder also its bytes (a symlink is read through, as Go's
//! `os.Open` does) and a NUL byte. The result is the hex sha256. A missing folder has no hash
//! (upstream's error, treated as `""`): a sync then always counts the skill as changed.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::system::fs::{WalkEvent, walk_in_go_order};

/// The FolderHash of a host folder; `None` when it is missing or cannot be read whole.
pub(crate) fn folder_hash(dir: &Path) -> Option<String> {
    let mut h = Sha256::new();
    walk_in_go_order(dir, &mut |event| match event {
        WalkEvent::Path { rel, .. } => {
            h.update(rel.as_bytes());
            h.update([0u8]);
        }
        WalkEvent::Bytes(chunk) => h.update(chunk),
        WalkEvent::EndOfFile => h.update([0u8]),
    })?;
    Some(hex::encode(h.finalize()))
}

/// One path of an in-memory tree: a folder (`None`) or a file's bytes.
pub(crate) type TreeEntry<'a> = (&'a str, Option<&'a [u8]>);

/// The FolderHash a folder would have if it held exactly `entries` (relative `/` paths, parent
/// folders listed or implied). Used for trees osctl is about to write.
pub(crate) fn tree_hash(entries: &[TreeEntry<'_>]) -> String {
    // Every implied parent folder is a walked path too.
    let mut all: Vec<(Vec<&str>, Option<&[u8]>)> = Vec::new();
    for (path, content) in entries {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        for i in 1..parts.len() {
            all.push((parts[..i].to_vec(), None));
        }
        all.push((parts, *content));
    }
    // Walk order: compare component by component (names within one folder are sorted bytewise).
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all.dedup_by(|a, b| a.0 == b.0);
    let mut h = Sha256::new();
    h.update(b".\0");
    for (parts, content) in all {
        h.update(parts.join("/").as_bytes());
        h.update([0u8]);
        if let Some(bytes) = content {
            h.update(bytes);
            h.update([0u8]);
        }
    }
    hex::encode(h.finalize())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    /// The same tree hashed by hand, in Go's walk order.
    fn by_hand(parts: &[(&str, Option<&[u8]>)]) -> String {
        let mut h = Sha256::new();
        for (rel, content) in parts {
            h.update(rel.as_bytes());
            h.update([0u8]);
            if let Some(c) = content {
                h.update(c);
                h.update([0u8]);
            }
        }
        hex::encode(h.finalize())
    }

    #[test]
    fn walks_like_go_filepath_walk() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(d.join("a/x"), "ax").unwrap();
        std::fs::write(d.join("a.txt"), "at").unwrap();
        std::fs::write(d.join("SKILL.md"), "# s\n").unwrap();
        // Go order: ".", "SKILL.md", "a", "a/x", "a.txt" ('S' < 'a'; a folder's children follow
        // it before its next sibling, though "a.txt" < "a/x" as whole strings).
        let expected = by_hand(&[
            (".", None),
            ("SKILL.md", Some(b"# s\n")),
            ("a", None),
            ("a/x", Some(b"ax")),
            ("a.txt", Some(b"at")),
        ]);
        assert_eq!(folder_hash(d).unwrap(), expected);
        let mem = tree_hash(&[
            ("a.txt", Some(b"at")),
            ("a/x", Some(b"ax")),
            ("SKILL.md", Some(b"# s\n")),
        ]);
        assert_eq!(mem, expected);
        assert_eq!(folder_hash(&d.join("missing")), None);
    }

    #[test]
    fn empty_folder_hashes_its_root_only() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(folder_hash(dir.path()).unwrap(), by_hand(&[(".", None)]));
        assert_eq!(tree_hash(&[]), by_hand(&[(".", None)]));
    }
}
