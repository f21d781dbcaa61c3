//! Rooms a reader can hold (issue 28): no `.rs` file under `src/` or `tests/` is over
//! [`MAX_LINES`] lines, unit tests counted only where they sit in the same file. A file that
//! grows past it is split by what each part owns (a folder module, its unit tests in a
//! `tests.rs` sibling where they outweigh the code), not waved through.
//!
//! The files still over the limit are listed in [`SHRINKING`], each with its line count when
//! it was listed as its maximum: a ratchet. One of them may shrink but never grow, and once it is
//! at or under the limit (or split into a folder) its entry must go, so it cannot grow back.

use std::path::Path;

/// The most lines a source file may have.
const MAX_LINES: usize = 800;

/// Files over the limit that are being split now, each with its most lines (its count when it
/// was listed): they may only shrink.
/// Empty since the last three test files were split (issue 28); kept for the next split.
const SHRINKING: &[(&str, usize)] = &[];

/// Every `.rs` file under `src/` and `tests/` (relative, `/`-separated) with its line count.
fn line_counts(root: &Path) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for top in ["src", "tests"] {
        for entry in walkdir::WalkDir::new(root.join(top)).sort_by_file_name() {
            let entry = entry.unwrap();
            let path = entry.path();
            if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(path).unwrap();
            out.push((rel, text.lines().count()));
        }
    }
    out
}

/// What is wrong with `counts` against the limit and the ratchet, one line per file.
fn faults(counts: &[(String, usize)], shrinking: &[(&str, usize)]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, lines) in counts {
        match shrinking.iter().find(|(f, _)| f == file) {
            Some((_, most)) if lines > most => out.push(format!(
                "{file}: {lines} lines, more than the {most} it had when it was listed as \
                 shrinking: it may only shrink"
            )),
            Some(_) if *lines <= MAX_LINES => out.push(format!(
                "{file}: {lines} lines, within {MAX_LINES}: remove it from SHRINKING so it \
                 cannot grow back"
            )),
            Some(_) => {}
            None if *lines > MAX_LINES => out.push(format!(
                "{file}: {lines} lines, over {MAX_LINES}: split it by what each part owns \
                 (a folder module; unit tests in a tests.rs sibling where they outweigh the code)"
            )),
            None => {}
        }
    }
    for (file, _) in shrinking {
        if !counts.iter().any(|(f, _)| f == file) {
            out.push(format!(
                "{file}: listed in SHRINKING but gone (split or moved): remove its entry"
            ));
        }
    }
    out
}

#[test]
fn no_source_file_is_over_800_lines_and_the_listed_ones_only_shrink() {
    let counts = line_counts(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        counts.iter().any(|(f, _)| f == "src/lib.rs"),
        "the walk found osctl's sources"
    );
    let faults = faults(&counts, SHRINKING);
    assert!(faults.is_empty(), "files too long: {faults:#?}");
}

/// The rule itself, on made-up counts: each way a file can break it is caught, and a file that
/// keeps it is not.
#[test]
fn the_check_catches_a_long_file_a_growing_one_and_a_stale_entry() {
    let counts = |v: &[(&str, usize)]| -> Vec<(String, usize)> {
        v.iter().map(|(f, n)| (f.to_string(), *n)).collect()
    };
    let shrinking = &[("src/big.rs", 900)];
    assert!(
        faults(
            &counts(&[("src/a.rs", 800), ("src/big.rs", 900)]),
            shrinking
        )
        .is_empty()
    );
    assert!(faults(&counts(&[("src/big.rs", 850)]), shrinking).is_empty());

    let long = faults(
        &counts(&[("src/a.rs", 801), ("src/big.rs", 900)]),
        shrinking,
    );
    assert!(
        long.len() == 1 && long[0].starts_with("src/a.rs: 801 lines, over 800"),
        "{long:?}"
    );
    let grew = faults(&counts(&[("src/big.rs", 901)]), shrinking);
    assert!(
        grew.len() == 1 && grew[0].contains("may only shrink"),
        "{grew:?}"
    );
    let within = faults(&counts(&[("src/big.rs", 800)]), shrinking);
    assert!(
        within.len() == 1 && within[0].contains("remove it from SHRINKING"),
        "{within:?}"
    );
    let gone = faults(&counts(&[("src/big/mod.rs", 300)]), shrinking);
    assert!(gone.len() == 1 && gone[0].contains("gone"), "{gone:?}");
}
