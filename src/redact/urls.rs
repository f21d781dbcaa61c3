//! Credentials in URLs: the userinfo (`https://bob:pw@host`) and the values of credential-like
//! query parameters of every URL in a text, masked wherever the URL appears.

use std::borrow::Cow;

use super::{is_secret_key, mask_secret_value};

/// Masks the userinfo and the credential-like query values of every URL in `text`.
pub(super) fn redact_urls(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(pos) = text[from..].find("://") {
        let sep = from + pos;
        from = sep + 3;
        let mut scheme = sep;
        while scheme > 0 && is_scheme_char(bytes[scheme - 1]) {
            scheme -= 1;
        }
        if scheme == sep || !bytes[scheme].is_ascii_alphabetic() {
            continue;
        }
        let start = sep + 3;
        let mut end = start;
        while end < bytes.len() && !is_url_end(bytes[end]) {
            end += 1;
        }
        let url = &text[start..end];
        let auth_end = url.find(['/', '?', '#']).unwrap_or(url.len());
        let (authority, tail) = url.split_at(auth_end);
        let masked_authority = match authority.rfind('@') {
            // All of it: a user name can be the token (`https://<token>:x-oauth-basic@`).
            Some(at) if is_credential_userinfo(&authority[..at]) => {
                Some(format!("***{}", &authority[at..]))
            }
            _ => None,
        };
        let masked_tail = mask_query(tail);
        if masked_authority.is_none() && matches!(masked_tail, Cow::Borrowed(_)) {
            from = end.max(from);
            continue;
        }
        out.push_str(&text[copied..start]);
        out.push_str(masked_authority.as_deref().unwrap_or(authority));
        out.push_str(&masked_tail);
        copied = end;
        from = end.max(from);
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

fn is_scheme_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

/// Where a URL ends in running text: blanks, quotes, brackets, a backslash (a JSON escape).
fn is_url_end(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\' | b']' | b'}' | b')' | b'|'
        )
}

/// A userinfo is a credential when it carries a password (`user:pw`) or is a token on its own
/// (`https://<token>@host`); a plain user name (`git@`) is not.
fn is_credential_userinfo(userinfo: &str) -> bool {
    if userinfo.is_empty() || userinfo == "***" {
        return false;
    }
    if userinfo.contains('…') {
        // Partly masked already (a registered value inside it): the rest goes too.
        return true;
    }
    match userinfo.split_once(':') {
        Some((_, pw)) => !pw.is_empty(),
        None => {
            userinfo.len() >= 16
                || (userinfo.len() >= 8
                    && userinfo.chars().any(|c| c.is_ascii_digit())
                    && userinfo.chars().any(|c| c.is_ascii_alphabetic()))
        }
    }
}

/// Query parameter names that carry credentials.
fn is_credential_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    is_secret_key(&n)
        || n == "key"
        || n == "code"
        || n == "sig"
        || n.ends_with("key")
        || ["signature", "auth", "session", "pass", "pwd", "jwt"]
            .iter()
            .any(|w| n.contains(w))
}

/// Masks the values of credential-like parameters in the query of a URL's `tail` (its path,
/// query and fragment).
fn mask_query(tail: &str) -> Cow<'_, str> {
    let Some(q) = tail.find('?') else {
        return Cow::Borrowed(tail);
    };
    let (head, query) = tail.split_at(q + 1);
    let mut out = String::with_capacity(tail.len());
    out.push_str(head);
    let mut changed = false;
    let mut rest = query;
    while !rest.is_empty() {
        let end = rest.find(['&', '#', ';', ',']).unwrap_or(rest.len());
        let (param, after) = rest.split_at(end);
        match param.split_once('=') {
            Some((name, value)) if is_credential_param(name) => {
                let masked = mask_secret_value(value);
                changed |= masked != value;
                out.push_str(name);
                out.push('=');
                out.push_str(&masked);
            }
            _ => out.push_str(param),
        }
        match after.chars().next() {
            Some('#') => {
                out.push_str(after);
                break;
            }
            Some(c) => {
                out.push(c);
                rest = &after[c.len_utf8()..];
            }
            None => break,
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(tail)
    }
}
