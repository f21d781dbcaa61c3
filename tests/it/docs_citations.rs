//! The code's citations of the device contract resolve: every `docs/device-contract.md §N` in a
//! Rust source of `src/` or `tests/` names a section that has a heading in that document (`## 2.
//! ...`, `### 2.2 ...`), and a cited `item K` / `step K` (`§10 item 4`, `§2.2 step 5`, `§10
//! items 1 to 3 and 6`) is a numbered line of that section. No comment may still cite the
//! external document the contract used to live in, in its old form (the word `spec` followed by
//! `section N`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const DOC: &str = "docs/device-contract.md";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The section number a Markdown heading line starts with: `### 2.2 hermes` → `2.2`.
fn heading_id(line: &str) -> Option<String> {
    let rest = line.strip_prefix('#')?.trim_start_matches('#');
    if !rest.starts_with(' ') {
        return None;
    }
    let id: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let id = id.trim_end_matches('.');
    (!id.is_empty()).then(|| id.to_string())
}

/// The document's numbered sections: id → the lines from its heading to the next heading.
fn sections(doc: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut fence = false;
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        if !fence && line.starts_with('#') {
            current = heading_id(line);
            if let Some(id) = &current {
                assert!(
                    out.insert(id.clone(), Vec::new()).is_none(),
                    "{DOC}: section {id} has two headings"
                );
            }
            continue;
        }
        if let Some(id) = &current {
            out.get_mut(id).unwrap().push(line.to_string());
        }
    }
    out
}

/// Whether section `body` has a numbered line `k.` (a list item or step).
fn has_item(body: &[String], k: u32) -> bool {
    let want = format!("{k}. ");
    body.iter().any(|l| l.trim_start().starts_with(&want))
}

/// Every `.rs` file under `src/` and `tests/` (this one too: its examples are in backticks
/// that the scan below reads like any other citation, so they must resolve as well).
fn sources() -> Vec<PathBuf> {
    let root = repo();
    let mut out = Vec::new();
    for dir in ["src", "tests"] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "rs") {
                out.push(entry.into_path());
            }
        }
    }
    out.sort();
    assert!(out.len() > 50, "found only {} Rust files", out.len());
    out
}

/// The text with comment markers dropped and lines joined by spaces, so a citation that wraps
/// (`§10` at the end of one comment line, `item 4` on the next) reads as one phrase.
fn flatten(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let l = line.trim_start();
        let l = l
            .strip_prefix("//!")
            .or_else(|| l.strip_prefix("///"))
            .or_else(|| l.strip_prefix("//"))
            .unwrap_or(l);
        out.push_str(l.trim());
        out.push(' ');
    }
    out
}

/// A section number, and the item or step numbers cited after it.
#[derive(Debug)]
struct Citation {
    section: String,
    items: Vec<u32>,
}

fn number(s: &str) -> (Option<u32>, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (s[..end].parse().ok(), &s[end..])
}

/// Every `§N` in `flat` followed by a digit, with what follows it: `item(s)`/`step(s)` and their
/// numbers (`K`, `K and L`, `K, L`, `K to M`).
fn citations(flat: &str) -> Vec<Citation> {
    let mut out = Vec::new();
    for (at, _) in flat.match_indices('§') {
        let rest = &flat[at + '§'.len_utf8()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let section = rest[..end].trim_end_matches('.');
        if section.is_empty() || !section.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let mut items = Vec::new();
        let after = rest[end..].trim_start_matches([',', ' ']);
        let listed = ["items ", "item ", "steps ", "step "]
            .iter()
            .find_map(|w| after.strip_prefix(w));
        if let Some(mut s) = listed {
            loop {
                let (n, tail) = number(s.trim_start());
                let Some(n) = n else { break };
                items.push(n);
                let tail = tail.trim_start();
                if let Some(t) = tail.strip_prefix("to ") {
                    let (m, t2) = number(t.trim_start());
                    if let Some(m) = m {
                        items.extend(n + 1..=m);
                        s = t2;
                    } else {
                        break;
                    }
                } else {
                    s = tail;
                }
                let t = s.trim_start();
                s = match t.strip_prefix("and ").or_else(|| t.strip_prefix(',')) {
                    Some(t) => t,
                    None => break,
                };
            }
        }
        out.push(Citation {
            section: section.to_string(),
            items,
        });
    }
    out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn the_contract_has_its_ten_sections() {
    let doc = std::fs::read_to_string(repo().join(DOC)).unwrap();
    let s = sections(&doc);
    for n in 1..=10 {
        assert!(
            s.contains_key(&n.to_string()),
            "{DOC} has no `## {n}.` heading"
        );
    }
}

#[test]
fn every_citation_lands_on_a_section_of_the_contract() {
    let doc = std::fs::read_to_string(repo().join(DOC)).unwrap();
    let sections = sections(&doc);
    let mut failures = Vec::new();
    let mut count = 0;
    for path in sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        for c in citations(&flatten(&text)) {
            count += 1;
            let Some(body) = sections.get(&c.section) else {
                failures.push(format!(
                    "{}: §{} has no heading in {DOC}",
                    rel(&path),
                    c.section
                ));
                continue;
            };
            for k in &c.items {
                if !has_item(body, *k) {
                    failures.push(format!(
                        "{}: §{} has no numbered line {k}. in {DOC}",
                        rel(&path),
                        c.section
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        count > 50,
        "found only {count} citations: is the scan broken?"
    );
}

#[test]
fn no_comment_cites_the_external_contract() {
    // Built at run time, so this file does not match itself.
    let old = ["spec", "section"].join(" ");
    let external = ["DEVICE", "CONTRACT"].join("-");
    let mut failures = Vec::new();
    for path in sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.to_lowercase().contains(&old) || line.contains(&external) {
                failures.push(format!("{}:{}: {}", rel(&path), i + 1, line.trim()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "cite {DOC} §N instead of the external document:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_scan_reads_citations_as_written() {
    let flat = flatten(
        "//! (docs/device-contract.md §4 and §10 items 1 to 3 and 6), §2.2 step 5, §10\n\
         //! item 4, §7.1. `§` alone",
    );
    let got: Vec<(String, Vec<u32>)> = citations(&flat)
        .into_iter()
        .map(|c| (c.section, c.items))
        .collect();
    let want: Vec<(String, Vec<u32>)> = vec![
        ("4".into(), vec![]),
        ("10".into(), vec![1, 2, 3, 6]),
        ("2.2".into(), vec![5]),
        ("10".into(), vec![4]),
        ("7.1".into(), vec![]),
    ];
    assert_eq!(got, want);
    assert_eq!(heading_id("### 2.2 hermes"), Some("2.2".into()));
    assert_eq!(heading_id("## 10. osctl decisions"), Some("10".into()));
    assert_eq!(heading_id("#### Notes"), None);
}
