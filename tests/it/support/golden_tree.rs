//! A golden case's device trees: reading a tree as the golden harness compares it, and a case's
//! expected tree after its run, stored as a delta from its input tree.
//!
//! Shared by the golden binary, `tests/golden.rs` (which runs and blesses the cases), and the
//! suites of `tests/it/` that need a case's expected tree (`preview_run`).
//!
//! A case folder `tests/cli/<group>/<case>/` holds its input tree in `in/` (or names one with
//! `in = "examples/device"` in `cmd.toml`) and, for the tree expected after the run:
//!
//! - `out/`: only the entries the run creates or changes: files, symlinks, and empty folders
//!   (marked with a `.keep`);
//! - `deleted` (next to `cmd.toml`, not inside `out/`): the paths of the input tree the run
//!   removes, one a line, sorted, relative to the input tree. A folder listed goes with all it
//!   holds; a folder whose entries are all listed stays, empty.
//!
//! The expected tree is the input tree, less the `deleted` paths, with `out/` copied over it.
//! A path that turns from a folder into a file or a link (or back) is listed in `deleted` and
//! present in `out/`. Neither `out/` nor `deleted` means the run changes nothing. A case's delta
//! is the smallest one (`delta`), which is what a bless writes: a test can tell a stored delta
//! that is not (`check_canonical`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Paths osctl leaves as its own bookkeeping: the lock file, and the state folders that hold it.
pub const BOOKKEEPING: &[&str] = &["var/lib/osctl/lock"];
pub const BOOKKEEPING_DIRS: &[&str] = &["var", "var/lib", "var/lib/osctl", "var/lib/osctl/journal"];

/// The file next to `cmd.toml` listing the paths a run removes.
pub const DELETED: &str = "deleted";

#[derive(Debug, PartialEq, Eq, Clone)]
pub enum Node {
    File(Vec<u8>),
    /// An executable file: only in input trees read with their modes (`tree_with_modes`), as Git
    /// keeps the executable bit; the tree a run leaves is compared without modes (`tree`).
    Exec(Vec<u8>),
    Link(PathBuf),
    EmptyDir,
}

/// A tree as compared: its files, links and empty folders by path (`/`-separated, relative).
/// Folders that hold something are implied by the paths under them.
pub type Tree = BTreeMap<String, Node>;

/// A case's expected tree as stored: what `out/` holds and what `deleted` lists.
#[derive(Debug, PartialEq, Eq, Clone, Default)]
pub struct Delta {
    pub out: Tree,
    pub deleted: Vec<String>,
}

impl Delta {
    pub fn is_empty(&self) -> bool {
        self.out.is_empty() && self.deleted.is_empty()
    }
}

/// The tree under `root` (none when it does not exist), without `.keep` markers and osctl's
/// bookkeeping.
pub fn tree(root: &Path) -> Tree {
    read_tree(root, false)
}

/// The tree under `root` as `tree` reads it, executable files as `Node::Exec`.
pub fn tree_with_modes(root: &Path) -> Tree {
    read_tree(root, true)
}

fn read_tree(root: &Path, modes: bool) -> Tree {
    let mut out = BTreeMap::new();
    if !root.exists() {
        return out;
    }
    for entry in walkdir::WalkDir::new(root).min_depth(1).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ft = entry.file_type();
        if entry.file_name() == ".keep" || BOOKKEEPING.contains(&rel.as_str()) {
            continue;
        }
        if ft.is_symlink() {
            out.insert(rel, Node::Link(std::fs::read_link(entry.path()).unwrap()));
        } else if ft.is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            use std::os::unix::fs::PermissionsExt;
            let exec = entry.metadata().unwrap().permissions().mode() & 0o111 != 0;
            out.insert(
                rel,
                if modes && exec {
                    Node::Exec(bytes)
                } else {
                    Node::File(bytes)
                },
            );
        } else if ft.is_dir()
            && is_empty_dir(entry.path())
            && !BOOKKEEPING_DIRS.contains(&rel.as_str())
        {
            out.insert(rel, Node::EmptyDir);
        }
    }
    out
}

/// Empty, or holding only `.keep` and osctl's bookkeeping.
fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().all(|e| {
        let e = e.unwrap();
        e.file_name() == ".keep" || (e.file_name() == "lock" && dir.ends_with("var/lib/osctl"))
    })
}

/// Writes `tree` as a fresh folder `to` (an empty folder gets a `.keep`).
pub fn write_tree(tree: &Tree, to: &Path) {
    write_tree_as(tree, to, true)
}

