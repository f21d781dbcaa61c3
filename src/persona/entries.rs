//! Memory and user entries (device contract, sections 5.3 and 5.4): parsing a memory file into
//! entries, the whitespace-normalised dedupe key, the code-point limits, the merge, and writing
//! entries back in a runtime's format.
//!
//! The parser follows upstream's `parseEntries` rule for rule: a text holding `"\n§\n"` is split
//! on it (hermes); anything else is flattened Markdown, where headings become a context prefix
//! (`"A > B: "`, headings naming `MEMORY.md`, `USER.md`, `SOUL.md`, `AGENTS.md`, `TOOLS.md` or
//! `IDENTITY.md` left out), each bullet and each paragraph is one entry, and fenced code, tables
//! and `<!-- -->` comments are skipped. Upstream's patterns are Go regular expressions, whose
//! `\s` is ASCII whitespace without `\v` and whose `\b` is an ASCII word boundary; the hand-written
//! matchers here keep exactly those classes ([`is_re_space`]), and trimming is Go's
//! `strings.TrimSpace`, which is Rust's `str::trim` (both use Unicode `White_Space`).
//!
//! Where osctl goes further (contract section 10, item 10: a second identical run writes
//! nothing), entries are put in their *canonical form* for the destination format before they
//! are counted and merged ([`canonical`]): a multi-line entry written as a bullet becomes one line
//! (upstream wrote `- line1\nline2`, which reads back as two entries, so every later run added it
//! again), and a hermes entry whose text would read back differently is made to read back as
//! itself. The dedupe key ([`normalize`]) of a canonical entry is the key of the entry it came
//! from, so nothing that upstream treats as new or as a duplicate changes side.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::runtime::EntryFormat;

/// The hermes entry separator.
pub const DELIMITER: &str = "\n§\n";
/// Code points of [`DELIMITER`].
const DELIMITER_CHARS: usize = 3;

/// Default limit of a memory file, in code points of the entries joined by [`DELIMITER`].
pub const MEMORY_CHAR_LIMIT: usize = 2200;
/// Default limit of a user-profile file.
pub const USER_CHAR_LIMIT: usize = 1375;

/// Go regexp's `\s`: `[\t\n\f\r ]`.
pub fn is_re_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// Go regexp's ASCII word character (`\w`, and the sides of `\b`).
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Code points (Python's `len`, Go's `utf8.RuneCountInString`): the unit of every limit.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The dedupe key: trimmed, each run of ASCII whitespace collapsed to one space.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, &mut out);
    out
}

/// [`normalize`] into a reused buffer (the merge runs it once per incoming entry). The
/// whitespace collapsed is ASCII, so this works on bytes and keeps the text valid UTF-8.
pub fn normalize_into(text: &str, out: &mut String) {
    let mut buf = std::mem::take(out).into_bytes();
    buf.clear();
    let mut in_space = false;
    for &b in text.trim().as_bytes() {
        if matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | b' ') {
            in_space = true;
        } else {
            if in_space {
                buf.push(b' ');
                in_space = false;
            }
            buf.push(b);
        }
    }
    *out = String::from_utf8(buf).expect("only ASCII bytes were dropped or replaced");
}

/// The entries of a memory or user file (upstream `parseEntriesText`): nothing for a blank
/// text; the `§`-separated parts when the text holds the separator (not deduplicated, as
/// upstream); else the flattened Markdown, deduplicated.
pub fn parse_entries(text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    if text.contains(DELIMITER) {
        return text
            .split(DELIMITER)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
    }
    extract_markdown_entries(text)
}

