//! The boot-time sync of the user's MCP tools (upstream's `SyncMCPTools`, docs/device-contract.md
//! §3.1 and §8.3): every `config.json` `mcp_tools` entry `{name, url, headers}` is the server
//! `tool_<name>`, `{type: "http", url, headers}`, in the active runtime's own MCP file, written
//! in that runtime's form by the MCP planners; a tool removed from `mcp_tools` is removed from it.
//!
//! Upstream writes every listed tool at each start and removes one only when the device API's
//! remove call does. osctl also removes a tool that left the list by other means (config.json
//! edited, restored or reset), but only one osctl itself put there: `/var/lib/osctl/mcp-tools.json`
//! records, per runtime, a digest of each tool entry as osctl wrote it (digests, not the entries:
//! the headers hold bearer tokens). A `tool_<name>` server the list does not name is removed only
//! when its entry is still one osctl recorded (for any runtime: a switch carries servers over);
//! one someone wrote or changed by hand is left with a warning. A listed tool whose entry in the
//! runtime differs is rewritten, as upstream does: `tool_<name>` is the device API's name.
//!
//! No marker: the sync runs at every boot and a second run plans nothing. A list entry that is
//! not a tool (no name or url, headers that are not strings) is skipped with a warning naming
//! config.json and its index; retrying could never sync it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{Input, Status, StepName, StepReport};
use crate::apply::lock::STATE_DIR;
use crate::error::{Error, Result};
use crate::mcp::{check_for_runtime, check_name, planner, reader};
use crate::path::DevPath;
use crate::plan::Draft;
use crate::runtime::mcp::{Entry, Remote, Server};

/// `/var/lib/osctl/mcp-tools.json`.
pub(crate) fn record_path() -> DevPath {
    DevPath::new(STATE_DIR).join("mcp-tools.json")
}

/// The tools listed in config.json, as servers: `(tool_<name>, entry)`, in list order.
fn listed(draft: &mut Draft<'_>, config: &DevPath) -> Result<Vec<(String, Entry)>> {
    let Some(text) = draft.read_text(config)? else {
        return Ok(Vec::new());
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| Error::json(config, &e))?;
    let items = match doc.get("mcp_tools") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => {
            draft.warn(format!(
                "{config}: mcp_tools is not a list: no MCP tool synced"
            ));
            return Ok(Vec::new());
        }
    };
    let mut out: Vec<(String, Entry)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match tool(item) {
            Ok((server, entry)) => {
                entry.register_secrets();
                match out.iter_mut().find(|(n, _)| *n == server) {
                    // A later entry of the same name wins, as the device API's replace does.
                    Some(slot) => slot.1 = entry,
                    None => out.push((server, entry)),
                }
            }
            Err(why) => draft.warn(format!("{config}: mcp_tools[{i}] is skipped: {why}")),
        }
    }
    Ok(out)
}

/// One `{name, url, headers}` as its server name and canonical entry.
fn tool(item: &Value) -> std::result::Result<(String, Entry), String> {
    let name = item
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or("it has no name")?;
    let server = crate::mcp::user_tool_server(name);
    check_name(&server).map_err(|e| e.message.clone())?;
    let url = item
        .get("url")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| format!("tool `{name}` has no url"))?;
    let mut headers = Map::new();
    match item.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(h)) => {
            for (k, v) in h {
                let Some(v) = v.as_str() else {
                    return Err(format!("tool `{name}`: header `{k}` is not a string"));
                };
                headers.insert(k.clone(), Value::from(v));
            }
        }
        Some(_) => return Err(format!("tool `{name}`: headers is not an object")),
    }
    Ok((
        server,
        Entry::remote(Remote::Http, url.to_string(), headers),
    ))
}

