//! The character classes of upstream's Go regular expressions, which the hand-written matchers
//! of `entries`, `rebrand`, `identity` and `user_profile` keep exactly, and the code-point count
//! every limit is measured in.

/// Go regexp's `\s`: `[\t\n\f\r ]`.
#[inline(always)]
pub(crate) fn is_re_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// Go regexp's ASCII word character (`\w`, and the sides of `\b`).
#[inline(always)]
pub(crate) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Code points (Python's `len`, Go's `utf8.RuneCountInString`): the unit of every limit.
pub(crate) fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// [`is_re_space`] on a byte.
#[inline(always)]
pub(crate) fn is_re_space_byte(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}