/// Writes `tree` as a fresh folder `to`, an empty folder with a `.keep` when `keep` (as stored in
/// the repository) or without (a device as osctl sees it). Files get the mode a fresh clone gives
/// them (0755 executable, else 0644), so a case reads the same on every checkout.
pub fn write_tree_as(tree: &Tree, to: &Path, keep: bool) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for (rel, node) in tree {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        match node {
            Node::File(bytes) | Node::Exec(bytes) => {
                std::fs::write(&p, bytes).unwrap();
                let mode = if matches!(node, Node::Exec(_)) {
                    0o755
                } else {
                    0o644
                };
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            }
            Node::Link(target) => std::os::unix::fs::symlink(target, &p).unwrap(),
            Node::EmptyDir => {
                std::fs::create_dir_all(&p).unwrap();
                if keep {
                    std::fs::write(p.join(".keep"), "").unwrap();
                }
            }
        }
    }
}

/// The folders above `path`, nearest first.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').rev().map(move |(i, _)| &path[..i])
}

fn parent(path: &str) -> Option<&str> {
    path.rfind('/').map(|i| &path[..i])
}

/// Whether `tree` has an entry strictly under the folder `dir`.
fn has_under(tree: &Tree, dir: &str) -> bool {
    let prefix = format!("{dir}/");
    tree.range(prefix.clone()..)
        .next()
        .is_some_and(|(k, _)| k.starts_with(&prefix))
}

/// Every path of a tree, folders included: `true` for a folder.
fn all_paths(tree: &Tree) -> BTreeMap<&str, bool> {
    let mut out = BTreeMap::new();
    for (k, node) in tree {
        out.insert(k.as_str(), matches!(node, Node::EmptyDir));
        for a in ancestors(k) {
            out.insert(a, true);
        }
    }
    out
}

/// Removes `path` and all under it, as `rm -r` would: the folder that held it stays, empty if it
/// held nothing else (osctl's own state folders are not shown empty, as `tree` does not).
fn remove(tree: &mut Tree, path: &str) {
    tree.remove(path);
    let prefix = format!("{path}/");
    let under: Vec<String> = tree
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .map(|(k, _)| k.clone())
        .collect();
    for k in under {
        tree.remove(&k);
    }
    if let Some(p) = parent(path)
        && !has_under(tree, p)
        && !BOOKKEEPING_DIRS.contains(&p)
    {
        tree.insert(p.to_string(), Node::EmptyDir);
    }
}

/// The expected tree: `input` less `delta.deleted`, with `delta.out` copied over it. An error when
/// the delta does not fit the input (a deleted path it does not have, an entry of `out/` under a
/// file, a folder replaced without being deleted first).
pub fn apply(input: &Tree, delta: &Delta) -> Result<Tree, String> {
    let paths = all_paths(input);
    let mut t = input.clone();
    for d in &delta.deleted {
        if !paths.contains_key(d.as_str()) {
            return Err(format!(
                "{DELETED} lists {d}, which the input tree does not have"
            ));
        }
        remove(&mut t, d);
    }
    for (k, node) in &delta.out {
        for a in ancestors(k) {
            match t.get(a) {
                Some(Node::EmptyDir) => {
                    t.remove(a);
                }
                Some(_) => {
                    return Err(format!(
                        "out/{k} lies under {a}, a file or link of the input tree: list {a} in {DELETED}"
                    ));
                }
                None => {}
            }
        }
        if has_under(&t, k) {
            return Err(format!(
                "out/{k} replaces a folder that holds something: list {k} in {DELETED}"
            ));
        }
        if node == &Node::EmptyDir
            && matches!(
                t.get(k),
                Some(Node::File(_) | Node::Exec(_) | Node::Link(_))
            )
        {
            return Err(format!(
                "out/{k}/.keep replaces a file or link: list {k} in {DELETED}"
            ));
        }
        t.insert(k.clone(), node.clone());
    }
    Ok(t)
}

/// The smallest delta that turns `input` into `expected`: the topmost paths that go (or turn
/// between a folder and a file or link), and the entries of `expected` that the input less them
/// does not already have.
pub fn delta(input: &Tree, expected: &Tree) -> Delta {
    let before = all_paths(input);
    let after = all_paths(expected);
    let mut gone: BTreeSet<&str> = BTreeSet::new();
    for (&p, &dir) in &before {
        if BOOKKEEPING_DIRS.contains(&p) {
            // Not shown when empty: absent from `expected` does not mean removed.
            continue;
        }
        if after.get(p) != Some(&dir) && !ancestors(p).any(|a| gone.contains(a)) {
            gone.insert(p);
        }
    }
    let deleted: Vec<String> = gone.iter().map(|s| s.to_string()).collect();
    let mut mid = input.clone();
    for d in &deleted {
        remove(&mut mid, d);
    }
    let mut out = Tree::new();
    for (k, node) in expected {
        if mid.get(k) != Some(node) {
            out.insert(k.clone(), node.clone());
        }
    }
    Delta { out, deleted }
}

