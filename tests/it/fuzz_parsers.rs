//! Fuzz targets for the parsers osctl owns outside the persona (those are in
//! `tests/it/fuzz_persona.rs`), as proptest harnesses: cargo-fuzz needs a nightly toolchain, which
//! the build machines do not have.
//!
//! Every target feeds arbitrary input (biased towards each format's syntax) and requires no
//! panic; where a property holds, it is checked too:
//!
//! - `robot_front_matter`: ROBOT.md parsing; a generated front matter gives back its
//!   capabilities in order and its `gateway.default`;
//! - `os_blocks`: the OS-managed Markdown blocks (marker and delimited): upsert is idempotent,
//!   puts the one block at the top, and the owner's text it keeps does not depend on the body;
//! - `dotenv`: `.env` parsing is lossless (the text comes back byte for byte), a set value reads
//!   back (also after writing and parsing again) and setting it again changes nothing;
//! - `skill_metadata`: the skills feed, plain or in its signed envelope, with or without a key;
//!   a correctly signed feed verifies and lists its skills, one flipped payload byte does not;
//! - `config_json`: config.json reading; a generated config gives back every value, with the
//!   line it is on;
//! - `structured_editors`: the JSON/JSONC, YAML and TOML editors: parsing never panics; on a
//!   document that parses, a set value reads back, survives writing and parsing again, and
//!   setting it again changes nothing;
//! - `small_readers`: agent_state.json, skill zips and the package secret scan on arbitrary
//!   bytes.
//!
//! Each target runs a bounded number of cases (256 by default) so `cargo test` stays quick;
//! `OSCTL_FUZZ_CASES=100000 cargo test --release --test it fuzz_parsers::` runs a long session (and
//! sets `tests/it/fuzz_persona.rs` too). Each target prints its case count on stderr.

use crate::skills_support;

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::Value;

use osctl::device::config::DeviceConfig;
use osctl::device::robot;
use osctl::format::dotenv::DotEnv;
use osctl::format::json::JsonDoc;
use osctl::format::mdblock::{self, OS_MARKER, PERSONA_INLINE_END, PERSONA_INLINE_START};
use osctl::format::toml::TomlDoc;
use osctl::format::yaml::YamlDoc;
use osctl::path::DevPath;

fn cases() -> u32 {
    std::env::var("OSCTL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Runs one target for the configured number of cases and prints its figures line; a failing
/// case (a panic or a broken property) fails the test with proptest's shrunk input.
fn fuzz<S: Strategy>(
    target: &str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let runs = AtomicUsize::new(0);
    let mut runner = TestRunner::new(config());
    let result = runner.run(&strategy, |input| {
        runs.fetch_add(1, Ordering::Relaxed);
        test(input)
    });
    let crashes = usize::from(result.is_err());
    eprintln!(
        "RELIABILITY fuzz {target}: cases={} crashes={crashes}",
        runs.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{target}: {e}");
    }
}

/// Arbitrary text made of `pieces` and random characters.
fn text_of(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "\\PC{0,6}",
        3 => "[a-zA-Z0-9_ ]{0,10}",
        2 => Just("\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just("\t".to_string()),
        4 => proptest::sample::select(pieces).prop_map(str::to_string),
    ];
    proptest::collection::vec(piece, 0..max).prop_map(|v| v.concat())
}

const MD_PIECES: &[&str] = &[
    OS_MARKER,
    "\n---\n",
    "---",
    PERSONA_INLINE_START,
    PERSONA_INLINE_END,
    "\n\n",
    "# Soul\n",
    "- item\n",
    "\u{feff}",
];

const ROBOT_PIECES: &[&str] = &[
    "---\n",
    "...\n",
    "capabilities:",
    "gateway:",
    "  default: ",
    "soul_ref: ",
    "name: ",
    ": ",
    "  ",
    "[a, b]",
    "{a: yes}",
    "yes",
    "# c",
    "'",
    "\"",
];

const ENV_PIECES: &[&str] = &[
    "=", "export ", "KEY", "'", "\"", "\\", "#", " # c", "$", "${A}", "`", "\n",
];

const JSON_PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"a\"",
    "\"b\"",
    "1",
    "true",
    "null",
    "//",
    "/*",
    "*/",
    "\\",
    "\"\\u00e9\"",
    "'x'",
    "NaN",
    "0x1F",
];

const YAML_PIECES: &[&str] = &[
    "a:",
    "b:",
    "- ",
    "  ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    "&x",
    "*x",
    "!!str",
    "|",
    ">",
    "#",
    "'",
    "\"",
    "---",
    "...",
    "? ",
    "%YAML 1.2",
];

const TOML_PIECES: &[&str] = &[
    "[a]",
    "[[b]]",
    "a = ",
    "b.c = ",
    "\"",
    "'''",
    "\"\"\"",
    "{",
    "}",
    "[",
    "]",
    "1",
    "true",
    "1979-05-27",
    "#",
    ",",
    "=",
];

fn key() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,8}"
}

/// A value any structured editor can hold: strings (with odd characters), numbers, booleans.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        "\\PC{0,12}".prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ]
}

