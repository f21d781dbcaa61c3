//! Flattened Markdown as upstream's `parseEntries` reads it: headings as a context prefix, one
//! entry per bullet and per paragraph, fences, tables and comments skipped; and the outline
//! (where each entry sits) the migrator uses.

use super::*;

/// The Markdown entries before dedupe.
pub(super) fn markdown_entries(text: &str) -> Vec<String> {
    struct Plain(Vec<String>);
    impl Sink for Plain {
        fn entry(&mut self, prefix: &str, content: &str, _: &EntrySpan) {
            if prefix.is_empty() {
                self.0.push(content.to_string());
            } else {
                let mut e = String::with_capacity(prefix.len() + 2 + content.len());
                e.push_str(prefix);
                e.push_str(": ");
                e.push_str(content);
                self.0.push(e);
            }
        }
    }
    let mut sink = Plain(Vec::new());
    walk_markdown(text, &mut sink);
    sink.0
}

/// Where an entry stands in its text: lines `first..=last` (0-based, `text.split('\n')`), and for
/// a bullet the byte offset in its line where the content starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntrySpan {
    pub first: usize,
    pub last: usize,
    pub bullet_at: Option<usize>,
}

/// What [`walk_markdown`] reports, in text order.
pub(super) trait Sink {
    fn entry(&mut self, prefix: &str, content: &str, span: &EntrySpan);
    /// A heading on line `line`; `prefix` is the context of the entries below it.
    fn heading(&mut self, _line: usize, _prefix: &str) {}
}

/// One entry of a Markdown text with where it stands, for edits that must leave the rest of the
/// text as it is (the USER.md form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The entry as [`parse_entries`] gives it (context prefix included), before dedupe.
    pub text: String,
    pub span: EntrySpan,
    /// Index into [`Outline::sections`] of the section it belongs to.
    pub section: usize,
}

/// A run of lines under one heading (or before the first): its context prefix and where its
/// heading is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// `None` for the lines before the first heading.
    pub heading: Option<usize>,
    pub prefix: String,
}

/// The entries of a Markdown text with their places, and its sections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    pub entries: Vec<Located>,
    pub sections: Vec<Section>,
}

impl Sink for Outline {
    fn entry(&mut self, prefix: &str, content: &str, span: &EntrySpan) {
        let text = if prefix.is_empty() {
            content.to_string()
        } else {
            format!("{prefix}: {content}")
        };
        self.entries.push(Located {
            text,
            span: *span,
            section: self.sections.len() - 1,
        });
    }
    fn heading(&mut self, line: usize, prefix: &str) {
        self.sections.push(Section {
            heading: Some(line),
            prefix: prefix.to_string(),
        });
    }
}

/// The entries of a Markdown text (not a `§` one) as [`parse_entries`] reads them, before
/// dedupe, with their places.
pub fn outline(text: &str) -> Outline {
    let mut out = Outline {
        entries: Vec::new(),
        sections: vec![Section {
            heading: None,
            prefix: String::new(),
        }],
    };
    walk_markdown(text, &mut out);
    out
}