/// The delta stored in a case folder.
pub fn read_delta(case_dir: &Path) -> Result<Delta, String> {
    read_delta_as(case_dir, "out", DELETED)
}

/// A delta stored as the folder `dir` and the list `list` of a case (executable files of an
/// input delta keep their mode; the `out/` of a result is compared without).
fn read_delta_as(case_dir: &Path, dir: &str, list: &str) -> Result<Delta, String> {
    let out = if dir == "in" {
        tree_with_modes(&case_dir.join(dir))
    } else {
        tree(&case_dir.join(dir))
    };
    let deleted = match std::fs::read_to_string(case_dir.join(list)) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("{list}: {e}")),
    };
    let delta = Delta { out, deleted };
    let mut sorted = delta.deleted.clone();
    sorted.sort();
    sorted.dedup();
    if sorted != delta.deleted || delta.deleted.iter().any(|l| l.is_empty()) {
        return Err(format!(
            "{list}: one path a line, sorted, no blank or repeated line"
        ));
    }
    Ok(delta)
}

/// Writes `delta` as the case's `out/` and `deleted`, touching neither when they already hold it
/// (a bless of a case that did not change changes no file).
pub fn write_delta(case_dir: &Path, delta: &Delta) {
    write_delta_as(case_dir, delta, "out", DELETED)
}

/// Writes `delta` as the folder `dir` and the list `list` of a case, touching neither when they
/// already hold it.
pub fn write_delta_as(case_dir: &Path, delta: &Delta, dir: &str, list: &str) {
    let out_dir = case_dir.join(dir);
    let deleted = case_dir.join(list);
    let now = if dir == "in" {
        tree_with_modes(&out_dir)
    } else {
        tree(&out_dir)
    };
    if now != delta.out || (delta.out.is_empty() && out_dir.exists()) {
        if delta.out.is_empty() {
            std::fs::remove_dir_all(&out_dir).unwrap();
        } else {
            write_tree(&delta.out, &out_dir);
        }
    }
    if delta.deleted.is_empty() {
        if deleted.exists() {
            std::fs::remove_file(&deleted).unwrap();
        }
    } else {
        let text: String = delta.deleted.iter().map(|d| format!("{d}\n")).collect();
        if std::fs::read_to_string(&deleted).ok().as_deref() != Some(&text) {
            std::fs::write(&deleted, text).unwrap();
        }
    }
}

/// The repository, which `in =` and `base =` paths are relative to.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The file next to `cmd.toml` listing the paths of the base tree a case's input lacks.
pub const IN_DELETED: &str = "in-deleted";

/// Where a case's input tree comes from, as its `cmd.toml` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `in = "<path>"`: a whole tree elsewhere in the repository, used as it is.
    Named(String),
    /// `base = "<path>"`: a whole tree elsewhere, with the case's `in/` copied over it and the
    /// paths of `in-deleted` removed (a delta, as `out/` and `deleted` are for the result).
    Base(String),
    /// Neither: the case's own `in/`, whole.
    Own,
}

/// The source of a case's input (`in =`, `base =`, or its own `in/`).
pub fn source(case_dir: &Path) -> Result<Source, String> {
    let file = case_dir.join("cmd.toml");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let key = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_string);
    match (key("in"), key("base")) {
        (Some(_), Some(_)) => Err(format!(
            "{}: `in` and `base` both given (one names a whole tree, the other a base of a delta)",
            file.display()
        )),
        (Some(p), None) => Ok(Source::Named(p)),
        (None, Some(p)) => Ok(Source::Base(p)),
        (None, None) => Ok(Source::Own),
    }
}

/// The delta a case stores from its base to its input: `in/` and `in-deleted`.
pub fn read_input_delta(case_dir: &Path) -> Result<Delta, String> {
    read_delta_as(case_dir, "in", IN_DELETED)
}

