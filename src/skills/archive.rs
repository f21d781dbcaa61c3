//! Skill zips: the version check, and unpacking with every entry checked.
//!
//! A skill's `version` is the first 12 hex characters of the sha256 of its deterministic zip, so
//! [`check_version`] runs on the downloaded bytes **before** the archive is opened: a zip that is
//! not the one the metadata names is never parsed at all.
//!
//! [`unpack`] then reads the whole archive into memory (skills are small; the total is capped)
//! and refuses it, whole, when any entry is unsafe: an absolute path, a `..` component, a
//! backslash, a symlink or other special file, a duplicate or a file/folder clash, more entries
//! or more unpacked bytes than allowed (a zip bomb: the declared sizes are checked first, and
//! the bytes actually inflated are counted too, since a header can lie). Nothing reaches the
//! staging folder until every entry passed; `apply::stage::write_tree` then writes files 0644
//! and folders 0755 whatever modes the archive carried.

use std::collections::BTreeSet;
use std::io::{Cursor, Read};

use sha2::{Digest, Sha256};

use super::metadata::Wanted;

/// Most bytes a skill may unpack to.
pub const MAX_UNPACKED_BYTES: u64 = 100 * 1024 * 1024;
/// Most entries a skill zip may hold.
pub const MAX_ENTRIES: usize = 10_000;

/// Why a download was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Stable machine code (`hash_mismatch`, `unsafe_path`, `symlink_entry`, `zip_bomb`,
    /// `bad_zip`, `package_secret`).
    pub code: &'static str,
    pub message: String,
}

fn refuse(code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

/// One unpacked path: a folder (`content: None`) or a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Relative, `/`-separated, normalised (`scripts/run.py`).
    pub path: String,
    pub content: Option<Vec<u8>>,
}

/// The hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Checks that `zip` is the archive `version` names (its sha256 starts with it).
pub fn check_version(zip: &[u8], version: &str) -> Result<(), Refusal> {
    check_digest(
        &sha256_hex(zip),
        &Wanted {
            version: version.to_string(),
            sha256: None,
        },
    )
}

/// Checks a download's hex sha256 against what the metadata names: its version is a prefix of
/// it, and, when the metadata is signed, the whole sha256 is the signed one.
pub fn check_digest(actual: &str, wanted: &Wanted) -> Result<(), Refusal> {
    let version = &wanted.version;
    if !actual.starts_with(version.as_str()) {
        return Err(refuse(
            "hash_mismatch",
            format!(
                "the download's sha256 begins {}, but the metadata's version is {version}",
                &actual[..version.len().min(actual.len())]
            ),
        ));
    }
    match &wanted.sha256 {
        Some(signed) if signed != actual => Err(refuse(
            "hash_mismatch",
            format!("the download's sha256 is {actual}, but the signed metadata says {signed}"),
        )),
        _ => Ok(()),
    }
}

/// Unpacks a zip into memory, refusing it whole if any entry is unsafe.
pub fn unpack(zip: &[u8], max_bytes: u64) -> Result<Vec<Entry>, Refusal> {
    let bad = |e: zip::result::ZipError| refuse("bad_zip", format!("not a readable zip: {e}"));
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).map_err(bad)?;
    if archive.len() > MAX_ENTRIES {
        return Err(refuse(
            "zip_bomb",
            format!("{} entries (at most {MAX_ENTRIES})", archive.len()),
        ));
    }
    // The archive index keeps one entry per name, so a duplicate is only visible here.
    if archive.has_duplicate_names() {
        return Err(refuse(
            "unsafe_path",
            "the archive names an entry twice".to_string(),
        ));
    }
    let mut declared = 0u64;
    for i in 0..archive.len() {
        let f = archive.by_index_raw(i).map_err(bad)?;
        declared = declared.saturating_add(f.size());
    }
    if declared > max_bytes {
        return Err(refuse(
            "zip_bomb",
            format!("it would unpack to {declared} bytes (at most {max_bytes})"),
        ));
    }
    let mut entries = Vec::with_capacity(archive.len());
    let mut seen = BTreeSet::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).map_err(bad)?;
        // `name()` cuts a name at its first NUL (`a\0b` would be written as `a`): check the
        // raw bytes.
        if f.name_raw().contains(&0) {
            let shown = String::from_utf8_lossy(f.name_raw()).replace('\0', "\\0");
            return Err(refuse(
                "unsafe_path",
                format!("entry `{shown}` contains a NUL byte"),
            ));
        }
        let raw = f.name().map_err(bad)?.into_owned();
        let path = safe_path(&raw)?;
        if f.is_symlink() {
            return Err(refuse(
                "symlink_entry",
                format!("entry `{raw}` is a symbolic link"),
            ));
        }
        let kind = f.unix_mode().map(|m| m & 0o170000);
        let is_dir = f.is_dir();
        if !is_dir && !matches!(kind, None | Some(0) | Some(0o100000)) {
            return Err(refuse(
                "unsafe_path",
                format!("entry `{raw}` is not a regular file"),
            ));
        }
        if path.is_empty() {
            if is_dir {
                continue;
            }
            return Err(refuse("unsafe_path", format!("entry `{raw}` has no name")));
        }
        if !seen.insert(path.clone()) {
            return Err(refuse(
                "unsafe_path",
                format!("entry `{raw}` appears twice"),
            ));
        }
        let content = if is_dir {
            None
        } else {
            let room = max_bytes - total;
            let mut buf = Vec::with_capacity(f.size().min(room) as usize);
            (&mut f)
                .take(room + 1)
                .read_to_end(&mut buf)
                .map_err(|e| refuse("bad_zip", format!("cannot inflate `{raw}`: {e}")))?;
            if buf.len() as u64 > room {
                return Err(refuse(
                    "zip_bomb",
                    format!("it inflates past {max_bytes} bytes (at `{raw}`)"),
                ));
            }
            total += buf.len() as u64;
            Some(buf)
        };
        entries.push(Entry { path, content });
    }
    // A file may not also be a folder (`a` and `a/b`).
    for e in &entries {
        let mut parent = e.path.as_str();
        while let Some(i) = parent.rfind('/') {
            parent = &parent[..i];
            if entries
                .iter()
                .any(|o| o.path == parent && o.content.is_some())
            {
                return Err(refuse(
                    "unsafe_path",
                    format!("`{parent}` is both a file and a folder"),
                ));
            }
        }
    }
    Ok(entries)
}

