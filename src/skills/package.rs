//! The package check: a skill (or hook) must carry no secrets and no machine-specific absolute
//! paths (a package is copied to every device; seed 002, "marketplace agent must not contain").
//!
//! It looks for what is unambiguous, so a real skill is not refused for a word that merely looks
//! like a key: private-key files and PEM private-key blocks; API tokens by their published
//! formats (Anthropic and OpenAI `sk-`, GitHub `ghp_`/`github_pat_`, Slack `xox?-`/`xapp-`, AWS
//! `AKIA`, Google `AIza`, GitLab `glpat-`, Telegram bot tokens), each long enough and mixing
//! letters and digits so placeholders such as `sk-XXXX…` pass; and home folders of a developer's
//! machine (`/home/<name>/`, `/Users/<name>/`, `C:\Users\<name>\`). Device paths such as `/root/…`
//! or `/usr/local/…` are what skills are meant to name and are allowed. Binary files are not
//! scanned. A finding names the file and line, never the secret.

/// Why a package was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub path: String,
    /// 1-based; 0 when the finding is about the file as a whole.
    pub line: usize,
    pub what: &'static str,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{} is {}", self.path, self.what)
        } else {
            write!(f, "{} line {} holds {}", self.path, self.line, self.what)
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

/// Token prefixes and the least number of token characters that must follow.
const TOKENS: &[(&str, usize, &str)] = &[
    ("sk-ant-", 20, "an Anthropic API key"),
    ("sk-proj-", 20, "an OpenAI API key"),
    ("sk-", 32, "an API key (sk-…)"),
    ("github_pat_", 22, "a GitHub token"),
    ("ghp_", 36, "a GitHub token"),
    ("gho_", 36, "a GitHub token"),
    ("ghu_", 36, "a GitHub token"),
    ("ghs_", 36, "a GitHub token"),
    ("xoxb-", 10, "a Slack token"),
    ("xoxp-", 10, "a Slack token"),
    ("xoxa-", 10, "a Slack token"),
    ("xapp-", 10, "a Slack token"),
    ("AKIA", 16, "an AWS access key"),
    ("AIza", 35, "a Google API key"),
    ("glpat-", 20, "a GitLab token"),
];

/// Checks one file of a package.
pub fn scan(path: &str, content: &[u8]) -> Option<Finding> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if SECRET_FILES.contains(&name) {
        return Some(Finding {
            path: path.to_string(),
            line: 0,
            what: "a private key or credentials file",
        });
    }
    let head = &content[..content.len().min(8192)];
    if head.contains(&0) {
        return None;
    }
    let text = String::from_utf8_lossy(content);
    for (i, line) in text.lines().enumerate() {
        if let Some(what) = scan_line(line) {
            return Some(Finding {
                path: path.to_string(),
                line: i + 1,
                what,
            });
        }
    }
    None
}

fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `line[at..]` starts a word (nothing token-like just before it).
fn at_boundary(line: &[u8], at: usize) -> bool {
    at == 0 || !is_token_char(line[at - 1])
}

/// The run of token characters from `from`, and whether it mixes letters and digits.
fn token_run(line: &[u8], from: usize) -> (usize, bool) {
    let run = line[from..]
        .iter()
        .take_while(|&&b| is_token_char(b))
        .count();
    let s = &line[from..from + run];
    let mixed = s.iter().any(u8::is_ascii_digit) && s.iter().any(u8::is_ascii_alphabetic);
    (run, mixed)
}

fn scan_line(line: &str) -> Option<&'static str> {
    if line.contains("-----BEGIN") && line.contains("PRIVATE KEY") {
        return Some("a private key");
    }
    let b = line.as_bytes();
    for (prefix, min, what) in TOKENS {
        let mut from = 0;
        while let Some(pos) = line[from..].find(prefix) {
            let at = from + pos;
            let (run, mixed) = token_run(b, at + prefix.len());
            if at_boundary(b, at) && run >= *min && mixed {
                return Some(what);
            }
            from = at + prefix.len();
        }
    }
    if telegram_token(b) {
        return Some("a Telegram bot token");
    }
    machine_path(line)
}

/// `<8-10 digits>:<35 token characters>`.
fn telegram_token(b: &[u8]) -> bool {
    for (i, &c) in b.iter().enumerate() {
        if c != b':' {
            continue;
        }
        let digits = b[..i]
            .iter()
            .rev()
            .take_while(|d| d.is_ascii_digit())
            .count();
        if !(8..=10).contains(&digits) || !at_boundary(b, i - digits) {
            continue;
        }
        let run = b[i + 1..].iter().take_while(|&&x| is_token_char(x)).count();
        if run == 35 {
            return true;
        }
    }
    false
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
mod tests {
    use super::*;

    fn hit(text: &str) -> Option<&'static str> {
        scan("x.md", text.as_bytes()).map(|f| f.what)
    }

    #[test]
    fn finds_keys_tokens_and_machine_paths() {
        assert_eq!(
            hit("-----BEGIN OPENSSH PRIVATE KEY-----"),
            Some("a private key")
        );
        assert_eq!(
            hit("key = \"sk-ant-api03-abcDEF1234567890abcdefXYZ\""),
            Some("an Anthropic API key")
        );
        assert_eq!(
            hit("OPENAI=sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee"),
            Some("an API key (sk-…)")
        );
        assert_eq!(
            hit("token: ghp_0123456789abcdefghijABCDEFGHIJ012345"),
            Some("a GitHub token")
        );
        assert_eq!(hit("AKIAIOSFODNN7EXAMPLE"), Some("an AWS access key"));
        assert_eq!(
            hit("bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 x"),
            Some("a Telegram bot token")
        );
        assert_eq!(
            hit("python3 /home/alice/dev/skill/run.py"),
            Some("an absolute path on a developer's machine")
        );
        assert_eq!(
            hit("see /Users/bob/Library/x"),
            Some("an absolute path on a developer's machine")
        );
        let f = scan("scripts/a.py", b"ok\nx = 'xoxb-1234-5678-abcdefghij'\n").unwrap();
        assert_eq!((f.path.as_str(), f.line), ("scripts/a.py", 2));
        assert_eq!(scan("keys/id_ed25519", b"").unwrap().line, 0);
    }

    #[test]
    fn leaves_ordinary_skill_text_alone() {
        for ok in [
            "Run `python3 /root/.openclaw/workspace/skills/audio/play.py`",
            "Set API key: sk-your-key-here",
            "sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            "the desk-lamp-controller-with-a-very-long-name-1234567890 is fine",
            "time 12:30:45 and ratio 1234567890:1",
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
