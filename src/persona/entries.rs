//! Memory and user entries (docs/device-contract.md §5.3 and §5.4): parsing a memory file into
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
//! Where osctl goes further (docs/device-contract.md §10 item 10: a second identical run writes
//! nothing), entries are put in their *canonical form* for the destination format before they
//! are counted and merged ([`canonical`]): a multi-line entry written as a bullet becomes one line
//! (upstream wrote `- line1\nline2`, which reads back as two entries, so every later run added it
//! again), and a hermes entry whose text would read back differently is made to read back as
//! itself. The dedupe key ([`normalize`]) of a canonical entry is the key of the entry it came
//! from, so nothing that upstream treats as new or as a duplicate changes side.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

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
#[inline(always)]
pub fn is_re_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// Go regexp's ASCII word character (`\w`, and the sides of `\b`).
#[inline(always)]
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Code points (Python's `len`, Go's `utf8.RuneCountInString`): the unit of every limit.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The dedupe key: trimmed, each run of ASCII whitespace collapsed to one space.
pub fn normalize(text: &str) -> String {
    normalized(text).into_owned()
}

/// [`normalize`], borrowing when the trimmed text already is its own key (most entries are:
/// one line, single spaces), so a large merge copies little.
pub fn normalized(text: &str) -> Cow<'_, str> {
    let t = text.trim();
    let mut prev_space = false;
    for &b in t.as_bytes() {
        match b {
            b' ' if prev_space => return Cow::Owned(collapse(t)),
            b' ' => prev_space = true,
            b'\t' | b'\n' | 0x0c | b'\r' => return Cow::Owned(collapse(t)),
            _ => prev_space = false,
        }
    }
    Cow::Borrowed(t)
}

fn collapse(trimmed: &str) -> String {
    let mut out = String::with_capacity(trimmed.len());
    normalize_into(trimmed, &mut out);
    out
}

/// [`normalize`] into a reused buffer (the merge runs it once per incoming entry). The
/// whitespace collapsed is ASCII, so this works on bytes (copying runs, not bytes: it is on the
/// path of every daily entry) and keeps the text valid UTF-8.
pub fn normalize_into(text: &str, out: &mut String) {
    let mut buf = std::mem::take(out).into_bytes();
    buf.clear();
    let bytes = text.trim().as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && !is_re_space_byte(bytes[i]) {
            i += 1;
        }
        if !buf.is_empty() {
            buf.push(b' ');
        }
        buf.extend_from_slice(&bytes[start..i]);
        while i < bytes.len() && is_re_space_byte(bytes[i]) {
            i += 1;
        }
    }
    *out = String::from_utf8(buf).expect("only ASCII bytes were dropped or replaced");
}

/// [`is_re_space`] on a byte.
#[inline(always)]
fn is_re_space_byte(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// A set of dedupe keys with a cheap hash. The keys are the device's own text, not input an
/// attacker chooses to collide, so SipHash's protection buys nothing here, and hashing every
/// daily entry is a good part of a large migration's time.
pub type KeySet = HashSet<String, BuildHasherDefault<KeyHasher>>;

/// FNV-1a over 8-byte words (the key's bytes, then its length).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            h ^= u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = h.wrapping_mul(0x0000_0100_0000_01b3).rotate_left(23);
        }
        for &b in chunks.remainder() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        // A final mix, so that the low bits the table uses depend on every byte.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

/// The entries of a memory or user file (upstream `parseEntriesText`): nothing for a blank
/// text; the `§`-separated parts when the text holds the separator (not deduplicated, as
/// upstream); else the flattened Markdown, deduplicated.
pub fn parse_entries(text: &str) -> Vec<String> {
    parse_entries_scanned(text)
        .into_iter()
        .map(|(e, _)| e)
        .collect()
}

/// [`parse_entries`], with what one pass over each entry found ([`Scan`]), so the merge of
/// thousands of daily files need not look at every entry again.
pub fn parse_entries_scanned(text: &str) -> Vec<(String, Scan)> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    if text.contains(DELIMITER) {
        return text
            .split(DELIMITER)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| (p.to_string(), scan(p)))
            .collect();
    }
    dedupe_scanned(markdown_entries(text))
}

/// Flattens Markdown into entries (upstream `extractMarkdownEntries`), deduplicated.
pub fn extract_markdown_entries(text: &str) -> Vec<String> {
    dedupe(markdown_entries(text))
}