/// A case's whole input tree, executable files as `Node::Exec`: the one way every test that
/// runs a golden case builds it (the golden binary and the suites of `tests/it/`).
pub fn input_tree(case_dir: &Path) -> Result<Tree, String> {
    match source(case_dir)? {
        Source::Named(p) => Ok(tree_with_modes(&repo().join(p))),
        Source::Own => {
            if case_dir.join(IN_DELETED).exists() {
                return Err(format!("{IN_DELETED} without a `base =` in cmd.toml"));
            }
            Ok(tree_with_modes(&case_dir.join("in")))
        }
        Source::Base(p) => {
            let base = repo().join(&p);
            if !base.is_dir() {
                return Err(format!("base = \"{p}\": no such folder"));
            }
            apply(&tree_with_modes(&base), &read_input_delta(case_dir)?)
                .map_err(|e| format!("in/ and {IN_DELETED} over base {p}: {e}"))
        }
    }
}

/// Writes a case's whole input tree as the device folder `to` (empty folders without `.keep`).
pub fn write_input(case_dir: &Path, to: &Path) -> Result<(), String> {
    write_tree_as(&input_tree(case_dir)?, to, false);
    Ok(())
}

/// A folder holding a case's whole input tree, for the suites that read a device by path: the
/// named tree or the case's own `in/` as they are, a delta built into a fresh folder under the
/// test target's temporary folder.
pub fn input_path(case_dir: &Path) -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    match source(case_dir)? {
        Source::Named(p) => Ok(repo().join(p)),
        Source::Own if case_dir.join("in").is_dir() => Ok(case_dir.join("in")),
        // A delta, or an empty input (no `in/` at all).
        _ => {
            let to = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
                "golden-inputs/{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            write_input(case_dir, &to)?;
            Ok(to)
        }
    }
}

/// A tree as the golden harness compares it: modes dropped.
pub fn plain(tree: &Tree) -> Tree {
    tree.iter()
        .map(|(k, v)| match v {
            Node::Exec(b) => (k.clone(), Node::File(b.clone())),
            _ => (k.clone(), v.clone()),
        })
        .collect()
}

/// The tree a case expects after its run: its input tree with its delta applied.
pub fn expected_tree(case_dir: &Path) -> Result<Tree, String> {
    apply(&plain(&input_tree(case_dir)?), &read_delta(case_dir)?)
}

/// An error when the stored delta is not the smallest one from `input` to the tree it gives.
pub fn check_canonical(input: &Tree, stored: &Delta, expected: &Tree) -> Result<(), String> {
    let best = delta(input, expected);
    if &best == stored {
        return Ok(());
    }
    let mut why = String::from("the stored delta is not the smallest one (re-bless it):\n");
    for k in stored.out.keys().filter(|k| !best.out.contains_key(*k)) {
        why.push_str(&format!("  out/ need not hold: {k}\n"));
    }
    for k in best.out.keys().filter(|k| !stored.out.contains_key(*k)) {
        why.push_str(&format!("  out/ should hold: {k}\n"));
    }
    for d in stored.deleted.iter().filter(|d| !best.deleted.contains(d)) {
        why.push_str(&format!("  {DELETED} need not list: {d}\n"));
    }
    for d in best.deleted.iter().filter(|d| !stored.deleted.contains(d)) {
        why.push_str(&format!("  {DELETED} should list: {d}\n"));
    }
    Err(why)
}

/// The differences between two trees, as the golden harness reports them.
pub fn describe_tree_diff(expected: &Tree, actual: &Tree) -> String {
    let mut out = String::new();
    for (k, v) in expected {
        match actual.get(k) {
            None => out.push_str(&format!("  missing: {k}\n")),
            Some(a) if a != v => match (v, a) {
                (Node::File(e), Node::File(a)) => {
                    let diff = similar::TextDiff::from_lines(
                        &*String::from_utf8_lossy(e),
                        &*String::from_utf8_lossy(a),
                    )
                    .unified_diff()
                    .header("expected", "actual")
                    .to_string();
                    out.push_str(&format!("  differs: {k}\n{diff}"));
                }
                _ => out.push_str(&format!("  differs: {k}: expected {v:?}, got {a:?}\n")),
            },
            _ => {}
        }
    }
    for k in actual.keys() {
        if !expected.contains_key(k) {
            out.push_str(&format!("  unexpected: {k}\n"));
        }
    }
    out
}

