//! The entry transforms, once per [`McpStyle`] (docs/device-contract.md §8.3, checked against the
//! real runtimes: see tests/oracles): canonical → native ([`to_native`]) and native → canonical
//! ([`from_native`]).
//!
//! | style | runtimes | native entry |
//! |---|---|---|
//! | `Canonical` | openclaw, claudecode | the canonical entry as it is |
//! | `DropTypeEnabled` | hermes | no `type` (hermes infers it from `url`/`command`), `enabled: true` |
//! | `KeepTypeEnabled` | picoclaw | canonical plus `enabled: true` (and `tools.mcp.enabled`) |
//! | `CodexToml` | codex | no `type`, `headers` → `http_headers` |
//! | `OpencodeLocalRemote` | opencode | `{type: remote, url, headers, enabled}` / `{type: local, command: [cmd, ...args], environment, enabled}` |
//!
//! Reading is lenient in what each runtime itself accepts (openclaw's `transport`, Claude Code's
//! `type: "stdio"`, codex's `enabled = false`) and reports the keys it does not carry, so a
//! carry-over can say what it left behind instead of dropping it silently.

use serde_json::{Map, Value, json};

use super::{Entry, Remote, Server};
use crate::runtime::McpStyle;

/// The native entry for `entry` in `style`.
pub(crate) fn to_native(style: McpStyle, entry: &Entry) -> Value {
    let canonical = entry.to_value();
    let Value::Object(mut m) = canonical else {
        unreachable!("an entry is an object")
    };
    match style {
        McpStyle::Canonical => {}
        McpStyle::DropTypeEnabled => {
            if let Server::Remote {
                kind: Remote::Sse, ..
            } = entry.server
            {
                // Hermes speaks streamable HTTP unless told otherwise.
                m.insert("transport".into(), "sse".into());
            }
            m.shift_remove("type");
            m.insert("enabled".into(), entry.enabled.into());
        }
        McpStyle::KeepTypeEnabled => {
            m.insert("enabled".into(), entry.enabled.into());
        }
        McpStyle::CodexToml => {
            m.shift_remove("type");
            if let Some(h) = m.shift_remove("headers") {
                m.insert("http_headers".into(), h);
            }
        }
        McpStyle::OpencodeLocalRemote => {
            let mut o = Map::new();
            match &entry.server {
                Server::Stdio { command, args, env } => {
                    let mut cmd = vec![command.clone()];
                    cmd.extend(args.iter().cloned());
                    o.insert("type".into(), "local".into());
                    o.insert("command".into(), json!(cmd));
                    if !env.is_empty() {
                        o.insert("environment".into(), Value::Object(env.clone()));
                    }
                }
                Server::Remote { url, headers, .. } => {
                    o.insert("type".into(), "remote".into());
                    o.insert("url".into(), url.clone().into());
                    if !headers.is_empty() {
                        o.insert("headers".into(), Value::Object(headers.clone()));
                    }
                }
            }
            o.insert("enabled".into(), entry.enabled.into());
            return Value::Object(o);
        }
    }
    Value::Object(m)
}

/// A native entry read back, with the keys the canonical form does not carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Read {
    pub entry: Entry,
    /// Keys of the native entry that the canonical entry leaves out (`timeout`, `cwd`, …).
    pub dropped: Vec<String>,
}

/// The canonical entry for a native `value` of `style`; `Err` says why it is not an entry.
pub(crate) fn from_native(style: McpStyle, value: &Value) -> Result<Read, String> {
    let Value::Object(m) = value else {
        return Err("the entry is not a map".into());
    };
    let mut used: Vec<&str> = vec!["enabled"];
    let enabled = match m.get("enabled") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`enabled` is not true or false".into()),
    };
    let (command_key, env_key, header_key) = match style {
        McpStyle::OpencodeLocalRemote => ("command", "environment", "headers"),
        McpStyle::CodexToml => ("command", "env", "http_headers"),
        _ => ("command", "env", "headers"),
    };
    let has_command = m.get(command_key).is_some_and(|v| !v.is_null());
    let has_url = m.get("url").is_some_and(|v| !v.is_null());
    let server = match (has_command, has_url) {
        (true, true) => return Err("it has both `command` and `url`".into()),
        (false, false) => return Err("it has neither `command` nor `url`".into()),
        (true, false) => {
            used.extend([command_key, env_key, "args", "type"]);
            let (command, mut args) = match (&m[command_key], style) {
                (Value::Array(words), McpStyle::OpencodeLocalRemote) => {
                    let words = strings(words, "command")?;
                    let Some((first, rest)) = words.split_first() else {
                        return Err("`command` is an empty list".into());
                    };
                    (first.clone(), rest.to_vec())
                }
                (Value::String(c), _) if !c.trim().is_empty() => (c.clone(), Vec::new()),
                _ => return Err("`command` is not a command".into()),
            };
            match m.get("args") {
                None | Some(Value::Null) => {}
                Some(Value::Array(a)) => args.extend(strings(a, "args")?),
                Some(_) => return Err("`args` is not a list".into()),
            }
            if let Some(t) = m.get("type").and_then(Value::as_str)
                && !matches!(t, "stdio" | "local")
            {
                return Err(format!("`type` is `{t}` but the entry has a command"));
            }
            Server::Stdio {
                command,
                args,
                env: string_map(m.get(env_key), env_key)?,
            }
        }
        (false, true) => {
            used.extend(["url", header_key, "type", "transport"]);
            let Some(url) = m["url"].as_str().filter(|u| !u.trim().is_empty()) else {
                return Err("`url` is not a URL".into());
            };
            // `type` (canonical, Claude Code, picoclaw, opencode) or `transport` (openclaw,
            // hermes) names the protocol; neither means streamable HTTP, as the runtimes read it.
            let named = m
                .get("type")
                .or_else(|| m.get("transport"))
                .and_then(Value::as_str)
                .unwrap_or("http");
            let kind = match named {
                "sse" => Remote::Sse,
                "http" | "streamable-http" | "streamable_http" | "remote" => Remote::Http,
                other => return Err(format!("transport `{other}` is not http or sse")),
            };
            Server::Remote {
                kind,
                url: url.to_string(),
                headers: string_map(m.get(header_key), header_key)?,
            }
        }
    };
    let dropped = m
        .keys()
        .filter(|k| !used.contains(&k.as_str()))
        .cloned()
        .collect();
    Ok(Read {
        entry: Entry { server, enabled },
        dropped,
    })
}

