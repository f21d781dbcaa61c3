//! MCP servers, the feature: `mcp add`, `mcp remove`, `mcp list` and the carry-over read and
//! write a runtime's servers as canonical entries ([`crate::runtime::mcp::Entry`], the shape the
//! device describes a server in, docs/device-contract.md §8.3). How each runtime holds them (its
//! [`crate::runtime::McpContainer`] and its style's transforms, [`crate::runtime::mcp::style`]) is
//! the runtime's side; this module reaches it through the registry.
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
pub(crate) mod tools;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::runtime::RuntimeId;
use crate::runtime::mcp::Entry;

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
