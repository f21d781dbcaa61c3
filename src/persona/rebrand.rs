//! Rebranding: persona text that names another runtime is rewritten to name the destination
//! (docs/device-contract.md §5.4; upstream `rebrandTo<RT>`).
//!
//! Each brand is upstream's pattern: `(?i)\bOpen[\s-]?Claw\b`, `\bClawdBot\b`, `\bMoltBot\b`,
//! `\bHermes\b`, `\bPico[\s-]?Claw\b`, `\bCodex\b`, `\bClaude[\s-]?Code\b` (it needs "Code", so
//! the Claude model is never renamed) and `\bOpen[\s-]?Code\b`, with Go's ASCII `\s` and `\b`.
//! Case-insensitivity is ASCII (Go also folds `ſ` into `s`; no brand is worth that). The
//! replacement keeps case the way upstream's `casePreserving` does: an all-lowercase match gets
//! the lowercase brand (`openclaw` → `hermes`), anything else the brand as written. Each runtime
//! declares its own patterns (`Runtime::brands`) and whose names it rewrites
//! (`Runtime::rebrand_from`); [`patterns_to`] derives a destination's list from the registry.

use std::borrow::Cow;
use std::sync::LazyLock;

use super::text::is_word_byte;
use crate::runtime::{REGISTRY, Runtime};

/// One of upstream's patterns for a runtime's name in persona text: one word, or two words that
/// may be joined by one ASCII space or `-`, or nothing. Each runtime declares the patterns that
/// name it (`Runtime::brands`); the words are lowercase ASCII.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Brand {
    first: &'static [u8],
    second: Option<&'static [u8]>,
}

impl Brand {
    /// A one-word pattern (`\bHermes\b`).
    pub const fn word(word: &'static str) -> Brand {
        Brand::new(word.as_bytes(), None)
    }

    /// A two-word pattern (`\bOpen[\s-]?Claw\b`).
    pub const fn words(first: &'static str, second: &'static str) -> Brand {
        Brand::new(first.as_bytes(), Some(second.as_bytes()))
    }

    const fn new(first: &'static [u8], second: Option<&'static [u8]>) -> Brand {
        assert!(is_lowercase_word(first), "a brand word is lowercase ASCII");
        assert!(first.len() >= 2, "a brand word has two letters at least");
        if let Some(second) = second {
            assert!(is_lowercase_word(second), "a brand word is lowercase ASCII");
        }
        Brand { first, second }
    }

    /// Length of a match starting at `at` (the caller checked the boundary before it).
    fn match_at(self, text: &[u8], at: usize) -> Option<usize> {
        let mut i = at + ci_prefix(&text[at..], self.first)?;
        if let Some(second) = self.second {
            let sep = text
                .get(i)
                .is_some_and(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'-'));
            i += match ci_prefix(&text[i + usize::from(sep)..], second) {
                Some(n) => n + usize::from(sep),
                None if sep => ci_prefix(&text[i..], second)?,
                None => return None,
            };
        }
        (i == text.len() || !is_word_byte(text[i])).then_some(i - at)
    }
}

const fn is_lowercase_word(word: &[u8]) -> bool {
    let mut i = 0;
    while i < word.len() {
        if !word[i].is_ascii_lowercase() {
            return false;
        }
        i += 1;
    }
    !word.is_empty()
}

/// The patterns rewritten to `rt`'s brand in text that arrives there, in registry order: the
/// brands of the runtimes its `rebrand_from` names (upstream `rebrandTo<RT>`). Upstream applied
/// them in its own order; the order cannot change the result (see [`rebrand`]).
pub fn patterns_to(rt: &Runtime) -> &'static [Brand] {
    static TABLES: LazyLock<Vec<Vec<Brand>>> = LazyLock::new(|| {
        REGISTRY
            .iter()
            .map(|to| {
                REGISTRY
                    .iter()
                    .filter(|from| from.id != to.id && to.rebrand_from.includes(from.id))
                    .flat_map(|from| from.brands.iter().copied())
                    .collect()
            })
            .collect()
    });
    &TABLES[rt.id.index()]
}