/// Flattens Markdown into entries (upstream `extractMarkdownEntries`).
pub fn extract_markdown_entries(text: &str) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    let mut headings: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
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
    fn push(entries: &mut Vec<String>, prefix: &str, content: &str) {
        if prefix.is_empty() {
            entries.push(content.to_string());
        } else {
            let mut e = String::with_capacity(prefix.len() + 2 + content.len());
            e.push_str(prefix);
            e.push_str(": ");
            e.push_str(content);
            entries.push(e);
        }
    }
    fn flush(entries: &mut Vec<String>, prefix: &str, paragraph: &mut Vec<&str>) {
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
            push(entries, prefix, block);
        }
    }

    for raw in text.split('\n') {
        let line = raw.trim_end_matches([' ', '\t', '\r']);
        let stripped = line.trim();

        if stripped.starts_with("```") {
            in_code = !in_code;
            flush(&mut entries, &prefix, &mut paragraph);
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
            flush(&mut entries, &prefix, &mut paragraph);
            continue;
        }
        if stripped.starts_with("<!--") {
            flush(&mut entries, &prefix, &mut paragraph);
            if !stripped.contains("-->") {
                in_comment = true;
            }
            continue;
        }
        if let Some((level, value)) = heading(stripped) {
            flush(&mut entries, &prefix, &mut paragraph);
            headings.truncate(level - 1);
            headings.push(value.to_string());
            prefix = context(&headings);
            continue;
        }
        if let Some(content) = bullet(line) {
            flush(&mut entries, &prefix, &mut paragraph);
            push(&mut entries, &prefix, content);
            continue;
        }
        if stripped.is_empty() {
            flush(&mut entries, &prefix, &mut paragraph);
            continue;
        }
        if stripped.starts_with('|') && stripped.ends_with('|') {
            flush(&mut entries, &prefix, &mut paragraph);
            continue;
        }
        paragraph.push(stripped);
    }
    flush(&mut entries, &prefix, &mut paragraph);
    dedupe(entries)
}

/// `^(#{1,6})\s+(.*\S)\s*$` on a trimmed line: the level and the trimmed title.
fn heading(stripped: &str) -> Option<(usize, &str)> {
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
/// trimmed content.
fn bullet(line: &str) -> Option<&str> {
    let s = line.trim_start_matches(is_re_space);
    let after_marker = if let Some(r) = s.strip_prefix(['-', '*']) {
        r
    } else {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        s[digits..].strip_prefix('.')?
    };
    if !after_marker.starts_with(is_re_space) {
        return None;
    }
    let content = after_marker
        .trim_start_matches(is_re_space)
        .trim_end_matches(is_re_space);
    if content.is_empty() {
        return None;
    }
    Some(content.trim())
}

/// `(?i)\b(MEMORY|USER|SOUL|AGENTS|TOOLS|IDENTITY)\.md\b`: a heading that names a persona file
/// is not context for the entries below it.
fn names_persona_file(heading: &str) -> bool {
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

/// Drops blank and normalise-equal duplicates, keeping the first (trimmed) of each.
pub fn dedupe(entries: Vec<String>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        let key = normalize(&e);
        if key.is_empty() || !seen.insert(key) {
            continue;
        }
        let trimmed = e.trim();
        out.push(if trimmed.len() == e.len() {
            e
        } else {
            trimmed.to_string()
        });
    }
    out
}

/// An entry in the form it is written in for `format`, such that reading the file back gives
/// the entry unchanged (see the module doc). Its [`normalize`] key is the original's.
pub fn canonical(entry: &str, format: EntryFormat) -> Cow<'_, str> {
    let e = entry.trim();
    let flatten = match format {
        EntryFormat::Bullets => e.contains('\n'),
        // A part that holds the separator, or ends in a `§` line that would merge with the next
        // separator, would split differently when read back.
        EntryFormat::Sections => e.contains(DELIMITER) || e.ends_with("\n§"),
    };
    if flatten {
        Cow::Owned(normalize(e))
    } else {
        Cow::Borrowed(e)
    }
}

/// Existing entries in canonical form: each entry made canonical, and for bullets the
/// duplicates that reading the file back would drop, dropped.
pub fn canonical_list(entries: Vec<String>, format: EntryFormat) -> Vec<String> {
    let entries: Vec<String> = entries
        .into_iter()
        .map(|e| match canonical(&e, format) {
            Cow::Borrowed(b) if b.len() == e.len() => e,
            other => other.into_owned(),
        })
        .filter(|e| !e.is_empty())
        .collect();
    match format {
        EntryFormat::Bullets => dedupe(entries),
        EntryFormat::Sections => entries,
    }
}

