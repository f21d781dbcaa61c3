//! MCP servers: one canonical entry, written into and read back from each runtime's own file.
//!
//! The device describes an MCP server the way upstream's `WriteMCPEntry` does
//! (docs/device-contract.md §8.3): `{type: "http", url, headers}` for a remote server, `{command,
//! args, env}` for a local (stdio) one. That is the [`Entry`] here. Each runtime keeps its servers
//! in its own container and shape (its [`crate::runtime::McpContainer`]: file, format, key path,
//! [`crate::runtime::McpStyle`]); [`style`] holds the two transforms per style (canonical → native,
//! native → canonical), so a runtime's difference is its data plus one match arm, never a pairwise
//! converter.
//!
//! - [`reader`]: a runtime's servers as canonical entries (for `mcp list`, `mcp add --replace`
//!   checks, and the carry-over on a switch, which reads from any of the six runtimes).
//! - [`planner`]: `mcp add` / `mcp remove` as plans through a [`crate::plan::Draft`], with the
//!   restart of the runtime's unit when its file changed.
//! - [`tools`]: the user's MCP tools in config.json (`mcp_tools`, served as `tool_<name>`).
//!
//! Secrets: every header and env value that looks like a secret is registered with
//! [`crate::redact`] as soon as osctl reads or receives it, so no output can show it.

pub(crate) mod planner;
pub(crate) mod reader;
pub(crate) mod style;
pub(crate) mod tools;

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::redact;
use crate::runtime::RuntimeId;

/// How a remote server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Remote {
    /// Streamable HTTP (`type: "http"`), what every runtime speaks.
    Http,
    /// Server-sent events (`type: "sse"`), the older transport.
    Sse,
}

impl Remote {
    pub fn as_str(self) -> &'static str {
        match self {
            Remote::Http => "http",
            Remote::Sse => "sse",
        }
    }
}

/// What a server is: a program osctl's runtime starts, or a URL it connects to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Server {
    Stdio {
        command: String,
        args: Vec<String>,
        /// Values are strings; order as given (equality ignores order).
        env: Map<String, Value>,
    },
    Remote {
        kind: Remote,
        url: String,
        headers: Map<String, Value>,
    },
}

/// A canonical MCP entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub server: Server,
    /// `false` only when a runtime's file says so; carried where the target can say it too.
    pub enabled: bool,
}

impl Entry {
    pub(crate) fn stdio(command: String, args: Vec<String>, env: Map<String, Value>) -> Entry {
        Entry {
            server: Server::Stdio { command, args, env },
            enabled: true,
        }
    }

    pub(crate) fn remote(kind: Remote, url: String, headers: Map<String, Value>) -> Entry {
        Entry {
            server: Server::Remote { kind, url, headers },
            enabled: true,
        }
    }

    /// `stdio`, `http` or `sse`.
    pub(crate) fn transport(&self) -> &'static str {
        match &self.server {
            Server::Stdio { .. } => "stdio",
            Server::Remote { kind, .. } => kind.as_str(),
        }
    }

    /// The command line or the URL, for one-line listings.
    pub(crate) fn target(&self) -> String {
        match &self.server {
            Server::Stdio { command, args, .. } => {
                let mut words = vec![command.clone()];
                words.extend(args.iter().cloned());
                words.join(" ")
            }
            Server::Remote { url, .. } => url.clone(),
        }
    }

    /// The env (stdio) or header (remote) map.
    pub(crate) fn values(&self) -> &Map<String, Value> {
        match &self.server {
            Server::Stdio { env, .. } => env,
            Server::Remote { headers, .. } => headers,
        }
    }

    /// The canonical JSON form (docs/device-contract.md §8.3): `{command, args, env}` or `{type,
    /// url, headers}`; empty `args`/`env`/`headers` are left out, `enabled` appears only when
    /// false.
    pub(crate) fn to_value(&self) -> Value {
        let mut m = Map::new();
        match &self.server {
            Server::Stdio { command, args, env } => {
                m.insert("command".into(), command.clone().into());
                if !args.is_empty() {
                    m.insert("args".into(), json!(args));
                }
                if !env.is_empty() {
                    m.insert("env".into(), Value::Object(env.clone()));
                }
            }
            Server::Remote { kind, url, headers } => {
                m.insert("type".into(), kind.as_str().into());
                m.insert("url".into(), url.clone().into());
                if !headers.is_empty() {
                    m.insert("headers".into(), Value::Object(headers.clone()));
                }
            }
        }
        if !self.enabled {
            m.insert("enabled".into(), false.into());
        }
        Value::Object(m)
    }

    /// Whether any header or env value looks like a secret, or the URL carries credentials
    /// (the file then becomes 0600).
    pub(crate) fn has_secrets(&self) -> bool {
        let url_creds = match &self.server {
            Server::Remote { url, .. } => redact::holds_secret(url),
            Server::Stdio { .. } => false,
        };
        url_creds
            || self
                .values()
                .iter()
                .any(|(k, v)| v.as_str().is_some_and(|v| looks_secret(k, v)))
    }

    /// Registers every secret-looking header and env value with the redactor.
    pub(crate) fn register_secrets(&self) {
        register_values(self.values());
    }
}

/// Registers the secret-looking values of a header or env map.
pub(crate) fn register_values(values: &Map<String, Value>) {
    for (k, v) in values {
        if let Some(v) = v.as_str() {
            redact::register_pair(k, v);
        }
    }
}

