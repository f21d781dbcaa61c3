//! Unit tests of apply: writes, rollback on failure, a run restored from its journal, a file
//! changed after planning, and the kills that once left a device half switched or reset.

use super::*;
use crate::output::ColorChoice;
use crate::plan::FileChange;
use crate::plan::draft::{current, current_for_removal};
use std::collections::BTreeMap;
use std::path::Path;

/// Every file and folder under `root` (journal and lock excluded) with content and mode.
fn snapshot(root: &Path) -> BTreeMap<String, (Option<Vec<u8>>, u32)> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| !e.path().starts_with(root.join("var")))
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            let content = e
                .file_type()
                .is_file()
                .then(|| std::fs::read(e.path()).unwrap());
            (rel, (content, mode_of(e.path())))
        })
        .collect()
}

fn target<'a>(fs: &'a RootFs, services: &'a Services, out: &'a Printer) -> Target<'a> {
    Target {
        fs,
        services,
        out,
        command: "test",
    }
}

fn setup() -> (tempfile::TempDir, RootFs, Services, Printer) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("etc")).unwrap();
    std::fs::write(dir.path().join("etc/a.conf"), "a=1\n").unwrap();
    let fs = RootFs::new(dir.path()).unwrap();
    let out = Printer::new(false, true, 0, ColorChoice::Never, true);
    (dir, fs, Services::Offline, out)
}

fn write(fs: &RootFs, path: &str, content: &str, mode: u32) -> FileChange {
    let p = DevPath::new(path);
    FileChange::write(
        p.clone(),
        current(fs, &p).unwrap(),
        content.as_bytes().to_vec(),
        mode,
        "test",
    )
}

#[test]
fn applies_creates_parents_and_leaves_no_journal() {
    let (dir, fs, services, out) = setup();
    let mut plan = Plan::new();
    plan.file(write(&fs, "/etc/a.conf", "a=2\n", 0o644));
    plan.file(write(&fs, "/root/.hermes/.env", "K=v\n", 0o600));
    apply(&target(&fs, &services, &out), &plan).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("etc/a.conf")).unwrap(),
        "a=2\n"
    );
    assert_eq!(mode_of(&dir.path().join("root/.hermes/.env")), 0o600);
    assert!(journal::pending(&fs).unwrap().is_empty());
}

#[test]
fn a_write_through_a_link_out_of_the_root_names_the_link() {
    let (dir, fs, services, out) = setup();
    // An absolute link target is resolved inside the root, where /elsewhere does not exist.
    std::os::unix::fs::symlink("/elsewhere/a.conf", dir.path().join("etc/b.conf")).unwrap();
    let before = snapshot(dir.path());
    let mut plan = Plan::new();
    plan.file(write(&fs, "/etc/b.conf", "b=1\n", 0o644));
    let err = apply(&target(&fs, &services, &out), &plan).unwrap_err();
    assert_eq!(err.exit, Exit::RolledBack, "{err:?}");
    assert!(
        err.causes
            .iter()
            .any(|c| c.contains("symbolic link to /elsewhere/a.conf")),
        "{err:?}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_failure_restores_every_earlier_change() {
    let (dir, fs, services, out) = setup();
    let before = snapshot(dir.path());
    let mut plan = Plan::new();
    plan.file(write(&fs, "/etc/a.conf", "a=2\n", 0o600));
    plan.file(write(&fs, "/root/new/deep/file", "x", 0o644));
    // A path under a regular file cannot be created: the third step fails.
    plan.file(write(&fs, "/etc/a.conf.d/x", "x", 0o644));
    std::fs::write(dir.path().join("etc/a.conf.d"), "not a folder").unwrap();
    let before_with_blocker = snapshot(dir.path());
    let err = apply(&target(&fs, &services, &out), &plan).unwrap_err();
    assert_eq!(err.exit, Exit::RolledBack, "{err:?}");
    assert_eq!(snapshot(dir.path()), before_with_blocker);
    assert!(journal::pending(&fs).unwrap().is_empty());
    assert_ne!(before, before_with_blocker);
}

#[test]
fn a_file_changed_after_planning_stops_the_run() {
    let (dir, fs, services, out) = setup();
    let mut plan = Plan::new();
    plan.file(write(&fs, "/root/x", "new", 0o644));
    plan.file(write(&fs, "/etc/a.conf", "a=2\n", 0o644));
    std::fs::write(dir.path().join("etc/a.conf"), "a=someone else\n").unwrap();
    let err = apply(&target(&fs, &services, &out), &plan).unwrap_err();
    assert_eq!(err.code, "changed_underfoot");
    assert!(!dir.path().join("root/x").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("etc/a.conf")).unwrap(),
        "a=someone else\n"
    );
}

