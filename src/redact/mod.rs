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
//!
//! **Parts.** This file owns the registry of known values, which keys and pairs are secret, and
//! [`redact`] itself; `urls` masks the credentials of URLs, `keyed` the values of
//! secret-looking keys, and `command_line` the command lines osctl records
//! ([`mask_command_line`]).

use std::borrow::Cow;
use std::sync::Mutex;

mod command_line;
mod keyed;
mod urls;

pub use command_line::mask_command_line;
pub use keyed::mask_secret_value;
use keyed::redact_keyed;
use urls::redact_urls;

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
