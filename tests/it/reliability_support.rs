//! Shared pieces of the reliability suites (`reliability_*` and others): device trees and their
//! snapshots, running osctl with a clean environment, a replayable random source, the suites'
//! budgets, and the figures line each suite prints for `benches/reliability.sh`.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fixed clock for every run (backup names and history entries are then reproducible).
pub const TEST_NOW: &str = "1767225600";

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn fake_systemctl() -> PathBuf {
    repo().join("tests/support/fake-systemctl")
}

/// A scratch folder for device trees: on tmpfs (`/dev/shm`) when there is one, so the suites'
/// thousands of fsyncs stay cheap (a kill is a process death, not a power cut: the page cache
/// survives it either way); `OSCTL_RELIABILITY_TMP` names another folder (a disk, say).
pub fn sandbox() -> tempfile::TempDir {
    let base = std::env::var_os("OSCTL_RELIABILITY_TMP")
        .map(PathBuf::from)
        .or_else(|| {
            let shm = PathBuf::from("/dev/shm");
            (shm.is_dir() && tempfile::tempdir_in(&shm).is_ok()).then_some(shm)
        });
    match base {
        Some(b) => tempfile::tempdir_in(b).unwrap(),
        None => tempfile::tempdir().unwrap(),
    }
}

/// A number from the environment, or the default (the suites' budgets).
pub fn budget(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The seed: `OSCTL_RELIABILITY_SEED` to replay a run, else the clock.
pub fn seed() -> u64 {
    std::env::var("OSCTL_RELIABILITY_SEED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        })
}

/// xorshift64*: enough randomness for picking kill points, and replayable from its seed.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The figures line a suite prints (and `benches/reliability.sh` collects).
pub fn figures(suite: &str, pairs: &[(&str, String)]) {
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    eprintln!("RELIABILITY {suite}: {}", body.join(" "));
}

#[derive(Debug, PartialEq, Eq, Clone)]
pub enum Node {
    File(Vec<u8>, u32),
    Link(PathBuf),
    EmptyDir(u32),
}

pub type Tree = BTreeMap<String, Node>;

/// Every file (bytes and mode), link and empty folder under `root`, except the paths `skip`
/// says to leave out.
pub fn snapshot_with(root: &Path, skip: &dyn Fn(&str) -> bool) -> Tree {
    let mut out = BTreeMap::new();
    if !root.exists() {
        return out;
    }
    for entry in walkdir::WalkDir::new(root).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if skip(&rel) {
            continue;
        }
        let ft = entry.file_type();
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        if ft.is_symlink() {
            out.insert(rel, Node::Link(std::fs::read_link(entry.path()).unwrap()));
        } else if ft.is_file() {
            out.insert(rel, Node::File(std::fs::read(entry.path()).unwrap(), mode));
        } else if ft.is_dir() {
            let empty = std::fs::read_dir(entry.path()).unwrap().all(|e| {
                let rel = e
                    .unwrap()
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                skip(&rel)
            });
            if empty {
                out.insert(rel, Node::EmptyDir(mode));
            }
        }
    }
    out
}

/// The lock holder's note (`src/apply/lock.rs`): who holds the lock, removed by the holder before
/// it lets the lock go.
pub const LOCK_NOTE: &str = "var/lib/osctl/lock.holder";

/// osctl's own bookkeeping, which no runtime reads: the lock file and its holder's note, the
/// journal, skill staging. A holder killed before it removed its note leaves it, and a run with
/// nothing to do (an in-sync presync takes no lock, on the boot path) leaves it there: osctl
/// believes a note only while its process lives with the same start time, so a stale one is
/// harmless, and [`stale_lock_note`] checks that any note left is one.
pub fn is_bookkeeping(rel: &str) -> bool {
    rel == "var/lib/osctl/lock"
        || rel == LOCK_NOTE
        || rel == "var/lib/osctl/.lock.holder.osctl-tmp"
        || rel == "var/lib/osctl/journal"
        || rel.starts_with("var/lib/osctl/journal/")
        || rel == "var/lib/osctl/skills-staging"
        || rel.starts_with("var/lib/osctl/skills-staging/")
}

/// `Err` when `root` holds a lock holder's note of a live process (with the start time the note
/// records): a note a run left behind must be stale, the note of a process that is gone.
pub fn stale_lock_note(root: &Path) -> Result<(), String> {
    let Ok(text) = std::fs::read_to_string(root.join(LOCK_NOTE)) else {
        return Ok(());
    };
    let note: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{LOCK_NOTE} is no note: {e}"))?;
    let pid = note["pid"]
        .as_u64()
        .ok_or(format!("{LOCK_NOTE} has no pid"))?;
    // Field 22 of /proc/<pid>/stat, counted from the end of the parenthesised command name.
    let start = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = stat[stat.rfind(')')? + 1..].to_string();
            rest.split_whitespace().nth(19)?.parse::<u64>().ok()
        });
    match start {
        Some(now) if Some(now) == note["start"].as_u64() => Err(format!(
            "{LOCK_NOTE} names pid {pid}, which is still running: {text}"
        )),
        _ => Ok(()),
    }
}

