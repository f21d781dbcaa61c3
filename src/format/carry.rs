//! Carrying an edit over to the text as the person wrote it.
//!
//! A format library may render an unedited document with small differences from its source
//! (toml_edit writes `"a" . b = 1` as `a. b = 1` when `a` has several dotted keys, and groups
//! interleaved dotted keys). Editing then rendering would rewrite those lines. Instead, the edit
//! is made on the library's document, and the lines it changed between the library's rendering
//! before and after are carried over to the original text ([`carry`]): a line-based three-way
//! merge whose base is the rendering before the edit. An edit that touches a line the library
//! cannot reproduce is a conflict, and the caller refuses it, naming that line; a line it does
//! not touch stays exactly as written.

use similar::DiffOp;

use super::linediff;

/// An edit that would have to rewrite a line of `text` the library renders differently: its
/// 1-based line number in `text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub line: usize,
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Applies the changes from `rendered` to `edited` onto `text` (which `rendered` renders, up to
/// layout). `Err` names the first line of `text` the changes would have to rewrite.
pub(crate) fn carry(rendered: &str, text: &str, edited: &str) -> Result<String, Conflict> {
    if rendered == text {
        return Ok(edited.to_string());
    }
    let base = lines(rendered);
    let ours = lines(text);
    let theirs = lines(edited);
    // base line -> the equal line of `text`
    let mut map: Vec<Option<usize>> = vec![None; base.len()];
    for op in linediff::ops(&base, &ours) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for i in 0..len {
                map[old_index + i] = Some(new_index + i);
            }
        }
    }
    // the line of `text` a conflict at a base line is reported on: its own, or the one after the
    // last line before it that `text` has too
    let near = |i: usize| -> usize {
        let line = match map.get(i).copied().flatten() {
            Some(j) => j + 1,
            None => (0..i.min(map.len()))
                .rev()
                .find_map(|k| map[k])
                .map_or(1, |j| j + 2),
        };
        line.min(ours.len().max(1))
    };
    let mut splices: Vec<(usize, usize, Vec<&str>)> = Vec::new();
    for op in linediff::ops(&base, &theirs) {
        let (old, new) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let target = if old.is_empty() {
            let p = old.start;
            let at = if p == 0 {
                Some(0)
            } else if p == base.len() {
                Some(ours.len())
            } else {
                map[p - 1].map(|j| j + 1).or(map[p])
            };
            let at = at.ok_or(Conflict { line: near(p) })?;
            at..at
        } else {
            let start = map[old.start].ok_or(Conflict {
                line: near(old.start),
            })?;
            for (k, i) in old.clone().enumerate() {
                if map[i] != Some(start + k) {
                    return Err(Conflict { line: near(i) });
                }
            }
            start..start + old.len()
        };
        splices.push((target.start, target.end, theirs[new].to_vec()));
    }
    let mut out: Vec<&str> = Vec::with_capacity(ours.len() + theirs.len());
    let mut at = 0;
    for (start, end, replacement) in splices {
        if start < at {
            // two changes on the same lines of `text`: cannot happen with a monotonic map
            return Err(Conflict { line: start + 1 });
        }
        out.extend_from_slice(&ours[at..start]);
        out.extend(replacement);
        at = end;
    }
    out.extend_from_slice(&ours[at..]);
    Ok(out.concat())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn same_rendering_is_the_edit() {
        assert_eq!(carry("a\n", "a\n", "a\nb\n").unwrap(), "a\nb\n");
    }

    #[test]
    fn changes_away_from_the_differences_are_carried() {
        let text = "x\n\"q\" . k = 1\ny = 2\nz = 3\n";
        let rendered = "x\nq. k = 1\ny = 2\nz = 3\n";
        // a changed line, an added one at the end
        let edited = "x\nq. k = 1\ny = 5\nz = 3\n\n[t]\nw = 1\n";
        assert_eq!(
            carry(rendered, text, edited).unwrap(),
            "x\n\"q\" . k = 1\ny = 5\nz = 3\n\n[t]\nw = 1\n"
        );
        // an insertion right after a line rendered differently goes before the next line
        let edited = "x\nq. k = 1\nq.n = 0\ny = 2\nz = 3\n";
        assert_eq!(
            carry(rendered, text, edited).unwrap(),
            "x\n\"q\" . k = 1\nq.n = 0\ny = 2\nz = 3\n"
        );
    }

    #[test]
    fn a_change_to_a_line_rendered_differently_is_a_conflict() {
        let text = "x\n\"q\" . k = 1\ny = 2\n";
        let rendered = "x\nq. k = 1\ny = 2\n";
        let edited = "x\nq. k = 9\ny = 2\n";
        assert_eq!(carry(rendered, text, edited), Err(Conflict { line: 2 }));
    }

    #[test]
    fn reordered_lines_keep_their_order() {
        // the library grouped a.1 and a.2 together; the edit appends at the end
        let text = "a.1 = 1\nb.1 = 1\na.2 = 2\n";
        let rendered = "a.1 = 1\na.2 = 2\nb.1 = 1\n";
        let edited = "a.1 = 1\na.2 = 2\nb.1 = 1\n\n[c]\n";
        assert_eq!(
            carry(rendered, text, edited).unwrap(),
            "a.1 = 1\nb.1 = 1\na.2 = 2\n\n[c]\n"
        );
    }
}
