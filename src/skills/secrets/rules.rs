//! The secret rules as data: [`Rule`], the matcher shapes ([`Pattern`], [`Chars`]) and the
//! rule set [`RULES`] (matched by the parent module).

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
    pub(super) fn has(self, b: u8) -> bool {
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
    /// A Discord bot token: `<base64 user id>.<timestamp>.<hmac>` (see `discord_bot`).
    DiscordBot,
    /// A password in a URL's userinfo, `scheme://user:password@host` (see `url_userinfo`).
    UrlUserinfo,
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
        id: "discord-api-token",
        what: "a Discord bot token",
        pattern: Pattern::DiscordBot,
    },
    Rule {
        id: "url-userinfo-password",
        what: "a password in a URL",
        pattern: Pattern::UrlUserinfo,
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
        id: "stripe-webhook-secret",
        what: "a Stripe webhook signing secret",
        pattern: Pattern::Token {
            prefixes: &["whsec_"],
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