/// Length of `word` (lowercase ASCII) when `text` starts with it in any ASCII case.
#[inline(always)]
fn ci_prefix(text: &[u8], word: &[u8]) -> Option<usize> {
    (text.len() >= word.len() && text[..word.len()].eq_ignore_ascii_case(word))
        .then_some(word.len())
}

/// `text` with each brand of `from`, in order, replaced by `to` (upstream applies one regex
/// after the other). Borrowed when nothing matched, which is the common case.
///
/// One pass first finds which brands occur at all; only those are replaced, in order. That is
/// the same result: a replacement is a whole word standing between word boundaries and is never
/// a brand of `from`, so it cannot start or complete a later brand's match. For the same reason,
/// and because two brands never match overlapping text, the order of `from` does not change the
/// result either.
pub fn rebrand<'a>(text: &'a str, from: &[Brand], to: &str) -> Cow<'a, str> {
    let bytes = text.as_bytes();
    let mut present = [false; 8];
    let mut any = false;
    let mut at = 0;
    while let Some(start) = next_start(bytes, at) {
        for (i, brand) in from.iter().enumerate().take(present.len()) {
            if !present[i]
                && brand.first[0] == bytes[start] | 0x20
                && brand.match_at(bytes, start).is_some()
            {
                present[i] = true;
                any = true;
            }
        }
        at = start + 1;
    }
    if !any {
        return Cow::Borrowed(text);
    }
    let lower_to = to.to_ascii_lowercase();
    let mut current = text.to_string();
    for (i, &brand) in from.iter().enumerate() {
        if !present.get(i).copied().unwrap_or(true) {
            continue;
        }
        let bytes = current.as_bytes();
        let mut out = String::with_capacity(current.len());
        let mut copied = 0;
        let mut pos = 0;
        while let Some((at, len)) = find(bytes, brand, pos) {
            let matched = &current[at..at + len];
            out.push_str(&current[copied..at]);
            out.push_str(if is_lower(matched) { &lower_to } else { to });
            copied = at + len;
            pos = copied;
        }
        if copied > 0 {
            out.push_str(&current[copied..]);
            current = out;
        }
    }
    Cow::Owned(current)
}

/// The next position at or after `from` where a brand could start: one of the brands' first
/// letters (in any case) after a non-word byte.
#[inline(always)]
fn next_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at < bytes.len() {
        if CLASS[bytes[at] as usize] == START && (at == 0 || CLASS[bytes[at - 1] as usize] == OTHER)
        {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// Whether a byte is the first letter of a brand, in any case.
pub const fn is_brand_first(b: u8) -> bool {
    SECOND_LETTERS[b.to_ascii_lowercase() as usize] != 0
}

/// Whether two bytes start a brand (the first two letters of a brand's first word, in any case):
/// a cheap test that rules out almost every word.
#[inline(always)]
pub fn may_start_brand(a: u8, b: u8) -> bool {
    let (a, b) = (a | 0x20, b | 0x20);
    b.is_ascii_lowercase() && SECOND_LETTERS[a as usize] & (1 << (b - b'a')) != 0
}

/// For each lowercase first letter of a brand, the second letters its brands have (bit
/// `letter - 'a'`), from every runtime's brands: the tables below follow the registry.
static SECOND_LETTERS: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut r = 0;
    while r < REGISTRY.len() {
        let brands = REGISTRY[r].brands;
        let mut i = 0;
        while i < brands.len() {
            let word = brands[i].first;
            t[word[0] as usize] |= 1 << (word[1] - b'a');
            i += 1;
        }
        r += 1;
    }
    t
};

const OTHER: u8 = 0;
const WORD: u8 = 1;
const START: u8 = 2;

/// Byte classes: `OTHER` (not a word byte), `WORD` (ASCII word byte), `START` (a word byte that
/// starts a brand). A table, because this runs on every byte of every daily entry.
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            t[b] = WORD;
        }
        if is_brand_first(c) {
            t[b] = START;
        }
        b += 1;
    }
    t
};

