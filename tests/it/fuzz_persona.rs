//! Fuzz targets for the persona parsers, as proptest harnesses.
//!
//! cargo-fuzz needs a nightly toolchain, which the build machines cannot install (rustup has
//! the stable toolchain only and no network to fetch another), so the three targets the issue
//! names run here as property tests over arbitrary input, with proptest's shrinking:
//!
//! - `entry_parser`: parse_entries on any text never panics, and its output is stable: entries
//!   are trimmed, non-empty, and written back in either format they read back the same;
//! - `identity_parser`: parse_identity_lines and set_identity_field on any text never panic; a
//!   set field reads back, and setting it again changes nothing;
//! - `user_form_merge`: the USER.md form merge on any entries never panics, never blanks a filled
//!   field, lets a filled incoming value win, and leaves one entry per filled field;
//! - `outline_parser`: the located parser the USER.md form is edited with reads any Markdown text
//!   as the entry parser does, and every entry's place holds that entry;
//! - `stock_soul_detection`: telling a stock default soul on any text never panics, and what it
//!   finds is the opening of the text, the rest its remainder.
//!
//! By default each target runs a bounded number of cases (256), so `cargo test` and CI stay
//! quick; `OSCTL_FUZZ_CASES=100000 cargo test --release --test it fuzz_persona::` runs a long session.

use proptest::prelude::*;

use osctl::persona::entries::{
    DELIMITER, canonical_list, dedupe, normalize, outline, parse_entries, serialize,
};
use osctl::persona::identity::{parse_identity_lines, set_identity_field};
use osctl::persona::rebrand::{Brand, rebrand};
use osctl::persona::souls::{STOCK_SOULS, managed_default};
use osctl::persona::user_profile::{FIELDS, apply_fields, field_of, merge_fields, partition};
use osctl::runtime::{EntryFormat, RuntimeId};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("OSCTL_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Arbitrary text biased towards what the parsers look at: line breaks, `§`, fences, headings,
/// bullets, bold markers, comments, tables, CRs, tabs, multi-byte and odd whitespace.
fn text() -> impl Strategy<Value = String> {
    pieces(40)
}

fn pieces(max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "\\PC{0,8}",
        3 => "[a-zA-Z0-9 ]{0,12}",
        2 => Just("\n".to_string()),
        1 => Just("\n§\n".to_string()),
        1 => Just("§".to_string()),
        1 => Just("```".to_string()),
        1 => Just("# ".to_string()),
        1 => Just("###### ".to_string()),
        1 => Just("- ".to_string()),
        1 => Just("* ".to_string()),
        1 => Just("1. ".to_string()),
        1 => Just("**".to_string()),
        1 => Just(":**".to_string()),
        1 => Just("_(".to_string()),
        1 => Just(")_".to_string()),
        1 => Just("<!--".to_string()),
        1 => Just("-->".to_string()),
        1 => Just("|".to_string()),
        1 => Just("\r".to_string()),
        1 => Just("\t".to_string()),
        1 => Just("\u{b}".to_string()),
        1 => Just("\u{a0}".to_string()),
        1 => Just("\u{2028}".to_string()),
        1 => Just("ĐÊN İ ß 💡".to_string()),
        1 => Just("MEMORY.md".to_string()),
        1 => Just("OpenClaw".to_string()),
        1 => Just("hermes".to_string()),
    ];
    prop::collection::vec(piece, 0..max).prop_map(|p| p.concat())
}