/// The device as a runtime sees it, with osctl's bookkeeping left out (and the folders that only
/// exist to hold it).
pub fn snapshot(root: &Path) -> Tree {
    let mut t = snapshot_with(root, &is_bookkeeping);
    for d in ["var/lib/osctl", "var/lib", "var"] {
        if t.get(d).is_some_and(|n| matches!(n, Node::EmptyDir(_))) {
            t.remove(d);
        }
    }
    t
}

/// Everything, bookkeeping included (for "nothing changed at all").
pub fn snapshot_all(root: &Path) -> Tree {
    snapshot_with(root, &|rel| rel == "var/lib/osctl/lock")
}

/// The entries of a folder that are not in `b` or differ: a short description for failures.
pub fn describe_diff(expected: &Tree, got: &Tree) -> String {
    let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    let differ: Vec<_> = expected
        .iter()
        .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
        .map(|(k, _)| k)
        .collect();
    let mut text = format!("missing: {missing:?}\n  unexpected: {extra:?}\n  differ: {differ:?}");
    // `OSCTL_SHOW_DIFF=1`: what differs, line by line (to diagnose a finding; off by default,
    // as the files may be long).
    if std::env::var_os("OSCTL_SHOW_DIFF").is_some() {
        for k in &differ {
            if let (Some(Node::File(a, _)), Some(Node::File(b, _))) =
                (expected.get(*k), got.get(*k))
            {
                let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
                let diff = similar::TextDiff::from_lines(a.as_ref(), b.as_ref());
                text.push_str(&format!(
                    "\n  --- {k} (expected)\n  +++ {k} (got)\n{}",
                    diff.unified_diff().context_radius(1)
                ));
            }
        }
    }
    text
}

/// Copies a tree, keeping modes and links.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else if entry.file_name() != ".keep" {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

pub fn write(root: &Path, rel: &str, bytes: &[u8], mode: u32) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&p);
    std::fs::write(&p, bytes).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// osctl with a clean environment: no inherited root, fault or override; a fixed clock.
pub fn osctl(root: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.arg("--root")
        .arg(root)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .env("OSCTL_TEST_NOW", TEST_NOW)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

pub fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The names in the journal folder (a finished run leaves none).
pub fn journals(root: &Path) -> Vec<String> {
    std::fs::read_dir(root.join("var/lib/osctl/journal"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a journal the next run restores is on disk (one without its manifest is the leftover
/// of a run killed while it removed its finished journal: nothing to restore).
pub fn restorable_journal(root: &Path) -> bool {
    std::fs::read_dir(root.join("var/lib/osctl/journal"))
        .map(|d| d.flatten().any(|e| e.path().join("manifest.json").exists()))
        .unwrap_or(false)
}
