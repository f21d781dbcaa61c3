//! Secret redaction for everything osctl prints.
//!
//! Two nets, both applied by the [`crate::output::Printer`] to every byte it writes (stdout and
//! stderr, human and JSON), so no command can forget them:
//!
//! 1. **Known values.** Whoever reads a secret (config.json credential fields, `.env` values,
//!    header values, command-line secrets) calls [`register`]; every later occurrence of the value
//!    is masked. This catches a secret wherever it ends up: a diff, an error message, a JSON field.
//! 2. **Secret-looking keys.** A value that follows a key such as `api_key`, `token`, `secret`,
//!    `password` or `Authorization` (in JSON, YAML, TOML or `.env` syntax) or the word `Bearer` is
//!    masked even when osctl never saw it as a secret (a user's own MCP header, say).
//!
//! 3. **Credentials in URLs.** Wherever a URL appears (a diff line, a JSON string, an error, a
//!    warning), its userinfo (`https://bob:pw@host`) and the values of its credential-like query
//!    parameters (`?key=…`, `token`, `sig`, `password`, …) are masked, so a URL never has to be
//!    known as a secret to be shown safely.
//!
//! Values osctl receives as header or env pairs (`mcp add --header/--env`, an MCP entry read
//! from a runtime's file, `--installer-env`) are judged by [`is_secret_pair`] and registered
//! with [`register_pair`]; the values of secret flags (`--token`, `--header`, …) are registered
//! from the command line before it is even parsed ([`register_args`]), so a usage error cannot
//! show them either. This is the one rule: every output goes through [`redact`], and
//! [`holds_secret`] (what makes a written file 0600) asks the same question.
//!
//! A masked value keeps a few characters so an operator can tell keys apart: `sk-…c0de` for long
//! values, `***` for short ones.

use std::borrow::Cow;
use std::sync::Mutex;

/// Values shorter than this are not masked by value (they would mangle ordinary words); the
/// key-based net still masks them where they follow a secret-looking key.
const MIN_REGISTERED_LEN: usize = 6;

/// Fixed local tokens that the upstream project publishes in its code and docs
/// (docs/device-contract.md §2.7). They authenticate loopback-only services and are shown as they
/// are, so diffs stay readable.
const PUBLIC_TOKENS: &[&str] = &[
    "hermes-local-api-key",
    "darren_pico_token",
    "autonomous_codex_token",
    "autonomous_claudecode_token",
    "autonomous_opencode_token",
];

static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Whether `value` is one of the fixed local tokens upstream publishes (shown as they are).
pub fn is_public_token(value: &str) -> bool {
    PUBLIC_TOKENS.contains(&value.trim())
}