/// The file text for canonical `entries`: `- e` lines (bullets) or the entries joined by
/// [`DELIMITER`] plus a final line break (hermes). A hermes file of one entry has no separator and
/// is read back as Markdown, so an entry that Markdown would read differently (a heading, a list)
/// is written with a trailing separator, which hermes and [`parse_entries`] both read as one entry.
pub fn serialize(entries: &[String], format: EntryFormat) -> String {
    if entries.is_empty() {
        return String::new();
    }
    match format {
        EntryFormat::Bullets => {
            let mut s = String::with_capacity(entries.iter().map(|e| e.len() + 3).sum());
            for e in entries {
                s.push_str("- ");
                s.push_str(e);
                s.push('\n');
            }
            s
        }
        EntryFormat::Sections => {
            if let [only] = entries
                && extract_markdown_entries(only) != [only.as_str()]
            {
                return format!("{only}{DELIMITER}");
            }
            let mut s = entries.join(DELIMITER);
            s.push('\n');
            s
        }
    }
}

/// What a merge did (the report's details).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MergeStats {
    pub existing: usize,
    pub added: usize,
    pub duplicates: usize,
    pub overflowed: usize,
    /// Incoming entries offered (upstream skips a write with none: "no importable entries").
    pub incoming: usize,
}

/// Upstream `mergeEntries`, one incoming entry at a time, so daily memory can be streamed: the
/// existing entries first, then each incoming entry that is not a duplicate (of an existing or an
/// added entry) while the entries joined by [`DELIMITER`] stay within `limit` code points; the
/// rest are counted as overflowed and dropped. Memory use is bounded by what fits the limit.
pub struct Merger {
    format: EntryFormat,
    limit: usize,
    entries: Vec<String>,
    seen: HashSet<String>,
    /// Code points of the entries joined by the separator.
    len: usize,
    stats: MergeStats,
    key: String,
}

impl Merger {
    /// Starts from the destination's entries (made canonical here).
    pub fn new(existing: Vec<String>, format: EntryFormat, limit: usize) -> Merger {
        let entries = canonical_list(existing, format);
        let mut seen = HashSet::with_capacity(entries.len() * 2);
        for e in &entries {
            let k = normalize(e);
            if !k.is_empty() {
                seen.insert(k);
            }
        }
        let len = if entries.is_empty() {
            0
        } else {
            entries.iter().map(|e| char_len(e)).sum::<usize>()
                + DELIMITER_CHARS * (entries.len() - 1)
        };
        Merger {
            format,
            limit,
            stats: MergeStats {
                existing: entries.len(),
                ..MergeStats::default()
            },
            entries,
            seen,
            len,
            key: String::new(),
        }
    }

    /// The entries so far (existing and added).
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Offers one incoming entry.
    pub fn offer(&mut self, entry: &str) {
        let e = canonical(entry, self.format);
        normalize_into(&e, &mut self.key);
        if self.key.is_empty() {
            return;
        }
        self.stats.incoming += 1;
        if self.seen.contains(self.key.as_str()) {
            self.stats.duplicates += 1;
            return;
        }
        let n = char_len(&e);
        let candidate = if self.entries.is_empty() {
            n
        } else {
            self.len + DELIMITER_CHARS + n
        };
        if candidate > self.limit {
            self.stats.overflowed += 1;
            return;
        }
        self.entries.push(e.into_owned());
        self.seen.insert(std::mem::take(&mut self.key));
        self.len = candidate;
        self.stats.added += 1;
    }

    pub fn stats(&self) -> MergeStats {
        self.stats
    }