/// The leftmost match of `brand` at or after `from`.
fn find(text: &[u8], brand: Brand, from: usize) -> Option<(usize, usize)> {
    let first = brand.first[0];
    let mut at = from;
    while let Some(start) = next_start(text, at) {
        if text[start] | 0x20 == first
            && let Some(len) = brand.match_at(text, start)
        {
            return Some((start, len));
        }
        at = start + 1;
    }
    None
}

/// Upstream `isLower`: has an ASCII lowercase letter and no ASCII uppercase one.
fn is_lower(s: &str) -> bool {
    !s.bytes().any(|b| b.is_ascii_uppercase()) && s.bytes().any(|b| b.is_ascii_lowercase())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    const TO_HERMES: &[Brand] = &[
        Brand::OpenClaw,
        Brand::ClawdBot,
        Brand::MoltBot,
        Brand::PicoClaw,
        Brand::Codex,
        Brand::ClaudeCode,
        Brand::OpenCode,
    ];

    #[test]
    fn case_preserving_swaps() {
        let got = rebrand(
            "OpenClaw, Open Claw, open-claw, OPENCLAW, ClawdBot and moltbot run on Claude Code; \
             the Claude model stays, openclaw-imports too",
            TO_HERMES,
            "Hermes",
        );
        assert_eq!(
            got,
            "Hermes, Hermes, hermes, Hermes, Hermes and hermes run on Hermes; the Claude model \
             stays, hermes-imports too"
        );
        assert_eq!(
            rebrand("I am hermes, not Hermes.", &[Brand::Hermes], "Claude Code"),
            "I am claude code, not Claude Code."
        );
    }

    #[test]
    fn word_boundaries_are_ascii() {
        for text in [
            "OpenClawd",
            "xOpenClaw",
            "Open_Claw",
            "Open  Claw",
            "Codex2",
            "_codex",
        ] {
            assert_eq!(rebrand(text, TO_HERMES, "Hermes"), text, "{text}");
        }
        assert_eq!(rebrand("éCodex!", TO_HERMES, "Hermes"), "éHermes!");
        assert!(matches!(
            rebrand("nothing here", TO_HERMES, "Hermes"),
            Cow::Borrowed(_)
        ));
        // the separator is optional: "Open-" followed by a non-brand word does not match
        assert_eq!(
            rebrand("Open-Clawx Open-Code", &[Brand::OpenCode], "X"),
            "Open-Clawx X"
        );
    }

    #[test]
    fn brands_apply_in_order() {
        // "Claude Codex": ClaudeCode needs a boundary after "Code", so only Codex matches
        assert_eq!(
            rebrand("Claude Codex", TO_HERMES, "Hermes"),
            "Claude Hermes"
        );
    }

    #[test]
    fn the_order_of_the_brands_does_not_change_the_result() {
        let mut reversed = TO_HERMES.to_vec();
        reversed.reverse();
        for text in [
            "Open ClawdBot, Claude Codex and open-code",
            "Open Codex, Pico Claw-Code, Claude Open Code",
            "OpenClaw moltbot PicoClaw codex ClaudeCode opencode open-claw-code",
        ] {
            assert_eq!(
                rebrand(text, TO_HERMES, "Hermes"),
                rebrand(text, &reversed, "Hermes"),
                "{text}"
            );
        }
    }

    #[test]
    fn the_first_letter_tables_cover_every_brand() {
        for brand in TO_HERMES.iter().chain([&Brand::Hermes]) {
            assert!(is_brand_first(brand.first[0].to_ascii_uppercase()));
            assert!(may_start_brand(
                brand.first[0],
                brand.first[1].to_ascii_uppercase()
            ));
        }
        assert!(!is_brand_first(b'x') && !may_start_brand(b'o', b'x'));
        assert!(!may_start_brand(b'/', b'p') && !may_start_brand(b'o', b'\x10'));
    }
}
