//! The secret rule set of the package check: what a skill (or hook) must not carry, as data.
//!
//! Each [`Rule`] has a stable id (gitleaks' where gitleaks has the same rule), what a finding
//! says, and a [`Pattern`]: one of a few matcher shapes (a token after a known prefix, a URL of a
//! known service, a JWT, a bearer header, an assignment to a secret-named key, a PEM private-key
//! block), parameterised by the table below. The shapes are small hand-written matchers rather
//! than regular expressions: a regex engine would cost the static binary more than the whole
//! rule set (the book's "Static builds"), and every shape here is a prefix plus character classes.
//!
//! The rules aim at what is unambiguous, so a real skill is not refused for a word that merely
//! looks like a key: a token must be long enough and mix letters and digits (`sk-XXXX…` and
//! `xoxb-your-token` pass), documented examples pass (`AKIAIOSFODNN7EXAMPLE`), and an assignment
//! needs a value that is not a placeholder (`password = ""`, `${DB_PASSWORD}`, `<your password>`,
//! `{{ vault_password }}`, `changeme`). Adding a rule is one entry in [`RULES`] (`rules.rs`) and a test line in
//! each of the two tests in `tests.rs` (one that must be found, one near miss that must pass).

mod rules;

pub(crate) use rules::{Chars, Pattern, RULES, Rule};

/// A rule that matched, and where (a byte offset into the text).
#[derive(Debug)]
pub(crate) struct Hit {
    pub rule: &'static Rule,
    pub at: usize,
}

/// The first secret in `text` (the file `path`), by position.
pub(crate) fn find(path: &str, text: &str) -> Option<Hit> {
    let data_file = is_data_file(path);
    let lower = text.to_ascii_lowercase();
    RULES
        .iter()
        .filter_map(|rule| {
            matches(&rule.pattern, text.as_bytes(), lower.as_bytes(), data_file)
                .map(|at| Hit { rule, at })
        })
        .min_by_key(|h| h.at)
}

/// Files whose unquoted assignments are values (`.env`, YAML, TOML, INI, shell), not code.
fn is_data_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    if name.starts_with(".env") || name == "env" || name.ends_with(".env") {
        return true;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    matches!(
        ext,
        "yaml" | "yml" | "toml" | "ini" | "cfg" | "conf" | "properties" | "sh" | "bash"
    )
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `at` starts a word (nothing token-like just before it).
fn boundary(t: &[u8], at: usize) -> bool {
    at == 0 || !is_word(t[at - 1])
}

/// The length of the run of `chars` from `from`.
fn run(t: &[u8], from: usize, chars: Chars) -> usize {
    t[from.min(t.len())..]
        .iter()
        .take_while(|&&b| chars.has(b))
        .count()
}

fn mixed(s: &[u8]) -> bool {
    s.iter().any(u8::is_ascii_digit) && s.iter().any(u8::is_ascii_alphabetic)
}

/// A documented example or a row of one character, not a credential.
fn example(s: &[u8]) -> bool {
    let text = String::from_utf8_lossy(s).to_ascii_lowercase();
    text.contains("example") || s.windows(2).all(|w| w[0] == w[1])
}

/// Every offset of `needle` in `hay`.
fn offsets<'a>(hay: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        while from + needle.len() <= hay.len() {
            let at = from;
            from += 1;
            if hay[at..].starts_with(needle) {
                from = at + needle.len().max(1);
                return Some(at);
            }
        }
        None
    })
}