/// Normalises an entry name, refusing absolute paths, `..`, backslashes and control characters.
fn safe_path(raw: &str) -> Result<String, Refusal> {
    let unsafe_path = |why: &str| refuse("unsafe_path", format!("entry `{raw}` {why}"));
    if raw.starts_with('/') || raw.as_bytes().get(1) == Some(&b':') {
        return Err(unsafe_path("is an absolute path"));
    }
    if raw.contains('\\') {
        return Err(unsafe_path("contains a backslash"));
    }
    if raw.chars().any(char::is_control) {
        return Err(unsafe_path("contains a control character"));
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(unsafe_path("climbs out with `..`")),
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

/// The root `skill.json`, when the archive has one.
pub fn skill_json(entries: &[Entry]) -> Option<&[u8]> {
    entries
        .iter()
        .find(|e| e.path == "skill.json")
        .and_then(|e| e.content.as_deref())
}

/// The entries as `(path, content)` pairs, as `apply::stage::write_tree` and `tree_hash` take
/// them.
pub fn as_tree(entries: &[Entry]) -> Vec<(&str, Option<&[u8]>)> {
    entries
        .iter()
        .map(|e| (e.path.as_str(), e.content.as_deref()))
        .collect()
}

#[cfg(test)]
pub(crate) mod testzip {
    //! Deterministic zips for tests, built the way upstream's release script builds them.
    use std::io::Write;

    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, DateTime, ZipWriter};

    pub(crate) enum Item<'a> {
        File(&'a str, &'a [u8]),
        Dir(&'a str),
        Symlink(&'a str, &'a str),
    }

    pub(crate) fn build(items: &[Item<'_>]) -> Vec<u8> {
        let mut w = ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .last_modified_time(DateTime::default())
            .unix_permissions(0o644);
        for item in items {
            match item {
                Item::File(name, bytes) => {
                    w.start_file(*name, opts).unwrap();
                    w.write_all(bytes).unwrap();
                }
                Item::Dir(name) => w.add_directory(*name, opts).unwrap(),
                Item::Symlink(name, target) => w.add_symlink(*name, *target, opts).unwrap(),
            }
        }
        w.finish().unwrap().into_inner()
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::testzip::{Item, build};
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_version_is_a_sha256_prefix() {
        let z = build(&[Item::File("SKILL.md", b"# a\n")]);
        let v = &sha256_hex(&z)[..12];
        assert!(check_version(&z, v).is_ok());
        assert_eq!(
            check_version(&z, "000000000000").unwrap_err().code,
            "hash_mismatch"
        );
    }

    #[test]
    fn unpacks_and_writes_with_fixed_modes() {
        let z = build(&[
            Item::File("SKILL.md", b"# a\n"),
            Item::Dir("scripts/"),
            Item::File("scripts/run.py", b"print(1)\n"),
            Item::File("deep/er/x.txt", b"x"),
        ]);
        let entries = unpack(&z, MAX_UNPACKED_BYTES).unwrap();
        assert_eq!(entries.len(), 4);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("skill");
        crate::apply::stage::write_tree(&out, &as_tree(&entries)).unwrap();
        let mode = |p: &str| std::fs::metadata(out.join(p)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode("scripts/run.py"), 0o644);
        assert_eq!(mode("deep/er"), 0o755);
        assert_eq!(mode("."), 0o755);
        assert_eq!(std::fs::read(out.join("deep/er/x.txt")).unwrap(), b"x");
    }

    #[test]
    fn refuses_unsafe_entries() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (build(&[Item::File("../evil", b"x")]), "unsafe_path"),
            (build(&[Item::File("a/../../evil", b"x")]), "unsafe_path"),
            (build(&[Item::File("/etc/passwd", b"x")]), "unsafe_path"),
            (build(&[Item::File("a\\..\\b", b"x")]), "unsafe_path"),
            (
                build(&[Item::Symlink("link", "/etc/passwd")]),
                "symlink_entry",
            ),
            (
                build(&[Item::File("a", b"x"), Item::File("a/b", b"y")]),
                "unsafe_path",
            ),
            (b"not a zip".to_vec(), "bad_zip"),
        ];
        for (z, code) in cases {
            assert_eq!(unpack(&z, MAX_UNPACKED_BYTES).unwrap_err().code, code);
        }
    }

    #[test]
    fn refuses_a_zip_bomb_by_declared_and_by_inflated_size() {
        let zeros = vec![0u8; 1 << 20];
        let z = build(&[Item::File("big", &zeros)]);
        assert!(z.len() < 10_000, "compresses well");
        assert_eq!(unpack(&z, 1000).unwrap_err().code, "zip_bomb");
        assert!(unpack(&z, 2 << 20).is_ok());
    }
}
