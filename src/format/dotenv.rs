//! `.env` line editor: replace or append assignments, keep everything else as written.
//!
//! The runtimes' `.env` files are read by three parsers at once: systemd (`EnvironmentFile=`),
//! python-dotenv (hermes) and sh (`/etc/profile.d` sources them for interactive shells). osctl
//! reads and writes only what all three agree on.
//!
//! Reading (one assignment per line):
//!
//! - blank lines and lines whose first non-blank character is `#` are kept as they are;
//! - `KEY=VALUE` or `export KEY=VALUE`; `KEY` matches `[A-Za-z_][A-Za-z0-9_]*`; blanks around
//!   `=` are tolerated;
//! - `'...'`: literal up to the next `'`; `"..."`: `\\`, `\"`, `\$` and `` \` `` are unescaped,
//!   any other backslash is kept (sh and systemd do the same); a quoted value may go on over
//!   several lines (a PEM key, say: python-dotenv, systemd `EnvironmentFile=` and sh read the
//!   line breaks as part of it) and may be followed only by blanks and a `# comment`;
//! - unquoted: the rest of the line, minus a ` # comment` (python-dotenv and sh drop it; systemd
//!   would keep it, so osctl never writes one) and trailing blanks; a `#` right after `=` or
//!   inside a word is part of the value.
//!
//! Anything else (no `=`, a bad key, an unterminated quote, text after a closing quote, a NUL
//! byte anywhere) is a parse error naming the line. When a key is assigned twice, the last
//! assignment wins.
//!
//! Writing: [`DotEnv::set`] replaces the value of the first assignment in place (keeping its
//! `export ` prefix and any trailing comment), drops later assignments of the same key and
//! otherwise appends `KEY=VALUE` at the end. Values are quoted only when needed, in the one form
//! all three readers read back as the value set (see [`quote`]):
//!
//! 1. plain when the value matches `[A-Za-z0-9_./:@%+,=-]+`; an empty value is written `KEY=`;
//! 2. else in single quotes when it holds no `'` and no `\` (literal for all three; python-dotenv
//!    does not interpolate `${..}` there);
//! 3. else in double quotes with `\` and `"` escaped, and `$` and `` ` `` escaped too when present.
//!    Only in this last case, a value holding `'` or `\` together with `$` or `` ` ``, do the
//!    readers disagree: sh and systemd read the value, python-dotenv keeps the backslashes
//!    before `$` and `` ` ``. No quoting can satisfy all three there.
//!
//! python-dotenv also expands `${NAME}` in every value, quoted or not, and has no escape for it;
//! sh and systemd read it literally from the quoted forms above.
//!
//! osctl does not write line breaks itself: a value with a line break or a NUL is refused
//! (unless it is the value already there), and so
//! is a value ending in `\\`: python-dotenv's quoted-value pattern takes the closing quote after
//! it for an escaped one and reads on into the next lines.

use std::fmt;

use crate::error::{Error, Result};

/// A parsed `.env` file.
#[derive(Clone, Debug)]
pub struct DotEnv {
    lines: Vec<Line>,
    origin: String,
}

#[derive(Clone, Debug)]
struct Line {
    /// The line without its terminator.
    text: String,
    /// `"\n"`, `"\r\n"`, or `""` for a last line without one.
    end: &'static str,
    assignment: Option<Assignment>,
}

#[derive(Clone, Debug)]
struct Assignment {
    key: String,
    value: String,
    /// Byte range of the value as written (quotes included) in `Line::text`.
    value_start: usize,
    value_end: usize,
}

