//! Unit tests of the journal: a rollback, a killed run restored by the next, roll-forward, and
//! the journals that are left alone or refused (rewritten since, writable by others, planted).

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use super::*;
use crate::apply::apply_file;
use crate::error::Exit;
use crate::plan::draft::{current, current_for_removal};
use crate::system::fs::RootFs;
use crate::system::services::Services;

/// A device with a config file, an owner's note, and the change a run makes: the config
/// rewritten, a new file made, the note removed.
struct Device {
    dir: tempfile::TempDir,
    fs: RootFs,
    changes: Vec<FileChange>,
}

const CONFIG: &str = "/etc/app/app.conf";
const NEW: &str = "/etc/app/new.conf";
const NOTE: &str = "/root/NOTE.md";

fn device() -> Device {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("etc/app")).unwrap();
    std::fs::create_dir_all(dir.path().join("root")).unwrap();
    std::fs::write(dir.path().join("etc/app/app.conf"), "a = 1\n").unwrap();
    std::fs::set_permissions(
        dir.path().join("etc/app/app.conf"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    std::fs::write(dir.path().join("root/NOTE.md"), "the owner's words\n").unwrap();
    let fs = RootFs::new(dir.path()).unwrap();
    let p = |s: &str| DevPath::new(s);
    let changes = vec![
        FileChange::write(
            p(CONFIG),
            current(&fs, &p(CONFIG)).unwrap(),
            "a = 2\n",
            0o600,
            "t",
        ),
        FileChange::write(p(NEW), FileState::Absent, "new\n", 0o644, "t"),
        FileChange::new(
            p(NOTE),
            current_for_removal(&fs, &p(NOTE)).unwrap(),
            FileState::Absent,
            "t",
        ),
    ];
    Device { dir, fs, changes }
}

impl Device {
    fn read(&self, p: &str) -> Option<(String, u32)> {
        let host = self.dir.path().join(&p[1..]);
        let text = std::fs::read_to_string(&host).ok()?;
        Some((text, std::fs::metadata(&host).unwrap().mode() & 0o7777))
    }

    fn begin(&self) -> Journal {
        let touches: Vec<Touch> = self.changes.iter().map(Touch::of).collect();
        Journal::begin(&self.fs, "osctl test", &touches).unwrap()
    }

    fn write_all(&self, j: &Journal) {
        for c in &self.changes {
            apply_file(&self.fs, Some(j), c).unwrap();
        }
    }

    fn journal_dirs(&self) -> Vec<String> {
        match std::fs::read_dir(self.dir.path().join("var/lib/osctl/journal")) {
            Ok(rd) => rd
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    fn assert_original(&self) {
        assert_eq!(self.read(CONFIG), Some(("a = 1\n".into(), 0o640)));
        assert_eq!(self.read(NEW), None);
        assert_eq!(
            self.read(NOTE).map(|(t, _)| t),
            Some("the owner's words\n".into())
        );
    }
}

#[test]
fn a_rollback_puts_back_modes_bytes_and_removed_files_and_removes_new_ones() {
    let d = device();
    let j = d.begin();
    d.write_all(&j);
    assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
    assert_eq!(d.read(NOTE), None);
    let outcome = j.rollback(&d.fs).unwrap();
    assert!(
        outcome.left.is_empty() && outcome.failed.is_empty(),
        "{outcome:?}"
    );
    assert_eq!(outcome.restored, 3);
    d.assert_original();
    assert!(
        d.journal_dirs().is_empty(),
        "the journal is gone after a rollback"
    );
}

#[test]
fn a_killed_run_is_restored_by_the_next() {
    let d = device();
    let j = d.begin();
    apply_file(&d.fs, Some(&j), &d.changes[0]).unwrap();
    // Killed here: nothing ran Drop, the journal stays as it is on disk.
    std::mem::forget(j);
    assert_eq!(d.journal_dirs().len(), 1);
    let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
    assert_eq!(recovered.len(), 1);
    assert!(!recovered[0].finished && !recovered[0].rolled_forward);
    d.assert_original();
    assert!(d.journal_dirs().is_empty());
}

#[test]
fn a_run_marked_written_is_rolled_forward_not_back() {
    let d = device();
    let j = d.begin();
    d.write_all(&j);
    j.written(&[]).unwrap();
    std::mem::forget(j);
    let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
    assert_eq!(recovered.len(), 1);
    assert!(recovered[0].rolled_forward, "{:?}", recovered[0]);
    assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
    assert_eq!(d.read(NOTE), None);
    assert!(d.journal_dirs().is_empty());
}

#[test]
fn a_done_journal_is_only_cleaned_up() {
    let d = device();
    let j = d.begin();
    d.write_all(&j);
    j.done().unwrap();
    std::mem::forget(j);
    let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
    assert!(recovered.iter().all(|r| r.finished), "{recovered:?}");
    assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
    assert!(d.journal_dirs().is_empty());
}

#[test]
fn a_file_rewritten_by_someone_else_after_the_run_is_left_and_the_journal_kept() {
    let d = device();
    let j = d.begin();
    d.write_all(&j);
    std::mem::forget(j);
    // The runtime saved its config after the killed run wrote it.
    std::fs::write(d.dir.path().join("etc/app/app.conf"), "a = 3\n").unwrap();
    let recovered = recover_all(&d.fs, &Services::Offline).unwrap();
    let outcome = &recovered[0].outcome;
    assert_eq!(outcome.left.len(), 1, "{outcome:?}");
    assert!(outcome.left[0].contains(CONFIG), "{outcome:?}");
    assert_eq!(d.read(CONFIG).unwrap().0, "a = 3\n", "the newer bytes stay");
    assert_eq!(d.read(NEW), None, "the rest is put back");
    let kept = outcome.kept.as_ref().expect("the journal is moved aside");
    assert!(kept.as_path().starts_with("/var/lib/osctl/kept"), "{kept}");
    assert!(d.journal_dirs().is_empty(), "nothing wedges the next run");
}

#[test]
fn a_journal_others_may_write_is_refused_and_not_restored() {
    let d = device();
    let j = d.begin();
    d.write_all(&j);
    std::mem::forget(j);
    let dirs = d.journal_dirs();
    let jdir = d.dir.path().join("var/lib/osctl/journal").join(&dirs[0]);
    std::fs::set_permissions(&jdir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = recover_all(&d.fs, &Services::Offline).unwrap_err();
    assert_eq!(err.exit, Exit::Failed, "{err:?}");
    // Untouched: the run's writes stand, and the journal is left for a person to judge.
    assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)));
    assert_eq!(d.journal_dirs(), dirs);
}

#[test]
fn a_manifest_naming_another_journal_or_a_path_outside_is_refused() {
    for (what, from, to) in [
        (
            "its id is not its folder's name",
            "\"id\": \"",
            "\"id\": \"x",
        ),
        ("a path with ..", "/etc/app/new.conf", "/etc/../../new.conf"),
    ] {
        let d = device();
        let j = d.begin();
        d.write_all(&j);
        std::mem::forget(j);
        let dirs = d.journal_dirs();
        let manifest = d
            .dir
            .path()
            .join("var/lib/osctl/journal")
            .join(&dirs[0])
            .join(MANIFEST);
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(text.contains(from), "{what}: {text}");
        std::fs::write(&manifest, text.replacen(from, to, 1)).unwrap();
        let err = recover_all(&d.fs, &Services::Offline).unwrap_err();
        assert_eq!(err.exit, Exit::Failed, "{what}: {err:?}");
        assert_eq!(d.read(CONFIG), Some(("a = 2\n".into(), 0o600)), "{what}");
    }
}
