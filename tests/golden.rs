//! Golden CLI cases: `tests/cli/<group>/<case>/`.
//!
//! Each case folder holds:
//! - `cmd.toml`: `args = [...]` (run from the copied tree, so `--root .` is the device),
//!   optional `status = N` (default 0), `env = { K = "v" }`, `stdin = "..."`, and
//!   `in = "examples/device"` to start from a tree elsewhere in the repository;
//! - `in/`: the device tree before (empty folders carry a `.keep`);
//! - `out/`: the device tree expected after; **absent means the run must leave `in/` exactly as
//!   it was** (nothing written, nothing removed);
//! - `stdout`, `stderr`: the expected output, with the sandbox path shown as `[ROOT]`.
//!
//! Trees are compared exactly: the same files, links and empty folders, with the same bytes, so
//! a golden case also proves what a command did *not* touch. (trycmd, which the design card
//! names, compares only the files listed in `out/`, so it could not show a deletion or a stray
//! write; this harness keeps its layout idea and checks the whole tree.)
//!
//! Re-bless with `OSCTL_BLESS=1 cargo test --test golden`, then read the diff before committing.
//! Run one group or case with `OSCTL_CASE=status/` (a substring of `<group>/<case>`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Paths osctl leaves as its own bookkeeping: the lock file, and the state folders that hold it.
const BOOKKEEPING: &[&str] = &["var/lib/osctl/lock"];
const BOOKKEEPING_DIRS: &[&str] = &["var", "var/lib", "var/lib/osctl", "var/lib/osctl/journal"];

#[derive(Debug, PartialEq, Eq, Clone)]
enum Node {
    File(Vec<u8>),
    Link(PathBuf),
    EmptyDir,
}

fn tree(root: &Path) -> BTreeMap<String, Node> {
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
            out.insert(rel, Node::File(std::fs::read(entry.path()).unwrap()));
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

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    if !from.exists() {
        return;
    }
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else if entry.file_name() != ".keep" {
            std::fs::copy(entry.path(), &dest).unwrap();
            // Git keeps only the executable bit: give every input the mode a fresh clone has,
            // so a case reads the same on every checkout.
            use std::os::unix::fs::PermissionsExt;
            let exec = entry.metadata().unwrap().permissions().mode() & 0o111 != 0;
            let mode = if exec { 0o755 } else { 0o644 };
            std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

fn write_tree(tree: &BTreeMap<String, Node>, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for (rel, node) in tree {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        match node {
            Node::File(bytes) => std::fs::write(&p, bytes).unwrap(),
            Node::Link(target) => std::os::unix::fs::symlink(target, &p).unwrap(),
            Node::EmptyDir => {
                std::fs::create_dir_all(&p).unwrap();
                std::fs::write(p.join(".keep"), "").unwrap();
            }
        }
    }
}

fn describe_tree_diff(
    expected: &BTreeMap<String, Node>,
    actual: &BTreeMap<String, Node>,
) -> String {
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

struct Case {
    name: String,
    dir: PathBuf,
    args: Vec<String>,
    status: i32,
    env: Vec<(String, String)>,
    stdin: Option<String>,
    /// A tree elsewhere in the repository used as `in/` (the sample device).
    tree: Option<PathBuf>,
}

fn load_case(dir: &Path, name: String) -> Case {
    let text = std::fs::read_to_string(dir.join("cmd.toml")).unwrap();
    let doc: toml_edit::DocumentMut = text
        .parse()
        .unwrap_or_else(|e| panic!("{name}/cmd.toml: {e}"));
    let args = doc["args"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}/cmd.toml: args must be an array"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let status = doc.get("status").and_then(|v| v.as_integer()).unwrap_or(0) as i32;
    let env = doc
        .get("env")
        .and_then(|v| v.as_table_like())
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let stdin = doc
        .get("stdin")
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let tree = doc
        .get("in")
        .and_then(|v| v.as_str())
        .map(|p| Path::new(env!("CARGO_MANIFEST_DIR")).join(p));
    Case {
        name,
        dir: dir.to_path_buf(),
        args,
        status,
        env,
        stdin,
        tree,
    }
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let filter = std::env::var("OSCTL_CASE").unwrap_or_default();
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_name() == "cmd.toml" {
            let dir = entry.path().parent().unwrap();
            let name = dir
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if name.contains(&filter) {
                out.push(load_case(dir, name));
            }
        }
    }
    out
}

/// Runs one case; returns a failure description, or `None` when it passed.
fn run_case(case: &Case, bless: bool) -> Option<String> {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().join("device");
    copy_tree(case.tree.as_deref().unwrap_or(&case.dir.join("in")), &root);
    let before = tree(&root);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.args(&case.args)
        .current_dir(&root)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(if case.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &case.env {
        cmd.env(k, v.replace("[ROOT]", &root.to_string_lossy()));
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = &case.stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let canon = std::fs::canonicalize(&root).unwrap();
    let scrub = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .replace(&*canon.to_string_lossy(), "[ROOT]")
            .replace(&*root.to_string_lossy(), "[ROOT]")
    };
    let stdout = scrub(&output.stdout);
    let stderr = scrub(&output.stderr);
    let status = output.status.code().unwrap_or(-1);
    let after = tree(&root);
    let out_dir = case.dir.join("out");
    let expected_tree = if out_dir.exists() {
        tree(&out_dir)
    } else {
        before.clone()
    };

    if bless {
        std::fs::write(case.dir.join("stdout"), &stdout).unwrap();
        std::fs::write(case.dir.join("stderr"), &stderr).unwrap();
        if status != case.status {
            let text = std::fs::read_to_string(case.dir.join("cmd.toml")).unwrap();
            let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
            doc["status"] = toml_edit::value(status as i64);
            std::fs::write(case.dir.join("cmd.toml"), doc.to_string()).unwrap();
        }
        if after != before {
            write_tree(&after, &out_dir);
        } else if out_dir.exists() {
            std::fs::remove_dir_all(&out_dir).unwrap();
        }
        return None;
    }

    let mut problems = String::new();
    if status != case.status {
        problems.push_str(&format!("exit status {status}, expected {}\n", case.status));
    }
    for (name, actual) in [("stdout", &stdout), ("stderr", &stderr)] {
        let expected = std::fs::read_to_string(case.dir.join(name)).unwrap_or_default();
        if &expected != actual {
            let diff = similar::TextDiff::from_lines(&expected, actual)
                .unified_diff()
                .header(&format!("expected {name}"), &format!("actual {name}"))
                .to_string();
            problems.push_str(&format!("{name} differs:\n{diff}"));
        }
    }
    if after != expected_tree {
        let what = if out_dir.exists() {
            "the tree differs from out/"
        } else {
            "the run changed the tree (no out/: nothing may change)"
        };
        problems.push_str(&format!(
            "{what}:\n{}",
            describe_tree_diff(&expected_tree, &after)
        ));
    }
    (!problems.is_empty()).then_some(problems)
}

#[test]
fn golden_cases() {
    let bless = std::env::var("OSCTL_BLESS").is_ok_and(|v| v == "1");
    let cases = cases();
    assert!(!cases.is_empty(), "no golden cases found under tests/cli");
    let mut failures = Vec::new();
    for case in &cases {
        if let Some(problem) = run_case(case, bless) {
            failures.push(format!("--- {} ---\n{problem}", case.name));
        }
    }
    if !failures.is_empty() {
        panic!(
            "{} of {} golden cases failed (re-bless with OSCTL_BLESS=1 after checking):\n\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
    }
    eprintln!("{} golden cases passed", cases.len());
}