impl DotEnv {
    /// Parses `text`; `origin` (the device path) names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<DotEnv> {
        if let Some(i) = text.find('\0') {
            // The three readers disagree on a NUL (sh drops it, systemd refuses the line, python
            // reads it): refuse it on read as on write.
            let (line, column) = super::line_col(text, i);
            return Err(Error::parse(
                origin,
                Some(line),
                Some(column),
                "a NUL byte, which systemd, sh and python-dotenv read differently",
            ));
        }
        let mut lines = Vec::new();
        let mut rest = text;
        let mut number = 0;
        while !rest.is_empty() {
            number += 1;
            let (mut len, mut end, mut next) = split_line(rest);
            let mut parsed = parse_line(&rest[..len]);
            // A quoted value may go on over the next lines (python-dotenv, systemd and sh all
            // read it so): take lines until its quote closes.
            let first = number;
            while let Err((_, cause)) = &parsed {
                if !cause.starts_with("unterminated") || next.is_empty() {
                    break;
                }
                let consumed = rest.len() - next.len();
                let (more, more_end, more_next) = split_line(next);
                number += 1;
                len = consumed + more;
                end = more_end;
                next = more_next;
                parsed = parse_line(&rest[..len]);
            }
            let assignment = parsed.map_err(|(column, cause)| {
                Error::parse(origin, Some(first), Some(column), cause)
            })?;
            lines.push(Line {
                text: rest[..len].to_string(),
                end,
                assignment,
            });
            rest = next;
        }
        Ok(DotEnv {
            lines,
            origin: origin.to_string(),
        })
    }

    /// An empty file.
    pub fn new_empty() -> DotEnv {
        DotEnv {
            lines: Vec::new(),
            origin: String::new(),
        }
    }

    /// The value of `key` (unquoted); the last assignment wins.
    pub fn get(&self, key: &str) -> Option<String> {
        self.assignments(key).last().map(|a| a.value.clone())
    }

    /// The assigned keys, each once, in the order they first appear.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for a in self.lines.iter().filter_map(|l| l.assignment.as_ref()) {
            if !keys.contains(&a.key) {
                keys.push(a.key.clone());
            }
        }
        keys
    }

    /// Sets `key` to `value`; returns whether the text changed.
    ///
    /// Errors when `key` is not a valid variable name or `value` holds a line break or NUL.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool> {
        if !valid_key(key) {
            return Err(Error::input(
                "invalid_value",
                format!(
                    "cannot write `{key}` to {}: not a valid variable name",
                    self.shown()
                ),
            ));
        }
        if value.ends_with('\\') {
            return Err(Error::input(
                "invalid_value",
                format!(
                    "cannot write {key} to {}: a value ending in a backslash is misread by \
                     python-dotenv",
                    self.shown()
                ),
            ));
        }
        if value.contains(['\n', '\r', '\0']) && self.get(key).as_deref() != Some(value) {
            return Err(Error::input(
                "invalid_value",
                format!(
                    "cannot write {key} to {}: the value holds a line break or NUL, which a \
                     .env file cannot carry",
                    self.shown()
                ),
            ));
        }
        let positions: Vec<usize> = (0..self.lines.len())
            .filter(|&i| {
                self.lines[i]
                    .assignment
                    .as_ref()
                    .is_some_and(|a| a.key == key)
            })
            .collect();
        let Some((&first, later)) = positions.split_first() else {
            self.append(format!("{key}={}", quote(value)));
            return Ok(true);
        };
        let mut changed = false;
        for &i in later.iter().rev() {
            self.lines.remove(i);
            changed = true;
        }
        let line = &mut self.lines[first];
        let a = line.assignment.as_mut().expect("an assignment line");
        if a.value != value {
            let rendered = quote(value);
            line.text
                .replace_range(a.value_start..a.value_end, &rendered);
            a.value_end = a.value_start + rendered.len();
            a.value = value.to_string();
            changed = true;
        }
        Ok(changed)
    }

    /// Removes every assignment of `key`; returns whether there was one.
    pub fn remove(&mut self, key: &str) -> bool {
        let before = self.lines.len();
        self.lines
            .retain(|l| l.assignment.as_ref().is_none_or(|a| a.key != key));
        before != self.lines.len()
    }

    /// The text of the file.
    #[allow(clippy::inherent_to_string_shadow_display)]
    pub fn to_string(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(&line.text);
            out.push_str(line.end);
        }
        out
    }

    fn assignments<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Assignment> + 'a {
        self.lines
            .iter()
            .filter_map(|l| l.assignment.as_ref())
            .filter(move |a| a.key == key)
    }

    fn append(&mut self, text: String) {
        let newline = match self.lines.first() {
            Some(l) if l.end == "\r\n" => "\r\n",
            _ => "\n",
        };
        if let Some(last) = self.lines.last_mut()
            && last.end.is_empty()
        {
            last.end = newline;
        }
        let assignment = parse_line(&text).ok().flatten();
        self.lines.push(Line {
            text,
            end: newline,
            assignment,
        });
    }

    fn shown(&self) -> &str {
        if self.origin.is_empty() {
            "the .env file"
        } else {
            &self.origin
        }
    }
}

