//! The package check: a skill (or hook) must carry no secrets and no machine-specific absolute
//! paths (a package is copied to every device; seed 002, "marketplace agent must not contain").
//!
//! Secrets are found by the rule set in [`super::secrets`] (private keys, JWTs, bearer and basic
//! authorization headers, Slack and Discord webhook URLs, password assignments, AWS and Google
//! keys, GitHub, GitLab, Slack, Telegram, OpenAI, Anthropic, Stripe and npm tokens), and files
//! whose name makes them credentials (`id_rsa`, `.netrc`, …) are refused whatever they hold.
//! Home folders of a developer's machine (`/home/<name>/`, `/Users/<name>/`, `C:\Users\<name>\`)
//! are refused too; device paths such as `/root/…` or `/usr/local/…` are what skills are meant to
//! name and are allowed. Binary files are not scanned. A finding names the file, the line and the
//! rule, never the secret.

/// Why a package was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub path: String,
    /// 1-based; 0 when the finding is about the file as a whole.
    pub line: usize,
    pub what: &'static str,
    /// The rule's id (`jwt`, `developer-home-path`, `credentials-file`).
    pub rule: &'static str,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{} is {} (rule {})", self.path, self.what, self.rule)
        } else {
            write!(
                f,
                "{} line {} holds {} (rule {})",
                self.path, self.line, self.what, self.rule
            )
        }
    }
}

/// File names that are credentials whatever they hold.
const SECRET_FILES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".netrc",
    ".pgpass",
];

/// Checks one file of a package.
pub fn scan(path: &str, content: &[u8]) -> Option<Finding> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if SECRET_FILES.contains(&name) {
        return Some(Finding {
            path: path.to_string(),
            line: 0,
            what: "a private key or credentials file",
            rule: "credentials-file",
        });
    }
    let head = &content[..content.len().min(8192)];
    if head.contains(&0) {
        return None;
    }
    let text = String::from_utf8_lossy(content);
    let line_of = |at: usize| text[..at].bytes().filter(|&b| b == b'\n').count() + 1;
    let secret = super::secrets::find(path, &text).map(|hit| Finding {
        path: path.to_string(),
        line: line_of(hit.at),
        what: hit.rule.what,
        rule: hit.rule.id,
    });
    let home = text.lines().enumerate().find_map(|(i, line)| {
        machine_path(line).map(|what| Finding {
            path: path.to_string(),
            line: i + 1,
            what,
            rule: "developer-home-path",
        })
    });
    match (secret, home) {
        (Some(a), Some(b)) => Some(if b.line < a.line { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn machine_path(line: &str) -> Option<&'static str> {
    const HOMES: &[&str] = &["/home/", "/Users/", "C:\\Users\\", "C:/Users/"];
    for home in HOMES {
        let mut from = 0;
        while let Some(pos) = line[from..].find(home) {
            let at = from + pos;
            let rest = &line.as_bytes()[at + home.len()..];
            let name = rest
                .iter()
                .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || c == b'-')
                .count();
            let sep = rest.get(name).copied();
            let before_ok = at == 0 || !line.as_bytes()[at - 1].is_ascii_alphanumeric();
            if before_ok && name > 0 && matches!(sep, Some(b'/') | Some(b'\\')) {
                return Some("an absolute path on a developer's machine");
            }
            from = at + home.len();
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn hit(text: &str) -> Option<&'static str> {
        scan("x.md", text.as_bytes()).map(|f| f.rule)
    }

    #[test]
    fn finds_secrets_by_rule_and_machine_paths_and_names_the_line() {
        assert_eq!(
            hit("python3 /home/alice/dev/skill/run.py"),
            Some("developer-home-path")
        );
        assert_eq!(hit("see /Users/bob/Library/x"), Some("developer-home-path"));
        let f = scan("scripts/a.py", b"ok\nx = 'xoxb-1234-5678-abcdefghij'\n").unwrap();
        assert_eq!(
            (f.path.as_str(), f.line, f.rule),
            ("scripts/a.py", 2, "slack-token")
        );
        let shown = f.to_string();
        assert_eq!(
            shown,
            "scripts/a.py line 2 holds a Slack token (rule slack-token)"
        );
        assert!(
            !shown.contains("xoxb-1234"),
            "a finding never quotes the secret"
        );
        let f = scan("keys/id_ed25519", b"").unwrap();
        assert_eq!((f.line, f.rule), (0, "credentials-file"));
        // A private key in a JSON string is found on the line where it starts.
        let f = scan("a.json", b"{\n \"k\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4\\n-----END PRIVATE KEY-----\"\n}").unwrap();
        assert_eq!((f.line, f.rule), (2, "private-key"));
    }

    /// The seed's scan let these through: a JWT, an `Authorization: Bearer` value, a Slack
    /// webhook URL and a `password = "…"` assignment.
    #[test]
    fn regression_the_package_check_let_jwts_bearer_tokens_webhooks_and_passwords_through() {
        for (text, rule) in [
            (
                "token = eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
            (
                "Authorization: Bearer 4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c",
                "authorization-bearer",
            ),
            (
                "https://hooks.slack.com/services/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",
                "slack-webhook-url",
            ),
            ("password = \"hunter2!\"", "password-assignment"),
        ] {
            assert_eq!(hit(text), Some(rule), "{text}");
        }
    }

    #[test]
    fn leaves_ordinary_skill_text_alone() {
        for ok in [
            "Run `python3 /root/.openclaw/workspace/skills/audio/play.py`",
            "files live in /home/<user>/ on a laptop",
            "logs under /usr/local/lib/os-runtimes/",
        ] {
            assert_eq!(hit(ok), None, "{ok}");
        }
        assert_eq!(
            scan("a.bin", b"\0\x01sk-ant-api03-abcDEF1234567890abcdefXYZ"),
            None
        );
    }
}