fn strings(items: &[Value], what: &str) -> Result<Vec<String>, String> {
    items
        .iter()
        .map(|v| match v {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(format!("`{what}` holds something that is not a string")),
        })
        .collect()
}

/// A map of strings; numbers and booleans read as their text, as the runtimes coerce them.
fn string_map(value: Option<&Value>, what: &str) -> Result<Map<String, Value>, String> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let s = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => return Err(format!("`{what}.{k}` is not a string")),
                };
                Ok((k.clone(), Value::String(s)))
            })
            .collect(),
        Some(_) => Err(format!("`{what}` is not a map")),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::runtime::McpStyle::*;

    fn stdio() -> Entry {
        let mut env = Map::new();
        env.insert("FOO".into(), "bar".into());
        Entry::stdio("npx".into(), vec!["-y".into(), "srv".into()], env)
    }

    fn remote() -> Entry {
        let mut h = Map::new();
        h.insert("Authorization".into(), "Bearer tok".into());
        Entry::remote(Remote::Http, "https://mcp.notion.com/mcp".into(), h)
    }

    #[test]
    fn the_spec_table() {
        let cases = [
            (
                Canonical,
                json!({"command": "npx", "args": ["-y", "srv"], "env": {"FOO": "bar"}}),
                json!({"type": "http", "url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer tok"}}),
            ),
            (
                DropTypeEnabled,
                json!({"command": "npx", "args": ["-y", "srv"], "env": {"FOO": "bar"}, "enabled": true}),
                json!({"url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer tok"}, "enabled": true}),
            ),
            (
                KeepTypeEnabled,
                json!({"command": "npx", "args": ["-y", "srv"], "env": {"FOO": "bar"}, "enabled": true}),
                json!({"type": "http", "url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer tok"}, "enabled": true}),
            ),
            (
                CodexToml,
                json!({"command": "npx", "args": ["-y", "srv"], "env": {"FOO": "bar"}}),
                json!({"url": "https://mcp.notion.com/mcp", "http_headers": {"Authorization": "Bearer tok"}}),
            ),
            (
                OpencodeLocalRemote,
                json!({"type": "local", "command": ["npx", "-y", "srv"], "environment": {"FOO": "bar"}, "enabled": true}),
                json!({"type": "remote", "url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer tok"}, "enabled": true}),
            ),
        ];
        for (style, s, r) in cases {
            assert_eq!(to_native(style, &stdio()), s, "{style:?} stdio");
            assert_eq!(to_native(style, &remote()), r, "{style:?} remote");
            // And back, with nothing left behind.
            for (native, entry) in [(s, stdio()), (r, remote())] {
                let read = from_native(style, &native).unwrap();
                assert_eq!(read.entry, entry, "{style:?} {native}");
                assert!(read.dropped.is_empty(), "{style:?} {:?}", read.dropped);
            }
        }
    }

    #[test]
    fn native_keys_keep_the_canonical_order() {
        assert_eq!(
            to_native(DropTypeEnabled, &remote()).to_string(),
            r#"{"url":"https://mcp.notion.com/mcp","headers":{"Authorization":"Bearer tok"},"enabled":true}"#
        );
        assert_eq!(
            to_native(CodexToml, &remote()).to_string(),
            r#"{"url":"https://mcp.notion.com/mcp","http_headers":{"Authorization":"Bearer tok"}}"#
        );
    }

    #[test]
    fn lenient_reading_and_what_is_left_behind() {
        // openclaw's own transport key; Claude Code's explicit stdio type; hermes' timeout.
        let r = from_native(
            Canonical,
            &json!({"url": "http://h/sse", "transport": "sse", "timeout": 30}),
        )
        .unwrap();
        assert_eq!(r.entry.transport(), "sse");
        assert_eq!(r.dropped, vec!["timeout"]);
        let r = from_native(Canonical, &json!({"type": "stdio", "command": "cat"})).unwrap();
        assert_eq!(r.entry.target(), "cat");
        let r = from_native(CodexToml, &json!({"command": "x", "enabled": false})).unwrap();
        assert!(!r.entry.enabled);
        assert_eq!(to_native(CodexToml, &r.entry)["enabled"], json!(false));
        for bad in [
            json!({"args": ["a"]}),
            json!({"command": "a", "url": "b"}),
            json!({"command": "a", "args": "b"}),
            json!({"url": "u", "type": "websocket"}),
            json!("x"),
        ] {
            assert!(from_native(Canonical, &bad).is_err(), "{bad}");
        }
        assert!(
            from_native(
                OpencodeLocalRemote,
                &json!({"type": "local", "command": []})
            )
            .is_err()
        );
    }
}
