//! Golden CLI cases: `tests/cli/<group>/<case>/`, each its own test named `<group>/<case>`.
//!
//! Each case folder holds:
//! - `cmd.toml`: `args = [...]` (run from the copied tree, so `--root .` is the device),
//!   optional `status = N` (default 0), `env = { K = "v" }`, `stdin = "..."`, and
//!   `in = "examples/device"` to start from a tree elsewhere in the repository;
//! - `in/`: the device tree before (empty folders carry a `.keep`);
//! - `out/` and `deleted`: the device tree expected after, as a delta from the input tree:
//!   `out/` holds only the files, links and empty folders (with a `.keep`) the run creates or
//!   changes, `deleted` lists the paths it removes (one a line, sorted). **Neither means the run
//!   must leave the input tree exactly as it was** (nothing written, nothing removed). See
//!   `tests/it/support/golden_tree.rs` for the rules;
//! - `stdout`, `stderr`: the expected output, with the sandbox path shown as `[ROOT]`;
//! - `stdout.test-runtime`, `stderr.test-runtime` (a few cases): the expected output of the build
//!   with `--features test-runtime`, where the output lists every registered runtime and so names
//!   the test-only seventh (`status` has a row per runtime, an unknown name's hint lists the valid
//!   ones). The plain files stay what the six-runtime build (the package) prints and are checked
//!   there; under the feature the `.test-runtime` file, when the case has one, is checked instead,
//!   in full, so the seventh runtime's lines are proven too. One exists only where the two
//!   builds' outputs differ (a bless under the feature writes it then and removes it otherwise),
//!   and it must name a runtime the package does not ship.
//!
//! Trees are compared exactly: the expected tree (the input with the delta applied) against the
//! tree the run leaves, the same files, links and empty folders, with the same bytes, so a golden
//! case also proves what a command did *not* touch. (trycmd, which the design card names,
//! compares only the files listed in `out/`, so it could not show a deletion or a stray write;
//! this harness keeps its layout idea and checks the whole tree.) A stored delta must also be the
//! smallest one, the one a bless writes.
//!
//! The cases run in parallel, each in its own temporary folder (`libtest-mimic`: the usual test
//! options work, `cargo test --test golden -- mcp/add` runs the cases whose name holds `mcp/add`,
//! `--test-threads 1` runs them one at a time). Re-bless with `OSCTL_BLESS=1 cargo test --test
//! golden`, then read the diff before committing: a case whose run did not change is left as it
//! is. `OSCTL_CASE=status/` (a substring of `<group>/<case>`) also selects cases, here and in the
//! other tests that walk the golden cases. The `_delta/` tests check the delta itself.

// A test touches the world directly: the door rules of clippy.toml bind osctl's own code.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

// Shared with the integration-test binary (`tests/it/`), whose suites read a case's expected
// tree with the parts this binary does not use.
#[path = "it/support/golden_bases.rs"]
mod golden_bases;
#[allow(dead_code)]
#[path = "it/support/golden_tree.rs"]
mod golden_tree;

use golden_tree::{
    Tree, apply, check_canonical, delta, describe_tree_diff, read_delta, tree, write_delta,
};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Case {
    name: String,
    dir: PathBuf,
    args: Vec<String>,
    status: i32,
    env: Vec<(String, String)>,
    stdin: Option<String>,
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
    Case {
        name,
        dir: dir.to_path_buf(),
        args,
        status,
        env,
        stdin,
    }
}

fn cases(filter: &str) -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
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
            if name.contains(filter) {
                out.push(load_case(dir, name));
            }
        }
    }
    out
}

