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

use super::text::{char_len, is_re_space, is_re_space_byte, is_word_byte};
use crate::runtime::EntryFormat;

/// The hermes entry separator.
pub const DELIMITER: &str = "\n§\n";
/// Code points of [`DELIMITER`].
const DELIMITER_CHARS: usize = 3;

/// Default limit of a memory file, in code points of the entries joined by [`DELIMITER`].
pub const MEMORY_CHAR_LIMIT: usize = 2200;
/// Default limit of a user-profile file.
pub const USER_CHAR_LIMIT: usize = 1375;

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

mod markdown;
mod merge;
#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;

pub use markdown::*;
pub use merge::*;