/// What one pass over a trimmed entry found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scan {
    /// The entry is its own dedupe key (no ASCII whitespace but single spaces; so one line).
    pub clean: bool,
    /// A word starts with a brand's first two letters: the entry may need rebranding (when
    /// false, it certainly does not).
    pub branded: bool,
}

const C_WORD: u8 = 1;
const C_BRAND: u8 = 2;
const C_BREAK: u8 = 4;
const C_SPACE: u8 = 8;

/// Byte classes for [`scan`]: word bytes, brand first letters, the whitespace that is not a
/// plain space, and the space.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() || b == b'_' {
            t[i] = C_WORD;
        }
        if super::rebrand::is_brand_first(b) {
            t[i] |= C_BRAND;
        }
        if matches!(b, b'\t' | b'\n' | 0x0c | b'\r') {
            t[i] = C_BREAK;
        }
        if b == b' ' {
            t[i] = C_SPACE;
        }
        i += 1;
    }
    t
};

/// One pass over a trimmed entry (a table lookup per byte): whether it is its own dedupe key,
/// and whether a word in it starts with a brand's first two letters.
pub fn scan(entry: &str) -> Scan {
    let bytes = entry.as_bytes();
    let mut dirty = 0u8;
    let mut branded = false;
    let mut prev = 0u8;
    for (i, &b) in bytes.iter().enumerate() {
        let c = CLASS[b as usize];
        dirty |= (c & C_BREAK) | (c & prev & C_SPACE);
        if c & C_BRAND != 0
            && prev & C_WORD == 0
            && i + 1 < bytes.len()
            && super::rebrand::may_start_brand(b, bytes[i + 1])
        {
            branded = true;
        }
        prev = c;
    }
    Scan {
        clean: dirty == 0,
        branded,
    }
}