/// Runs one case; returns a failure description, or `None` when it passed.
fn run_case(case: &Case, bless: bool, shared: &[(String, Tree)]) -> Option<String> {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().join("device");
    if let Err(e) = golden_tree::write_input(&case.dir, &root) {
        return Some(format!("the input tree cannot be built: {e}\n"));
    }
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

    if bless {
        for (name, actual) in [("stdout", &stdout), ("stderr", &stderr)] {
            bless_output(&case.dir, name, actual);
        }
    }
    // Under the feature a bless records the outputs only: the exit status and the tree are the
    // package's, and are checked below.
    if bless && !cfg!(feature = "test-runtime") {
        if status != case.status {
            let text = std::fs::read_to_string(case.dir.join("cmd.toml")).unwrap();
            let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
            doc["status"] = toml_edit::value(status as i64);
            std::fs::write(case.dir.join("cmd.toml"), doc.to_string()).unwrap();
        }
        write_delta(&case.dir, &delta(&before, &after));
        // A new case's whole `in/` becomes its smallest form (a delta from a shared tree).
        return golden_bases::rebase(&case.name, &case.dir, shared).err();
    }

    let mut problems = String::new();
    if let Err(e) = golden_bases::check_source(&case.name, &case.dir, shared) {
        problems.push_str(&e);
    }
    if status != case.status {
        problems.push_str(&format!("exit status {status}, expected {}\n", case.status));
    }
    for (name, actual) in [("stdout", &stdout), ("stderr", &stderr)] {
        let (file, expected) = expected_output(&case.dir, name);
        if &expected != actual {
            let diff = similar::TextDiff::from_lines(&expected, actual)
                .unified_diff()
                .header(&format!("expected {file}"), &format!("actual {name}"))
                .to_string();
            problems.push_str(&format!("{file} differs:\n{diff}"));
        }
        if let Err(e) = check_build_output(&case.dir, name) {
            problems.push_str(&e);
        }
    }
    let stored = read_delta(&case.dir);
    match stored.and_then(|d| Ok((apply(&before, &d)?, d))) {
        Err(e) => problems.push_str(&format!(
            "the stored delta is unreadable or does not fit the input tree: {e}\n"
        )),
        Ok((expected_tree, d)) if after != expected_tree => {
            let what = if d.is_empty() {
                "the run changed the tree (no out/ nor deleted: nothing may change)"
            } else {
                "the tree differs from the expected one (the input with out/ and deleted applied)"
            };
            problems.push_str(&format!(
                "{what}:\n{}",
                describe_tree_diff(&expected_tree, &after)
            ));
        }
        Ok((expected_tree, d)) => {
            if let Err(e) = check_canonical(&before, &d, &expected_tree) {
                problems.push_str(&e);
            }
        }
    }
    (!problems.is_empty()).then_some(problems)
}

/// The suffix of the expected output of the build with the test-only runtime
/// (`stdout.test-runtime`); see the top of this file.
const TEST_RUNTIME: &str = "test-runtime";

/// The file holding a case's expected `name` output for this build, and its text: under
/// `--features test-runtime`, `<name>.test-runtime` when the case has one, else `<name>`.
fn expected_output(dir: &Path, name: &str) -> (String, String) {
    if cfg!(feature = "test-runtime") {
        let file = format!("{name}.{TEST_RUNTIME}");
        if let Ok(text) = std::fs::read_to_string(dir.join(&file)) {
            return (file, text);
        }
    }
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    (name.to_string(), text)
}

/// A `.test-runtime` output must differ from the plain one, and by naming a runtime of the
/// registry the package does not ship: it records what the seventh runtime adds, nothing else.
fn check_build_output(dir: &Path, name: &str) -> Result<(), String> {
    let file = format!("{name}.{TEST_RUNTIME}");
    let Ok(text) = std::fs::read_to_string(dir.join(&file)) else {
        return Ok(());
    };
    let plain = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    if text == plain {
        return Err(format!(
            "{file} is the same as {name}: remove it (a bless under the feature does)\n"
        ));
    }
    // Checked where the test-only runtime is registered (its name is not in the plain build).
    let extra: Vec<&str> = osctl::runtime::REGISTRY[osctl::runtime::packaged().len()..]
        .iter()
        .map(|r| r.name)
        .collect();
    if cfg!(feature = "test-runtime") && !extra.iter().any(|rt| text.contains(rt)) {
        return Err(format!(
            "{file} names none of the test-only runtimes ({}): the difference is not theirs\n",
            extra.join(", ")
        ));
    }
    Ok(())
}

/// Blesses a case's `name` output: the plain file in the six-runtime build; under the feature,
/// the `.test-runtime` file when the output differs from the plain one (removed when it does not),
/// so a bless with the feature never rewrites what the package's build prints.
fn bless_output(dir: &Path, name: &str, actual: &str) {
    if !cfg!(feature = "test-runtime") {
        write_if_changed(&dir.join(name), actual);
        return;
    }
    let plain = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let file = dir.join(format!("{name}.{TEST_RUNTIME}"));
    if plain == actual {
        if file.exists() {
            std::fs::remove_file(&file).unwrap();
        }
    } else {
        write_if_changed(&file, actual);
    }
}

/// Writes `text` unless the file already holds it.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}