/// A digest of an entry that ignores header order (the runtimes' files do not keep it).
pub(crate) fn digest(entry: &Entry) -> String {
    let mut h = Sha256::new();
    match &entry.server {
        Server::Remote { kind, url, headers } => {
            h.update(kind.as_str());
            h.update([0]);
            h.update(url);
            let sorted: BTreeMap<&String, &Value> = headers.iter().collect();
            for (k, v) in sorted {
                h.update([0]);
                h.update(k);
                h.update([0]);
                h.update(v.as_str().unwrap_or_default());
            }
        }
        Server::Stdio { .. } => h.update(entry.to_value().to_string()),
    }
    h.update([entry.enabled as u8]);
    hex::encode(h.finalize())
}

/// The record: runtime → server → digest. A file osctl cannot read is treated as empty (it only
/// ever narrows what is removed).
fn load_record(draft: &Draft<'_>) -> Result<BTreeMap<String, BTreeMap<String, String>>> {
    let Some(text) = draft.read_text(&record_path())? else {
        return Ok(BTreeMap::new());
    };
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let mut out = BTreeMap::new();
    if let Some(Value::Object(rts)) = v.get("runtimes") {
        for (rt, tools) in rts {
            let mut m = BTreeMap::new();
            if let Value::Object(tools) = tools {
                for (name, d) in tools {
                    if let Some(d) = d.as_str() {
                        m.insert(name.clone(), d.to_string());
                    }
                }
            }
            out.insert(rt.clone(), m);
        }
    }
    Ok(out)
}