#[test]
fn robot_front_matter() {
    fuzz(
        "robot_front_matter",
        (
            text_of(ROBOT_PIECES, 40),
            proptest::collection::vec(key(), 0..6),
            "[a-z]{1,10}",
        ),
        |(noise, caps, gateway)| {
            let _ = robot::parse(&noise);
            let mut unique = caps.clone();
            unique.dedup();
            let mut text = String::from("---\nname: Lamp\ncapabilities:\n");
            for c in &caps {
                text.push_str(&format!("  {c}: yes\n"));
            }
            text.push_str(&format!("gateway:\n  default: {gateway}\n---\n{noise}"));
            let p = robot::parse(&text);
            prop_assert_eq!(&p.capabilities, &caps);
            prop_assert_eq!(p.gateway_default.map(|g| g.value), Some(gateway));
            Ok(())
        },
    );
}

#[test]
fn os_blocks() {
    fuzz(
        "os_blocks",
        (
            text_of(MD_PIECES, 40),
            "[a-zA-Z0-9 .,\n]{0,60}",
            "[a-zA-Z0-9 .,\n]{0,60}",
            any::<bool>(),
        ),
        |(text, body, other, crlf)| {
            let text = if crlf {
                text.replace('\n', "\r\n")
            } else {
                text
            };
            for (start, end) in [
                (OS_MARKER, "---"),
                (PERSONA_INLINE_START, PERSONA_INLINE_END),
            ] {
                let _ = mdblock::find_delimited(&text, start, end);
                let once = mdblock::upsert_top_delimited(&text, start, end, &body);
                let twice = mdblock::upsert_top_delimited(&once, start, end, &body);
                prop_assert_eq!(&once, &twice, "upsert is idempotent");
                prop_assert_eq!(
                    mdblock::find_delimited(&once, start, end).map(|r| r.start),
                    Some(0),
                    "the block is at the top"
                );
                let kept = mdblock::strip_delimited(&once, start, end);
                let kept_other = mdblock::strip_delimited(
                    &mdblock::upsert_top_delimited(&text, start, end, &other),
                    start,
                    end,
                );
                prop_assert_eq!(
                    &kept,
                    &kept_other,
                    "the owner's text does not depend on the body"
                );
                prop_assert!(mdblock::find_delimited(&kept, start, end).is_none());
            }
            let _ = mdblock::strip_block(&text, OS_MARKER);
            let _ = mdblock::upsert_top_block(&text, OS_MARKER, &body);
            Ok(())
        },
    );
}

#[test]
fn dotenv() {
    fuzz(
        "dotenv",
        (
            text_of(ENV_PIECES, 40),
            "[A-Z_][A-Z0-9_]{0,8}",
            "[^\n\r\0]{0,20}",
        ),
        |(text, k, v)| {
            if let Ok(mut env) = DotEnv::parse(&text, "/x/.env") {
                prop_assert_eq!(env.to_string(), text.clone(), "parsing is lossless");
                let v = v.trim_end_matches('\\').to_string();
                env.set(&k, &v).unwrap();
                prop_assert_eq!(env.get(&k), Some(v.clone()));
                let written = env.to_string();
                let mut again = DotEnv::parse(&written, "/x/.env").unwrap();
                prop_assert_eq!(again.get(&k), Some(v.clone()), "{}", written);
                prop_assert!(
                    !again.set(&k, &v).unwrap(),
                    "setting it again changes nothing"
                );
                prop_assert_eq!(again.to_string(), written);
            }
            Ok(())
        },
    );
}

#[test]
fn skill_metadata() {
    fuzz(
        "skill_metadata",
        (
            text_of(JSON_PIECES, 40),
            proptest::collection::btree_map("[a-z][a-z0-9-]{0,10}", "[0-9a-f]{12}", 0..5),
            any::<prop::sample::Index>(),
        ),
        |(noise, names, flip)| {
            let key = skills_support::test_key();
            let public = skills_support::public_key_b64(&key);
            let url = "http://127.0.0.1:1/os/ota/metadata.json";
            for k in [None, Some(public.as_str()), Some("not a key")] {
                let _ = osctl::skills::metadata::parse(noise.as_bytes(), url, k);
            }
            let payload = skills_support::metadata(&names);
            let plain = serde_json::to_vec(&payload).unwrap();
            let meta = osctl::skills::metadata::parse(&plain, url, None).unwrap();
            prop_assert_eq!(
                meta.skills.keys().cloned().collect::<Vec<_>>(),
                names.keys().cloned().collect::<Vec<_>>()
            );
            let signed = skills_support::signed_envelope(&payload, &key);
            let meta = osctl::skills::metadata::parse(&signed, url, Some(&public)).unwrap();
            prop_assert_eq!(meta.skills.len(), names.len());
            // One flipped byte inside the signed payload (base64) must not verify.
            let mut doc: Value = serde_json::from_slice(&signed).unwrap();
            let b64 = doc["signed"]["payload"].as_str().unwrap().to_string();
            let mut bytes = b64.into_bytes();
            let i = flip.index(bytes.len().saturating_sub(2).max(1));
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            doc["signed"]["payload"] = String::from_utf8(bytes).unwrap().into();
            let tampered = serde_json::to_vec(&doc).unwrap();
            prop_assert!(osctl::skills::metadata::parse(&tampered, url, Some(&public)).is_err());
            Ok(())
        },
    );
}

