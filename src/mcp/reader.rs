//! A runtime's MCP servers, read from its own file as canonical entries.
//!
//! Used by `mcp list`, by `mcp add` (is the name taken, and by the same entry?) and by the
//! carry-over on a switch, which reads the previous runtime's servers from any of the six (upstream
//! reads only openclaw, hermes and claudecode: docs/device-contract.md §9 item 9). Reads go through
//! the [`Draft`], so a plan sees its own pending writes. Values are parsed leniently, the way the
//! runtime itself reads its file (JSON5 for openclaw, JSONC for opencode).

use serde_json::Value;

use crate::device::paths::Layout;
use crate::error::Result;
use crate::path::DevPath;
use crate::plan::Draft;
use crate::runtime::mcp::style::{self, Read};
use crate::runtime::{Runtime, native};

/// One server as found in a runtime's file.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub name: String,
    /// The canonical entry, or why the native entry is not one.
    pub read: std::result::Result<Read, String>,
}

/// A runtime's servers, in file order.
#[derive(Clone, Debug)]
pub(crate) struct Servers {
    pub file: DevPath,
    /// Whether the file exists.
    pub exists: bool,
    pub servers: Vec<Found>,
}

impl Servers {
    pub(crate) fn get(&self, name: &str) -> Option<&Found> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// Reads `rt`'s servers. A file that cannot be parsed is an error naming its line; a container
/// that is missing or not a map reads as no servers.
pub(crate) fn read(draft: &Draft<'_>, layout: &Layout, rt: &Runtime) -> Result<Servers> {
    let file = layout.path(rt.mcp.file);
    let Some(text) = draft.read_text(&file)? else {
        return Ok(Servers {
            file,
            exists: false,
            servers: Vec::new(),
        });
    };
    let value = if text.trim().is_empty() {
        Value::Null
    } else {
        native::parse_value(&file, &text, rt.mcp.format)?
    };
    // Every map that may hold secrets, also in entries osctl does not read as entries.
    if let Some(container) = native::get(&value, rt.mcp.path) {
        crate::runtime::mcp::register_container(container);
    }
    let servers = match native::get(&value, rt.mcp.path) {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(name, v)| {
                let read = style::from_native(rt.mcp.style, v);
                if let Ok(r) = &read {
                    r.entry.register_secrets();
                }
                Found {
                    name: name.clone(),
                    read,
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Servers {
        file,
        exists: true,
        servers,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::paths::DeviceEnv;
    use crate::runtime::RuntimeId;
    use crate::system::fs::RootFs;

    #[test]
    fn reads_every_runtimes_container() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            (
                "root/.openclaw/openclaw.json",
                "{\n // c\n mcp: {servers: {a: {command: 'x', args: ['1']},},},\n}",
            ),
            (
                "root/.hermes/config.yaml",
                "mcp_servers:\n  a: {url: 'https://u', enabled: true}\n",
            ),
            (
                "root/.picoclaw/config.json",
                r#"{"tools": {"mcp": {"enabled": true, "servers": {"a": {"type": "http", "url": "https://u", "enabled": true}}}}}"#,
            ),
            (
                "root/.codex/config.toml",
                "[mcp_servers.a]\nurl = \"https://u\"\nhttp_headers = { X = \"y\" }\n",
            ),
            (
                "root/.claudecode/workspace/.mcp.json",
                r#"{"mcpServers": {"a": {"command": "x", "args": ["1"]}}}"#,
            ),
            (
                "root/.config/opencode/opencode.json",
                "{\n // c\n \"mcp\": {\"a\": {\"type\": \"local\", \"command\": [\"x\", \"1\"], \"enabled\": true}}\n}",
            ),
        ];
        for (p, t) in files {
            let host = dir.path().join(p);
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(host, t).unwrap();
        }
        let layout = Layout::new(&DeviceEnv::default(), None);
        // A registered runtime the table has no row for (the test-only one) whose container is
        // canonical JSON: its file where the registry puts it, the remote server there.
        for rt in crate::runtime::REGISTRY {
            let host = dir.path().join(layout.path(rt.mcp.file).relative());
            if host.exists() {
                continue;
            }
            assert!(
                rt.mcp.format == crate::format::Format::Json
                    && rt.mcp.style == crate::runtime::McpStyle::Canonical,
                "{}: add its container to this table",
                rt.name
            );
            let mut doc = serde_json::json!({"a": {"type": "http", "url": "https://u"}});
            for key in rt.mcp.path.iter().rev() {
                doc = serde_json::json!({ *key: doc });
            }
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(host, doc.to_string()).unwrap();
        }
        let fs = RootFs::new(dir.path()).unwrap();
        let draft = Draft::new(&fs);
        for id in RuntimeId::ALL {
            let s = read(&draft, &layout, id.spec()).unwrap();
            assert!(s.exists, "{id}");
            assert_eq!(s.servers.len(), 1, "{id}");
            let e = &s.servers[0].read.as_ref().unwrap().entry;
            let want = if matches!(
                id,
                RuntimeId::Openclaw | RuntimeId::Claudecode | RuntimeId::Opencode
            ) {
                "x 1"
            } else {
                "https://u"
            };
            assert_eq!(e.target(), want, "{id}");
        }
    }
}