/// Remembers a secret value so that every later output masks it.
pub fn register(value: &str) {
    let value = value.trim();
    if value.chars().count() < MIN_REGISTERED_LEN || PUBLIC_TOKENS.contains(&value) {
        return;
    }
    let mut secrets = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    if !secrets.iter().any(|s| s == value) {
        secrets.push(value.to_string());
        // Longest first, so a secret that contains another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// The masked form of a secret: `sk-…c0de` for values of 16 characters or more, else `***`.
pub fn mask(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() >= 16 {
        let head: String = chars[..3].iter().collect();
        let tail: String = chars[chars.len() - 4..].iter().collect();
        format!("{head}…{tail}")
    } else {
        "***".to_string()
    }
}

/// Whether a key names a secret (`api_key`, `botToken`, `BLUEBUBBLES_PASSWORD`, `Authorization`).
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    // Keys that hold the *name* of a secret, a path to one, or a count, not the secret itself.
    const NOT_SECRET: &[&str] = &[
        "_env", "env_", "_var", "_file", "_path", "max", "_id", "count",
    ];
    if NOT_SECRET.iter().any(|n| k.contains(n)) && !k.ends_with("api_key") {
        return false;
    }
    const SECRET: &[&str] = &[
        "apikey",
        "api_key",
        "api-key",
        "token",
        "secret",
        "password",
        "passwd",
        "authorization",
        "private_key",
        "privatekey",
        "access_key",
        "credential",
        "api_keys",
    ];
    SECRET.iter().any(|s| k.contains(s))
}

/// Whether a header or env value is a secret: its key names one (`Authorization`, `X-Api-Key`,
/// `GITHUB_TOKEN`, `Cookie`, `X-Auth`, `SESSION`), it carries an auth scheme (`Bearer …`), it
/// is a URL with credentials in it, or it looks like a generated token (20+ characters without
/// spaces, mixing letters and digits). References (`${VAR}`, `{env:VAR}`) are not secrets
/// themselves.
pub fn is_secret_pair(key: &str, value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() || value.starts_with("${") || value.starts_with("{env:") {
        return false;
    }
    let k = key.to_ascii_lowercase();
    if is_secret_key(key)
        || ["auth", "key", "cookie", "pass", "session"]
            .iter()
            .any(|w| k.contains(w))
    {
        return true;
    }
    if ["bearer ", "basic ", "token "]
        .iter()
        .any(|s| value.to_ascii_lowercase().starts_with(s))
    {
        return true;
    }
    if value.contains("://") {
        return redact_urls(value) != value;
    }
    value.len() >= 20
        && !value.contains(char::is_whitespace)
        && !value.starts_with('/')
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
}

/// Registers `value` (and the token after an auth scheme) when [`is_secret_pair`] says it is
/// a secret. A URL is not registered whole: the URL rule masks its credentials wherever it is
/// shown, and the rest of it stays readable.
pub fn register_pair(key: &str, value: &str) {
    if !is_secret_pair(key, value) || value.contains("://") {
        return;
    }
    register(value);
    for scheme in ["Bearer ", "Basic ", "Token "] {
        if let Some(rest) = value.trim().strip_prefix(scheme) {
            register(rest);
        }
    }
}

/// Flags whose value is a secret, and flags whose `K=V` value is judged by [`is_secret_pair`].
const SECRET_FLAGS: &[&str] = &["--token", "--app-token", "--signing-secret"];
const PAIR_FLAGS: &[&str] = &["--header", "--env", "--installer-env"];

/// Registers the values of the secret flags of a command line (`--token T`, `--token=T`,
/// `--header K=V`, ...), before it is parsed: an error about the command line (clap's, or a
/// later one) must not show them.
pub fn register_args<S: AsRef<std::ffi::OsStr>>(args: &[S]) {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        if arg == "--" {
            break;
        }
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let secret = SECRET_FLAGS.contains(&flag);
        let pair = PAIR_FLAGS.contains(&flag);
        if secret || pair {
            let value = match value {
                Some(v) => Some(v),
                None => {
                    i += 1;
                    args.get(i).cloned()
                }
            };
            if let Some(v) = value {
                if secret {
                    register(&v);
                } else if let Some(at) = v.find(['=', ':']) {
                    register_pair(v[..at].trim(), v[at + 1..].trim());
                }
            }
        }
        i += 1;
    }
}

/// Whether `text` holds anything [`redact`] would mask: a file osctl writes with such content
/// is made readable by its owner only.
pub fn holds_secret(text: &str) -> bool {
    redact(text) != text
}

/// Whether a value is a reference to a secret rather than the secret (`${VAR}`, `{env:VAR}`).
fn is_reference(value: &str) -> bool {
    value.starts_with("${")
        || value.starts_with("{env:")
        || value.starts_with("__OPENCLAW_REDACTED__")
        || value == "***"
        || value.contains('…')
}

/// Masks every registered secret, the credentials of every URL and every value of a
/// secret-looking key in `text`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let known = redact_known(text);
    let masked = match redact_urls(&known) {
        Cow::Owned(t) => Some(t),
        Cow::Borrowed(_) => None,
    };
    let urls = masked.map_or(known, Cow::Owned);
    let masked = match redact_keyed(&urls) {
        Cow::Owned(t) => Some(t),
        Cow::Borrowed(_) => None,
    };
    masked.map_or(urls, Cow::Owned)
}

/// Masks the userinfo and the credential-like query values of every URL in `text`.
fn redact_urls(text: &str) -> Cow<'_, str> {
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

fn redact_known(text: &str) -> Cow<'_, str> {
    let secrets = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), &mask(secret)));
        }
    }
    out
}

fn redact_keyed(text: &str) -> Cow<'_, str> {
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

