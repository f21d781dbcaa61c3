//! Crash test for `osctl reset`: the process is killed at random points of a reset (a real
//! `kill -9` after a random delay, and the debug build's `OSCTL_FAULT=abort-write:N`, which
//! aborts like a power cut before the Nth file step), then `osctl reset --yes` runs again. The
//! device must end exactly as an uninterrupted reset leaves it (every file, link and empty
//! folder, with its bytes and mode), no journal may be left, and nothing outside the device root
//! may change. A persona path is a symlink to a file elsewhere in its runtime's tree, removed as
//! a link (a link out of the tree refuses the reset before it starts: `tests/it/reset_safety.rs`).
//!
//! `OSCTL_CRASH_RUNS` sets the number of kills (default 50), `OSCTL_CRASH_SEED` the random seed
//! (printed, so a failure can be replayed).

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The six runtimes the package ships, from the registry: each run starts from the golden device
/// `tests/cli/reset/active-<rt>/in`, which exists for them (the reset of a runtime without one is
/// `seventh_runtime`'s and `lifecycle`'s, crashes included).
use osctl::runtime::PACKAGED_NAMES as RUNTIMES;

#[derive(Debug, PartialEq, Eq, Clone)]
enum Node {
    File(Vec<u8>, u32),
    Link(PathBuf),
    EmptyDir,
}

/// The tree under `root`, without osctl's own state folder (lock, empty journal folder).
fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(root).unwrap();
        if rel.starts_with("var/lib/osctl") {
            continue;
        }
        let key = rel.to_string_lossy().into_owned();
        let ft = entry.file_type();
        let mode = entry.metadata().unwrap().permissions().mode() & 0o7777;
        if ft.is_symlink() {
            out.insert(key, Node::Link(std::fs::read_link(entry.path()).unwrap()));
        } else if ft.is_file() {
            out.insert(key, Node::File(std::fs::read(entry.path()).unwrap(), mode));
        } else if ft.is_dir()
            && std::fs::read_dir(entry.path()).unwrap().next().is_none()
            && !rel.starts_with("var/lib/osctl")
        {
            out.insert(key, Node::EmptyDir);
        }
    }
    out
}

