//! The user's MCP tools in config.json (`mcp_tools: [{name, url, headers}]`,
//! docs/device-contract.md §3.1). The device syncs each to the active runtime as the server
//! `tool_<name>`; `mcp add --user-tool` records one the same way, so the device's own sync keeps
//! it.

use serde_json::{Map, Value, json};

use crate::device::config;
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::Draft;

/// The current `mcp_tools` list as planned (an absent or non-list field reads as empty).
fn current(draft: &Draft<'_>, path: &DevPath) -> Result<Vec<Value>> {
    // No config.json (a reset device): no tools yet; the first record creates the file.
    let Some(text) = draft.read_text(path)? else {
        return Ok(Vec::new());
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| Error::json(path, &e))?;
    Ok(match doc.get("mcp_tools") {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    })
}

fn is_named(item: &Value, name: &str) -> bool {
    item.get("name").and_then(Value::as_str) == Some(name)
}

/// Plans `{name, url, headers}` into `mcp_tools` (replacing a tool of the same name in place).
pub(crate) fn plan_record(
    draft: &mut Draft<'_>,
    path: &DevPath,
    name: &str,
    url: &str,
    headers: &Map<String, Value>,
) -> Result<bool> {
    let mut items = current(draft, path)?;
    let item = json!({"name": name, "url": url, "headers": headers});
    match items.iter_mut().find(|i| is_named(i, name)) {
        Some(existing) => *existing = item,
        None => items.push(item),
    }
    config::edit(
        draft,
        path,
        &[("mcp_tools", Some(Value::Array(items)))],
        &format!("mcp add --user-tool {name}"),
    )
}

/// Plans the tool `name` out of `mcp_tools`; `false` when it was not there.
pub(crate) fn plan_forget(draft: &mut Draft<'_>, path: &DevPath, name: &str) -> Result<bool> {
    let items = current(draft, path)?;
    if !items.iter().any(|i| is_named(i, name)) {
        return Ok(false);
    }
    let kept: Vec<Value> = items.into_iter().filter(|i| !is_named(i, name)).collect();
    config::edit(
        draft,
        path,
        &[("mcp_tools", Some(Value::Array(kept)))],
        &format!("mcp remove --user-tool {name}"),
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::system::fs::RootFs;

    #[test]
    fn record_replaces_by_name_and_forget_removes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/config")).unwrap();
        std::fs::write(
            dir.path().join("root/config/config.json"),
            "{\n  \"a\": 1,\n  \"mcp_tools\": [{\"name\": \"s\", \"url\": \"u1\", \"headers\": {}}]\n}\n",
        )
        .unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let path = DevPath::new("/root/config/config.json");
        let mut d = Draft::new(&fs);
        assert!(plan_record(&mut d, &path, "s", "u2", &Map::new()).unwrap());
        assert!(plan_record(&mut d, &path, "t", "u3", &Map::new()).unwrap());
        let v: Value = serde_json::from_str(&d.read_text(&path).unwrap().unwrap()).unwrap();
        assert_eq!(v["mcp_tools"][0]["url"], "u2");
        assert_eq!(v["mcp_tools"][1]["name"], "t");
        assert_eq!(v["a"], 1);
        assert!(plan_forget(&mut d, &path, "s").unwrap());
        assert!(!plan_forget(&mut d, &path, "s").unwrap());
        let v: Value = serde_json::from_str(&d.read_text(&path).unwrap().unwrap()).unwrap();
        assert_eq!(v["mcp_tools"].as_array().unwrap().len(), 1);
    }
}
