//! The canonical MCP entry and how each runtime holds it: the [`Entry`] the device describes a
//! server in (upstream's `WriteMCPEntry`, docs/device-contract.md §8.3: `{type: "http", url,
//! headers}` for a remote server, `{command, args, env}` for a local one), and [`style`], the two
//! transforms per [`super::McpStyle`] (canonical -> native, native -> canonical), so a runtime's
//! difference is its data plus one match arm, never a pairwise converter.
//!
//! It lives with the runtimes because a runtime's hooks are written against it (what a runtime
//! refuses in a server, `Runtime::mcp_refuses`, takes an `Entry`) and its styles are runtime
//! facts; the `mcp` feature (add, remove, list, the carry-over) sits above and reaches a runtime
//! through the registry. Secret-looking header and env values are registered with
//! [`crate::redact`] as soon as osctl reads or receives them.

pub(crate) mod style;

use serde_json::{Map, Value, json};

use crate::redact;

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
}