/// Where `pattern` first matches in `t` (`lower`: `t` in ASCII lowercase, same offsets).
fn matches(pattern: &Pattern, t: &[u8], lower: &[u8], data_file: bool) -> Option<usize> {
    match pattern {
        Pattern::Token {
            prefixes,
            chars,
            min,
            max,
            mixed: must_mix,
        } => prefixes.iter().find_map(|p| {
            offsets(t, p.as_bytes()).find(|&at| {
                let from = at + p.len();
                let n = run(t, from, *chars);
                let body = &t[from..from + n];
                boundary(t, at)
                    && (*min..=*max).contains(&n)
                    // A longer run of word characters is another kind of word.
                    && !t.get(from + n).is_some_and(|&b| is_word(b))
                    && (!must_mix || mixed(body))
                    && !example(body)
            })
        }),
        Pattern::DiscordBot => offsets(t, b".").find(|&dot| discord_bot(t, dot)),
        Pattern::UrlUserinfo => offsets(t, b"://").find(|&at| url_userinfo(t, lower, at)),
        Pattern::Telegram { digits, token } => offsets(t, b":").find(|&colon| {
            let d = t[..colon]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let n = run(t, colon + 1, Chars::Token);
            (digits.0..=digits.1).contains(&d)
                && boundary(t, colon - d)
                && n == *token
                && !example(&t[colon + 1..colon + 1 + n])
        }),
        Pattern::Url { prefixes, segments } => prefixes.iter().find_map(|p| {
            offsets(lower, p.as_bytes()).find(|&at| {
                let mut from = at + p.len();
                for (i, (chars, lo, hi)) in segments.iter().enumerate() {
                    let n = run(t, from, *chars);
                    if !(*lo..=*hi).contains(&n) {
                        return false;
                    }
                    let seg = &t[from..from + n];
                    from += n;
                    if i + 1 == segments.len() {
                        return mixed(seg) && !example(seg);
                    }
                    if t.get(from) != Some(&b'/') {
                        return false;
                    }
                    from += 1;
                }
                false
            })
        }),
        Pattern::Jwt => offsets(t, b"eyJ").find(|&at| {
            if !boundary(t, at) {
                return false;
            }
            let a = run(t, at, Chars::Token);
            let b_at = at + a + 1;
            if a < 17 || t.get(at + a) != Some(&b'.') || !t[b_at.min(t.len())..].starts_with(b"eyJ")
            {
                return false;
            }
            let b = run(t, b_at, Chars::Token);
            if b < 17 {
                return false;
            }
            match t.get(b_at + b) {
                Some(b'.') => {
                    let c = run(t, b_at + b + 1, Chars::Token);
                    c == 0 || c >= 10
                }
                _ => false,
            }
        }),
        Pattern::Bearer { min } => offsets(lower, b"bearer").find(|&at| {
            let mut from = at + 6;
            let spaces = t[from..].iter().take_while(|&&b| b == b' ').count();
            from += spaces;
            let n = run(t, from, Chars::Bearer);
            let tok = &t[from..from + n];
            boundary(t, at) && spaces > 0 && n >= *min && mixed(tok) && !example(tok)
        }),
        Pattern::Basic { min } => offsets(lower, b"authorization").find(|&at| {
            let rest = &lower[at + 13..];
            let skip = rest
                .iter()
                .take_while(|&&b| b == b'"' || b == b'\'' || b == b':' || b == b' ')
                .count();
            if !rest[skip..].starts_with(b"basic ") {
                return false;
            }
            let from = at + 13 + skip + 6;
            let n = run(t, from, Chars::Base64);
            n >= *min && !example(&t[from..from + n])
        }),
        Pattern::Assignment { keywords, value } => keywords.iter().find_map(|k| {
            offsets(lower, k.as_bytes())
                .find(|&at| assignment(t, lower, at, k.len(), *value, data_file))
        }),
        Pattern::PemPrivateKey => offsets(t, b"-----BEGIN").find(|&at| {
            let line_end = t[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(t.len(), |i| at + i);
            let header = &t[at..line_end];
            let Some(end) = header
                .windows(16)
                .position(|w| w == b"PRIVATE KEY-----")
                .map(|i| at + i + 16)
            else {
                return false;
            };
            // Count the key's base64 characters up to its END line (or the next 4 KiB).
            let mut n = 0;
            let mut i = end;
            while i < t.len() && i < end + 4096 && !t[i..].starts_with(b"-----END") {
                match t[i] {
                    b'\\' if t.get(i + 1).is_some_and(|&c| c == b'n' || c == b'r') => i += 1,
                    b'\n' | b'\r' | b' ' | b'\t' | b'"' | b'\'' => {}
                    b if Chars::Base64.has(b) => n += 1,
                    _ => break,
                }
                i += 1;
            }
            n >= 64
        }),
    }
}

/// Keys that hold a secret's name, path, source or rules, not the secret itself.
const NOT_A_SECRET_KEY: &[&str] = &[
    "_env",
    "env_",
    "_var",
    "_file",
    "_path",
    "_id",
    "_field",
    "_prompt",
    "_label",
    "_hint",
    "_policy",
    "_pattern",
    "_regex",
    "_rule",
    "_length",
    "_min",
    "_max",
    "_url",
    "_hash_algo",
    "_command",
    "_cmd",
    "reset",
    "forgot",
];

/// Placeholders and references, in lowercase: a value containing one is not a secret.
const PLACEHOLDERS: &[&str] = &[
    "${",
    "{{",
    "<",
    "%(",
    "%s",
    "your",
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "password",
    "passwd",
    "redacted",
    "dummy",
    "sample",
    "replace",
    "xxx",
    "***",
    "...",
    "todo",
    "fixme",
    "secret",
    "none",
    "null",
    "test",
];

/// A Discord bot token around its first `.` at `dot`: the base64 user id (starting `M`, `N`
/// or `O`, 23 to 28 characters), 6 characters of timestamp, then an HMAC of 27 to 40.
fn discord_bot(t: &[u8], dot: usize) -> bool {
    let id = t[..dot]
        .iter()
        .rev()
        .take_while(|&&b| Chars::Token.has(b))
        .count();
    let start = dot - id;
    let stamp = run(t, dot + 1, Chars::Token);
    let mac_at = dot + 1 + stamp + 1;
    if !(23..=28).contains(&id)
        || !b"MNO".contains(&t[start])
        || !boundary(t, start)
        || stamp != 6
        || t.get(dot + 1 + stamp) != Some(&b'.')
    {
        return false;
    }
    let mac = run(t, mac_at, Chars::Token);
    (27..=40).contains(&mac)
        && mixed(&t[start..dot])
        && mixed(&t[mac_at..mac_at + mac])
        && !example(&t[start..mac_at + mac])
}

/// `scheme://user:password@host` at the `://` at `at`: a password in a URL's userinfo, not a
/// placeholder (`USER:PASSWORD`, `${TOKEN}`, `<pass>`) nor documentation on `example.com`.
fn url_userinfo(t: &[u8], lower: &[u8], at: usize) -> bool {
    let scheme = t[..at]
        .iter()
        .rev()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"+.-".contains(&b))
        .count();
    if scheme == 0 {
        return false;
    }
    let from = at + 3;
    let user = run(t, from, Chars::Token);
    if user == 0 || t.get(from + user) != Some(&b':') {
        return false;
    }
    let pass_at = from + user + 1;
    let pass = t[pass_at.min(t.len())..]
        .iter()
        .take_while(|&&b| !b"@/?#\"' \t\r\n<>`".contains(&b))
        .count();
    let host_at = pass_at + pass + 1;
    if pass < 6 || t.get(pass_at + pass) != Some(&b'@') {
        return false;
    }
    let host_len = lower[host_at.min(lower.len())..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b".-".contains(&b))
        .count();
    let host = String::from_utf8_lossy(&lower[host_at..host_at + host_len]);
    let pw = &t[pass_at..pass_at + pass];
    let lower_pw = String::from_utf8_lossy(pw).to_ascii_lowercase();
    let documented = ["example.com", "example.org", "example.net"]
        .iter()
        .any(|d| host == *d || host.ends_with(&format!(".{d}")));
    host_len > 0
        && !documented
        && mixed(pw)
        && !PLACEHOLDERS.iter().any(|p| lower_pw.contains(p))
        && !pw.first().is_some_and(|b| b"$%&*{".contains(b))
        && !example(pw)
}

