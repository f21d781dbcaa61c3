//! A runtime is one folder (`src/runtime/<rt>/`) and one registry line: no other source file
//! names a runtime (issue #18). This test walks `src/` outside `src/runtime/` and counts, per
//! file:
//!
//! - the runtimes' names as whole words, in any case, in code, string literals and comments
//!   alike (a comment naming a runtime is knowledge of it outside its folder too); a use of a
//!   specific variant (`RuntimeId::Hermes`) is one such hit;
//! - the runtime-specific file names: the base names of the registry's native and MCP files that
//!   belong to one runtime only (`openclaw.json`, `config.toml`, ...; a name two runtimes share,
//!   and `config.json`, which is also the device's own config, are not specific).
//!
//! `tests/runtime_names.allow` holds the counts as they are (`path count` lines, sorted). It is a
//! ratchet: a new file or a higher count fails (reach the runtime through its `Runtime` fields and
//! hooks instead), and a lower count fails too until the allowlist is lowered, so the file stays
//! exact and a name, once gone, cannot come back unnoticed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use osctl::runtime::REGISTRY;

const ALLOWLIST: &str = "tests/runtime_names.allow";

#[test]
fn runtime_names_stay_in_their_folders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let got = count_tree(root);
    let allowed = parse_allowlist(&std::fs::read_to_string(root.join(ALLOWLIST)).unwrap());
    let mut problems = Vec::new();
    for (path, &n) in &got {
        match allowed.get(path) {
            None => problems.push(format!(
                "{path}: {n} new runtime-name hits in a file the allowlist does not list"
            )),
            Some(&a) if n > a => problems.push(format!("{path}: {n} hits, {a} allowed")),
            Some(&a) if n < a => problems.push(format!(
                "{path}: {n} hits, {a} allowed: lower the allowlist to {n}"
            )),
            Some(_) => {}
        }
    }
    for (path, a) in &allowed {
        if !got.contains_key(path) {
            problems.push(format!(
                "{path}: no hits left, {a} allowed: lower the allowlist (remove the line)"
            ));
        }
    }
    let total: usize = got.values().sum();
    assert!(
        problems.is_empty(),
        "runtime names outside src/runtime/ ({total} hits):\n  {}\n\n{ALLOWLIST} as it would be now:\n{}",
        problems.join("\n  "),
        render(&got)
    );
}

#[test]
fn the_counter_finds_each_kind_of_hit() {
    let names = Names::from_registry();
    let text = "let a = RuntimeId::Hermes; // hermes' `config.toml`\n\
                let b = \"Codex\"; let c = openclaw_layout; xhermes; picoclaw-imports; \
                my.config.toml; a/.mcp.json";
    // RuntimeId::Hermes, hermes, config.toml, Codex, picoclaw, .mcp.json
    assert_eq!(names.count(text), 6);
}

/// What counts as a hit.
struct Names {
    runtimes: Vec<&'static str>,
    files: Vec<&'static str>,
}

impl Names {
    fn from_registry() -> Names {
        let mut owners: BTreeMap<&'static str, BTreeSet<&'static str>> = BTreeMap::new();
        for rt in REGISTRY {
            let locs = rt.native.iter().map(|f| f.loc).chain([rt.mcp.file]);
            for loc in locs {
                let base = loc.rel.rsplit('/').next().unwrap_or(loc.rel);
                owners.entry(base).or_default().insert(rt.name);
            }
        }
        Names {
            runtimes: REGISTRY.iter().map(|r| r.name).collect(),
            files: owners
                .into_iter()
                .filter(|(base, rts)| rts.len() == 1 && *base != "config.json")
                .map(|(base, _)| base)
                .collect(),
        }
    }

    fn count(&self, text: &str) -> usize {
        let lower = text.to_ascii_lowercase();
        let mut hits = 0;
        for name in &self.runtimes {
            hits += whole_word(&lower, name, |b| b.is_ascii_alphanumeric() || b == b'_').count();
        }
        // `my.config.toml` is another file.
        let in_file_name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
        for file in &self.files {
            hits += whole_word(text, file, in_file_name).count();
        }
        hits
    }
}

/// Where `word` occurs in `text` with no byte of `is_word` right before or after it.
fn whole_word<'t>(
    text: &'t str,
    word: &'t str,
    is_word: impl Fn(u8) -> bool + 't,
) -> impl Iterator<Item = usize> + 't {
    let bytes = text.as_bytes();
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let end = at + word.len();
            (at == 0 || !is_word(bytes[at - 1])) && (end == bytes.len() || !is_word(bytes[end]))
        })
}

/// Hits per file (paths relative to the crate, `/`-separated), files with none left out.
fn count_tree(root: &Path) -> BTreeMap<String, usize> {
    let names = Names::from_registry();
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("src/runtime/") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let n = names.count(&text);
        if n > 0 {
            out.insert(rel, n);
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn parse_allowlist(text: &str) -> BTreeMap<String, usize> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (path, n) = l.rsplit_once(' ').expect("`path count` lines");
            (path.trim().to_string(), n.parse().expect("a count"))
        })
        .collect()
}

fn render(counts: &BTreeMap<String, usize>) -> String {
    let mut s = String::from(
        "# Runtime-name hits outside src/runtime/, per file (tests/it/runtime_names.rs). It may only\n\
         # shrink: reach a runtime through its Runtime fields and hooks, then lower the count.\n",
    );
    for (path, n) in counts {
        s.push_str(&format!("{path} {n}\n"));
    }
    s
}
