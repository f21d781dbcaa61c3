//! Format-preserving editors for the files osctl shares with people and runtimes.
//!
//! "Users' files are sacred." Every file osctl edits but does not own (a runtime's config, its
//! `.env`, a persona file) goes through one of these editors, never through a serialiser:
//!
//! - an edit touches only the lines it must; comments, blank lines, key order, quoting and every
//!   key osctl does not own survive;
//! - setting a value equal to the current one changes nothing: the text stays byte-identical and
//!   the editor reports "no change" (`false`), so an empty plan stays empty;
//! - what cannot be parsed is refused with a `parse_error` naming the file and line, never
//!   rewritten.
//!
//! Values are exchanged as [`serde_json::Value`] in every structured editor, and paths are slices
//! of map keys from the document root, so callers use one value type whatever the file format.
//!
//! | module | files | built on | owns |
//! |---|---|---|---|
//! | [`json`] | JSON, JSONC, the JSON5 subset openclaw files use | jsonc-parser's CST | only the values at the paths it is asked to set or remove |
//! | [`yaml`] | hermes `config.yaml` | yaml-edit (edits) + serde-saphyr (reads, re-validation) | same; strings PyYAML 1.1 would misread are written double-quoted |
//! | [`toml`] | codex `config.toml` | toml_edit, its edits carried over to the text as written | same; inline comments of replaced values are kept |
//! | [`dotenv`] | `.env` files (systemd `EnvironmentFile=`, python-dotenv, sh) | a line editor of our own | the assignments of the keys it sets |
//! | [`mdblock`] | SOUL.md, AGENTS.md, HEARTBEAT.md | plain string functions | the OS-managed blocks between markers |
//!
//! Why these crates: serde round trips delete comments and reorder keys, so they are used only
//! for reading. jsonc-parser's CST keeps `//` and `/* */` comments, trailing commas and
//! indentation; yaml-edit keeps the YAML source losslessly, and serde-saphyr re-parses every
//! edited YAML document before it can be written; toml_edit is cargo's own format-preserving
//! editor. No maintained crate edits `.env` files while keeping their layout, and the Markdown
//! blocks are a contract of the device OS (marker lines), not Markdown syntax.

mod carry;
pub mod doc;
pub mod dotenv;
pub mod json;
pub(crate) mod linediff;
pub mod mdblock;
pub mod toml;
pub mod yaml;

/// File formats osctl reads and edits (each runtime's `SPEC` says which of its files has which).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Strict JSON.
    Json,
    /// JSON with comments and trailing commas.
    Jsonc,
    /// JSON5: osctl edits what JSONC can carry and refuses the rest.
    Json5,
    Yaml,
    Toml,
    DotEnv,
    Markdown,
}

/// 1-based line and column (in characters) of `offset` in `text`.
///
/// Offsets past the end (or inside a character) are clamped to the nearest preceding boundary.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// `text` uses CRLF line endings throughout: it has at least one line break and every `\n` is
/// preceded by `\r`. Editors that insert lines then insert CRLF lines.
pub(crate) fn is_crlf(text: &str) -> bool {
    let lf = text.matches('\n').count();
    lf > 0 && lf == text.matches("\r\n").count()
}

/// The path as shown in messages: `a.b.c` (the root is `.`).
pub(crate) fn show_path(path: &[&str]) -> String {
    if path.is_empty() {
        ".".to_string()
    } else {
        path.join(".")
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use similar::{ChangeTag, TextDiff};

    /// The lines a change removed and added, in order (line endings dropped).
    pub(crate) fn changed_lines(old: &str, new: &str) -> (Vec<String>, Vec<String>) {
        let diff = TextDiff::from_lines(old, new);
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for change in diff.iter_all_changes() {
            let line = change.value().trim_end_matches(['\n', '\r']).to_string();
            match change.tag() {
                ChangeTag::Delete => removed.push(line),
                ChangeTag::Insert => added.push(line),
                ChangeTag::Equal => {}
            }
        }
        (removed, added)
    }

    /// Asserts that going from `old` to `new` removed exactly `removed` and added exactly `added`.
    #[track_caller]
    pub(crate) fn assert_diff(old: &str, new: &str, removed: &[&str], added: &[&str]) {
        let (r, a) = changed_lines(old, new);
        assert_eq!(
            (
                r.iter().map(String::as_str).collect::<Vec<_>>(),
                a.iter().map(String::as_str).collect::<Vec<_>>()
            ),
            (removed.to_vec(), added.to_vec()),
            "unexpected diff; new text:\n{new}"
        );
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let text = "ab\ncdé\nf";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 7), (2, 4));
        assert_eq!(line_col(text, 8), (3, 1));
        assert_eq!(line_col(text, 100), (3, 2));
        // inside the two-byte é: clamped back to its start
        assert_eq!(line_col(text, 6), (2, 3));
    }

    #[test]
    fn crlf_detection() {
        assert!(is_crlf("a\r\nb\r\n"));
        assert!(!is_crlf("a\r\nb\n"));
        assert!(!is_crlf("a\nb\n"));
        assert!(!is_crlf("no newline"));
    }

    #[test]
    fn path_display() {
        assert_eq!(show_path(&[]), ".");
        assert_eq!(show_path(&["a", "b"]), "a.b");
    }
}
