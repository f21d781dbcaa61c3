//! Cases of our own (`tests/format/<suite>/{valid,invalid,refused}/`, written by
//! `tests/format/make-cases.py`), judged by the runtimes' own parsers where they can be run here:
//! JSON5, JSONC, JSON, YAML and `.env`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{
    Verdict, check_refusal, mcp_add, one_line, only_added_lines, only_inserted, par_map, report,
};

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