#[test]
fn an_interrupted_run_is_restored_from_its_journal() {
    let (dir, fs, _services, _out) = setup();
    std::fs::create_dir_all(dir.path().join("root/ws/memory")).unwrap();
    std::fs::write(dir.path().join("root/ws/memory/2026-01-01.md"), "- day\n").unwrap();
    let before = snapshot(dir.path());
    let mut plan = Plan::new();
    plan.file(write(&fs, "/etc/a.conf", "a=2\n", 0o600));
    plan.file(write(&fs, "/root/new/file", "x", 0o644));
    let tree = DevPath::new("/root/ws/memory");
    plan.file(FileChange::new(
        tree.clone(),
        current_for_removal(&fs, &tree).unwrap(),
        FileState::Absent,
        "wipe",
    ));
    let touches: Vec<Touch> = plan.file_changes().map(Touch::of).collect();
    // Run every step, then "crash": the journal is never committed.
    let j = Journal::begin(&fs, "osctl test", &touches).unwrap();
    for c in plan.file_changes() {
        apply_file(&fs, Some(&j), c).unwrap();
    }
    drop(j);
    assert!(!dir.path().join("root/ws/memory").exists());
    let pending = journal::pending(&fs).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].command, "osctl test");
    let recovered = journal::recover_all(&fs, &Services::Offline).unwrap();
    assert_eq!(recovered.len(), 1);
    assert_eq!(snapshot(dir.path()), before);
    assert!(journal::pending(&fs).unwrap().is_empty());
}

/// A switch journals config.json in its first phase and writes it at its commit point: the
/// state it leaves is recorded only then, before the write. Until that write, recovery must
/// not take a change by someone else for the run's own.
#[test]
fn a_file_journaled_for_a_later_write_is_restored_only_once_the_write_is_recorded() {
    let (dir, fs, _services, _out) = setup();
    let conf = DevPath::new("/etc/a.conf");
    let j = Journal::begin(&fs, "osctl switch hermes", &[Touch::later(conf.clone())]).unwrap();
    drop(j); // killed before its commit point
    std::fs::write(dir.path().join("etc/a.conf"), "a=someone else\n").unwrap();
    let r = journal::recover_all(&fs, &Services::Offline).unwrap();
    assert_eq!(r[0].outcome.restored, 0);
    assert!(r[0].outcome.left[0].starts_with("/etc/a.conf: changed by something else"));
    assert!(r[0].outcome.kept.is_some());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("etc/a.conf")).unwrap(),
        "a=someone else\n"
    );

    let j = Journal::begin(&fs, "osctl switch hermes", &[Touch::later(conf.clone())]).unwrap();
    let change = write(&fs, "/etc/a.conf", "a=2\n", 0o644);
    apply_file(&fs, Some(&j), &change).unwrap();
    drop(j); // killed after the write
    let r = journal::recover_all(&fs, &Services::Offline).unwrap();
    assert_eq!(r[0].outcome.restored, 1, "{:?}", r[0].outcome);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("etc/a.conf")).unwrap(),
        "a=someone else\n"
    );
    assert!(journal::pending(&fs).unwrap().is_empty());
}

/// A plan whose one file change is written without a journal, and a failure of that write
/// leaves every file as it was (exit 4: nothing was changed).
#[test]
fn a_one_file_plan_needs_no_journal_and_a_failed_write_leaves_nothing() {
    let (dir, fs, services, out) = setup();
    let mut plan = Plan::new();
    plan.file(write(&fs, "/root/new/deep/file", "x", 0o644));
    assert!(!needs_journal(&plan, &fs, &services));
    // Make the write fail: the file's place is a folder that is not empty.
    let before = snapshot(dir.path());
    let mut bad = Plan::new();
    std::fs::create_dir_all(dir.path().join("etc/b.conf/x")).unwrap();
    let blocked = FileChange::write(
        DevPath::new("/etc/b.conf/x/y/z"),
        FileState::Absent,
        b"z".to_vec(),
        0o644,
        "test",
    );
    std::fs::write(dir.path().join("etc/b.conf/x/y"), "a file, not a folder").unwrap();
    bad.file(blocked);
    let with_blocker = snapshot(dir.path());
    assert_ne!(before, with_blocker);
    let err = apply(&target(&fs, &services, &out), &bad).unwrap_err();
    assert_eq!(err.exit, Exit::RolledBack, "{err:?}");
    assert_eq!(snapshot(dir.path()), with_blocker);
    apply(&target(&fs, &services, &out), &plan).unwrap();
    assert!(!dir.path().join("var/lib/osctl/journal").exists());
    // Two files, or one and a service action that runs, need one.
    plan.file(write(&fs, "/etc/a.conf", "a=3\n", 0o644));
    assert!(needs_journal(&plan, &fs, &services));
}