/// Registers the secret-looking values of every server in a runtime's MCP container (`servers`:
/// the map at the container's path): every `headers`, `http_headers`, `env` and `environment`
/// map, also one the runtime's style does not read (codex's `headers` beside `http_headers`) or
/// an entry osctl does not understand. Whoever shows a diff of the container's file (presync,
/// a reset that removes it) registers them first: the diff's context shows them.
pub(crate) fn register_container(servers: &Value) {
    let Value::Object(servers) = servers else {
        return;
    };
    for entry in servers.values() {
        if let Value::Object(raw) = entry {
            for key in ["headers", "http_headers", "env", "environment"] {
                if let Some(Value::Object(vals)) = raw.get(key) {
                    register_values(vals);
                }
            }
        }
    }
}

/// Whether a header or env value looks like a secret: the redactor's one rule for pairs
/// ([`redact::is_secret_pair`]), so `mcp add`, `mcp remove`, `mcp list` and the carry-over mask
/// exactly the same values.
pub(crate) fn looks_secret(key: &str, value: &str) -> bool {
    redact::is_secret_pair(key, value)
}

/// Server names every runtime accepts as a key (codex and Claude Code allow no more).
pub(crate) fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(Error::input(
            "bad_mcp_name",
            format!("`{name}` is not a valid MCP server name"),
        )
        .hint("use 1 to 64 letters, digits, `_` or `-` (every runtime accepts those as a key)"))
    }
}

/// The name of the server a user tool of `config.mcp_tools` becomes (`tool_<name>`).
pub(crate) fn user_tool_server(name: &str) -> String {
    format!("tool_{name}")
}

/// What a runtime cannot take, whatever the style (its `Runtime::mcp_refuses`): checked before
/// anything is planned.
pub(crate) fn check_for_runtime(rt: RuntimeId, name: &str, entry: &Entry) -> Result<()> {
    match rt.spec().mcp_refuses {
        Some(refuses) => refuses(name, entry),
        None => Ok(()),
    }
}

/// Parses `K=V` (or `K: V`, the header form) into a pair.
pub(crate) fn parse_pair(text: &str, what: &str) -> Result<(String, String)> {
    let split = match (text.find('='), text.find(':')) {
        (Some(e), Some(c)) => Some(e.min(c)),
        (Some(e), None) => Some(e),
        (None, Some(c)) => Some(c),
        (None, None) => None,
    };
    let Some(at) = split else {
        return Err(Error::input(
            "bad_pair",
            format!("{what} `{}` is not KEY=VALUE", first_word(text)),
        )
        .hint(format!("write each {what} as KEY=VALUE")));
    };
    let key = text[..at].trim();
    let value = text[at + 1..].trim();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Err(Error::input(
            "bad_pair",
            format!("{what} `{}` has no valid key", first_word(text)),
        )
        .hint(format!("write each {what} as KEY=VALUE")));
    }
    Ok((key.to_string(), value.to_string()))
}

/// Parses a `--header-file`/`--env-file` text: one `K=V` (or `K: V`) per line, `#` comments and
/// blank lines skipped. `origin` names the file in errors (with the line).
pub(crate) fn parse_pairs_file(
    text: &str,
    origin: &str,
    what: &str,
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let pair = parse_pair(l, what).map_err(|e| {
            Error::parse(origin, Some(i + 1), Some(1), e.message.clone())
                .hint(format!("write one {what} per line as KEY=VALUE"))
        })?;
        out.push(pair);
    }
    Ok(out)
}

/// The first word of a pair, so an error never quotes a secret value.
fn first_word(text: &str) -> String {
    text.split(['=', ':'])
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(40)
        .collect()
}

/// A map of string values from pairs (a later key wins).
pub(crate) fn pairs_to_map(pairs: Vec<(String, String)>) -> Map<String, Value> {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, Value::String(v));
    }
    m
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        let mut env = Map::new();
        env.insert("FOO".into(), "bar".into());
        let e = Entry::stdio("npx".into(), vec!["-y".into(), "srv".into()], env);
        assert_eq!(
            e.to_value(),
            json!({"command": "npx", "args": ["-y", "srv"], "env": {"FOO": "bar"}})
        );
        let e = Entry::remote(Remote::Http, "https://x/mcp".into(), Map::new());
        assert_eq!(
            e.to_value(),
            json!({"type": "http", "url": "https://x/mcp"})
        );
    }

    #[test]
    fn secrets_are_recognised() {
        assert!(looks_secret("Authorization", "Bearer abc"));
        assert!(looks_secret("X-Api-Key", "k1"));
        assert!(looks_secret("GITHUB_TOKEN", "ghp_x"));
        assert!(looks_secret("X-Team", "ntn_1234567890abcdefghij"));
        assert!(!looks_secret("X-Team", "docs"));
        assert!(!looks_secret("FOO", "bar"));
        assert!(!looks_secret(
            "HOME_URL",
            "https://example.com/a1b2c3d4e5f6g7h8"
        ));
        assert!(!looks_secret("Authorization", "${NOTION_TOKEN}"));
    }

    #[test]
    fn pairs_and_names() {
        assert_eq!(
            parse_pair("Authorization: Bearer a=b", "header").unwrap(),
            ("Authorization".into(), "Bearer a=b".into())
        );
        assert_eq!(
            parse_pair("K=v:w", "env").unwrap(),
            ("K".into(), "v:w".into())
        );
        assert_eq!(parse_pair("novalue", "env").unwrap_err().code, "bad_pair");
        let err = parse_pairs_file("# c\nA=1\n\nbroken\n", "/h", "header").unwrap_err();
        assert_eq!(err.location.clone().unwrap().line, Some(4));
        assert!(check_name("notion").is_ok());
        assert!(check_name("tool_my-search2").is_ok());
        assert_eq!(check_name("a.b").unwrap_err().code, "bad_mcp_name");
        assert_eq!(check_name("").unwrap_err().code, "bad_mcp_name");
    }
}