impl fmt::Display for DotEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&DotEnv::to_string(self))
    }
}

/// The first line of `text`: its length without the terminator, the terminator, the rest.
fn split_line(text: &str) -> (usize, &'static str, &str) {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => (i - 1, "\r\n", &text[i + 1..]),
        Some(i) => (i, "\n", &text[i + 1..]),
        None => (text.len(), "", ""),
    }
}

/// A value as written in a `.env` file: plain, single-quoted or double-quoted (module docs).
pub fn quote(value: &str) -> String {
    // (an empty value is plain too: `KEY=`)
    if value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_./:@%+,=-".contains(c))
    {
        return value.to_string();
    }
    if !value.contains(['\'', '\\']) {
        return format!("'{value}'");
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Parses one line (without its terminator). `Err((column, cause))` for a malformed line.
fn parse_line(line: &str) -> std::result::Result<Option<Assignment>, (usize, String)> {
    let column = |byte: usize| line[..byte].chars().count() + 1;
    let trimmed = line.trim_start_matches(is_blank);
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    let mut pos = line.len() - trimmed.len();
    if let Some(after) = trimmed.strip_prefix("export")
        && after.starts_with(is_blank)
    {
        pos += "export".len() + (after.len() - after.trim_start_matches(is_blank).len());
    }
    let key_len = line[pos..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len() - pos);
    let key = &line[pos..pos + key_len];
    let after_key = &line[pos + key_len..];
    let eq = after_key.trim_start_matches(is_blank);
    if !eq.starts_with('=') {
        let cause = if key.is_empty() || !after_key.trim().is_empty() && !valid_key(key) {
            "expected KEY=VALUE: the key must match [A-Za-z_][A-Za-z0-9_]*".to_string()
        } else if eq.is_empty() {
            // The word is not quoted: a line with no `=` is often a pasted secret.
            "expected KEY=VALUE: the line has no `=`".to_string()
        } else {
            "expected `=` after the first word: the key must match [A-Za-z_][A-Za-z0-9_]*"
                .to_string()
        };
        let at = if key.is_empty() { pos } else { pos + key_len };
        return Err((column(at), cause));
    }
    if !valid_key(key) {
        return Err((
            column(pos),
            format!("`{key}` is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)"),
        ));
    }
    let value_region = pos + key_len + (after_key.len() - eq.len()) + 1;
    let rest = &line[value_region..];
    let value_start = value_region + (rest.len() - rest.trim_start_matches(is_blank).len());
    let raw = &line[value_start..];
    let (value, value_len) = match raw.chars().next() {
        Some(q @ ('\'' | '"')) => {
            let (value, len) = unquote(raw, q).ok_or_else(|| {
                (
                    column(value_start),
                    format!("unterminated {q}-quoted value"),
                )
            })?;
            let after = raw[len..].trim_start_matches(is_blank);
            if !after.is_empty() && !after.starts_with('#') {
                return Err((
                    column(line.len() - after.len()),
                    "unexpected text after the closing quote".to_string(),
                ));
            }
            (value, len)
        }
        _ => {
            // up to ` #` (a comment), minus trailing blanks; a `#` right after `=` is content
            let mut end = raw.len();
            for (i, c) in raw.char_indices() {
                if c == '#' && i > 0 && raw[..i].ends_with(is_blank) {
                    end = i;
                    break;
                }
            }
            let value = raw[..end].trim_end_matches(is_blank);
            (value.to_string(), value.len())
        }
    };
    Ok(Some(Assignment {
        key: key.to_string(),
        value,
        value_start,
        value_end: value_start + value_len,
    }))
}

/// Decodes a quoted value at the start of `raw`; returns it and the length written, quotes
/// included, or `None` when the closing quote is missing.
fn unquote(raw: &str, quote: char) -> Option<(String, usize)> {
    let mut value = String::new();
    let mut chars = raw.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        if c == quote {
            return Some((value, i + 1));
        }
        if quote == '"' && c == '\\' {
            match chars.next() {
                Some((_, e @ ('\\' | '"' | '$' | '`'))) => value.push(e),
                Some((_, e)) => {
                    value.push('\\');
                    value.push(e);
                }
                None => return None,
            }
        } else {
            value.push(c);
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::format::testutil::assert_diff;

    const ENV: &str = "\
# hermes environment (systemd EnvironmentFile)
API_SERVER_ENABLED=true
export TELEGRAM_BOT_TOKEN=123:abc # from BotFather

# owner's own settings
OWNER_NOTE=\"hello world\"
AUTONOMOUS_API_KEY=sk-first
SINGLE='single $quoted'
AUTONOMOUS_API_KEY=sk-second
EMPTY=
";

    fn env(text: &str) -> DotEnv {
        DotEnv::parse(text, "/root/.hermes/.env").unwrap()
    }

    #[test]
    fn reads_values() {
        let e = env(ENV);
        assert_eq!(e.get("API_SERVER_ENABLED").as_deref(), Some("true"));
        assert_eq!(e.get("TELEGRAM_BOT_TOKEN").as_deref(), Some("123:abc"));
        assert_eq!(e.get("OWNER_NOTE").as_deref(), Some("hello world"));
        assert_eq!(e.get("AUTONOMOUS_API_KEY").as_deref(), Some("sk-second"));
        assert_eq!(e.get("EMPTY").as_deref(), Some(""));
        assert_eq!(e.get("MISSING"), None);
        assert_eq!(
            e.keys(),
            [
                "API_SERVER_ENABLED",
                "TELEGRAM_BOT_TOKEN",
                "OWNER_NOTE",
                "AUTONOMOUS_API_KEY",
                "SINGLE",
                "EMPTY"
            ]
        );
        assert_eq!(e.to_string(), ENV);
    }

    #[test]
    fn set_replaces_in_place_and_keeps_export_and_comment() {
        let mut e = env(ENV);
        assert!(e.set("TELEGRAM_BOT_TOKEN", "999:xyz").unwrap());
        assert_diff(
            ENV,
            &e.to_string(),
            &["export TELEGRAM_BOT_TOKEN=123:abc # from BotFather"],
            &["export TELEGRAM_BOT_TOKEN=999:xyz # from BotFather"],
        );
    }

    #[test]
    fn set_drops_later_duplicates() {
        let mut e = env(ENV);
        assert!(e.set("AUTONOMOUS_API_KEY", "sk-new").unwrap());
        assert_diff(
            ENV,
            &e.to_string(),
            &[
                "AUTONOMOUS_API_KEY=sk-first",
                "AUTONOMOUS_API_KEY=sk-second",
            ],
            &["AUTONOMOUS_API_KEY=sk-new"],
        );
        assert_eq!(e.get("AUTONOMOUS_API_KEY").as_deref(), Some("sk-new"));
        // the first value equal to the new one: only the later duplicate goes
        let mut e = env(ENV);
        assert!(e.set("AUTONOMOUS_API_KEY", "sk-first").unwrap());
        assert_diff(ENV, &e.to_string(), &["AUTONOMOUS_API_KEY=sk-second"], &[]);
    }

    #[test]
    fn set_appends_new_keys() {
        let mut e = env(ENV);
        assert!(e.set("API_SERVER_KEY", "hermes-local-api-key").unwrap());
        assert!(e.set("SLACK_ALLOWED_USERS", "U1 U2").unwrap());
        assert_eq!(
            e.to_string(),
            format!("{ENV}API_SERVER_KEY=hermes-local-api-key\nSLACK_ALLOWED_USERS='U1 U2'\n")
        );
        let mut e = env("A=1");
        e.set("B", "2").unwrap();
        assert_eq!(e.to_string(), "A=1\nB=2\n");
        let mut e = DotEnv::new_empty();
        e.set("A", "").unwrap();
        assert_eq!(e.to_string(), "A=\n");
    }

    #[test]
    fn set_of_the_current_value_is_a_no_op() {
        let mut e = env(ENV);
        assert!(!e.set("API_SERVER_ENABLED", "true").unwrap());
        assert!(!e.set("OWNER_NOTE", "hello world").unwrap());
        assert!(!e.set("SINGLE", "single $quoted").unwrap());
        assert!(!e.set("EMPTY", "").unwrap());
        assert!(!e.set("TELEGRAM_BOT_TOKEN", "123:abc").unwrap());
        assert_eq!(e.to_string(), ENV);
    }

    #[test]
    fn remove_drops_every_assignment() {
        let mut e = env(ENV);
        assert!(e.remove("AUTONOMOUS_API_KEY"));
        assert!(!e.remove("AUTONOMOUS_API_KEY"));
        assert_diff(
            ENV,
            &e.to_string(),
            &[
                "AUTONOMOUS_API_KEY=sk-first",
                "AUTONOMOUS_API_KEY=sk-second",
            ],
            &[],
        );
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("sk-abc_123"), "sk-abc_123");
        assert_eq!(quote("https://x.y/v1?a=b"), "'https://x.y/v1?a=b'");
        assert_eq!(quote("http://localhost:3000"), "http://localhost:3000");
        assert_eq!(quote("any;-;+1555"), "'any;-;+1555'");
        assert_eq!(quote(""), "");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("pa$$ \"w\""), "'pa$$ \"w\"'");
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote(r"C:\dir"), r#""C:\\dir""#);
        assert_eq!(quote("p$ss\"w`\\d'"), r#""p\$ss\"w\`\\d'""#);
    }

    const TRICKY: &[&str] = &[
        "plain",
        "",
        "with space",
        "dollar $HOME and $X",
        "back\\slash\\n",
        "quote \" and 'single'",
        "`cmd`",
        "#not-a-comment",
        "trailing space ",
        " leading",
        "tab\there",
        "unicodé ✓",
        "a=b=c",
        "semi;colon&amp|pipe",
        "it's",
        "C:\\dir\\sub",
    ];

    /// Holds `'` or `\` together with `$` or `` ` ``: python-dotenv keeps the backslashes.
    /// `${..}` python-dotenv always expands (checked apart).
    const SH_AND_SYSTEMD_ONLY: &[&str] = &["it's $5", "a\\b`c`", "${NOT_EXPANDED}"];

    #[test]
    fn quoting_round_trips_through_the_parser() {
        for value in TRICKY.iter().chain(SH_AND_SYSTEMD_ONLY) {
            let mut e = DotEnv::new_empty();
            e.set("K", value).unwrap();
            let text = e.to_string();
            let back = DotEnv::parse(&text, "x").unwrap();
            assert_eq!(back.get("K").as_deref(), Some(*value), "{text}");
            // and setting it again changes nothing
            let mut again = back.clone();
            assert!(!again.set("K", value).unwrap());
            assert_eq!(again.to_string(), text);
        }
    }

    #[test]
    fn quoting_round_trips_through_sh() {
        let Ok(sh) = which_sh() else { return };
        for value in TRICKY.iter().chain(SH_AND_SYSTEMD_ONLY) {
            let mut e = DotEnv::new_empty();
            e.set("K", value).unwrap();
            let out = std::process::Command::new(&sh)
                .arg("-c")
                .arg(format!("{}\nprintf '%s' \"$K\"", e.to_string()))
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                *value,
                "{}",
                e.to_string()
            );
        }
    }

    #[test]
    fn quoting_round_trips_through_python_dotenv() {
        let mut e = DotEnv::new_empty();
        let all: Vec<&str> = TRICKY.iter().chain(SH_AND_SYSTEMD_ONLY).copied().collect();
        for (i, value) in all.iter().enumerate() {
            e.set(&format!("K{i}"), value).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".env");
        std::fs::write(&path, e.to_string()).unwrap();
        let script = "import json, sys\nfrom dotenv import dotenv_values\n\
                      print(json.dumps(dotenv_values(sys.argv[1])))";
        let Ok(out) = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(&path)
            .output()
        else {
            return; // no python3 here
        };
        if !out.status.success() {
            return; // no python-dotenv here
        }
        let read: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for (i, value) in all.iter().enumerate() {
            let got = read[format!("K{i}")]
                .as_str()
                .unwrap_or_else(|| panic!("K{i}: {read}"));
            if value.contains("${") {
                assert_eq!(got, "", "python-dotenv expands ${{..}}: {}", e.to_string());
            } else if SH_AND_SYSTEMD_ONLY.contains(value) {
                let documented = value.replace('$', "\\$").replace('`', "\\`");
                assert_eq!(got, documented, "{}", e.to_string());
            } else {
                assert_eq!(got, *value, "{}", e.to_string());
            }
        }
    }

    fn which_sh() -> std::result::Result<String, ()> {
        ["/bin/sh", "/usr/bin/sh"]
            .iter()
            .find(|p| std::path::Path::new(p).exists())
            .map(|p| p.to_string())
            .ok_or(())
    }

    #[test]
    fn refuses_values_it_cannot_write() {
        let mut e = env(ENV);
        let err = e.set("K", "two\nlines").unwrap_err();
        assert_eq!(err.code, "invalid_value");
        assert!(err.message.contains("/root/.hermes/.env"));
        assert!(e.set("K", "nul\0").is_err());
        assert!(e.set("K", "ends in \\").is_err());
        assert!(e.set("BAD-KEY", "v").is_err());
        assert_eq!(e.to_string(), ENV);
    }

    #[test]
    fn crlf_is_kept() {
        let text = "A=1\r\n# c\r\nB=2\r\n";
        let mut e = env(text);
        assert_eq!(e.get("B").as_deref(), Some("2"));
        e.set("B", "3").unwrap();
        e.set("C", "4").unwrap();
        assert_eq!(e.to_string(), "A=1\r\n# c\r\nB=3\r\nC=4\r\n");
    }

    #[test]
    fn reading_rules() {
        let e = env(
            "  export   A = spaced  # note\nB=\"esc \\$ \\n \\\\\"  # c\nC='lit \\n $x'\nD=a#b\n\t# indented comment\nE=#hash\n",
        );
        assert_eq!(e.get("A").as_deref(), Some("spaced"));
        assert_eq!(e.get("B").as_deref(), Some("esc $ \\n \\"));
        assert_eq!(e.get("C").as_deref(), Some("lit \\n $x"));
        assert_eq!(e.get("D").as_deref(), Some("a#b"));
        assert_eq!(e.get("E").as_deref(), Some("#hash"));
        let mut e = e;
        assert!(e.set("A", "new").unwrap());
        assert!(e.to_string().starts_with("  export   A = new  # note\n"));
    }

    fn parse_err(text: &str) -> Error {
        DotEnv::parse(text, "/root/.codex/.env").unwrap_err()
    }

    #[test]
    fn malformed_lines_are_refused_with_their_line() {
        for (text, line) in [
            ("A=1\nJUSTAWORD\n", 2),
            ("A=1\n# ok\nBAD-KEY=1\n", 3),
            ("A=1\nB=\"unterminated\n", 2),
            ("A='x\n", 1),
            ("A=1\n\nB=\"x\"y\n", 3),
            ("1A=1\n", 1),
            ("=value\n", 1),
        ] {
            let e = parse_err(text);
            assert_eq!(e.code, "parse_error", "{text:?}");
            let loc = e.location.as_ref().unwrap();
            assert_eq!(loc.file, "/root/.codex/.env");
            assert_eq!(loc.line, Some(line), "{text:?}: {e}");
        }
    }

    #[test]
    fn regression_multi_line_quoted_values_were_refused() {
        let text = "A=1\nKEY=\"-----BEGIN KEY-----\nabc\n-----END KEY-----\" # pem\nNOTE='two\r\nlines'\nB=2\n";
        let mut e = env(text);
        assert_eq!(
            e.get("KEY").as_deref(),
            Some("-----BEGIN KEY-----\nabc\n-----END KEY-----")
        );
        assert_eq!(e.get("NOTE").as_deref(), Some("two\r\nlines"));
        assert_eq!(e.keys(), ["A", "KEY", "NOTE", "B"]);
        assert_eq!(e.to_string(), text);
        // the same value again is no change; another key is edited around it
        let key = e.get("KEY").unwrap();
        assert!(!e.set("KEY", &key).unwrap());
        assert!(e.set("B", "3").unwrap());
        assert_eq!(e.to_string(), text.replace("B=2", "B=3"));
        // one that never closes is refused on the line it starts
        let err = parse_err("A=1\nB=\"open\nC=2\n");
        assert_eq!(err.location.as_ref().unwrap().line, Some(2));
        // a line after the value that is not an assignment is still refused, on its own line
        let err = parse_err("A='x\ny' junk\n");
        assert_eq!(err.location.as_ref().unwrap().line, Some(1));
    }
}
