//! The `--json` contract: every document osctl prints validates against its JSON Schema in
//! `docs/schema/` (draft 2020-12), checked with a real validator (the `jsonschema` crate).
//!
//! Covered: every `--json` stdout among the golden cases (`tests/cli/**`), and a run of every
//! command made here (success, error, usage error, dry-run, check). A last test shows the
//! validator rejects documents that break the contract, so the others can fail.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::schema::{COMMANDS, problems, validator};
use serde_json::Value;

/// stdout as exactly one JSON document (trailing data is an error) with the process's code.
fn one_document(what: &str, out: &Output) -> Value {
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not one JSON document: {e}\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        doc["exit_code"].as_i64(),
        out.status.code().map(i64::from),
        "{what}: exit_code is the process's exit code"
    );
    doc
}

#[test]
fn every_schema_file_is_a_valid_schema_and_every_command_has_one() {
    for command in COMMANDS {
        validator(&format!("{}.json", command.replace(' ', "-")));
    }
    validator("envelope.json");
    validator("plan.json");
}

#[test]
fn every_golden_json_output_validates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_name() != "cmd.toml" {
            continue;
        }
        let dir = entry.path().parent().unwrap();
        let cmd = std::fs::read_to_string(entry.path()).unwrap();
        if !cmd.contains("\"--json\"") {
            continue;
        }
        let case = dir.strip_prefix(&root).unwrap().display().to_string();
        let status: toml_edit::DocumentMut = cmd.parse().unwrap();
        let code = status
            .get("status")
            .and_then(|v| v.as_integer())
            .unwrap_or(0);
        // The output of the build with the test-only runtime, where it differs (tests/golden.rs),
        // follows the same schema.
        for file in ["stdout", "stdout.test-runtime"] {
            let Ok(stdout) = std::fs::read_to_string(dir.join(file)) else {
                if file == "stdout" {
                    failures.push(format!("{case}: no stdout"));
                }
                continue;
            };
            let name = format!("{case}/{file}");
            let doc: Value = match serde_json::from_str(&stdout) {
                Ok(doc) => doc,
                Err(e) => {
                    failures.push(format!("{name}: not one JSON document: {e}"));
                    continue;
                }
            };
            if doc["exit_code"].as_i64() != Some(code) {
                failures.push(format!(
                    "{name}: exit_code {} but the case exits {code}",
                    doc["exit_code"]
                ));
            }
            for p in problems(&doc) {
                failures.push(format!("{name}: {p}"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} golden --json cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A copy of a device tree from the repository, to run commands on.
fn device(from: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(from);
    for entry in walkdir::WalkDir::new(&src).min_depth(1) {
        let entry = entry.unwrap();
        let dest = dir.path().join(entry.path().strip_prefix(&src).unwrap());
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else if entry.file_name() != ".keep" {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
    dir
}

fn osctl(root: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .arg("--json")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("OSCTL_TEST_NOW", "1767225600")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_run_of_every_command_prints_one_valid_document() {
    let sample = device("examples/device");
    let mcp = device("tests/cli/mcp/_installed");
    let hermes = device("tests/cli/channel/_hermes");
    let missing = sample.path().join("no-such-root");
    // (device, args, stdin, expected exit, expected mode)
    let runs: Vec<(&Path, Vec<&str>, &str, i32, &str)> = vec![
        (sample.path(), vec!["status"], "", 0, "read"),
        (sample.path(), vec!["doctor"], "", 3, "read"),
        (sample.path(), vec!["--version"], "", 0, "read"),
        (
            sample.path(),
            vec!["presync", "--dry-run"],
            "",
            0,
            "dry-run",
        ),
        (sample.path(), vec!["presync", "--check"], "", 3, "check"),
        (
            sample.path(),
            vec!["reconcile", "--dry-run"],
            "",
            0,
            "dry-run",
        ),
        (sample.path(), vec!["recover", "--check"], "", 0, "check"),
        (
            sample.path(),
            vec![
                "migrate",
                "--from",
                "openclaw",
                "--to",
                "hermes",
                "--dry-run",
            ],
            "",
            0,
            "dry-run",
        ),
        (
            sample.path(),
            vec!["switch", "openclaw", "--dry-run"],
            "",
            0,
            "dry-run",
        ),
        (
            sample.path(),
            vec!["switch", "openclaw", "--check"],
            "",
            3,
            "check",
        ),
        (sample.path(), vec!["switch", "nanoclaw"], "", 2, "apply"),
        (sample.path(), vec!["reset", "--dry-run"], "", 0, "dry-run"),
        (sample.path(), vec!["setup", "--check"], "", 3, "check"),
        (sample.path(), vec!["skills", "list"], "", 0, "read"),
        (sample.path(), vec!["skills", "verify"], "", 0, "read"),
        (
            sample.path(),
            vec![
                "skills",
                "sync",
                "--metadata-url",
                "http://127.0.0.1:9/metadata.json",
            ],
            "",
            1,
            "apply",
        ),
        (
            mcp.path(),
            vec!["mcp", "list", "--runtime", "claudecode"],
            "",
            0,
            "read",
        ),
        (
            mcp.path(),
            vec![
                "mcp",
                "add",
                "notion",
                "--runtime",
                "claudecode",
                "--url",
                "https://mcp.notion.com/mcp",
                "--check",
            ],
            "",
            3,
            "check",
        ),
        (
            mcp.path(),
            vec![
                "mcp",
                "add",
                "notion",
                "--runtime",
                "claudecode",
                "--url",
                "https://mcp.notion.com/mcp",
            ],
            "",
            0,
            "apply",
        ),
        (
            mcp.path(),
            vec!["mcp", "remove", "notion", "--runtime", "claudecode"],
            "",
            0,
            "apply",
        ),
        (
            mcp.path(),
            vec!["mcp", "remove", "no-such-server", "--runtime", "claudecode"],
            "",
            0,
            "apply",
        ),
        (hermes.path(), vec!["channel", "list"], "", 0, "read"),
        (
            hermes.path(),
            vec![
                "channel",
                "add",
                "telegram",
                "--token-file",
                "-",
                "--user-id",
                "4242",
                "--dry-run",
            ],
            "222222:BBNewTokenNewTokenNewTokenNew\n",
            0,
            "dry-run",
        ),
        (
            hermes.path(),
            vec![
                "channel",
                "add",
                "telegram",
                "--token-file",
                "-",
                "--user-id",
                "4242",
            ],
            "222222:BBNewTokenNewTokenNewTokenNew\n",
            0,
            "apply",
        ),
        (
            hermes.path(),
            vec!["channel", "remove", "telegram"],
            "",
            0,
            "apply",
        ),
        // Usage errors: an unknown flag, a missing argument, a bad value.
        (
            sample.path(),
            vec!["status", "--no-such-flag"],
            "",
            2,
            "read",
        ),
        (sample.path(), vec!["mcp", "add"], "", 2, "apply"),
        (
            sample.path(),
            vec!["--color", "sometimes", "status"],
            "",
            2,
            "read",
        ),
        (sample.path(), vec!["no-such-command"], "", 2, "read"),
        // An error before the command: the root does not exist.
        (&missing, vec!["status"], "", 1, "read"),
    ];
    let mut failures = Vec::new();
    for (root, args, stdin, code, mode) in &runs {
        let what = args.join(" ");
        let out = osctl(root, args, stdin);
        if out.status.code() != Some(*code) {
            failures.push(format!(
                "{what}: exit {:?}, expected {code}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let doc = one_document(&what, &out);
        if doc["mode"] != *mode {
            failures.push(format!("{what}: mode {}, expected {mode}", doc["mode"]));
        }
        for p in problems(&doc) {
            failures.push(format!("{what}: {p}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_validator_rejects_documents_that_break_the_contract() {
    let sample = device("examples/device");
    let good = one_document("status", &osctl(sample.path(), &["status"], ""));
    assert!(problems(&good).is_empty(), "{:?}", problems(&good));
    type Break = Box<dyn Fn(&mut Value)>;
    let broken: Vec<(&str, Break)> = vec![
        (
            "no exit_code",
            Box::new(|d| {
                d.as_object_mut().unwrap().remove("exit_code");
            }),
        ),
        ("schema 1", Box::new(|d| d["schema"] = 1.into())),
        (
            "ok with an error",
            Box::new(|d| {
                d["error"] = serde_json::json!({"code": "x", "message": "m", "hint": null,
                "path": null, "line": null, "column": null, "causes": []});
            }),
        ),
        (
            "not ok without an error",
            Box::new(|d| d["ok"] = false.into()),
        ),
        (
            "a read that changed",
            Box::new(|d| d["changed"] = true.into()),
        ),
        ("an unknown mode", Box::new(|d| d["mode"] = "maybe".into())),
        (
            "warnings not strings",
            Box::new(|d| d["warnings"] = serde_json::json!([1])),
        ),
        (
            "status without runtimes",
            Box::new(|d| {
                d.as_object_mut().unwrap().remove("runtimes");
            }),
        ),
    ];
    for (what, breaks) in broken {
        let mut doc = good.clone();
        breaks(&mut doc);
        assert!(!problems(&doc).is_empty(), "the validator accepted: {what}");
    }
    // An error object with an unknown key, or without its code, is refused too.
    let err = one_document(
        "switch nanoclaw",
        &osctl(sample.path(), &["switch", "nanoclaw"], ""),
    );
    assert!(problems(&err).is_empty(), "{:?}", problems(&err));
    let mut extra = err.clone();
    extra["error"]["exit"] = 2.into();
    assert!(!problems(&extra).is_empty());
    let mut no_code = err.clone();
    no_code["error"].as_object_mut().unwrap().remove("code");
    assert!(!problems(&no_code).is_empty());
}

#[test]
fn an_error_names_the_file_under_the_root_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("root/config")).unwrap();
    std::fs::write(
        dir.path().join("root/config/config.json"),
        "{\n  \"agent_runtime\": \"openclaw\",\n  oops\n}\n",
    )
    .unwrap();
    let out = osctl(dir.path(), &["mcp", "list"], "");
    assert_eq!(out.status.code(), Some(1));
    let doc = one_document("mcp list", &out);
    assert!(problems(&doc).is_empty(), "{:?}", problems(&doc));
    assert_eq!(doc["error"]["code"], "parse_error");
    let path = doc["error"]["path"].as_str().unwrap();
    assert_eq!(
        Path::new(path),
        dir.path().join("root/config/config.json"),
        "the host path, under --root"
    );
    assert_eq!(doc["error"]["line"], 3);
    assert!(Path::new(path).exists(), "the user can open it");
}