/// The Markdown entries before dedupe.
fn markdown_entries(text: &str) -> Vec<String> {
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
trait Sink {
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
fn walk_markdown(text: &str, sink: &mut impl Sink) {
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
/// trimmed content. Byte offsets are safe: every byte skipped is ASCII.
fn bullet(line: &str) -> Option<&str> {
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
fn trim_end_ascii<'t>(s: &'t str, set: &[u8]) -> &'t str {
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
    dedupe_scanned(entries)
        .into_iter()
        .map(|(e, _)| e)
        .collect()
}

fn dedupe_scanned(entries: Vec<String>) -> Vec<(String, Scan)> {
    let scans: Vec<Option<Scan>> = {
        let mut seen: HashSet<Cow<'_, str>, BuildHasherDefault<KeyHasher>> =
            HashSet::with_capacity_and_hasher(entries.len(), BuildHasherDefault::default());
        entries
            .iter()
            .map(|e| {
                let t = trim(e);
                let sc = scan(t);
                let key = if sc.clean {
                    Cow::Borrowed(t)
                } else {
                    normalized(t)
                };
                (!key.is_empty() && seen.insert(key)).then_some(sc)
            })
            .collect()
    };
    entries
        .into_iter()
        .zip(scans)
        .filter_map(|(e, sc)| {
            let sc = sc?;
            let t = trim(&e);
            Some((if t.len() == e.len() { e } else { t.to_string() }, sc))
        })
        .collect()
}

/// An entry in the form it is written in for `format`, such that reading the file back gives
/// the entry unchanged (see the module doc). Its [`normalize`] key is the original's.
pub fn canonical(entry: &str, format: EntryFormat) -> Cow<'_, str> {
    let e = entry.trim();
    if !e.contains('\n') {
        // One line: nothing to flatten, whatever the format (the common case).
        return Cow::Borrowed(e);
    }
    let flatten = match format {
        EntryFormat::Bullets => true,
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
///
/// Daily notes are offered newest first ([`Merger::source`] with `daily`), and the first daily
/// entry that does not fit closes the merge to every later daily entry: what is kept of them is
/// the most recent run, never an old note that happened to be short enough to fill the gap
/// (upstream offered them oldest first, so a long history kept its first year and dropped every
/// recent day). Which sources lost entries is recorded for the report ([`Merger::overflow`]).
pub struct Merger {
    format: EntryFormat,
    limit: usize,
    entries: Vec<String>,
    seen: KeySet,
    /// Code points of the entries joined by the separator.
    len: usize,
    stats: MergeStats,
    /// The source of the entries being offered, and whether it is a daily note.
    source: Option<(String, bool)>,
    /// A daily entry overflowed: no later daily entry is added.
    daily_closed: bool,
    overflow: Vec<Overflow>,
}

/// Entries of one source that did not fit the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The source file (a path), or for a daily note its date (the file's stem).
    pub source: String,
    pub daily: bool,
    pub entries: usize,
}

impl Merger {
    /// Starts from the destination's entries (made canonical here).
    pub fn new(existing: Vec<String>, format: EntryFormat, limit: usize) -> Merger {
        let entries = canonical_list(existing, format);
        let mut seen = KeySet::default();
        for e in &entries {
            let k = normalize(e);
            if !k.is_empty() {
                seen.insert(k);
            }
        }
        // (The existing entries are few: what fits the limit, or the destination file.)
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
            source: None,
            daily_closed: false,
            overflow: Vec::new(),
        }
    }

    /// Names the source of the entries offered next (for the report); `daily`: they are a daily
    /// note's, offered newest first.
    pub fn source(&mut self, source: impl Into<String>, daily: bool) {
        self.source = Some((source.into(), daily));
    }

    /// The sources that lost entries to the limit, in the order they were offered.
    pub fn overflow(&self) -> &[Overflow] {
        &self.overflow
    }

    /// The entries so far (existing and added).
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Offers one incoming entry.
    pub fn offer(&mut self, entry: &str) {
        let e = canonical(entry, self.format);
        let key = normalized(&e);
        self.consider(&e, &key);
    }

    /// Offers an entry that [`scan`] found `clean` (trimmed, one line, its own key), which is
    /// also its canonical form, without looking at it again; other entries go to [`Self::offer`].
    pub fn offer_scanned(&mut self, entry: &str, clean: bool) {
        if clean {
            self.consider(entry, entry);
        } else {
            self.offer(entry);
        }
    }

    fn consider(&mut self, e: &str, key: &str) {
        if key.is_empty() {
            return;
        }
        self.stats.incoming += 1;
        if self.seen.contains(key) {
            self.stats.duplicates += 1;
            return;
        }
        let daily = self.source.as_ref().is_some_and(|(_, d)| *d);
        let n = char_len(e);
        let candidate = if self.entries.is_empty() {
            n
        } else {
            self.len + DELIMITER_CHARS + n
        };
        if candidate > self.limit || (daily && self.daily_closed) {
            self.stats.overflowed += 1;
            self.daily_closed |= daily;
            self.note_overflow();
            return;
        }
        self.entries.push(e.to_string());
        self.seen.insert(key.to_string());
        self.len = candidate;
        self.stats.added += 1;
    }

    fn note_overflow(&mut self) {
        let (source, daily) = self
            .source
            .as_ref()
            .map_or(("", false), |(s, d)| (s.as_str(), *d));
        match self.overflow.last_mut() {
            Some(last) if last.source == source && last.daily == daily => last.entries += 1,
            _ => self.overflow.push(Overflow {
                source: source.to_string(),
                daily,
                entries: 1,
            }),
        }
    }

    pub fn stats(&self) -> MergeStats {
        self.stats
    }

    pub fn into_entries(self) -> Vec<String> {
        self.entries
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
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
    fn regression_overflow_kept_the_oldest_memories() {
        // Daily notes come newest first; the first that does not fit closes the merge to every
        // older one, even one short enough to fill the gap.
        let mut m = Merger::new(vec![], EntryFormat::Bullets, 20);
        m.source("MEMORY.md", false);
        m.offer("curated");
        for (day, entry) in [
            ("2026-11-03", "newest"),
            ("2026-11-02", "a long middle entry"),
            ("2026-11-01", "o"),
        ] {
            m.source(day, true);
            m.offer(entry);
        }
        assert_eq!(m.entries(), ["curated", "newest"]);
        assert_eq!(m.stats().overflowed, 2);
        assert_eq!(
            m.overflow(),
            [
                Overflow {
                    source: "2026-11-02".into(),
                    daily: true,
                    entries: 1
                },
                Overflow {
                    source: "2026-11-01".into(),
                    daily: true,
                    entries: 1
                },
            ]
        );
        // a duplicate of a kept entry stays a duplicate after the close
        m.source("2026-10-31", true);
        m.offer("newest");
        assert_eq!(m.stats().duplicates, 1);
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
