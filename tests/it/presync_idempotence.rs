//! Presync is idempotent and leaves secret files 0600: for every runtime, on its sample device
//! (first boot) and on each `llm_config_mode` case, a first run changes the device, a second run
//! plans nothing and writes nothing (bytes and modes compared), and `--check` exits 0.
//!
//! (The golden cases cannot show this: their trees keep no file modes.)

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

const REPO: &str = env!("CARGO_MANIFEST_DIR");
/// The six runtimes the package ships, from the registry: the trees presync runs on
/// (`examples/presync/<rt>`, `tests/cli/presync/<rt>-<mode>`) are made for them by
/// `tests/cli/presync/make-trees.py` (the sample device presyncs every registered runtime below,
/// and `seventh_runtime` checks a second presync of another runs nothing).
use osctl::runtime::PACKAGED_NAMES as RUNTIMES;

/// The files holding secrets, per runtime (device paths without the leading `/`).
fn secret_files(rt: &str) -> &'static [&'static str] {
    match rt {
        "openclaw" => &["root/.openclaw/openclaw.json"],
        "hermes" => &["root/.hermes/.env"],
        "picoclaw" => &["root/.picoclaw/.security.yml"],
        "codex" => &["root/.codex/.env"],
        "claudecode" => &["root/.claudecode/.env", "root/.claude.json"],
        _ => &["root/.opencode/.env"],
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.file_name() != ".keep" {
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// Every path under `root` (osctl's own state folder left out) with its mode and bytes.
fn snapshot(root: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .display()
            .to_string();
        if rel.starts_with("var/lib/osctl") {
            continue;
        }
        let meta = entry.metadata().unwrap();
        let bytes = if meta.is_file() {
            std::fs::read(entry.path()).unwrap()
        } else {
            Vec::new()
        };
        out.insert(rel, (meta.permissions().mode() & 0o7777, bytes));
    }
    out
}

fn osctl(root: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn twice(tree: &str, rt: &str) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(REPO).join(tree), dir.path());
    let before = snapshot(dir.path());
    let (code, err) = osctl(dir.path(), &["presync", rt]);
    assert_eq!(code, 0, "{tree}: first run: {err}");
    let first = snapshot(dir.path());
    assert_ne!(before, first, "{tree}: the first run changed nothing");
    for file in secret_files(rt) {
        assert_eq!(first[*file].0, 0o600, "{tree}: {file} holds secrets");
    }
    let (code, err) = osctl(dir.path(), &["--check", "presync", rt]);
    assert_eq!(code, 0, "{tree}: --check after a run: {err}");
    let (code, err) = osctl(dir.path(), &["presync", rt]);
    assert_eq!(code, 0, "{tree}: second run: {err}");
    assert!(err.contains("nothing to do"), "{tree}: second run: {err}");
    assert_eq!(
        first,
        snapshot(dir.path()),
        "{tree}: the second run wrote something"
    );
}

#[test]
fn a_second_presync_changes_nothing() {
    for rt in RUNTIMES {
        twice(&format!("examples/presync/{rt}"), rt);
        for mode in ["legacy", "os", "runtime"] {
            twice(&format!("tests/cli/presync/{rt}-{mode}/in"), rt);
        }
    }
}

#[test]
fn the_example_device_presyncs_every_runtime_in_turn() {
    // One device, a presync of every registered runtime in a row (what a tour of switches
    // does), then all again: the second round plans nothing for any of them.
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(REPO).join("examples/device"), dir.path());
    for rt in osctl::runtime::NAMES {
        let (code, err) = osctl(dir.path(), &["presync", rt]);
        assert_eq!(code, 0, "{rt}: {err}");
    }
    let after = snapshot(dir.path());
    for rt in osctl::runtime::NAMES {
        let (code, err) = osctl(dir.path(), &["--check", "presync", rt]);
        assert_eq!(code, 0, "{rt}: {err}");
    }
    assert_eq!(after, snapshot(dir.path()));
}

#[test]
fn a_presync_cut_short_is_restored_and_redone_by_the_next() {
    // A power cut in the middle of the first full presync (debug builds: OSCTL_FAULT) leaves a
    // journal; the next presync restores the originals first and plans again from them.
    let clean = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(REPO).join("examples/presync/hermes"),
        clean.path(),
    );
    assert_eq!(osctl(clean.path(), &["presync", "hermes"]).0, 0);

    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(REPO).join("examples/presync/hermes"), dir.path());
    let before = snapshot(dir.path());
    let cut = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(dir.path())
        .args(["presync", "hermes"])
        .env_clear()
        .env("OSCTL_FAULT", "abort-write:3")
        .output()
        .unwrap();
    assert!(!cut.status.success(), "the injected abort did not happen");
    assert_ne!(
        before,
        snapshot(dir.path()),
        "nothing was written before the cut"
    );
    let (code, err) = osctl(dir.path(), &["presync", "hermes"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("restored"), "{err}");
    assert_eq!(snapshot(clean.path()), snapshot(dir.path()));
}
