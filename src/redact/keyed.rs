//! Secret-looking keys: the value after a key such as `api_key`, `token` or `Authorization`
//! (in JSON, YAML, TOML or `.env` syntax) or the word `Bearer`, masked line by line.

use std::borrow::Cow;

use super::{PUBLIC_TOKENS, is_reference, is_secret_key, mask};

pub(super) fn redact_keyed(text: &str) -> Cow<'_, str> {
    if !text.lines().any(line_may_hold_secret) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive('\n') {
        let (line, nl) = match piece.strip_suffix('\n') {
            Some(l) => (l, "\n"),
            None => (piece, ""),
        };
        if line_may_hold_secret(line) {
            out.push_str(&redact_line(line));
        } else {
            out.push_str(line);
        }
        out.push_str(nl);
    }
    Cow::Owned(out)
}

fn line_may_hold_secret(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "passw",
        "authoriz",
        "bearer",
        "credential",
    ]
    .iter()
    .any(|w| l.contains(w))
}

/// Masks the value after each secret-looking key, and the token after `Bearer `.
fn redact_line(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < bytes.len() {
        // A key: a run of identifier characters, possibly quoted.
        if is_key_char(bytes[i]) && (i == 0 || !is_key_char(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && is_key_char(bytes[i]) {
                i += 1;
            }
            let key = &line[start..i];
            out.push_str(key);
            if key.eq_ignore_ascii_case("bearer") && bytes.get(i) == Some(&b' ') {
                out.push(' ');
                i += 1;
                let vstart = i;
                while i < bytes.len() && !is_value_end(bytes[i]) {
                    i += 1;
                }
                push_masked(&mut out, &line[vstart..i]);
                continue;
            }
            if !is_secret_key(key) {
                continue;
            }
            // Optional closing quote of the key, spaces, then `:` or `=`.
            let mut j = i;
            if j < bytes.len() && (bytes[j] == b'"' || bytes[j] == b'\'') {
                j += 1;
            }
            while j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            if j >= bytes.len() || (bytes[j] != b':' && bytes[j] != b'=') {
                continue;
            }
            j += 1;
            while j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            out.push_str(&line[i..j]);
            i = j;
            // The value: quoted, or bare up to a delimiter.
            let quote = bytes.get(i).copied().filter(|&b| b == b'"' || b == b'\'');
            if let Some(q) = quote {
                out.push(q as char);
                i += 1;
                let vstart = i;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' && i + 1 < bytes.len() {
                        i += 1 + utf8_len(bytes[i + 1]);
                    } else {
                        i += 1;
                    }
                }
                let i_end = i.min(bytes.len());
                mask_value(&mut out, &line[vstart..i_end]);
                i = i_end;
            } else if bytes.get(i) == Some(&b'\\')
                && matches!(bytes.get(i + 1), Some(b'"') | Some(b'\''))
            {
                // A quoted value inside a JSON string (a diff line of a TOML or YAML file in
                // `--json` output: `Authorization = \"secret\"`): mask up to the escaped
                // closing quote, so the escaping, and with it the JSON, stays whole.
                let q = bytes[i + 1];
                out.push_str(&line[i..i + 2]);
                i += 2;
                let vstart = i;
                while i < bytes.len() && !(bytes[i] == b'\\' && bytes.get(i + 1) == Some(&q)) {
                    i += utf8_len(bytes[i]);
                }
                let i_end = i.min(bytes.len());
                mask_value(&mut out, &line[vstart..i_end]);
                i = i_end;
            } else if bytes.get(i) == Some(&b'[') || bytes.get(i) == Some(&b'{') {
                // A list or map of secrets (`api_keys: [..]`): the key-net masks each item.
                continue;
            } else {
                // A bare `Bearer <token>` (YAML, .env): the token is the secret, not the word.
                if line[i..].starts_with("Bearer ") {
                    out.push_str("Bearer ");
                    i += "Bearer ".len();
                }
                let vstart = i;
                // An escaped quote ends it too: the value is inside a JSON string (`--json`).
                while i < bytes.len()
                    && !is_value_end(bytes[i])
                    && !(bytes[i] == b'\\' && matches!(bytes.get(i + 1), Some(b'"' | b'\'')))
                {
                    i += 1;
                }
                mask_value(&mut out, &line[vstart..i]);
            }
            continue;
        }
        // Copy one UTF-8 character.
        let ch_len = utf8_len(bytes[i]);
        out.push_str(&line[i..(i + ch_len).min(line.len())]);
        i += ch_len;
    }
    out
}

fn mask_value(out: &mut String, value: &str) {
    if let Some(rest) = value.strip_prefix("Bearer ") {
        out.push_str("Bearer ");
        push_masked(out, rest);
    } else {
        push_masked(out, value);
    }
}

fn push_masked(out: &mut String, value: &str) {
    out.push_str(&mask_secret_value(value));
}

/// The value of a secret-looking key as it may be shown: masked, unless it is empty, a
/// reference (`${VAR}`), a published local token, a number or a boolean.
pub fn mask_secret_value(value: &str) -> Cow<'_, str> {
    let plain = value.is_empty()
        || is_reference(value)
        || PUBLIC_TOKENS.contains(&value)
        || value.parse::<f64>().is_ok()
        || matches!(value, "true" | "false" | "null" | "~");
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(mask(value))
    }
}

fn is_key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}

fn is_value_end(b: u8) -> bool {
    matches!(b, b' ' | b',' | b'}' | b']' | b'"' | b'\'' | b'\t' | b'#')
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}