/// Whether the keyword at `at` (length `len`) is a key assigned a secret-looking value.
fn assignment(
    t: &[u8],
    lower: &[u8],
    at: usize,
    len: usize,
    value: Option<(Chars, usize)>,
    data_file: bool,
) -> bool {
    let key_char = |b: u8| is_word(b) || b == b'.';
    // The whole key the keyword is part of (`DB_PASSWORD`, `adminPassword`, `--password`).
    let start = lower[..at]
        .iter()
        .rev()
        .take_while(|&&b| key_char(b))
        .count();
    let end = at
        + len
        + lower[at + len..]
            .iter()
            .take_while(|&&b| key_char(b))
            .count();
    let key = String::from_utf8_lossy(&lower[at - start..end]);
    if value.is_none() && NOT_A_SECRET_KEY.iter().any(|n| key.contains(n)) {
        return false;
    }
    // `"key": `, `key = `, `key := `, `key => `, `KEY=`.
    let mut i = end;
    let skip = |i: &mut usize, set: &[u8]| {
        while t.get(*i).is_some_and(|b| set.contains(b)) {
            *i += 1;
        }
    };
    skip(&mut i, b"\"' \t");
    // `key=value` written tight, as on a command line or in a connection string.
    let tight_key = i == end && t.get(i) == Some(&b'=');
    match (t.get(i), t.get(i + 1)) {
        (Some(b':'), Some(b'=')) | (Some(b'='), Some(b'>')) => i += 2,
        (Some(b'=' | b':'), _) => i += 1,
        _ => return false,
    }
    if t.get(i) == Some(&b'=') {
        return false; // `==`: a comparison
    }
    let tight = tight_key && t.get(i).is_some_and(|&b| !b" \t".contains(&b));
    skip(&mut i, b" \t");
    let quote = t.get(i).copied().filter(|b| b"\"'`".contains(b));
    let (val, quoted) = match quote {
        Some(q) => {
            let from = i + 1;
            let Some(n) = t[from..].iter().position(|&b| b == q || b == b'\n') else {
                return false;
            };
            if t[from + n] != q {
                return false;
            }
            (&t[from..from + n], true)
        }
        None => {
            let n = t[i..]
                .iter()
                .take_while(|&&b| !b" \t\r\n#;,".contains(&b))
                .count();
            (&t[i..i + n], false)
        }
    };
    if let Some((chars, exact)) = value {
        return val.len() == exact
            && val.iter().all(|&b| chars.has(b))
            && mixed(val)
            && !example(val);
    }
    let lower_val = String::from_utf8_lossy(val).to_ascii_lowercase();
    if PLACEHOLDERS.iter().any(|p| lower_val.contains(p))
        || val.first().is_some_and(|b| b"$%@&*".contains(b))
        || example(val)
    {
        return false;
    }
    if quoted {
        return val.len() >= 4;
    }
    // Unquoted: a value in data files, or written tight (`password=…`) mixing letters and
    // digits; never a reference or a word such as `true`.
    (data_file || (tight && mixed(val)))
        && val.len() >= 6
        && !val.iter().any(|b| b"({[".contains(b))
        && val
            .iter()
            .any(|&b| b.is_ascii_digit() || b"!#%^&*?+".contains(&b))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