/// Small trees for the delta's own checks: (name, input, expected).
pub fn self_test_pairs() -> Vec<(&'static str, Tree, Tree)> {
    fn t(entries: &[(&str, Node)]) -> Tree {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }
    let f = |s: &str| Node::File(s.as_bytes().to_vec());
    let l = |s: &str| Node::Link(PathBuf::from(s));
    let e = Node::EmptyDir;
    let base = t(&[
        ("a/x", f("1")),
        ("a/y", f("2")),
        ("b", f("3")),
        ("e", e.clone()),
    ]);
    let with = |changes: &[(&str, Option<Node>)]| {
        let mut m = base.clone();
        for (k, v) in changes {
            match v {
                Some(v) => m.insert(k.to_string(), v.clone()),
                None => m.remove(*k),
            };
        }
        m
    };
    vec![
        ("unchanged", base.clone(), base.clone()),
        ("file-changed", base.clone(), with(&[("b", Some(f("4")))])),
        (
            "file-added-in-new-folder",
            base.clone(),
            with(&[("n/m/z", Some(f("5")))]),
        ),
        ("file-removed", base.clone(), with(&[("b", None)])),
        (
            "file-becomes-folder",
            base.clone(),
            with(&[("b", None), ("b/z", Some(f("5")))]),
        ),
        (
            "file-becomes-empty-folder",
            base.clone(),
            with(&[("b", Some(e.clone()))]),
        ),
        (
            "file-becomes-link",
            base.clone(),
            with(&[("b", Some(l("a/x")))]),
        ),
        (
            "link-becomes-file",
            with(&[("b", Some(l("x")))]),
            base.clone(),
        ),
        (
            "folder-becomes-file",
            base.clone(),
            with(&[("a/x", None), ("a/y", None), ("a", Some(f("6")))]),
        ),
        (
            "folder-becomes-link",
            base.clone(),
            with(&[("a/x", None), ("a/y", None), ("a", Some(l("/dev/null")))]),
        ),
        (
            "folder-becomes-empty",
            base.clone(),
            with(&[("a/x", None), ("a/y", None), ("a", Some(e.clone()))]),
        ),
        (
            "emptied-folder-deleted",
            base.clone(),
            with(&[("a/x", None), ("a/y", None)]),
        ),
        (
            "empty-folder-filled",
            base.clone(),
            with(&[("e", None), ("e/z", Some(f("7")))]),
        ),
        ("empty-folder-deleted", base.clone(), with(&[("e", None)])),
        (
            "empty-folder-becomes-file",
            base.clone(),
            with(&[("e", Some(f("8")))]),
        ),
        (
            "new-empty-folder",
            base.clone(),
            with(&[("n/m", Some(e.clone()))]),
        ),
        ("everything-deleted", base.clone(), Tree::new()),
        ("from-nothing", Tree::new(), base.clone()),
        (
            "journal-emptied",
            with(&[
                ("var/lib/osctl/journal/1/m", Some(f("j"))),
                ("var/lib/osctl/x", Some(f("k"))),
            ]),
            with(&[("var/lib/osctl/x", Some(f("k")))]),
        ),
    ]
}

/// The delta's own checks: for each pair, the smallest delta gives the expected tree back, through
/// the files a bless writes.
pub fn self_test(input: &Tree, expected: &Tree) -> Result<(), String> {
    let d = delta(input, expected);
    let dir = tempfile::tempdir().unwrap();
    write_delta(dir.path(), &d);
    let stored = read_delta(dir.path())?;
    if stored != d {
        return Err(format!(
            "the delta read back differs: {stored:?}, written {d:?}"
        ));
    }
    let got = apply(input, &stored)?;
    if &got != expected {
        return Err(format!(
            "the delta {d:?} gives another tree:\n{}",
            describe_tree_diff(expected, &got)
        ));
    }
    check_canonical(input, &stored, &got)?;
    // Written again, nothing changes.
    write_delta(dir.path(), &d);
    if read_delta(dir.path())? != d {
        return Err("a second write changed the delta".into());
    }
    Ok(())
}

/// Deltas that do not fit their input and must be refused: (name, input, delta).
pub fn self_test_misfits() -> Vec<(&'static str, Tree, Delta)> {
    let f = |s: &str| Node::File(s.as_bytes().to_vec());
    let input: Tree = [("a/x", f("1")), ("b", f("2"))]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let out = |k: &str, v: Node| Tree::from([(k.to_string(), v)]);
    let gone = |d: &str| vec![d.to_string()];
    vec![
        (
            "deleted-path-not-in-input",
            input.clone(),
            Delta {
                out: Tree::new(),
                deleted: gone("c"),
            },
        ),
        (
            "entry-under-a-file",
            input.clone(),
            Delta {
                out: out("b/z", f("3")),
                deleted: vec![],
            },
        ),
        (
            "file-over-a-folder",
            input.clone(),
            Delta {
                out: out("a", f("3")),
                deleted: vec![],
            },
        ),
        (
            "empty-folder-over-a-file",
            input.clone(),
            Delta {
                out: out("b", Node::EmptyDir),
                deleted: vec![],
            },
        ),
    ]
}