pub(crate) fn plan(draft: &mut Draft<'_>, input: &Input<'_>) -> Result<StepReport> {
    let device = input.device;
    let active = input.active;
    let rt = active.spec();
    let config = device.env.config_json();
    let wanted = listed(draft, &config)?;
    let mut record = load_record(draft)?;
    let ours: Vec<(String, String)> = record
        .values()
        .flat_map(|m| m.iter().map(|(n, d)| (n.clone(), d.clone())))
        .collect();
    if wanted.is_empty() && ours.is_empty() {
        return Ok(StepReport::new(
            StepName::McpTools,
            Status::UpToDate,
            "config.json has no mcp_tools",
        ));
    }
    let current = reader::read(draft, &device.layout, rt)?;
    let mut write = Vec::new();
    let mut skipped = Vec::new();
    let mut recorded = BTreeMap::new();
    for (server, entry) in &wanted {
        if let Err(e) = check_for_runtime(active, server, entry) {
            draft.warn(format!(
                "MCP tool `{server}` is not synced to {active}: {}",
                e.message
            ));
            skipped.push(server.clone());
            continue;
        }
        recorded.insert(server.clone(), digest(entry));
        let same = matches!(current.get(server).map(|f| &f.read), Some(Ok(r)) if r.entry == *entry);
        if !same {
            write.push((server.clone(), entry.clone()));
        }
    }
    let reason = "mcp_tools: sync config.json's MCP tools";
    if planner::write_entries(draft, &device.layout, rt, &write, reason)? {
        planner::restart(draft, rt)?;
    }
    let mut removed = Vec::new();
    for found in &current.servers {
        let name = &found.name;
        if wanted.iter().any(|(n, _)| n == name) {
            continue;
        }
        let known: Vec<&String> = ours
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, d)| d)
            .collect();
        if known.is_empty() {
            continue;
        }
        let unchanged = matches!(&found.read, Ok(r) if known.contains(&&digest(&r.entry)));
        if unchanged {
            planner::plan_remove(draft, &device.layout, rt, name)?;
            removed.push(name.clone());
        } else {
            draft.warn(format!(
                "MCP server `{name}` in {} is no longer in config.json's mcp_tools, but it changed since osctl wrote it: left as it is",
                current.file
            ));
        }
    }
    // The record forgets tools that left the list; it keeps other runtimes' entries until the
    // device runs them again.
    for tools in record.values_mut() {
        tools.retain(|n, _| wanted.iter().any(|(w, _)| w == n));
    }
    record.insert(active.as_str().to_string(), recorded);
    record.retain(|_, tools| !tools.is_empty());
    let doc = json!({"schema": 1, "runtimes": record});
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    );
    let state_changed = if record.is_empty() && !draft.exists(&record_path())? {
        false
    } else {
        draft.write(
            &record_path(),
            text,
            Some(0o600),
            "mcp_tools: the tools osctl synced",
        )?
    };
    let names = |v: &[String]| v.join(", ");
    let synced: Vec<String> = write.iter().map(|(n, _)| n.clone()).collect();
    let mut parts = Vec::new();
    if !synced.is_empty() {
        parts.push(format!("wrote {} into {active}", names(&synced)));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", names(&removed)));
    }
    if !skipped.is_empty() {
        parts.push(format!("could not sync {}", names(&skipped)));
    }
    let in_place = wanted.len() - synced.len() - skipped.len();
    if in_place > 0 {
        parts.push(format!("{in_place} already in {active}"));
    }
    let status = if synced.is_empty() && removed.is_empty() && !state_changed {
        Status::UpToDate
    } else {
        Status::Reconciled
    };
    if parts.is_empty() {
        parts.push(format!("no MCP tool for {active}"));
    }
    Ok(StepReport::new(
        StepName::McpTools,
        status,
        parts.join("; "),
    ))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::Device;
    use crate::device::paths::DeviceEnv;
    use crate::runtime::RuntimeId;
    use crate::system::fs::RootFs;

    const TOOL: &str = r#"{"name": "search", "url": "https://x.example/mcp/", "headers": {"Authorization": "Bearer tok_0123456789abcdefghij"}}"#;

    fn device(tools: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, RootFs) {
        let dir = tempfile::tempdir().unwrap();
        let config =
            format!("{{\n  \"agent_runtime\": \"codex\",\n  \"mcp_tools\": [{tools}]\n}}\n");
        let mut all = vec![("root/config/config.json", config.as_str())];
        all.extend_from_slice(files);
        for (p, t) in all {
            let host = dir.path().join(p);
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(host, t).unwrap();
        }
        let fs = RootFs::new(dir.path()).unwrap();
        (dir, fs)
    }

    /// Plans the step and writes its files as apply would (no journal needed here).
    fn run(fs: &RootFs) -> (StepReport, crate::plan::Plan) {
        let device = Device::load(fs, &DeviceEnv::default()).unwrap();
        let input = Input {
            device: &device,
            active: RuntimeId::Codex,
            now: 0,
        };
        let mut draft = Draft::new(fs);
        let report = plan(&mut draft, &input).unwrap();
        let plan = draft.finish();
        for c in plan.file_changes() {
            let host = fs.host(&c.path).unwrap();
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            match &c.after {
                crate::plan::FileState::File { content, mode } => {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::write(&host, content).unwrap();
                    std::fs::set_permissions(&host, std::fs::Permissions::from_mode(*mode))
                        .unwrap();
                }
                crate::plan::FileState::Absent => std::fs::remove_file(host).unwrap(),
                other => panic!("{other:?}"),
            }
        }
        (report, plan)
    }

    fn toml(fs: &RootFs) -> String {
        fs.read_text(&DevPath::new("/root/.codex/config.toml"))
            .unwrap()
            .unwrap_or_default()
    }

    #[test]
    fn a_listed_tool_is_written_in_the_runtimes_form_once() {
        let (_d, fs) = device(
            TOOL,
            &[("root/.codex/config.toml", "# mine\nmodel = \"m\"\n")],
        );
        let (report, plan) = run(&fs);
        assert_eq!(report.status, Status::Reconciled, "{}", report.line());
        let text = toml(&fs);
        assert!(text.starts_with("# mine\nmodel = \"m\"\n"), "{text}");
        assert!(text.contains("[mcp_servers.tool_search]"), "{text}");
        assert!(text.contains("url = \"https://x.example/mcp/\""), "{text}");
        assert!(text.contains("http_headers"), "codex's header key: {text}");
        // The record holds a digest, never the token.
        let rec = fs.read_text(&record_path()).unwrap().unwrap();
        assert!(!rec.contains("tok_0123456789"), "{rec}");
        assert!(rec.contains("\"tool_search\""), "{rec}");
        assert!(
            plan.steps
                .iter()
                .any(|s| matches!(s, crate::plan::Step::Service(_)))
        );
        // A second run plans nothing.
        let (report, plan) = run(&fs);
        assert_eq!(report.status, Status::UpToDate, "{}", report.line());
        assert!(plan.is_empty());
    }

    #[test]
    fn a_tool_that_left_the_list_is_removed_only_if_osctl_wrote_it() {
        let (_d, fs) = device(TOOL, &[]);
        run(&fs);
        // The owner removed the tool from config.json by hand; another tool_ server was
        // written by someone else.
        let extra = "\n[mcp_servers.tool_mine]\nurl = \"https://mine.example/mcp\"\n";
        let mut text = toml(&fs);
        text.push_str(extra);
        std::fs::write(
            fs.host(&DevPath::new("/root/.codex/config.toml")).unwrap(),
            &text,
        )
        .unwrap();
        std::fs::write(
            fs.host(&DevPath::new("/root/config/config.json")).unwrap(),
            "{\n  \"agent_runtime\": \"codex\",\n  \"mcp_tools\": []\n}\n",
        )
        .unwrap();
        let (report, _) = run(&fs);
        assert_eq!(report.status, Status::Reconciled, "{}", report.line());
        let text = toml(&fs);
        assert!(!text.contains("tool_search"), "{text}");
        assert!(
            text.contains("tool_mine"),
            "someone else's server was removed: {text}"
        );
        assert!(run(&fs).1.is_empty());
    }

    #[test]
    fn a_hand_changed_tool_that_left_the_list_stays_with_a_warning() {
        let (_d, fs) = device(TOOL, &[]);
        run(&fs);
        let path = DevPath::new("/root/.codex/config.toml");
        let text = toml(&fs).replace("https://x.example/mcp/", "https://changed.example/mcp/");
        std::fs::write(fs.host(&path).unwrap(), &text).unwrap();
        std::fs::write(
            fs.host(&DevPath::new("/root/config/config.json")).unwrap(),
            "{\n  \"agent_runtime\": \"codex\"\n}\n",
        )
        .unwrap();
        let (_, plan) = run(&fs);
        assert!(toml(&fs).contains("changed.example"));
        assert!(
            plan.warnings
                .iter()
                .any(|w| w.contains("changed since osctl wrote it")),
            "{:?}",
            plan.warnings
        );
    }

    #[test]
    fn bad_entries_are_skipped_with_a_warning_naming_config_json() {
        let tools = format!(
            r#"{{"url": "https://nameless"}}, {{"name": "x", "headers": {{"A": 1}}, "url": "u"}}, {TOOL}"#
        );
        let (_d, fs) = device(&tools, &[]);
        let (report, plan) = run(&fs);
        assert_eq!(report.status, Status::Reconciled);
        assert_eq!(plan.warnings.len(), 2, "{:?}", plan.warnings);
        assert!(plan.warnings[0].starts_with("/root/config/config.json: mcp_tools[0]"));
        assert!(plan.warnings[1].contains("header `A` is not a string"));
        assert!(toml(&fs).contains("tool_search"));
    }

    #[test]
    fn digest_ignores_header_order() {
        let mut a = Map::new();
        a.insert("A".into(), "1".into());
        a.insert("B".into(), "2".into());
        let mut b = Map::new();
        b.insert("B".into(), "2".into());
        b.insert("A".into(), "1".into());
        let e = |h| Entry::remote(Remote::Http, "u".into(), h);
        assert_eq!(digest(&e(a.clone())), digest(&e(b)));
        a.insert("A".into(), "3".into());
        assert_ne!(digest(&e(a)), digest(&e(Map::new())));
    }
}
