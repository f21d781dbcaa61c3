//! Unit tests of the JSON editor: comments, layout and key order kept through edits, and each
//! dialect's refusals.

use super::*;
use crate::error::{Error, Result};
use crate::format::testutil::assert_diff;
use serde_json::json;

const OPENCLAW: &str = r#"{
  // openclaw config, edited by hand
  "gateway": {
    "mode": "local",
    "bind": "loopback",
    "port": 18789, // do not change
  },
  /* providers */
  "models": {
    "providers": {
      "autonomous": {
        "baseUrl": "https://campaign-api.autonomous.ai/api/v1/ai",
        "apiKey": "sk-old", // rotated monthly
        "models": ["Auto-AI"],
      },
    },
  },
  "mcp": {
    "servers": {
      // the owner's own server
      "github": {"command": "gh-mcp", "args": ["--stdio"]},
    },
  },
  "ownerKey": true,
}
"#;

fn doc(text: &str) -> JsonDoc {
    JsonDoc::parse(text, "/root/.openclaw/openclaw.json").unwrap()
}

#[test]
fn reads_values_and_keys() {
    let d = doc(OPENCLAW);
    assert_eq!(d.get(&["gateway", "port"]), Some(json!(18789)));
    assert_eq!(
        d.get(&["models", "providers", "autonomous", "models"]),
        Some(json!(["Auto-AI"]))
    );
    assert_eq!(d.get(&["missing"]), None);
    assert_eq!(d.get(&["gateway", "port", "deeper"]), None);
    assert_eq!(d.keys(&[]), ["gateway", "models", "mcp", "ownerKey"]);
    assert_eq!(d.keys(&["gateway"]), ["mode", "bind", "port"]);
    assert!(d.keys(&["ownerKey"]).is_empty());
    assert!(d.has_comments());
    assert_eq!(
        d.value()["mcp"]["servers"]["github"]["args"],
        json!(["--stdio"])
    );
    assert_eq!(d.to_string(), OPENCLAW);
}

