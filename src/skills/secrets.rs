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
//! `{{ vault_password }}`, `changeme`). Adding a rule is one entry in [`RULES`] and a test line in
//! each of the two tests below (one that must be found, one near miss that must pass).

/// One secret rule.
#[derive(Debug)]
pub(crate) struct Rule {
    /// Stable id (`jwt`, `slack-webhook-url`), as gitleaks names the rule where it has it.
    pub id: &'static str,
    /// What a finding says the file holds ("a JWT").
    pub what: &'static str,
    pub pattern: Pattern,
}

/// Which bytes a token, segment or value may be made of.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Chars {
    /// `A-Z a-z 0-9`.
    Alnum,
    /// `A-Z a-z 0-9 _ -` (also base64url).
    Token,
    /// `A-Z a-z 0-9 + / =`.
    Base64,
    /// `0-9 a-f A-F`.
    Hex,
    /// `A-Z 0-9`.
    Upper,
    /// `A-Z 2-7` (AWS key ids).
    Base32,
    /// `0-9`.
    Digits,
    /// RFC 6750 `b64token`: `A-Z a-z 0-9 - . _ ~ + /` and trailing `=`.
    Bearer,
}

impl Chars {
    fn has(self, b: u8) -> bool {
        match self {
            Chars::Alnum => b.is_ascii_alphanumeric(),
            Chars::Token => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Chars::Base64 => b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=',
            Chars::Hex => b.is_ascii_hexdigit(),
            Chars::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Chars::Base32 => b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b),
            Chars::Digits => b.is_ascii_digit(),
            Chars::Bearer => b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b),
        }
    }
}

/// The shape a rule matches.
#[derive(Debug)]
pub(crate) enum Pattern {
    /// One of `prefixes` at the start of a word, then `min..=max` bytes of `chars` (and no more
    /// of them); with `mixed`, those bytes hold both letters and digits.
    Token {
        prefixes: &'static [&'static str],
        chars: Chars,
        min: usize,
        max: usize,
        mixed: bool,
    },
    /// `<digits>:<token>`: Telegram's bot token (`123456789:AA…`).
    Telegram {
        digits: (usize, usize),
        token: usize,
    },
    /// One of `prefixes` (a host and path, with or without a scheme), then `/`-separated
    /// `segments`, the last of which must mix letters and digits.
    Url {
        prefixes: &'static [&'static str],
        segments: &'static [(Chars, usize, usize)],
    },
    /// `eyJ…​.eyJ…​.…`: a JSON Web Token (header and claims at least 17 characters, the signature,
    /// when there is one, at least 10).
    Jwt,
    /// `Bearer <token>` (any case), the token at least `min` bytes mixing letters and digits.
    Bearer { min: usize },
    /// `Authorization: Basic <base64>`, the credentials at least `min` bytes.
    Basic { min: usize },
    /// A key whose name contains one of `keywords` (any case; not a key that names a file, a
    /// variable or a rule about the secret, such as `password_file`) assigned (`=`, `:`, `:=`,
    /// `=>`) a quoted value that is not a placeholder. An unquoted value counts only in data
    /// files (`.env`, YAML, TOML, INI, shell), where it is a value rather than code. With
    /// `value`, the value must also be exactly that: `(chars, length)`.
    Assignment {
        keywords: &'static [&'static str],
        value: Option<(Chars, usize)>,
    },
    /// `-----BEGIN … PRIVATE KEY-----` followed by at least 64 base64 characters (line breaks,
    /// quotes and `\n` escapes aside): a key, not a sentence that names its header.
    PemPrivateKey,
}

