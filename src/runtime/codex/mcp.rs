//! What codex refuses in an MCP server: the SSE transport.

use crate::error::{Error, Result};
use crate::runtime::mcp::{Entry, Remote, Server};

/// A remote server over SSE is refused: codex speaks streamable HTTP only.
pub(super) fn refuses(name: &str, entry: &Entry) -> Result<()> {
    if let Server::Remote {
        kind: Remote::Sse, ..
    } = &entry.server
    {
        return Err(Error::input(
            "mcp_transport_unsupported",
            format!(
                "codex cannot reach MCP server `{name}` over SSE: it speaks streamable HTTP only"
            ),
        )
        .hint("use `--transport http` if the server offers streamable HTTP"));
    }
    Ok(())
}