#[test]
fn config_json() {
    fuzz(
        "config_json",
        (
            text_of(JSON_PIECES, 40),
            proptest::collection::btree_map(key(), "\\PC{0,16}", 0..8),
        ),
        |(noise, fields)| {
            let path = DevPath::new("/root/config/config.json");
            let _ = DeviceConfig::parse(path.clone(), noise);
            let text = serde_json::to_string_pretty(&fields).unwrap();
            let c = DeviceConfig::parse(path, text.clone()).unwrap();
            for (k, v) in &fields {
                prop_assert_eq!(c.str(k), v.trim(), "str() trims");
                let line = c.line_of(k).expect("a line");
                let quoted = format!("\"{k}\"");
                let on_line = text.lines().nth(line - 1).unwrap_or("");
                prop_assert!(on_line.contains(&quoted), "{} is not on line {}", k, line);
            }
            Ok(())
        },
    );
}

#[test]
fn structured_editors() {
    fuzz(
        "structured_editors",
        (
            text_of(JSON_PIECES, 30),
            text_of(YAML_PIECES, 30),
            text_of(TOML_PIECES, 30),
            proptest::collection::vec(key(), 1..4),
            leaf(),
            proptest::collection::vec((proptest::collection::vec(key(), 1..4), leaf()), 0..6),
        ),
        |(json, yaml, toml, path, value, setup)| {
            let p: Vec<&str> = path.iter().map(String::as_str).collect();
            // Documents the editors built themselves, so the round trip also runs on documents
            // that parse (random noise rarely does).
            let mut built = (
                JsonDoc::new_object(),
                YamlDoc::new_empty(),
                TomlDoc::new_empty(),
            );
            for (sp, sv) in &setup {
                let sp: Vec<&str> = sp.iter().map(String::as_str).collect();
                built.0.set(&sp, sv.clone());
                let _ = built.1.set(&sp, sv.clone());
                let _ = built.2.set(&sp, sv.clone());
            }
            let json_built = built.0.to_string();
            let yaml_built = built.1.to_string();
            let toml_built = built.2.to_string();
            for (j, y, t) in [
                (&json, &yaml, &toml),
                (&json_built, &yaml_built, &toml_built),
            ] {
                editors_round_trip(j, y, t, &p, &value)?;
            }
            Ok(())
        },
    );
}

fn editors_round_trip(
    json: &str,
    yaml: &str,
    toml: &str,
    p: &[&str],
    value: &Value,
) -> Result<(), TestCaseError> {
    let p = p.to_vec();
    let value = value.clone();
    if let Ok(mut d) = JsonDoc::parse(json, "/x.json")
        && d.value().is_object()
    {
        d.set(&p, value.clone());
        let _ = d.get(&p).unwrap();
        let again = JsonDoc::parse(&d.to_string(), "/x.json").unwrap();
        prop_assert_eq!(again.get(&p), Some(value.clone()), "{}", d.to_string());
        let mut again = again;
        prop_assert!(
            !again.set(&p, value.clone()),
            "setting it again changes nothing"
        );
    }
    if let Ok(mut d) = YamlDoc::parse(yaml, "/x.yaml")
        && d.set(&p, value.clone()).is_ok()
    {
        let written = d.to_string();
        let mut again = YamlDoc::parse(&written, "/x.yaml").unwrap();
        prop_assert_eq!(again.get(&p), Some(value.clone()), "{}", written);
        prop_assert!(!again.set(&p, value.clone()).unwrap());
    }
    if let Ok(mut d) = TomlDoc::parse(toml, "/x.toml")
        && d.set(&p, value.clone()).is_ok()
    {
        let written = d.to_string();
        let mut again = TomlDoc::parse(&written, "/x.toml").unwrap();
        prop_assert_eq!(again.get(&p), Some(value.clone()), "{}", written);
        prop_assert!(!again.set(&p, value.clone()).unwrap());
    }
    Ok(())
}

#[test]
fn small_readers() {
    fuzz(
        "small_readers",
        (
            proptest::collection::vec(any::<u8>(), 0..512),
            text_of(JSON_PIECES, 30),
        ),
        |(bytes, text)| {
            let path = DevPath::new("/root/config/agent_state.json");
            let _ = osctl::device::state::AgentState::parse(&text, &path);
            let _ = osctl::skills::archive::unpack(&bytes, 1 << 20);
            let mut zipish = b"PK\x03\x04".to_vec();
            zipish.extend_from_slice(&bytes);
            let _ = osctl::skills::archive::unpack(&zipish, 1 << 20);
            let _ = osctl::skills::package::scan("a/b.md", &bytes);
            let _ = osctl::skills::package::scan("a/b.md", text.as_bytes());
            Ok(())
        },
    );
}
