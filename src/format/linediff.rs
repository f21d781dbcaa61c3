//! Line diffs: similar's Myers algorithm, called directly.
//!
//! similar's `capture_diff_slices` and `TextDiff` choose the algorithm (and `TextDiff` the
//! whitespace mode) at run time, so every algorithm similar has was compiled in, each for every
//! hook and item type they combine: about 200 KB of the release binary for the two line diffs
//! osctl makes (the carry-over of an edit and the plan's unified diffs). Both are Myers over
//! lines, so they call `myers::diff` with one hook chain (one instantiation), and the unified
//! diff is rendered here the way `TextDiff::unified_diff` renders it; the tests below hold both
//! to similar's own functions.

use similar::algorithms::{Capture, Compact, Replace, myers};
use similar::{DiffOp, DiffTag, group_diff_ops};

/// `text` split into lines, each with its terminator (`\n`, `\r\n` or a lone `\r`), as
/// `TextDiff::from_lines` splits it.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let end = match bytes[i] {
            b'\n' => i + 1,
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => i + 2,
            b'\r' => i + 1,
            _ => {
                i += 1;
                continue;
            }
        };
        out.push(&text[start..end]);
        start = end;
        i = end;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The diff of two line lists: `similar::capture_diff_slices(Algorithm::Myers, old, new)`.
pub(crate) fn ops(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let mut hook = Compact::new(Replace::new(Capture::new()), old, new);
    match myers::diff(&mut hook, old, 0..old.len(), new, 0..new.len()) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    hook.into_inner().into_inner().into_ops()
}

/// A unified diff of two texts with three lines of context and `--- from` / `+++ to` headers
/// ("" when they are equal): what `TextDiff::from_lines(old, new).unified_diff()
/// .context_radius(3).missing_newline_hint(true).header(from, to).to_string()` gives.
pub(crate) fn unified(old: &str, new: &str, from: &str, to: &str) -> String {
    let old = lines(old);
    let new = lines(new);
    let mut out = String::new();
    for hunk in group_diff_ops(ops(&old, &new), 3) {
        let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
            continue;
        };
        if out.is_empty() {
            out.push_str(&format!("--- {from}\n+++ {to}\n"));
        }
        let old_range = hunk_range(first.old_range().start, last.old_range().end);
        let new_range = hunk_range(first.new_range().start, last.new_range().end);
        out.push_str(&format!("@@ -{old_range} +{new_range} @@\n"));
        for op in &hunk {
            let (tag, old_lines, new_lines) = op.as_tag_tuple();
            let (deleted, inserted) = match tag {
                DiffTag::Equal => {
                    push_lines(&mut out, ' ', &old[old_lines]);
                    continue;
                }
                DiffTag::Delete => (old_lines, 0..0),
                DiffTag::Insert => (0..0, new_lines),
                DiffTag::Replace => (old_lines, new_lines),
            };
            push_lines(&mut out, '-', &old[deleted]);
            push_lines(&mut out, '+', &new[inserted]);
        }
    }
    out
}

fn push_lines(out: &mut String, tag: char, lines: &[&str]) {
    for line in lines {
        out.push(tag);
        out.push_str(line);
        if !line.ends_with(['\r', '\n']) {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// A hunk's line range as unified diffs write it: `start` alone for one line, `start,len`
/// otherwise, an empty range starting at the line before it.
fn hunk_range(start: usize, end: usize) -> String {
    let len = end.saturating_sub(start);
    match len {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{len}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use similar::{Algorithm, TextDiff, capture_diff_slices};

    fn similar_unified(old: &str, new: &str) -> String {
        TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(3)
            .missing_newline_hint(true)
            .header("a/f", "b/f")
            .to_string()
    }

    fn check(old: &str, new: &str) {
        let whole = TextDiff::from_lines(old, "");
        let theirs: Vec<&str> = (0..).map_while(|i| whole.old_slice(i)).collect();
        assert_eq!(lines(old), theirs);
        let (o, n) = (lines(old), lines(new));
        assert_eq!(ops(&o, &n), capture_diff_slices(Algorithm::Myers, &o, &n));
        assert_eq!(unified(old, new, "a/f", "b/f"), similar_unified(old, new));
    }

    #[test]
    fn matches_similar_on_edges() {
        for (old, new) in [
            ("", ""),
            ("", "a\n"),
            ("a\n", ""),
            ("a", "a\n"),
            ("a\n", "a"),
            ("a\nb\nc", "a\nB\nc"),
            ("a\r\nb\rc\n", "a\r\nb\nc\n"),
            ("x\n", "x\n"),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
                "1\n2\nthree\n4\n5\n6\n7\n8\n9\nten\n",
            ),
        ] {
            check(old, new);
        }
    }

    fn text() -> impl Strategy<Value = String> {
        // Few distinct lines, so texts share many; up to 300 lines, past similar's 100-line
        // switch to its integer-remapped, pre-trimmed path.
        prop::collection::vec(
            prop::sample::select(vec![
                "a\n", "b\n", "c\n", "d\r\n", "e\r", "", "f", "{\n", "}\n",
            ]),
            0..300,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn matches_similar(old in text(), new in text()) {
            check(&old, &new);
        }

        #[test]
        fn matches_similar_on_small_edits(old in text(), at in 0usize..400, insert in text()) {
            let at = old.char_indices().map(|(i, _)| i).nth(at).unwrap_or(old.len());
            let new = format!("{}{}{}", &old[..at], &insert[..insert.len().min(20)], &old[at..]);
            check(&old, &new);
        }
    }
}