/// The rule set.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        id: "private-key",
        what: "a private key",
        pattern: Pattern::PemPrivateKey,
    },
    Rule {
        id: "jwt",
        what: "a JSON Web Token",
        pattern: Pattern::Jwt,
    },
    Rule {
        id: "authorization-bearer",
        what: "a bearer token",
        pattern: Pattern::Bearer { min: 20 },
    },
    Rule {
        id: "authorization-basic",
        what: "basic-auth credentials",
        pattern: Pattern::Basic { min: 12 },
    },
    Rule {
        id: "slack-webhook-url",
        what: "a Slack webhook URL",
        pattern: Pattern::Url {
            prefixes: &["hooks.slack.com/services/"],
            segments: &[
                (Chars::Upper, 8, 16),
                (Chars::Upper, 8, 16),
                (Chars::Alnum, 20, 40),
            ],
        },
    },
    Rule {
        id: "slack-webhook-url",
        what: "a Slack webhook URL",
        pattern: Pattern::Url {
            prefixes: &["hooks.slack.com/workflows/", "hooks.slack.com/triggers/"],
            segments: &[
                (Chars::Upper, 8, 16),
                (Chars::Alnum, 8, 20),
                (Chars::Alnum, 20, 64),
            ],
        },
    },
    Rule {
        id: "discord-webhook-url",
        what: "a Discord webhook URL",
        pattern: Pattern::Url {
            prefixes: &["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
            segments: &[(Chars::Digits, 17, 20), (Chars::Token, 60, 68)],
        },
    },
    Rule {
        id: "password-assignment",
        what: "a password",
        pattern: Pattern::Assignment {
            keywords: &["password", "passwd", "passphrase"],
            value: None,
        },
    },
    Rule {
        id: "aws-access-token",
        what: "an AWS access key",
        pattern: Pattern::Token {
            prefixes: &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
            chars: Chars::Base32,
            min: 16,
            max: 17,
            mixed: false,
        },
    },
    Rule {
        id: "aws-secret-access-key",
        what: "an AWS secret access key",
        pattern: Pattern::Assignment {
            keywords: &[
                "aws_secret_access_key",
                "secret_access_key",
                "secretaccesskey",
            ],
            value: Some((Chars::Base64, 40)),
        },
    },
    Rule {
        id: "gcp-api-key",
        what: "a Google API key",
        pattern: Pattern::Token {
            prefixes: &["AIza"],
            chars: Chars::Token,
            min: 35,
            max: 35,
            mixed: true,
        },
    },
    Rule {
        id: "gcp-oauth-client-secret",
        what: "a Google OAuth client secret",
        pattern: Pattern::Token {
            prefixes: &["GOCSPX-"],
            chars: Chars::Token,
            min: 28,
            max: 28,
            mixed: true,
        },
    },
    Rule {
        id: "gcp-service-account-key-id",
        what: "a Google service-account key",
        pattern: Pattern::Assignment {
            keywords: &["private_key_id"],
            value: Some((Chars::Hex, 40)),
        },
    },
    Rule {
        id: "github-pat",
        what: "a GitHub token",
        pattern: Pattern::Token {
            prefixes: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
            chars: Chars::Alnum,
            min: 36,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "github-fine-grained-pat",
        what: "a GitHub token",
        pattern: Pattern::Token {
            prefixes: &["github_pat_"],
            chars: Chars::Token,
            min: 22,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "gitlab-pat",
        what: "a GitLab token",
        pattern: Pattern::Token {
            prefixes: &["glpat-"],
            chars: Chars::Token,
            min: 20,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "slack-token",
        what: "a Slack token",
        pattern: Pattern::Token {
            prefixes: &[
                "xoxb-",
                "xoxp-",
                "xoxa-",
                "xoxr-",
                "xoxs-",
                "xoxe-",
                "xoxe.xoxp-",
                "xapp-",
            ],
            chars: Chars::Token,
            min: 10,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "telegram-bot-api-token",
        what: "a Telegram bot token",
        pattern: Pattern::Telegram {
            digits: (8, 10),
            token: 35,
        },
    },
    Rule {
        id: "anthropic-api-key",
        what: "an Anthropic API key",
        pattern: Pattern::Token {
            prefixes: &["sk-ant-"],
            chars: Chars::Token,
            min: 20,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "openai-api-key",
        what: "an OpenAI API key",
        pattern: Pattern::Token {
            prefixes: &["sk-proj-", "sk-svcacct-", "sk-admin-"],
            chars: Chars::Token,
            min: 20,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "generic-sk-api-key",
        what: "an API key (sk-…)",
        pattern: Pattern::Token {
            prefixes: &["sk-"],
            chars: Chars::Token,
            min: 32,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "stripe-access-token",
        what: "a Stripe key",
        pattern: Pattern::Token {
            prefixes: &["sk_live_", "rk_live_"],
            chars: Chars::Alnum,
            min: 24,
            max: 255,
            mixed: true,
        },
    },
    Rule {
        id: "npm-access-token",
        what: "an npm token",
        pattern: Pattern::Token {
            prefixes: &["npm_"],
            chars: Chars::Alnum,
            min: 36,
            max: 36,
            mixed: true,
        },
    },
];

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
    match (t.get(i), t.get(i + 1)) {
        (Some(b':'), Some(b'=')) | (Some(b'='), Some(b'>')) => i += 2,
        (Some(b'=' | b':'), _) => i += 1,
        _ => return false,
    }
    if t.get(i) == Some(&b'=') {
        return false; // `==`: a comparison
    }
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
    // Unquoted: a value only in data files, and not a reference or a word such as `true`.
    data_file
        && val.len() >= 6
        && !val.iter().any(|b| b"({[".contains(b))
        && val
            .iter()
            .any(|&b| b.is_ascii_digit() || b"!#%^&*?+".contains(&b))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn rule(path: &str, text: &str) -> Option<&'static str> {
        find(path, text).map(|h| h.rule.id)
    }

    /// One line per rule (and shape) that must be found, with the rule that finds it.
    #[test]
    fn each_rule_finds_its_secret() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQABAoIBAEvxb\n-----END RSA PRIVATE KEY-----\n";
        let cases: &[(&str, &str, &str)] = &[
            ("keys/deploy.pem", pem, "private-key"),
            (
                "sa.json",
                "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZqgtzJ6GR3eqoYSW9b9UMvkBpZODSctWSNGj3P7jRFDO5VoTwCQAWbFnOjDfH5Ulgp2PKSQnSJP3AJLQNFNe7br1XbrhV//eO+t51mIpGSDCUv3E0DDFcWDTH9cXDTTlRZVEiR2BwpZOOkE/Z0/BVnhZYL71oZV34bKfWjQIt6V/isSMahdsAASACp4ZTGtwiVuNd9tybAgMBAAE=\\n-----END PRIVATE KEY-----\\n\"}",
                "private-key",
            ),
            ("notes.md", &format!("token: {jwt}"), "jwt"),
            (
                "call.sh",
                "curl -H 'Authorization: Bearer 4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c' x",
                "authorization-bearer",
            ),
            (
                "call.py",
                "headers = {'Authorization': 'Basic dXNlcjpodW50ZXIyMjI='}",
                "authorization-basic",
            ),
            (
                "notify.py",
                "URL = 'https://hooks.slack.com/services/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'",
                "slack-webhook-url",
            ),
            (
                "notify.py",
                "https://hooks.slack.com/triggers/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",
                "slack-webhook-url",
            ),
            (
                "notify.js",
                "const hook = \"https://discord.com/api/webhooks/1234567890123456789/aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3r\";",
                "discord-webhook-url",
            ),
            ("db.py", "password = \"hunter2!\"", "password-assignment"),
            (
                "config.json",
                "{\"db\": {\"adminPassword\": \"Tr0ub4dor&3\"}}",
                "password-assignment",
            ),
            (".env", "DB_PASSWORD=s3cr3tV4lue", "password-assignment"),
            ("app.yaml", "  password: Pa55word!", "password-assignment"),
            (
                "run.sh",
                "mysql --password=hunter22 db",
                "password-assignment",
            ),
            ("aws.txt", "AKIA2OGYBAH6STMMNXNN", "aws-access-token"),
            (
                "credentials",
                "aws_secret_access_key = 9f8E7d6C5b4A3z2Y1x0W9v8U7t6S5r4Q3p2O1n0M",
                "aws-secret-access-key",
            ),
            (
                "maps.js",
                "key=AIzaSyD4x9Kq2mN7pL3vR8tW1yZ5bC6dE0fG7hJ",
                "gcp-api-key",
            ),
            (
                "oauth.json",
                "\"client_secret\": \"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\"",
                "gcp-oauth-client-secret",
            ),
            (
                "sa.json",
                "\"private_key_id\": \"4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c9b8a7d6e\"",
                "gcp-service-account-key-id",
            ),
            (
                "ci.yml",
                "token: ghp_0123456789abcdefghijABCDEFGHIJ012345",
                "github-pat",
            ),
            (
                "ci.yml",
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
                "github-fine-grained-pat",
            ),
            ("ci.yml", "glpat-4f8a9c2e7b1d4a6f9e3c", "gitlab-pat"),
            ("a.py", "x = 'xoxb-1234-5678-abcdefghij'", "slack-token"),
            (
                "a.py",
                "x = 'xapp-1-A0123BCDE-1234567890-abc123'",
                "slack-token",
            ),
            (
                "bot.py",
                "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 x",
                "telegram-bot-api-token",
            ),
            (
                "k.md",
                "key = \"sk-ant-api03-abcDEF1234567890abcdefXYZ\"",
                "anthropic-api-key",
            ),
            (
                "k.md",
                "sk-proj-4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c",
                "openai-api-key",
            ),
            (
                "k.md",
                "OPENAI=sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee",
                "generic-sk-api-key",
            ),
            (
                "pay.js",
                "stripe('sk_live_4f8a9c2e7b1d4a6f9e3c8b2a')",
                "stripe-access-token",
            ),
            (
                ".npmrc",
                "//registry.npmjs.org/:_authToken=npm_4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c9b8a",
                "npm-access-token",
            ),
        ];
        for (path, text, id) in cases {
            assert_eq!(rule(path, text), Some(*id), "{path}: {text}");
        }
        // Every rule has a case above.
        for r in RULES {
            assert!(cases.iter().any(|c| c.2 == r.id), "no case for {}", r.id);
        }
    }

    /// Near misses that must pass: placeholders, empty values, references, documentation.
    #[test]
    fn near_misses_pass() {
        for (path, text) in [
            (
                "SKILL.md",
                "Paste the key that starts with -----BEGIN OPENSSH PRIVATE KEY----- into the app.",
            ),
            (
                "SKILL.md",
                "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
            ),
            (
                "SKILL.md",
                "A JWT looks like eyJhbGciOiJIUzI1NiJ9.eyJ... (three parts).",
            ),
            (
                "SKILL.md",
                "Send `Authorization: Bearer <token>` with every request.",
            ),
            (
                "call.sh",
                "curl -H \"Authorization: Bearer ${API_TOKEN}\" x",
            ),
            ("call.sh", "curl -H \"Authorization: Bearer $TOKEN\" x"),
            ("api.py", "headers = {'Authorization': 'Bearer ' + token}"),
            (
                "SKILL.md",
                "The API uses Bearer authentication; ask for YOUR_ACCESS_TOKEN_HERE.",
            ),
            ("SKILL.md", "Use Basic auth."),
            (
                "SKILL.md",
                "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            ),
            (
                "SKILL.md",
                "https://hooks.slack.com/services/<team>/<channel>/<secret>",
            ),
            (
                "SKILL.md",
                "https://discord.com/api/webhooks/{webhook.id}/{webhook.token}",
            ),
            ("db.py", "password = \"\""),
            ("db.py", "password = ''"),
            ("db.py", "password = os.environ[\"DB_PASSWORD\"]"),
            ("db.py", "password: str = field(default=None)"),
            ("db.py", "if password == \"hunter2\":"),
            ("app.yaml", "password: ${DB_PASSWORD}"),
            ("app.yaml", "password: \"{{ vault_password }}\""),
            ("app.yaml", "password_file: /run/secrets/db"),
            (".env", "DB_PASSWORD="),
            (".env", "DB_PASSWORD=changeme"),
            ("config.json", "{\"password\": \"<your password>\"}"),
            (
                "config.json",
                "{\"password\": {\"type\": \"string\", \"minLength\": 8}}",
            ),
            (
                "SKILL.md",
                "Set password = your own, then press Enter. The password is kept in the keychain.",
            ),
            ("SKILL.md", "password: hunter22 (a bad example, in prose)"),
            ("aws.md", "AKIAIOSFODNN7EXAMPLE"),
            (
                "aws.md",
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            ("ci.yml", "token: ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
            ("a.py", "x = 'xoxb-your-token-here'"),
            ("k.md", "Set API key: sk-your-key-here"),
            ("k.md", "sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
            (
                "k.md",
                "the desk-lamp-controller-with-a-very-long-name-1234567890 is fine",
            ),
            ("k.md", "time 12:30:45 and ratio 1234567890:1"),
            (
                "skill.json",
                "{\"name\": \"password-keeper\", \"version\": \"1.2.3\", \"description\": \"rotates the token-rotator's secrets\"}",
            ),
        ] {
            assert_eq!(rule(path, text), None, "{path}: {text}");
        }
    }
}
