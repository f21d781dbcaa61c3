//! The layers, as the code's own imports draw them: every `crate::<module>` a module of `src/`
//! names (comments and test modules left out) is an arrow, and arrows may only point down:
//!
//! ```text
//! the command line   cli, commands            parse, complete, render, exit code
//! features           channel, device, doctor, mcp, persona, presync, reconcile, reset,
//!                    runtime, setup, skills, status, switch
//! apply              apply                    the only writer: journal, lock, atomic writes
//! planning (pure)    plan, format             drafts, diffs, format-preserving editors
//! system             system                   the only door to the outside
//! leaves             error, path, output, redact, fault
//! ```
//!
//! A run flows commands → features → planning → apply → system; in imports, `apply` sits above
//! the planning it carries out (it reads a plan's types, a planner never calls it), so a plan
//! cannot write, and planning reads the device only through `system`.
//!
//! Within a layer, arrows are allowed but may not go round in a circle, except in the group
//! [`KNOWN_CIRCLES`] names: the features' (a runtime folder implements its hooks with the
//! feature frameworks, and the features reach a runtime through the registry). That circle may
//! only shrink: a module that leaves it is removed from the list here. (The command line's
//! circle, cli <-> commands, closed when the TAB completers moved into `cli::complete`.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const LAYERS: &[&[&str]] = &[
    &["cli", "commands", "lib", "main"],
    &[
        "channel",
        "device",
        "doctor",
        "mcp",
        "persona",
        "presync",
        "reconcile",
        "reset",
        "runtime",
        "setup",
        "skills",
        "status",
        "switch",
    ],
    &["apply"],
    &["plan", "format"],
    &["system"],
    &["error", "path", "output", "redact", "fault"],
];

/// The circles that remain (each sorted); see the module comment.
const KNOWN_CIRCLES: &[&[&str]] = &[&["device", "persona", "runtime"]];

/// `module -> module -> files that make the arrow`, from the source.
fn arrows() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if !entry.file_type().is_file()
            || path.extension().is_none_or(|e| e != "rs")
            || path.file_name().is_some_and(|n| n == "tests.rs")
        {
            continue;
        }
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let from = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let text = std::fs::read_to_string(path).unwrap();
        for line in code_lines(&text) {
            let mut rest = line;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                // `crate::clock` is the system clock's short name.
                let to = if name == "clock" {
                    "system".into()
                } else {
                    name
                };
                if !to.is_empty() && to != from {
                    out.entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_default()
                        .insert(rel.clone());
                }
            }
        }
    }
    out
}

/// The lines of shipped code: comments dropped, and everything from the test module on (clippy's
/// `items_after_test_module` keeps it last).
fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t == "#[cfg(test)]"
            && lines[i + 1..]
                .iter()
                .map(|l| l.trim_start())
                .find(|l| !l.starts_with("#["))
                .is_some_and(|l| l.starts_with("mod "))
        {
            break;
        }
        if !t.starts_with("//") {
            out.push(*line);
        }
    }
    out
}

fn layer_of(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&module))
        .unwrap_or_else(|| panic!("src/{module} is in no layer of tests/it/layers.rs: add it"))
}

/// The module graph in Graphviz's language, one rank per layer, each arrow labelled with how
/// many files make it: `OSCTL_IMPORT_GRAPH=FILE cargo test --test it layers::` writes it (then
/// `dot -Tsvg FILE`), so anyone can look at the layers the checks below hold.
fn dot(arrows: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> String {
    let mut out = String::from("digraph osctl {\n  rankdir=TB;\n  node [shape=box];\n");
    for (i, layer) in LAYERS.iter().enumerate() {
        let names: Vec<String> = layer.iter().map(|m| format!("\"{m}\"")).collect();
        out.push_str(&format!(
            "  subgraph layer{i} {{ rank=same; {}; }}\n",
            names.join("; ")
        ));
    }
    for (from, tos) in arrows {
        for (to, files) in tos {
            out.push_str(&format!(
                "  \"{from}\" -> \"{to}\" [label=\"{}\"];\n",
                files.len()
            ));
        }
    }
    out.push_str("}\n");
    out
}

#[test]
fn arrows_point_down() {
    if let Ok(file) = std::env::var("OSCTL_IMPORT_GRAPH") {
        std::fs::write(&file, dot(&arrows())).unwrap();
    }
    let mut up = Vec::new();
    for (from, tos) in arrows() {
        for (to, files) in tos {
            if layer_of(&to) < layer_of(&from) {
                up.push(format!("{from} -> {to} (in {files:?})"));
            }
        }
    }
    assert!(
        up.is_empty(),
        "imports that point up a layer (move the item down, or pass it in): {up:#?}"
    );
}

/// Tarjan's strongly connected components of more than one module, each sorted.
fn circles(arrows: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        arrows: &'a BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        found: Vec<Vec<String>>,
    }
    fn visit(w: &mut Walk<'_>, v: &str) {
        let n = w.index.len();
        w.index.insert(v.into(), n);
        w.low.insert(v.into(), n);
        w.stack.push(v.into());
        let next: Vec<String> = w
            .arrows
            .get(v)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        for t in next {
            if !w.index.contains_key(&t) {
                visit(w, &t);
                let l = w.low[&t].min(w.low[v]);
                w.low.insert(v.into(), l);
            } else if w.stack.contains(&t) {
                let l = w.index[&t].min(w.low[v]);
                w.low.insert(v.into(), l);
            }
        }
        if w.low[v] == w.index[v] {
            let mut group = Vec::new();
            loop {
                let t = w.stack.pop().unwrap();
                let done = t == v;
                group.push(t);
                if done {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                w.found.push(group);
            }
        }
    }
    let mut w = Walk {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in arrows.keys() {
        if !w.index.contains_key(v) {
            visit(&mut w, v);
        }
    }
    w.found.sort();
    w.found
}

#[test]
fn no_circles_but_the_known_ones() {
    let found = circles(&arrows());
    let mut known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    known.sort();
    assert_eq!(
        found, known,
        "the import circles changed: a new one must be broken (move the shared item down a \
         layer); one that shrank is lowered in KNOWN_CIRCLES"
    );
}

/// The check can fail: a made-up arrow up a layer and a made-up circle are both seen.
#[test]
fn the_checks_see_an_arrow_up_and_a_circle() {
    let mut a = arrows();
    a.entry("path".into())
        .or_default()
        .entry("plan".into())
        .or_default()
        .insert("made-up".into());
    assert!(layer_of("plan") < layer_of("path"));
    a.entry("format".into())
        .or_default()
        .entry("plan".into())
        .or_default()
        .insert("made-up".into());
    assert!(
        circles(&a)
            .iter()
            .any(|c| c.contains(&"format".to_string()) && c.contains(&"plan".to_string()))
    );
}
