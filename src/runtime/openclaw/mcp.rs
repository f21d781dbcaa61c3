//! What openclaw refuses in an MCP server: env keys it drops from a stdio server.

use crate::error::{Error, Result};
use crate::runtime::mcp::{Entry, Server};

/// Env keys openclaw drops from a stdio server's environment "for stdio startup safety"
/// (interpreter-startup and toolchain hooks such as `NODE_OPTIONS`, `PYTHONPATH`, `LD_*`), taken
/// from openclaw 2026.9.6 (its host-env security policy as applied to MCP stdio env). An entry
/// that sets one would start without it, so osctl refuses it instead of writing a dead setting.
const BLOCKED_ENV: &str = include_str!("mcp_blocked_env.txt");

/// Whether openclaw drops this env key from a stdio server.
fn blocks_env(key: &str) -> bool {
    let upper = key.trim().to_ascii_uppercase();
    BLOCKED_ENV
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .any(|l| match l.strip_suffix('*') {
            Some(prefix) => upper.starts_with(prefix),
            None => upper == l,
        })
}

/// A stdio server that sets an env key openclaw drops is refused.
pub(super) fn refuses(name: &str, entry: &Entry) -> Result<()> {
    if let Server::Stdio { env, .. } = &entry.server {
        let blocked: Vec<&str> = env
            .keys()
            .map(String::as_str)
            .filter(|k| blocks_env(k))
            .collect();
        if !blocked.is_empty() {
            return Err(Error::input(
                "mcp_env_refused",
                format!(
                    "openclaw refuses the env {} of MCP server `{name}`: it drops interpreter-startup variables from a stdio server's environment",
                    blocked.join(", ")
                ),
            )
            .hint("leave these variables out, or set them inside a wrapper script that the server's command runs"));
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::mcp::check_for_runtime;
    use crate::runtime::RuntimeId;
    use serde_json::Map;

    #[test]
    fn blocklist_has_names_and_prefixes() {
        assert!(blocks_env("NODE_OPTIONS"));
        assert!(blocks_env("pythonpath"));
        assert!(blocks_env("LD_PRELOAD"));
        assert!(blocks_env("DYLD_INSERT_LIBRARIES"));
        assert!(!blocks_env("GITHUB_TOKEN"));
        assert!(!blocks_env("FOO"));
        let mut env = Map::new();
        env.insert("NODE_OPTIONS".into(), "--inspect".into());
        let e = Entry::stdio("node".into(), vec![], env);
        let err = check_for_runtime(RuntimeId::Openclaw, "x", &e).unwrap_err();
        assert_eq!(err.code, "mcp_env_refused");
        assert!(check_for_runtime(RuntimeId::Hermes, "x", &e).is_ok());
    }
}