#[test]
fn a_symlink_is_removed_as_a_link_and_its_target_survives() {
    let (dir, fs, services, out) = setup();
    std::fs::create_dir_all(dir.path().join("root/ws")).unwrap();
    std::os::unix::fs::symlink("/etc/a.conf", dir.path().join("root/ws/SOUL.md")).unwrap();
    let p = DevPath::new("/root/ws/SOUL.md");
    let mut plan = Plan::new();
    plan.file(FileChange::new(
        p.clone(),
        current_for_removal(&fs, &p).unwrap(),
        FileState::Absent,
        "wipe",
    ));
    apply(&target(&fs, &services, &out), &plan).unwrap();
    assert!(std::fs::symlink_metadata(dir.path().join("root/ws/SOUL.md")).is_err());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("etc/a.conf")).unwrap(),
        "a=1\n"
    );
}

/// A stand-in `systemctl` that logs its arguments, copies the open journal's manifest at a
/// `try-restart` (what a kill there would leave) and fails `stop bad.service`.
fn logging_systemctl(dir: &Path) -> (Services, std::path::PathBuf) {
    let log = dir.join("systemctl.log");
    let script = dir.join("systemctl");
    std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho \"$*\" >>{log}\n\
                 [ \"$1\" = try-restart ] && cat {root}/var/lib/osctl/journal/*/manifest.json >{log}.manifest\n\
                 [ \"$2\" = bad.service ] && exit 1\nexit 0\n",
                log = log.display(),
                root = dir.join("root").display()
            ),
        )
        .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (
        Services::Live {
            systemctl: script.display().to_string(),
            journalctl: "journalctl".into(),
            own_journal: false,
        },
        log,
    )
}