/// A command line (program name first) as osctl records it in the lock holder's note and the
/// journal manifest, and prints it: the values of secret flags become `***` (`--token`,
/// `--app-token`, `--signing-secret`, `--password`, `--api-key`, any flag whose name holds
/// `token`, `secret`, `key`, `password`, `auth` or `credential`, in `--flag value` and
/// `--flag=value` form; `--header K=V`, `--env K=V` and `--installer-env K=V` keep `K`), a
/// `KEY=VALUE` argument with a secret-looking key keeps only its key, and in every argument a
/// URL's userinfo and its credential-like query values (`key`, `token`, `secret`, `password`,
/// `sig`, `signature`, `api_key`, `access_token`, `auth`) are masked. Flags that name a file
/// (`--token-file`) are not secrets and stay. The server command after `--` (`mcp add NAME --
/// CMD ARGS`) is masked by the same rules. Only `***` is shown, never a part of a value: these
/// records outlive the run and are read by whoever can see the lock.
pub fn mask_command_line(args: &[String]) -> String {
    const HIDDEN: &str = "***";
    // Flags whose value is `K=V` (or `K: V`): the name is shown, the value is not.
    fn pairs_flag(name: &str) -> bool {
        name == "header" || name == "env" || name.ends_with("-env")
    }
    fn secret_flag(name: &str) -> bool {
        if name.ends_with("-file") || name.ends_with("_file") {
            return false;
        }
        pairs_flag(name)
            || [
                "token",
                "secret",
                "key",
                "password",
                "passwd",
                "auth",
                "credential",
            ]
            .iter()
            .any(|w| name.contains(w))
    }
    fn hide_value(flag: &str, value: &str) -> String {
        if pairs_flag(flag)
            && let Some(i) = value.find(['=', ':'])
        {
            return format!("{}{HIDDEN}", &value[..=i]);
        }
        HIDDEN.to_string()
    }
    fn secret_query_key(key: &str) -> bool {
        let k = key.to_ascii_lowercase();
        [
            "key",
            "token",
            "secret",
            "password",
            "sig",
            "signature",
            "api_key",
            "access_token",
            "auth",
        ]
        .contains(&k.as_str())
            || is_secret_key(&k)
    }
    // URL userinfo (`https://user:pass@host`) and credential query values, wherever a URL
    // appears in the argument.
    fn hide_in_urls(arg: &str) -> String {
        let mut out = String::with_capacity(arg.len());
        let mut rest = arg;
        while let Some(i) = rest.find("://") {
            let (head, tail) = rest.split_at(i + 3);
            out.push_str(head);
            let end = tail
                .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                .unwrap_or(tail.len());
            let (url, after) = tail.split_at(end);
            let authority_end = url.find(['/', '?', '#']).unwrap_or(url.len());
            let (authority, path) = url.split_at(authority_end);
            match authority.rfind('@') {
                Some(at) => {
                    out.push_str(HIDDEN);
                    out.push_str(&authority[at..]);
                }
                None => out.push_str(authority),
            }
            match path.find('?') {
                Some(q) => {
                    out.push_str(&path[..=q]);
                    let (query, fragment) = match path[q + 1..].find('#') {
                        Some(h) => path[q + 1..].split_at(h),
                        None => (&path[q + 1..], ""),
                    };
                    let parts: Vec<String> = query
                        .split('&')
                        .map(|kv| match kv.split_once('=') {
                            Some((k, _)) if secret_query_key(k) => format!("{k}={HIDDEN}"),
                            _ => kv.to_string(),
                        })
                        .collect();
                    out.push_str(&parts.join("&"));
                    out.push_str(fragment);
                }
                None => out.push_str(path),
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }
    let mut out: Vec<String> = Vec::with_capacity(args.len());
    let mut pending: Option<String> = None;
    for arg in args {
        if let Some(flag) = pending.take() {
            out.push(hide_value(&flag, arg));
            continue;
        }
        let shown = match arg.strip_prefix("--") {
            Some(body) if !body.is_empty() => {
                let (name, value) = match body.split_once('=') {
                    Some((n, v)) => (n.to_ascii_lowercase(), Some(v)),
                    None => (body.to_ascii_lowercase(), None),
                };
                match (secret_flag(&name), value) {
                    (true, Some(v)) => {
                        format!("--{}={}", &body[..name.len()], hide_value(&name, v))
                    }
                    (true, None) => {
                        pending = Some(name);
                        arg.clone()
                    }
                    (false, _) => hide_in_urls(arg),
                }
            }
            _ => match arg.split_once('=') {
                Some((k, _)) if !k.is_empty() && !k.contains("://") && is_secret_key(k) => {
                    format!("{k}={HIDDEN}")
                }
                _ => hide_in_urls(arg),
            },
        };
        out.push(shown);
    }
    out.join(" ")
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn a_bare_bearer_value_masks_the_token() {
        let line = "      Authorization: Bearer ntn_example_0000000000000000";
        let out = redact(line);
        assert!(!out.contains("ntn_example"), "{out}");
        assert!(out.contains("Authorization: Bearer "), "{out}");
    }

    #[test]
    fn masks_registered_values_anywhere() {
        register("sk-live-0123456789abcdef");
        let out = redact("error: key sk-live-0123456789abcdef rejected");
        assert_eq!(out, "error: key sk-…cdef rejected");
    }

    #[test]
    fn masks_values_of_secret_keys_in_every_syntax() {
        assert_eq!(
            redact("AUTONOMOUS_API_KEY=abc123"),
            "AUTONOMOUS_API_KEY=***"
        );
        assert_eq!(redact("  \"apiKey\": \"abc\","), "  \"apiKey\": \"***\",");
        assert_eq!(redact("bot_token = \"12:ab\""), "bot_token = \"***\"");
        assert_eq!(redact("    token: xyzxyz"), "    token: ***");
        assert_eq!(
            redact("headers: {Authorization: \"Bearer abcdefghijklmnopqrstuvwxyz\"}"),
            "headers: {Authorization: \"Bearer abc…wxyz\"}"
        );
        assert_eq!(redact("-H 'Bearer tok123'"), "-H 'Bearer ***'");
        // Inside a JSON string (a TOML diff line in --json output) the escaping survives.
        assert_eq!(
            redact(r#""+h = { Authorization = \"Bearer abcdefghijklmnopqrstuvwxyz\" }\n""#),
            r#""+h = { Authorization = \"Bearer abc…wxyz\" }\n""#
        );
    }

    #[test]
    fn leaves_references_numbers_and_names_of_secrets_alone() {
        for line in [
            "key_env: AUTONOMOUS_API_KEY",
            "\"maxTokens\": 8192",
            "apiKey: {env:LLM_API_KEY}",
            "API_SERVER_KEY=hermes-local-api-key",
            "env_key = \"OPENAI_API_KEY\"",
            "telegram_user_id: 42",
            "plain text with no secrets",
        ] {
            assert_eq!(redact(line), line, "{line}");
        }
    }

    /// `mcp add --url https://bob:pw@host/mcp`, `?key=…`, `postgres://u:pw@…` were shown as
    /// they were in diffs, JSON, status lines and errors.
    #[test]
    fn regression_url_credentials_are_masked() {
        for (text, want) in [
            (
                "add https://bob:pw@host/mcp now",
                "add https://***@host/mcp now",
            ),
            ("https://h/x?key=abcdef123&v=2", "https://h/x?key=***&v=2"),
            (
                "DATABASE_URL=postgres://u:secret-password-99@db:5432/app",
                "DATABASE_URL=postgres://***@db:5432/app",
            ),
            (
                "  \"url\": \"https://alice:correct-horse-battery@mcp.example/x?sig=0a1b2c3d4e5f\",",
                "  \"url\": \"https://***@mcp.example/x?sig=***\",",
            ),
            (
                "https://ghp_0123456789abcdefghij@github.com/x.git",
                "https://***@github.com/x.git",
            ),
            (
                r#""+url = \"https://u:pw-secret@h/mcp?access_token=tok123456\"\n""#,
                r#""+url = \"https://***@h/mcp?access_token=***\"\n""#,
            ),
        ] {
            assert_eq!(redact(text), want, "{text}");
            assert!(holds_secret(text), "{text}");
        }
        for plain in [
            "git+ssh://git@github.com/a/b",
            "https://registry.npmjs.org/@openclaw/slack",
            "https://cdn.autonomous.ai/os/ota/metadata.json?v=3&page=2",
            "https://user:@host/",
            "see https://example.com/a?x=1#key=frag",
        ] {
            assert_eq!(redact(plain), plain, "{plain}");
        }
    }

    #[test]
    fn regression_secret_flag_values_are_registered_before_parsing() {
        register_args(&[
            "osctl",
            "channel",
            "add",
            "telegram",
            "--token=777777:AAflagflagflag",
            "--app-token",
            "xapp-flag-value-1",
            "--header",
            "X-Auth: flag-header-value",
            "--env",
            "PLAIN=visible-value",
        ]);
        let out = redact("777777:AAflagflagflag xapp-flag-value-1 flag-header-value visible-value");
        assert_eq!(out, "777…flag xap…ue-1 fla…alue visible-value");
        assert!(is_secret_pair("X-Auth", "abc"));
        assert!(is_secret_pair("DATABASE_URL", "postgres://u:pw@db/x"));
        assert!(!is_secret_pair(
            "HOME_URL",
            "https://example.com/a1b2c3d4e5f6g7h8"
        ));
    }

    #[test]
    fn keeps_unicode_intact() {
        let line = "- **Name:** Ngân — token: sécrét-vàlue";
        assert_eq!(redact(line), "- **Name:** Ngân — token: ***");
    }
}