#[test]
fn set_existing_key_replaces_only_its_value() {
    let mut d = doc(OPENCLAW);
    assert!(d.set(
        &["models", "providers", "autonomous", "apiKey"],
        json!("sk-new")
    ));
    assert_diff(
        OPENCLAW,
        &d.to_string(),
        &[r#"        "apiKey": "sk-old", // rotated monthly"#],
        &[r#"        "apiKey": "sk-new", // rotated monthly"#],
    );
    assert_eq!(
        d.get(&["models", "providers", "autonomous", "apiKey"]),
        Some(json!("sk-new"))
    );
}

#[test]
fn set_new_key_appends_with_sibling_indentation() {
    let mut d = doc(OPENCLAW);
    let notion = json!({
        "type": "http",
        "url": "https://mcp.notion.com/mcp",
        "headers": {"Authorization": "Bearer tok"}
    });
    assert!(d.set(&["mcp", "servers", "notion"], notion.clone()));
    let expected = OPENCLAW.replace(
        r#"      "github": {"command": "gh-mcp", "args": ["--stdio"]},
"#,
        r#"      "github": {"command": "gh-mcp", "args": ["--stdio"]},
      "notion": {
        "type": "http",
        "url": "https://mcp.notion.com/mcp",
        "headers": {
          "Authorization": "Bearer tok",
        },
      },
"#,
    );
    assert_eq!(d.to_string(), expected);
    assert_eq!(d.get(&["mcp", "servers", "notion"]), Some(notion));
    // the owner's server and every comment are still there
    assert!(d.to_string().contains("// the owner's own server"));
    assert!(JsonDoc::parse(&d.to_string(), "x").is_ok());
}

#[test]
fn set_equal_value_is_a_byte_identical_no_op() {
    let mut d = doc(OPENCLAW);
    assert!(!d.set(&["gateway", "port"], json!(18789)));
    assert!(!d.set(
        &["mcp", "servers", "github"],
        json!({"command": "gh-mcp", "args": ["--stdio"]})
    ));
    let whole = d.value();
    assert!(!d.set(&[], whole));
    assert!(!d.merge(&["gateway"], json!({"mode": "local"})));
    assert_eq!(d.to_string(), OPENCLAW);
}

#[test]
fn set_is_idempotent_after_a_change() {
    let mut d = doc(OPENCLAW);
    let v = json!({"enabled": true, "list": [1, 2]});
    assert!(d.set(&["tools", "web"], v.clone()));
    let once = d.to_string();
    assert!(!d.set(&["tools", "web"], v));
    assert_eq!(d.to_string(), once);
}

#[test]
fn creates_missing_intermediates_and_coerces_non_objects() {
    let mut d = doc(OPENCLAW);
    assert!(d.set(&["ownerKey", "nested"], json!(1)));
    assert_eq!(d.get(&["ownerKey"]), Some(json!({"nested": 1})));
    assert!(d.set(&["a", "b", "c"], json!("d")));
    assert_eq!(d.get(&["a"]), Some(json!({"b": {"c": "d"}})));
    assert_eq!(d.keys(&[]), ["gateway", "models", "mcp", "ownerKey", "a"]);
}

#[test]
fn setting_an_object_recurses_and_keeps_inner_comments() {
    let mut d = doc(OPENCLAW);
    assert!(d.set(
        &["gateway"],
        json!({"mode": "local", "bind": "lan", "port": 18789, "auth": {"mode": "token"}})
    ));
    let text = d.to_string();
    assert!(
        text.contains(r#""port": 18789, // do not change"#),
        "{text}"
    );
    assert!(text.contains(r#""bind": "lan","#), "{text}");
    assert_eq!(
        d.get(&["gateway"]),
        Some(json!({"mode": "local", "bind": "lan", "port": 18789, "auth": {"mode": "token"}}))
    );
    // keys missing from the new object are removed, with set (not with merge)
    assert!(d.set(&["gateway"], json!({"mode": "local"})));
    assert_eq!(d.get(&["gateway"]), Some(json!({"mode": "local"})));
    assert!(d.merge(
        &["models", "providers", "autonomous"],
        json!({"apiKey": "k2"})
    ));
    assert_eq!(
        d.get(&["models", "providers", "autonomous", "baseUrl"]),
        Some(json!("https://campaign-api.autonomous.ai/api/v1/ai"))
    );
    assert_eq!(
        d.get(&["models", "providers", "autonomous", "apiKey"]),
        Some(json!("k2"))
    );
}

#[test]
fn arrays_are_edited_element_by_element() {
    let text = "{\n  \"args\": [\n    \"-y\", // package runner flag\n    \"old-pkg\"\n  ]\n}\n";
    let mut d = doc(text);
    assert!(d.set(&["args"], json!(["-y", "new-pkg", "--stdio"])));
    assert_eq!(d.get(&["args"]), Some(json!(["-y", "new-pkg", "--stdio"])));
    assert!(
        d.to_string().contains("// package runner flag"),
        "{}",
        d.to_string()
    );
    assert!(d.set(&["args"], json!(["-y"])));
    assert_eq!(d.get(&["args"]), Some(json!(["-y"])));
    assert!(JsonDoc::parse(&d.to_string(), "x").is_ok());
}

#[test]
fn remove_drops_only_that_key() {
    let mut d = doc(OPENCLAW);
    assert!(d.remove(&["mcp", "servers", "github"]));
    assert!(!d.remove(&["mcp", "servers", "github"]));
    assert!(!d.remove(&["nope", "deeper"]));
    assert!(!d.remove(&[]));
    assert_diff(
        OPENCLAW,
        &d.to_string(),
        &[r#"      "github": {"command": "gh-mcp", "args": ["--stdio"]},"#],
        &[],
    );
    assert_eq!(d.get(&["mcp", "servers"]), Some(json!({})));
}

#[test]
fn detects_four_space_and_tab_indentation() {
    let mut d = doc("{\n    \"a\": {\n        \"b\": 1\n    }\n}\n");
    d.set(&["a", "c"], json!({"d": true}));
    assert_eq!(
        d.to_string(),
        "{\n    \"a\": {\n        \"b\": 1,\n        \"c\": {\n            \"d\": true\n        }\n    }\n}\n"
    );
    let mut d = doc("{\n\t\"a\": 1\n}\n");
    d.set(&["b"], json!(2));
    assert_eq!(d.to_string(), "{\n\t\"a\": 1,\n\t\"b\": 2\n}\n");
}

#[test]
fn strict_json_stays_strict_json() {
    let text = "{\n  \"model_list\": [],\n  \"tools\": {\"mcp\": {\"enabled\": false}}\n}\n";
    let mut d = doc(text);
    assert!(!d.has_comments());
    d.set(&["tools", "mcp", "enabled"], json!(true));
    d.set(
        &["tools", "mcp", "servers", "notion"],
        json!({"url": "https://x"}),
    );
    let out = d.to_string();
    let strict: Value = serde_json::from_str(&out).expect("still strict JSON");
    assert_eq!(
        strict["tools"]["mcp"]["servers"]["notion"]["url"],
        json!("https://x")
    );
    assert!(out.ends_with("}\n"));
}

#[test]
fn new_object_and_final_newline() {
    let mut d = JsonDoc::new_object();
    assert_eq!(d.to_string(), "{}\n");
    assert_eq!(d.value(), json!({}));
    d.set(&["mcpServers", "x"], json!({"command": "y"}));
    assert_eq!(
        d.to_string(),
        "{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"y\"\n    }\n  }\n}\n"
    );
    let mut d = doc("{\"a\": 1}");
    d.set(&["a"], json!(2));
    assert_eq!(d.to_string(), "{\"a\": 2}");
}

#[test]
fn empty_file_is_an_empty_document() {
    let mut d = doc("");
    assert_eq!(d.value(), Value::Null);
    assert!(d.set(&["a"], json!(1)));
    assert_eq!(d.value(), json!({"a": 1}));
    let d = doc("// nothing yet\n");
    assert_eq!(d.value(), Value::Null);
}

#[test]
fn json5_forms_it_can_carry() {
    let text = "{\n  // json5\n  unquoted: 'single',\n  hex: 0x1F,\n  plus: +3,\n  half: .5,\n  'quoted key': 1,\n}\n";
    let mut d = doc(text);
    assert_eq!(
        d.value(),
        json!({"unquoted": "single", "hex": 31, "plus": 3, "half": 0.5, "quoted key": 1})
    );
    assert!(!d.set(&["hex"], json!(31)));
    assert!(!d.set(&["unquoted"], json!("single")));
    assert_eq!(d.to_string(), text);
    assert!(d.set(&["unquoted"], json!("double")));
    assert!(d.to_string().contains("unquoted: \"double\","));
    assert!(d.set(&["quoted key"], json!(2)));
    assert!(d.to_string().contains("'quoted key': 2,"));
}

fn parse_err(text: &str) -> Error {
    JsonDoc::parse(text, "/root/.openclaw/openclaw.json").unwrap_err()
}

#[test]
fn malformed_files_are_refused_with_their_line() {
    let e = parse_err("{\n  \"a\": 1,\n  \"b\": [1, 2\n}\n");
    assert_eq!(e.code, "parse_error");
    let loc = e.location.clone().unwrap();
    assert_eq!(loc.file, "/root/.openclaw/openclaw.json");
    assert_eq!(loc.line, Some(4));
    assert!(e.message.contains("/root/.openclaw/openclaw.json"));

    // JSON5 osctl does not edit
    let e = parse_err("{\n  \"a\": 1,\n  \"b\": Infinity\n}\n");
    assert_eq!(e.code, "parse_error");
    assert_eq!(e.location.as_ref().unwrap().line, Some(3));
    assert!(e.to_string().contains("JSON5"), "{e}");
    let e = parse_err("{\n  \"a\": 1\n  \"b\": 2\n}\n");
    assert_eq!(e.location.as_ref().unwrap().line, Some(2));

    // duplicate keys and numbers a JSON value cannot hold
    let e = parse_err("{\n  \"a\": 1,\n  a: 2\n}\n");
    assert_eq!(
        (e.code, e.location.as_ref().unwrap().line),
        ("parse_error", Some(3))
    );
    assert!(e.to_string().contains("the key `a` is written twice"));
    let e = parse_err("{\n  \"big\": 123456789012345678901234567890\n}\n");
    assert_eq!(e.location.as_ref().unwrap().line, Some(2));
    let e = parse_err("{\n  \"x\": 0x1FFFFFFFFFFFFFFFFF\n}");
    assert_eq!(e.location.as_ref().unwrap().line, Some(2));
}

#[test]
fn number_literals() {
    assert_eq!(number_value("-0x10"), Some(Number::from(-16)));
    assert_eq!(number_value("5."), serde_json::from_str("5.0").ok());
    assert_eq!(number_value("5.e2"), serde_json::from_str("500.0").ok());
    assert_eq!(number_value("-.25"), serde_json::from_str("-0.25").ok());
    assert_eq!(
        number_value("18446744073709551615"),
        Some(Number::from(u64::MAX))
    );
    assert_eq!(number_value("18446744073709551616"), None);
    assert_eq!(number_value("1e400"), None);
}

#[test]
fn crlf_files_keep_crlf() {
    let text = "{\r\n  \"a\": 1\r\n}\r\n";
    let mut d = doc(text);
    d.set(&["b"], json!({"c": 2}));
    let out = d.to_string();
    assert_eq!(
        out.matches('\n').count(),
        out.matches("\r\n").count(),
        "{out:?}"
    );
}

#[test]
fn regression_one_line_objects_were_laid_out_over_several_lines() {
    let mut d = doc("{\"mcp\": {\"servers\": {\"a\": {\"command\": \"x\"}}}}\n");
    assert!(d.set(
        &["mcp", "servers", "b"],
        json!({"command": "y", "args": ["-v"], "env": {}})
    ));
    assert_eq!(
        d.to_string(),
        "{\"mcp\": {\"servers\": {\"a\": {\"command\": \"x\"}, \"b\": {\"command\": \"y\", \"args\": [\"-v\"], \"env\": {}}}}}\n"
    );
    // in a multi-line file, a one-line entry stays on its line too
    let text = "{\n  \"servers\": {\n    \"gh\": { \"command\": \"gh\" },\n  },\n}\n";
    let mut d = doc(text);
    assert!(d.set(&["servers", "gh", "args"], json!(["--stdio"])));
    assert_eq!(
        d.to_string(),
        "{\n  \"servers\": {\n    \"gh\": { \"command\": \"gh\", \"args\": [\"--stdio\"] },\n  },\n}\n"
    );
    // a one-line object inside a value that is replaced goes with it (no panic)
    let mut d = doc("{\n  \"a\": {\n    \"b\": {\"c\": 1}\n  }\n}\n");
    assert!(d.set(&["a"], json!(1)));
    assert_eq!(d.to_string(), "{\n  \"a\": 1\n}\n");
    let mut d = doc("{\n  \"a\": {\n    \"b\": {\"c\": 1}\n  }\n}\n");
    assert!(d.remove(&["a"]));
    // removing the first key keeps the blanks inside the braces
    let mut d = doc("{\"r\": 1, \"a\": 2}\n");
    assert!(d.remove(&["r"]));
    assert_eq!(d.to_string(), "{\"a\": 2}\n");
    // an empty placeholder that gains content becomes multi-line, as before
    let mut d = doc("{\n  \"servers\": {}\n}\n");
    d.set(&["servers", "a"], json!(1));
    assert_eq!(d.to_string(), "{\n  \"servers\": {\n    \"a\": 1\n  }\n}\n");
    assert!(JsonDoc::parse(&d.to_string(), "x").is_ok());
}

fn parse_as(text: &str, dialect: Dialect) -> Result<JsonDoc> {
    JsonDoc::parse_as(text, "/root/.config/opencode/opencode.json", dialect)
}

#[test]
fn regression_json5_syntax_was_accepted_in_jsonc_and_json() {
    for text in [
        "{mcp: {}}",
        "{'mcp': {}}",
        "{\"x\": 0x10}",
        "{\"x\": +1}",
        "{\"x\": .5}",
        "{\"x\": 5.}",
        "{\"x\": \"a\\x41\"}",
        "{\"x\": 01}",
        "{\"x\": \"tab\there\"}",
        "{\"x\": 1}\u{0b}",
    ] {
        let e = parse_as(text, Dialect::Jsonc).map(|_| ()).unwrap_err();
        assert_eq!(e.code, "parse_error", "{text:?}");
        let loc = e.location.as_ref().unwrap();
        assert!(loc.line.is_some() && loc.column.is_some(), "{text:?}: {e}");
        assert!(parse_as(text, Dialect::Json).is_err(), "{text:?}");
    }
    // comments and trailing commas are JSONC, not JSON
    let text = "{\n  // c\n  \"a\": 1,\n}\n";
    assert!(parse_as(text, Dialect::Jsonc).is_ok());
    assert!(parse_as(text, Dialect::Json).is_err());
    let e = parse_as("{\n  // c\n  \"a\": 1\n}\n", Dialect::Json)
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("a comment"), "{e}");
    assert_eq!(e.location.as_ref().unwrap().line, Some(2));
}

#[test]
fn json5_edge_cases() {
    // JSON5 openclaw reads, kept and read right
    for (text, value) in [
        ("{$a_1: 1}", json!({"$a_1": 1})),
        ("{é: 1}", json!({"é": 1})),
        ("{a: 'it\\'s'}", json!({"a": "it's"})),
        ("{a: -0x10}", json!({"a": -16})),
        ("{a: 5.}", json!({"a": 5.0})),
    ] {
        let d = parse_as(text, Dialect::Json5).unwrap();
        assert_eq!(d.value(), value, "{text}");
    }
    // not JSON5: refused with the line and column
    for (text, column) in [
        ("{a-b: 1}", 2),
        ("{a: 01}", 6),
        ("{1a: 1}", 3),
        ("{a: Infinity}", 5),
    ] {
        let e = parse_as(text, Dialect::Json5).map(|_| ()).unwrap_err();
        assert_eq!(
            e.location.as_ref().unwrap().column,
            Some(column),
            "{text}: {e}"
        );
    }
}

#[test]
fn regression_duplicate_keys_named_one_line() {
    let e = parse_err("{\n  \"a\": 1,\n  \"b\": 2,\n  a: 3\n}\n");
    assert!(e.to_string().contains("`a`"), "{e}");
    assert!(e.to_string().contains("lines 2 and 4"), "{e}");
    assert_eq!(e.location.as_ref().unwrap().line, Some(4));
}

#[test]
fn parse_errors_are_in_osctls_words() {
    for (text, kind) in [
        ("{\"a\": 1,, }", "Unexpected comma"),
        ("{\"a\" 1}", "Expected colon"),
        ("{\"a\": [1, 2}", "Unterminated"),
        ("{\"a\": \"x}", "Unterminated string"),
        ("{\"a\": tru}", "Unexpected word"),
    ] {
        let e = parse_err(text);
        assert!(!e.to_string().contains(kind), "{text}: {e}");
        assert!(e.location.as_ref().unwrap().column.is_some(), "{text}: {e}");
    }
}