fn logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `completed-change-undone`: a run killed in the service action after its last write had
/// completed its change; the next run must keep its files and re-run what was left, not
/// restore the originals.
#[test]
fn regression_completed_change_undone() {
    let tmp = tempfile::tempdir().unwrap();
    let (services, log) = logging_systemctl(tmp.path());
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/a.conf"), "a=1\n").unwrap();
    let fs = RootFs::new(&root).unwrap();
    let out = Printer::new(false, true, 0, ColorChoice::Never, true);
    let mut plan = Plan::new();
    plan.file(write(&fs, "/etc/a.conf", "a=2\n", 0o644));
    plan.file(write(&fs, "/etc/b.conf", "b=1\n", 0o644));
    plan.service(crate::plan::ServiceAction::RestartIfActive(
        "hermes-gateway".into(),
    ));
    apply(&target(&fs, &services, &out), &plan).unwrap();
    // What a kill at the try-restart leaves: the journal, marked written, with the restart
    // still to run.
    let at_restart: journal::Manifest =
        serde_json::from_slice(&std::fs::read(log.with_extension("log.manifest")).unwrap())
            .unwrap();
    assert!(at_restart.written, "{at_restart:?}");
    assert_eq!(
        at_restart.pending,
        vec![vec![
            "try-restart".to_string(),
            "hermes-gateway.service".to_string()
        ]]
    );
    // Put that journal back on disk, as the kill would have left it, and recover.
    let jdir = root.join("var/lib/osctl/journal").join(&at_restart.id);
    std::fs::create_dir_all(&jdir).unwrap();
    std::fs::set_permissions(&jdir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(
        jdir.join("manifest.json"),
        serde_json::to_vec(&at_restart).unwrap(),
    )
    .unwrap();
    std::fs::set_permissions(
        jdir.join("manifest.json"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::write(&log, "").unwrap();
    let r = journal::recover_all(&fs, &services).unwrap();
    assert_eq!(r.len(), 1);
    assert!(r[0].rolled_forward, "{r:?}");
    assert_eq!(r[0].outcome.restored, 0);
    assert_eq!(
        std::fs::read_to_string(root.join("etc/a.conf")).unwrap(),
        "a=2\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("etc/b.conf")).unwrap(),
        "b=1\n"
    );
    assert_eq!(logged(&log), ["try-restart hermes-gateway.service"]);
    assert!(journal::pending(&fs).unwrap().is_empty());
}

/// A run that fails after its last write rolls itself back (the `written` mark does not
/// keep its own rollback from restoring), and a journal killed mid-rollback restores.
#[test]
fn a_failed_action_after_the_last_write_still_rolls_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (services, log) = logging_systemctl(tmp.path());
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/a.conf"), "a=1\n").unwrap();
    let fs = RootFs::new(&root).unwrap();
    let out = Printer::new(false, true, 0, ColorChoice::Never, true);
    let mut plan = Plan::new();
    plan.file(write(&fs, "/etc/a.conf", "a=2\n", 0o644));
    plan.file(write(&fs, "/etc/b.conf", "b=1\n", 0o644));
    plan.service(crate::plan::ServiceAction::Stop("bad".into()));
    let err = apply(&target(&fs, &services, &out), &plan).unwrap_err();
    assert_eq!(err.exit, Exit::RolledBack, "{err:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("etc/a.conf")).unwrap(),
        "a=1\n"
    );
    assert!(!root.join("etc/b.conf").exists());
    assert_eq!(logged(&log), ["stop bad.service"]);
}

/// `killed-reset-leaves-runtime-stopped`: the undo actions a plan records put the units
/// back after its files, both when its own run fails and when the next run restores the
/// journal of a killed one.
#[test]
fn regression_killed_reset_leaves_runtime_stopped() {
    use crate::plan::ServiceAction;
    let tmp = tempfile::tempdir().unwrap();
    let (services, log) = logging_systemctl(tmp.path());
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/a.conf"), "a=1\n").unwrap();
    let fs = RootFs::new(&root).unwrap();
    let out = Printer::new(false, true, 0, ColorChoice::Never, true);
    let undo = [
        ServiceAction::Enable("codex".into()),
        ServiceAction::Start("codex".into()),
    ];
    // Its own run fails after the stop: the unit comes back.
    let mut plan = Plan::new();
    plan.service(ServiceAction::Stop("codex".into()));
    plan.service(ServiceAction::Stop("bad".into()));
    plan.undo = undo.to_vec();
    assert!(needs_journal(&plan, &fs, &services));
    let err = apply(&target(&fs, &services, &out), &plan).unwrap_err();
    assert_eq!(err.exit, Exit::RolledBack, "{err:?}");
    assert_eq!(
        logged(&log),
        [
            "stop codex.service",
            "stop bad.service",
            "enable codex.service",
            "start codex.service"
        ]
    );
    // Killed after the stop (the journal never finished): the next run's recovery.
    std::fs::write(&log, "").unwrap();
    let j = Journal::begin_undoable(&fs, "osctl reset --yes", &[], &undo).unwrap();
    drop(j);
    let r = journal::recover_all(&fs, &services).unwrap();
    assert_eq!(
        r[0].actions,
        [
            "systemctl enable codex.service",
            "systemctl start codex.service"
        ]
    );
    assert_eq!(
        logged(&log),
        ["enable codex.service", "start codex.service"]
    );
    assert!(journal::pending(&fs).unwrap().is_empty());
}

/// `killed-switch-leaves-both-running`: a journal's `undo_first` actions run before its
/// files are restored, while the unit file the killed run wrote is still there (systemd
/// refuses to disable a unit without its file); its `undo` actions run after.
#[test]
fn regression_killed_switch_leaves_both_running() {
    use crate::plan::ServiceAction;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("etc/systemd/system")).unwrap();
    let log = tmp.path().join("log");
    let script = tmp.path().join("systemctl");
    let unit = root.join("etc/systemd/system/opencode.service");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nf=gone; [ -e {u} ] && f=there\necho \"$* file=$f\" >>{l}\n",
            u = unit.display(),
            l = log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let services = Services::Live {
        systemctl: script.display().to_string(),
        journalctl: "journalctl".into(),
        own_journal: false,
    };
    let fs = RootFs::new(&root).unwrap();
    let change = write(
        &fs,
        "/etc/systemd/system/opencode.service",
        "[Unit]\n",
        0o644,
    );
    let j = Journal::begin_undoable(
        &fs,
        "osctl switch opencode",
        &[Touch::of(&change)],
        &[ServiceAction::Start("codex".into())],
    )
    .unwrap();
    apply_file(&fs, Some(&j), &change).unwrap();
    j.undo_first(&ServiceAction::DisableNow("opencode".into()))
        .unwrap();
    drop(j); // killed after enabling the new unit
    journal::recover_all(&fs, &services).unwrap();
    assert!(!unit.exists());
    assert_eq!(
        logged(&log),
        [
            "disable --now opencode.service file=there",
            "start codex.service file=gone"
        ]
    );
}