fn journals(root: &Path) -> usize {
    std::fs::read_dir(root.join("var/lib/osctl/journal"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Whether a journal that the next run restores is on disk (one without its manifest is the
/// leftover of a run killed while it removed its finished journal: nothing to restore).
fn restorable_journal(root: &Path) -> bool {
    std::fs::read_dir(root.join("var/lib/osctl/journal"))
        .map(|d| d.flatten().any(|e| e.path().join("manifest.json").exists()))
        .unwrap_or(false)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// A fresh device with `active` as its runtime, plus a folder outside it. Bulk content makes
/// the moves and the journal's commit take long enough for a kill to land inside them.
fn device(sandbox: &Path, active: &str) -> (PathBuf, PathBuf) {
    let root = sandbox.join("device");
    let outside = sandbox.join("outside");
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&outside);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/reset")
        .join(format!("active-{active}/in"));
    copy_tree(&fixture, &root);
    let memory = root.join("root/.openclaw/workspace/memory");
    for i in 0..600 {
        std::fs::write(
            memory.join(format!("2025-{i:04}.md")),
            format!("- day {i}\n"),
        )
        .unwrap();
    }
    let sessions = root.join("root/.hermes/sessions");
    for i in 0..300 {
        std::fs::write(sessions.join(format!("{i}.json")), "{}\n").unwrap();
    }
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("notes.md"), "not the device's\n").unwrap();
    std::fs::write(root.join("root/.codex/notes.md"), "kept\n").unwrap();
    let soul = root.join("root/.codex/workspace/SOUL.md");
    std::fs::remove_file(&soul).unwrap();
    std::os::unix::fs::symlink("/root/.codex/notes.md", &soul).unwrap();
    (root, outside)
}

fn osctl(root: &Path, fault: Option<String>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.args(["--root", root.to_str().unwrap(), "reset", "--yes"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(f) = fault {
        cmd.env("OSCTL_FAULT", f);
    }
    cmd
}

fn reset_ok(root: &Path) {
    let out = osctl(root, None).output().unwrap();
    assert!(
        out.status.success(),
        "osctl reset failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// xorshift64*: enough randomness for picking kill points, and replayable from its seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

struct Reference {
    /// The tree after one uninterrupted reset, and after two (a run that finished before the
    /// kill is followed by a second, complete reset).
    once: BTreeMap<String, Node>,
    twice: BTreeMap<String, Node>,
    /// File steps of the reset (for `abort-write:N`).
    writes: u64,
    /// How long an uninterrupted reset takes here (for the kill delay).
    duration: Duration,
}

fn reference(sandbox: &Path, active: &str) -> Reference {
    let (root, _) = device(sandbox, active);
    let dry = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .args([
            "--root",
            root.to_str().unwrap(),
            "--json",
            "--dry-run",
            "reset",
        ])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&dry.stdout).unwrap();
    let writes = doc["plan"]["summary"]["files"].as_u64().unwrap();
    let started = Instant::now();
    reset_ok(&root);
    let duration = started.elapsed();
    let once = snapshot(&root);
    reset_ok(&root);
    let twice = snapshot(&root);
    Reference {
        once,
        twice,
        writes,
        duration,
    }
}

#[test]
fn a_killed_reset_is_finished_by_the_next_one() {
    let runs: usize = std::env::var("OSCTL_CRASH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let seed: u64 = std::env::var("OSCTL_CRASH_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("crash test: {runs} kills, OSCTL_CRASH_SEED={seed}");
    let mut rng = Rng(seed);
    let sandbox = tempfile::tempdir().unwrap();
    let refs: Vec<Reference> = RUNTIMES
        .iter()
        .map(|rt| reference(sandbox.path(), rt))
        .collect();
    let (mut interrupted, mut finished_first) = (0, 0);
    for i in 0..runs {
        let k = i % RUNTIMES.len();
        let (active, r) = (RUNTIMES[k], &refs[k]);
        let (root, outside) = device(sandbox.path(), active);
        let outside_before = snapshot(&outside);
        let how = if i % 2 == 0 {
            let n = 1 + rng.below(r.writes);
            let out = osctl(&root, Some(format!("abort-write:{n}")))
                .output()
                .unwrap();
            assert!(!out.status.success(), "abort-write:{n} did not abort");
            format!("abort-write:{n}")
        } else {
            let span = (r.duration.as_micros() as u64 * 3 / 2).max(1);
            let delay = Duration::from_micros(rng.below(span));
            let mut child = osctl(&root, None).spawn().unwrap();
            std::thread::sleep(delay);
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
            let _ = child.wait();
            format!("kill -9 after {delay:?}")
        };
        let after_kill = snapshot(&root);
        let done_already = after_kill == r.once && !restorable_journal(&root);
        if done_already {
            finished_first += 1;
        } else {
            interrupted += 1;
        }
        reset_ok(&root);
        let expected = if done_already { &r.twice } else { &r.once };
        let got = snapshot(&root);
        if &got != expected {
            let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
            let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
            let differ: Vec<_> = expected
                .iter()
                .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
                .map(|(k, _)| k)
                .collect();
            panic!(
                "run {i} ({active}, {how}, seed {seed}): the tree differs from an uninterrupted reset\n  missing: {missing:?}\n  unexpected: {extra:?}\n  differ: {differ:?}"
            );
        }
        assert_eq!(journals(&root), 0, "run {i} ({how}): a journal was left");
        assert_eq!(
            snapshot(&outside),
            outside_before,
            "run {i} ({how}): a file outside the device root changed"
        );
    }
    eprintln!(
        "crash test: {interrupted} runs interrupted mid-reset, {finished_first} finished before the kill"
    );
    assert!(
        interrupted >= runs / 2,
        "too few kills landed inside a reset ({interrupted} of {runs}): the test proves little"
    );
}