/// USER.md entries: field-shaped ones (filled, blank, placeholder, odd case and spacing) and
/// arbitrary short text.
fn user_entry() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => "\\*\\*( ?)(Name|name|NAME|What to call them|Pronouns|Timezone|Notes)( ?):\\*\\*[ \t]?(|[a-zA-Zé ]{1,8}|_\\([a-z]{0,4}\\)_|\\*\\([a-z]{0,4}\\)\\*)",
        1 => pieces(8),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn entry_parser(input in text()) {
        let entries = parse_entries(&input);
        for e in &entries {
            prop_assert!(!e.is_empty());
            prop_assert_eq!(e.trim(), e.as_str());
        }
        for format in [EntryFormat::Bullets, EntryFormat::Sections] {
            let canon = canonical_list(entries.clone(), format);
            let written = serialize(&canon, format);
            prop_assert_eq!(parse_entries(&written), canon.clone(), "{:?} -> {:?}", format, written);
            let before: Vec<String> = entries.iter().map(|e| normalize(e)).collect();
            for c in &canon {
                prop_assert!(before.contains(&normalize(c)), "canonical form changed a key");
            }
        }
        let _ = rebrand(&input, &[Brand::OpenClaw, Brand::Hermes, Brand::ClaudeCode], "Open Code");
    }

    #[test]
    fn identity_parser(
        content in text(),
        name in "[A-Za-z][A-Za-z ]{0,10}[A-Za-z]",
        value in "[^\n\r_ \t]([^\n\r]{0,20}[^\n\r \t])?",
    ) {
        let _ = parse_identity_lines(&content);
        prop_assume!(!value.trim().is_empty());
        let once = set_identity_field(&content, &name, &value);
        let twice = set_identity_field(&once, &name, &value);
        prop_assert_eq!(&twice, &once, "setting a field twice changed the file");
        // The field reads back unless the line it landed in is not a field line (upstream
        // replaces from the first `**name:**` anywhere in a line, keeping what stands before).
        let line = once.lines().find(|l| l.to_lowercase().contains(&format!("**{}:**", name.to_lowercase())));
        prop_assert!(line.is_some(), "field not written: {once:?}");
        if line.unwrap().trim() == format!("- **{name}:** {value}").trim() {
            let fields = parse_identity_lines(line.unwrap());
            prop_assert!(fields.iter().any(|f| f.name == name && f.value == value.trim()), "{fields:?}");
        }
    }

    #[test]
    fn user_form_merge(
        existing in prop::collection::vec(user_entry(), 0..12),
        incoming in prop::collection::vec(user_entry(), 0..12),
    ) {
        let (ex, _) = partition(&existing);
        let (inc, rest) = partition(&incoming);
        prop_assert!(rest.iter().all(|e| field_of(e).is_none()));
        let fields = merge_fields(&ex, &inc);
        for i in 0..FIELDS.len() {
            match (&ex[i], &inc[i]) {
                (_, Some(v)) => prop_assert_eq!(fields[i].as_ref(), Some(v)),
                (Some(v), None) => prop_assert_eq!(fields[i].as_ref(), Some(v), "a filled field was blanked"),
                (None, None) => prop_assert!(fields[i].is_none()),
            }
        }
        let out = apply_fields(&existing, &fields);
        for (i, value) in fields.iter().enumerate() {
            let Some(value) = value else { continue };
            let copies: Vec<&String> = out.iter().filter(|e| field_of(e) == Some(i)).collect();
            prop_assert_eq!(copies.len(), 1, "field {} has {} entries", FIELDS[i], copies.len());
            prop_assert_eq!(copies[0], &format!("**{}:** {value}", FIELDS[i]));
        }
        // Everything that is not a filled field's entry stays, in order.
        let kept: Vec<&String> = existing
            .iter()
            .filter(|e| field_of(e).is_none_or(|i| fields[i].is_none()))
            .collect();
        let out_kept: Vec<&String> = out
            .iter()
            .filter(|e| field_of(e).is_none_or(|i| fields[i].is_none()))
            .collect();
        prop_assert_eq!(kept, out_kept);
        prop_assert_eq!(apply_fields(&out, &fields), out.clone(), "applying twice changed it");
    }

    #[test]
    fn outline_parser(input in text()) {
        // A text with the separator is hermes' format, which the outline is not for.
        let mut input = input;
        while input.contains(DELIMITER) {
            input = input.replace(DELIMITER, "\n");
        }
        let shape = outline(&input);
        let texts: Vec<String> = shape.entries.iter().map(|e| e.text.clone()).collect();
        prop_assert_eq!(dedupe(texts), parse_entries(&input));
        let lines: Vec<&str> = input.split('\n').collect();
        for e in &shape.entries {
            prop_assert!(e.span.first <= e.span.last && e.span.last < lines.len(), "{:?}", e);
            prop_assert!(e.section < shape.sections.len());
            if let Some(at) = e.span.bullet_at {
                let content = lines[e.span.first][at..].trim_end();
                prop_assert!(e.text.ends_with(content), "{:?} at {at} in {:?}", e, lines[e.span.first]);
            }
        }
    }

    #[test]
    fn stock_soul_detection(
        input in text(),
        stock in prop::sample::select(STOCK_SOULS.to_vec()),
        tail in text(),
        rt in prop::sample::select(RuntimeId::ALL.to_vec()),
    ) {
        for text in [input.clone(), format!("{}\n{tail}", stock.text)] {
            if let Some(d) = managed_default(&text, rt, Some(&input)) {
                prop_assert!(text.ends_with(d.rest));
                let head = &text[..text.len() - d.rest.len()];
                prop_assert_eq!(head.trim_start(), d.text);
            }
        }
        // a stock soul with anything after it is found, and what follows is kept
        let text = format!("{}\n\n{tail}", stock.text);
        let d = managed_default(&text, rt, None);
        prop_assert!(d.is_some() || stock.text.lines().all(|l| l.trim().is_empty() || l.starts_with('#')));
    }
}