/// `OSCTL_REBASE=1`: stores every selected case's input in its smallest form (a whole shared tree
/// named with `in =`, a delta from the nearest one with `base =`, or its own whole `in/`), without
/// running anything. Re-run after adding cases or moving trees; the tree each case starts from
/// stays the same (checked).
fn rebase_all(cases: &[Case], shared: &[(String, Tree)]) {
    let mut failed = 0;
    for case in cases {
        if let Err(e) = golden_bases::rebase(&case.name, &case.dir, shared) {
            eprintln!("{}: {e}", case.name);
            failed += 1;
        }
    }
    eprintln!("rebased {} golden cases, {failed} failed", cases.len());
    assert_eq!(failed, 0);
}

/// The proof that a stored input cannot pass vacuously, on the first case stored as a delta: a
/// copy of it passes, the same copy with another base fails.
fn wrong_input_trial(case: &Case, shared: &[(String, Tree)], filter: &str) -> Option<Trial> {
    let golden_tree::Source::Base(base) = golden_tree::source(&case.dir).ok()? else {
        return None;
    };
    static FIRST: std::sync::Once = std::sync::Once::new();
    let name = "_delta/wrong-base-fails-the-case";
    let mut first = false;
    FIRST.call_once(|| first = true);
    if !first || !name.contains(filter) {
        return None;
    }
    let other = shared.iter().map(|(p, _)| p).find(|p| **p != base)?.clone();
    let (dir, shared) = (case.dir.clone(), shared.to_vec());
    let case_name = case.name.clone();
    Some(Trial::test(name, move || {
        let copy = tempfile::tempdir().unwrap();
        for entry in walkdir::WalkDir::new(&dir).min_depth(1) {
            let entry = entry.unwrap();
            let to = copy.path().join(entry.path().strip_prefix(&dir).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(entry.path(), &to).unwrap();
            }
        }
        // The copy as it is passes: what fails below is the break, not the copying.
        if let Some(problem) = run_case(&load_case(copy.path(), case_name.clone()), false, &shared)
        {
            return Err(format!("{case_name}, copied unbroken, fails:\n{problem}").into());
        }
        let text = std::fs::read_to_string(copy.path().join("cmd.toml")).unwrap();
        let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
        doc["base"] = toml_edit::value(other.as_str());
        std::fs::write(copy.path().join("cmd.toml"), doc.to_string()).unwrap();
        let broken = format!("base = \"{other}\"");
        match run_case(&load_case(copy.path(), case_name.clone()), false, &shared) {
            Some(problem) => {
                eprintln!("{case_name} with {broken} fails:\n{problem}");
                Ok(())
            }
            None => Err(format!("{case_name} with {broken} still passes").into()),
        }
    }))
}

fn main() {
    let args = Arguments::from_args();
    let bless = std::env::var("OSCTL_BLESS").is_ok_and(|v| v == "1");
    let filter = std::env::var("OSCTL_CASE").unwrap_or_default();
    let cases = cases(&filter);
    assert!(
        !cases.is_empty() || !filter.is_empty(),
        "no golden cases found under tests/cli"
    );
    let shared = std::sync::Arc::new(golden_bases::shared_trees());
    if std::env::var("OSCTL_REBASE").is_ok_and(|v| v == "1") {
        rebase_all(&cases, &shared);
        return;
    }
    let mut trials: Vec<Trial> = cases
        .iter()
        .filter_map(|case| wrong_input_trial(case, &shared, &filter))
        .collect();
    trials.extend(cases.into_iter().map(|case| {
        let shared = shared.clone();
        {
            Trial::test(case.name.clone(), move || match run_case(&case, bless, &shared) {
                None => Ok(()),
                Some(problem) => Err(Failed::from(format!(
                    "golden case {} failed (re-bless with OSCTL_BLESS=1 after checking):\n{problem}",
                    case.name
                ))),
            })
        }
    }));
    for (name, input, expected) in golden_tree::self_test_pairs() {
        let name = format!("_delta/{name}");
        if name.contains(&filter) {
            trials.push(Trial::test(name, move || {
                golden_tree::self_test(&input, &expected).map_err(Failed::from)
            }));
        }
    }
    for (name, input, misfit) in golden_tree::self_test_misfits() {
        let name = format!("_delta/refuses-{name}");
        if name.contains(&filter) {
            trials.push(Trial::test(name, move || {
                match golden_tree::apply(&input, &misfit) {
                    Ok(t) => Err(format!("applied, giving {t:?}").into()),
                    Err(_) => Ok(()),
                }
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