/// Upstream `extractMarkdownEntries`, reporting each entry and heading to `sink`.
pub(super) fn walk_markdown(text: &str, sink: &mut impl Sink) {
    let mut headings: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut paragraph_start = 0;
    let mut in_code = false;
    let mut in_comment = false;

    // The context prefix changes only with the headings; computed once per heading.
    let mut prefix = String::new();
    fn context(headings: &[String]) -> String {
        let kept: Vec<&str> = headings
            .iter()
            .map(String::as_str)
            .filter(|h| !h.is_empty() && !names_persona_file(h))
            .collect();
        kept.join(" > ")
    }
    fn flush(
        sink: &mut impl Sink,
        prefix: &str,
        paragraph: &mut Vec<&str>,
        start: usize,
        end: usize,
    ) {
        if paragraph.is_empty() {
            return;
        }
        let block = paragraph
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ");
        paragraph.clear();
        let block = block.trim();
        if !block.is_empty() {
            let span = EntrySpan {
                first: start,
                last: end - 1,
                bullet_at: None,
            };
            sink.entry(prefix, block, &span);
        }
    }

    let mut lines = 0;
    for (i, raw) in text.split('\n').enumerate() {
        lines = i + 1;
        let line = trim_end_ascii(raw, b" \t\r");
        let stripped = trim(line);

        if stripped.starts_with("```") {
            in_code = !in_code;
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            continue;
        }
        if in_code {
            continue;
        }
        // HTML comments: KNOWLEDGE.md's placeholders must not become memory entries.
        if in_comment {
            if stripped.contains("-->") {
                in_comment = false;
            }
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            continue;
        }
        if stripped.starts_with("<!--") {
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            if !stripped.contains("-->") {
                in_comment = true;
            }
            continue;
        }
        if let Some((level, value)) = heading(stripped) {
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            headings.truncate(level - 1);
            headings.push(value.to_string());
            prefix = context(&headings);
            sink.heading(i, &prefix);
            continue;
        }
        if let Some(content) = bullet(line) {
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            let at = content.as_ptr() as usize - raw.as_ptr() as usize;
            let span = EntrySpan {
                first: i,
                last: i,
                bullet_at: Some(at),
            };
            sink.entry(&prefix, content, &span);
            continue;
        }
        if stripped.is_empty() {
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            continue;
        }
        if stripped.starts_with('|') && stripped.ends_with('|') {
            flush(sink, &prefix, &mut paragraph, paragraph_start, i);
            continue;
        }
        if paragraph.is_empty() {
            paragraph_start = i;
        }
        paragraph.push(stripped);
    }
    flush(sink, &prefix, &mut paragraph, paragraph_start, lines);
}

/// `^(#{1,6})\s+(.*\S)\s*$` on a trimmed line: the level and the trimmed title.
pub(super) fn heading(stripped: &str) -> Option<(usize, &str)> {
    let hashes = stripped.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &stripped[hashes..];
    if !rest.starts_with(is_re_space) {
        return None;
    }
    let rest = rest.trim_start_matches(is_re_space);
    if rest.is_empty() {
        return None;
    }
    Some((hashes, rest.trim()))
}

/// `^\s*(?:[-*]|\d+\.)\s+(.*\S)\s*$` on a line (trailing spaces, tabs and CRs already cut): the
/// trimmed content. Byte offsets are safe: every byte skipped is ASCII.
pub(super) fn bullet(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && is_re_space_byte(b[i]) {
        i += 1;
    }
    match b.get(i) {
        Some(b'-' | b'*') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if b.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
        _ => return None,
    }
    if !b.get(i).is_some_and(|&c| is_re_space_byte(c)) {
        return None;
    }
    while i < b.len() && is_re_space_byte(b[i]) {
        i += 1;
    }
    let mut end = b.len();
    while end > i && is_re_space_byte(b[end - 1]) {
        end -= 1;
    }
    if end == i {
        return None;
    }
    Some(trim(&line[i..end]))
}

/// Whether a line is a list item for the entry parser (`- x`, `* x`, `1. x`).
pub fn is_bullet_line(line: &str) -> bool {
    bullet(trim_end_ascii(line, b" \t\r")).is_some()
}

/// `s` without trailing bytes from `set` (ASCII).
pub(super) fn trim_end_ascii<'t>(s: &'t str, set: &[u8]) -> &'t str {
    let b = s.as_bytes();
    let mut end = b.len();
    while end > 0 && set.contains(&b[end - 1]) {
        end -= 1;
    }
    &s[..end]
}

/// `str::trim` (Go's `TrimSpace`), with a fast path for the common line that starts and ends
/// with a visible ASCII character.
#[inline]
pub fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&f), Some(&l)) if f.is_ascii_graphic() && l.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// `(?i)\b(MEMORY|USER|SOUL|AGENTS|TOOLS|IDENTITY)\.md\b`: a heading that names a persona file
/// is not context for the entries below it.
pub(super) fn names_persona_file(heading: &str) -> bool {
    const NAMES: [&str; 6] = ["MEMORY", "USER", "SOUL", "AGENTS", "TOOLS", "IDENTITY"];
    let b = heading.as_bytes();
    for i in 0..b.len() {
        if i > 0 && is_word_byte(b[i - 1]) {
            continue;
        }
        for name in NAMES {
            let end = i + name.len() + 3;
            if end <= b.len()
                && b[i..i + name.len()].eq_ignore_ascii_case(name.as_bytes())
                && b[i + name.len()..end].eq_ignore_ascii_case(b".md")
                && (end == b.len() || !is_word_byte(b[end]))
            {
                return true;
            }
        }
    }
    false
}