    pub fn into_entries(self) -> Vec<String> {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_flattened_with_heading_context() {
        let text = "# MEMORY.md - Long-term\n\n## Hardware\n\n<!-- Lessons about the body. -->\n\n\
                    - Servo elbow jitters above 60 degrees.\n\n### Fixes\n\nRecalibrate\nmonthly.\n\n\
                    ## Mistakes Made\n\n1. Said NO_REPLY once.\n* starred\n\n```\n- not an entry\n```\n\
                    | a | b |\n|---|---|\n";
        assert_eq!(
            parse_entries(text),
            vec![
                "Hardware: Servo elbow jitters above 60 degrees.",
                "Hardware > Fixes: Recalibrate monthly.",
                "Mistakes Made: Said NO_REPLY once.",
                "Mistakes Made: starred",
            ]
        );
    }

    #[test]
    fn sections_split_on_the_separator_without_dedupe() {
        assert_eq!(
            parse_entries("a\n§\n b \n§\n\n§\na\n"),
            vec!["a", "b", "a"],
            "an empty part is dropped, a repeated one kept"
        );
        // a lone `§` line that is not the separator (CRLF) is Markdown
        assert_eq!(parse_entries("a\r\n§\r\nb"), vec!["a § b"]);
        assert!(parse_entries(" \n\t\n").is_empty());
    }

    #[test]
    fn dedupe_is_whitespace_normalised() {
        assert_eq!(
            parse_entries("- likes  tea\n- likes tea\n-\tlikes\ttea\n"),
            vec!["likes  tea"]
        );
        assert_eq!(normalize("  a \n\t b\u{b}c  "), "a b\u{b}c");
    }

    #[test]
    fn comments_and_fences_follow_upstream_order() {
        // a fence line inside a comment still toggles code (the fence check comes first), so
        // the comment's end is skipped as code and the comment runs on
        let text = "<!-- start\n```\n-->\nhidden\n```\nstill comment\n";
        assert!(parse_entries(text).is_empty());
        let text = "<!-- start\n```\n```\n-->\nshown\n";
        assert_eq!(parse_entries(text), vec!["shown"]);
        assert_eq!(
            parse_entries("<!-- one line --> text\nnext\n"),
            vec!["next"]
        );
    }

    #[test]
    fn headings_and_bullets_use_go_whitespace_classes() {
        assert_eq!(heading("## A  "), Some((2, "A")));
        assert_eq!(heading("####### seven"), None);
        assert_eq!(heading("#\u{a0}nbsp"), None, "NBSP is not \\s");
        assert_eq!(heading("#x"), None);
        assert_eq!(bullet("  12. twelve "), Some("twelve"));
        assert_eq!(bullet("-x"), None);
        assert_eq!(bullet("**bold** para"), None);
        assert_eq!(bullet("-\u{b}x"), None, "\\v is not \\s in Go");
        assert!(names_persona_file("USER.md — About your human"));
        assert!(names_persona_file("see memory.MD"));
        assert!(!names_persona_file("MYUSER.md"));
        assert!(!names_persona_file("USER.mdx"));
    }

    #[test]
    fn merge_keeps_existing_then_fits_incoming_within_the_limit() {
        let mut m = Merger::new(vec!["a".into(), "b".into()], EntryFormat::Sections, 10);
        for e in ["a", "ccc", " b ", "dddd", "e"] {
            m.offer(e);
        }
        // "a\n§\nb" = 5, + ccc = 11 > 10 overflow, dddd overflow, e = 9 fits
        assert_eq!(m.entries(), ["a", "b", "e"]);
        assert_eq!(
            m.stats(),
            MergeStats {
                existing: 2,
                added: 1,
                duplicates: 2,
                overflowed: 2,
                incoming: 5
            }
        );
    }

    #[test]
    fn limits_count_code_points() {
        let mut m = Merger::new(vec![], EntryFormat::Bullets, 4);
        m.offer("Ngân");
        m.offer("x");
        assert_eq!(m.entries(), ["Ngân"]);
        assert_eq!(m.stats().overflowed, 1);
    }

    #[test]
    fn canonical_entries_read_back_unchanged() {
        let multi = "## Prefs\n- likes tea\n\nmore";
        for format in [EntryFormat::Bullets, EntryFormat::Sections] {
            for set in [
                vec![multi.to_string()],
                vec!["a".into(), multi.into()],
                vec!["x\n§".into(), "y".into()],
                vec!["# heading".into()],
                vec!["plain".into()],
            ] {
                let canon = canonical_list(set.clone(), format);
                let text = serialize(&canon, format);
                assert_eq!(
                    parse_entries(&text),
                    canon,
                    "{format:?} {set:?} -> {text:?}"
                );
                for (c, o) in canon.iter().zip(&set) {
                    assert_eq!(normalize(c), normalize(o));
                }
            }
        }
        assert_eq!(
            serialize(&["plain".to_string()], EntryFormat::Sections),
            "plain\n"
        );
        assert_eq!(
            serialize(&["# h".to_string()], EntryFormat::Sections),
            "# h\n§\n"
        );
    }
}
