//! `mcp add` / `mcp remove` and the carry-over's writes, as plans.
//!
//! Every write goes through [`Doc`], the one editor over JSON/JSONC/JSON5, YAML and TOML, so the
//! runtime's other servers, keys and comments stay as written: only the entry's own key changes.
//! A file that holds secrets (the runtime marks it so, or the entry carries a token) is written
//! 0600. When the file changed, the runtime's unit is restarted if it is running
//! (`systemctl try-restart`), as upstream restarts the gateway after each MCP write.

use serde_json::Value;

use super::reader;
use super::{check_for_runtime, check_name};
use crate::device::paths::Layout;
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::{Draft, ServiceAction};
use crate::runtime::mcp::Entry;
use crate::runtime::mcp::style::to_native;
use crate::runtime::{McpStyle, Runtime, install};

/// What `mcp add` did to the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EntryChange {
    /// The name was new.
    Added,
    /// The name held another entry (`--replace`).
    Replaced,
    /// The name already held this entry: nothing to do.
    Unchanged,
    /// `mcp remove`: the entry is gone.
    Removed,
    /// `mcp remove`: there was no such entry.
    Absent,
}

/// A planned change of one server.
#[derive(Clone, Debug)]
pub(crate) struct Planned {
    pub file: DevPath,
    pub outcome: EntryChange,
    /// The entry as the runtime's file will hold it (`mcp add`).
    pub native: Option<Value>,
}

/// Plans `mcp add NAME` on `rt`: refused when the name holds another entry, unless `replace`.
pub(crate) fn plan_add(
    draft: &mut Draft<'_>,
    layout: &Layout,
    rt: &Runtime,
    name: &str,
    entry: &Entry,
    replace: bool,
) -> Result<Planned> {
    check_name(name)?;
    check_for_runtime(rt.id, name, entry)?;
    entry.register_secrets();
    let current = reader::read(draft, layout, rt)?;
    let native = to_native(rt.mcp.style, entry);
    let outcome = match current.get(name).map(|f| &f.read) {
        None => EntryChange::Added,
        Some(Ok(read)) if read.entry == *entry => EntryChange::Unchanged,
        Some(existing) if !replace => {
            let what = match existing {
                Ok(r) => format!("{} {}", r.entry.transport(), r.entry.target()),
                Err(why) => format!("an entry osctl cannot read ({why})"),
            };
            return Err(Error::input(
                "mcp_server_exists",
                format!(
                    "{} already has an MCP server `{name}` in {}: {what}",
                    rt.name, current.file
                ),
            )
            .hint("pass --replace to replace it, or pick another name"));
        }
        Some(_) => EntryChange::Replaced,
    };
    if outcome != EntryChange::Unchanged {
        let reason = format!("mcp add {name}");
        if write_entries(
            draft,
            layout,
            rt,
            &[(name.to_string(), entry.clone())],
            &reason,
        )? {
            restart(draft, rt)?;
        }
    }
    Ok(Planned {
        file: current.file,
        outcome,
        native: Some(native),
    })
}

/// Plans `mcp remove NAME` on `rt`; an absent name changes nothing.
pub(crate) fn plan_remove(
    draft: &mut Draft<'_>,
    layout: &Layout,
    rt: &Runtime,
    name: &str,
) -> Result<Planned> {
    let file = layout.path(rt.mcp.file);
    let reason = format!("mcp remove {name}");
    if !remove_entries(draft, layout, rt, &[name.to_string()], &reason)? {
        return Ok(Planned {
            file,
            outcome: EntryChange::Absent,
            native: None,
        });
    }
    restart(draft, rt)?;
    Ok(Planned {
        file,
        outcome: EntryChange::Removed,
        native: None,
    })
}

/// Takes the servers `names` out of `rt`'s container in one edit (names that are not there
/// are skipped). Returns whether the file changed; the caller plans any restart. The removed
/// entries' secret-looking values are registered first: the diff of a removal shows them as
/// removed lines, and they must be masked there exactly as `mcp add` masks them.
pub(crate) fn remove_entries(
    draft: &mut Draft<'_>,
    layout: &Layout,
    rt: &Runtime,
    names: &[String],
    reason: &str,
) -> Result<bool> {
    remove(draft, layout, rt, names, false, reason)
}

/// [`remove_entries`], then drops the container (and each folder-like parent above it) that the
/// removal left empty, so the file is as it was before its first server was added: what a
/// factory reset wants (a device whose owner never added a server has no container). Returns
/// whether the file changed.
pub(crate) fn remove_entries_and_emptied_container(
    draft: &mut Draft<'_>,
    layout: &Layout,
    rt: &Runtime,
    names: &[String],
    reason: &str,
) -> Result<bool> {
    remove(draft, layout, rt, names, true, reason)
}

fn remove(
    draft: &mut Draft<'_>,
    layout: &Layout,
    rt: &Runtime,
    names: &[String],
    prune: bool,
    reason: &str,
) -> Result<bool> {
    let file = layout.path(rt.mcp.file);
    if !draft.exists(&file)? {
        return Ok(false);
    }
    reader::read(draft, layout, rt)?;
    let mut doc = draft.doc(&file, rt.mcp.format)?;
    let mut changed = false;
    for name in names {
        let mut path: Vec<&str> = rt.mcp.path.to_vec();
        path.push(name);
        changed |= doc.remove(&path)?;
    }
    if !changed {
        return Ok(false);
    }
    if prune {
        let mut path: Vec<&str> = rt.mcp.path.to_vec();
        while !path.is_empty()
            && doc
                .get(&path)
                .is_some_and(|v| v.as_object().is_some_and(|m| m.is_empty()))
        {
            doc.remove(&path)?;
            path.pop();
        }
    }
    draft.write(&file, doc.text(), mode(rt, &[]), reason)
}

/// Writes `entries` into `rt`'s container in one edit (an existing name is replaced exactly).
/// Returns whether the file changed; the caller plans the restart.
pub(crate) fn write_entries(
    draft: &mut Draft<'_>,
    layout: &Layout,
    rt: &Runtime,
    entries: &[(String, Entry)],
    reason: &str,
) -> Result<bool> {
    if entries.is_empty() {
        return Ok(false);
    }
    let file = layout.path(rt.mcp.file);
    let mut doc = draft.doc(&file, rt.mcp.format)?;
    for (name, entry) in entries {
        let mut path: Vec<&str> = rt.mcp.path.to_vec();
        path.push(name);
        doc.set(&path, to_native(rt.mcp.style, entry))?;
    }
    if rt.mcp.style == McpStyle::KeepTypeEnabled {
        // picoclaw loads no server unless its MCP tool as a whole is on (`tools.mcp.enabled`).
        let mut switch: Vec<&str> = rt.mcp.path[..rt.mcp.path.len().saturating_sub(1)].to_vec();
        switch.push("enabled");
        doc.set(&switch, Value::Bool(true))?;
    }
    let entries: Vec<&Entry> = entries.iter().map(|(_, e)| e).collect();
    draft.write(&file, doc.text(), mode(rt, &entries), reason)
}

/// Plans the restart of `rt`'s unit, if it is running, after its MCP file changed.
pub(crate) fn restart(draft: &mut Draft<'_>, rt: &Runtime) -> Result<()> {
    let unit = install::unit_name(draft.fs(), rt)?;
    draft.service(ServiceAction::RestartIfActive(unit));
    Ok(())
}

/// 0600 for a file the runtime marks secret or that now holds a token; else the file's mode.
fn mode(rt: &Runtime, entries: &[&Entry]) -> Option<u32> {
    let secret_file = rt.native.iter().any(|f| f.loc == rt.mcp.file && f.secret);
    (secret_file || entries.iter().any(|e| e.has_secrets())).then_some(0o600)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::paths::DeviceEnv;
    use crate::plan::FileState;
    use crate::runtime::RuntimeId;
    use crate::runtime::mcp::Remote;
    use crate::system::fs::RootFs;
    use serde_json::Map;

    fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, RootFs) {
        let dir = tempfile::tempdir().unwrap();
        for (p, t) in files {
            let host = dir.path().join(p);
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(host, t).unwrap();
        }
        let fs = RootFs::new(dir.path()).unwrap();
        (dir, fs)
    }

    fn layout() -> Layout {
        Layout::new(&DeviceEnv::default(), None)
    }

    fn stdio(cmd: &str) -> Entry {
        Entry::stdio(cmd.into(), vec!["a".into()], Map::new())
    }

    #[test]
    fn add_keeps_comments_and_other_entries_and_restarts() {
        let yaml = "# mine\nmodel:\n  default: Auto-AI # pinned\nmcp_servers:\n  notion:\n    url: https://mcp.notion.com/mcp\n    enabled: true\n";
        let (_d, fs) = setup(&[("root/.hermes/config.yaml", yaml)]);
        let mut draft = Draft::new(&fs);
        let rt = RuntimeId::Hermes.spec();
        let p = plan_add(&mut draft, &layout(), rt, "fs", &stdio("cat"), false).unwrap();
        assert_eq!(p.outcome, EntryChange::Added);
        let text = draft
            .read_text(&DevPath::new("/root/.hermes/config.yaml"))
            .unwrap()
            .unwrap();
        assert!(text.starts_with("# mine\nmodel:\n  default: Auto-AI # pinned\n"));
        assert!(
            text.contains("  notion:\n    url: https://mcp.notion.com/mcp\n    enabled: true\n")
        );
        assert!(text.contains("  fs:\n"), "{text}");
        let plan = draft.finish();
        assert_eq!(
            plan.steps.last(),
            Some(&crate::plan::Step::Service(ServiceAction::RestartIfActive(
                "hermes-gateway".into()
            )))
        );
    }

    #[test]
    fn same_entry_is_nothing_to_do_and_another_needs_force() {
        let (_d, fs) = setup(&[(
            "root/.codex/config.toml",
            "model = \"m\"\n\n[mcp_servers.fs]\ncommand = \"cat\"\nargs = [\"a\"]\n",
        )]);
        let rt = RuntimeId::Codex.spec();
        let mut draft = Draft::new(&fs);
        let p = plan_add(&mut draft, &layout(), rt, "fs", &stdio("cat"), false).unwrap();
        assert_eq!(p.outcome, EntryChange::Unchanged);
        assert!(draft.finish().is_empty());
        let mut draft = Draft::new(&fs);
        let err = plan_add(&mut draft, &layout(), rt, "fs", &stdio("dog"), false).unwrap_err();
        assert_eq!(err.code, "mcp_server_exists");
        let p = plan_add(&mut draft, &layout(), rt, "fs", &stdio("dog"), true).unwrap();
        assert_eq!(p.outcome, EntryChange::Replaced);
    }

    #[test]
    fn secret_files_become_0600_and_picoclaw_switches_mcp_on() {
        let (_d, fs) = setup(&[("root/.picoclaw/config.json", "{\n  \"tools\": {}\n}\n")]);
        let mut draft = Draft::new(&fs);
        let mut h = Map::new();
        h.insert("Authorization".into(), "Bearer 0123456789abcdef".into());
        let e = Entry::remote(Remote::Http, "https://x/mcp".into(), h);
        plan_add(
            &mut draft,
            &layout(),
            RuntimeId::Picoclaw.spec(),
            "x",
            &e,
            false,
        )
        .unwrap();
        let plan = draft.finish();
        let c = plan.file_changes().next().unwrap();
        let FileState::File { content, mode } = &c.after else {
            panic!()
        };
        assert_eq!(*mode, 0o600);
        let v: Value = serde_json::from_slice(content).unwrap();
        assert_eq!(v["tools"]["mcp"]["enabled"], Value::Bool(true));
        assert_eq!(v["tools"]["mcp"]["servers"]["x"]["type"], "http");
    }

    /// `mcp remove` (`--dry-run`, `-v`, `--json`) printed header values that `mcp add` masks:
    /// the removal's diff shows the entry's lines, and nothing had registered them.
    #[test]
    fn regression_mcp_remove_masks_what_mcp_add_masks() {
        let yaml = "mcp_servers:\n  x:\n    url: https://h/mcp\n    headers:\n      X-Auth: xauth-remove-value-1\n      X-Team: ntn_remove0123456789abcdef\n    enabled: true\n";
        let (_d, fs) = setup(&[("root/.hermes/config.yaml", yaml)]);
        let mut draft = Draft::new(&fs);
        let p = plan_remove(&mut draft, &layout(), RuntimeId::Hermes.spec(), "x").unwrap();
        assert_eq!(p.outcome, EntryChange::Removed);
        let shown = crate::redact::redact(&crate::plan::render::diff(&draft.finish())).into_owned();
        assert!(shown.contains("-      X-Auth: xau…ue-1"), "{shown}");
        assert!(!shown.contains("xauth-remove-value-1"), "{shown}");
        assert!(!shown.contains("ntn_remove0123456789abcdef"), "{shown}");
    }

    /// A URL with credentials made no file 0600 (the hermes config.yaml stayed 0644).
    #[test]
    fn regression_a_url_with_credentials_makes_the_file_0600() {
        let (_d, fs) = setup(&[("root/.hermes/config.yaml", "model: {}\n")]);
        let mut draft = Draft::new(&fs);
        let e = Entry::remote(
            Remote::Http,
            "https://bob:pw-0123456789@host.example/mcp".into(),
            Map::new(),
        );
        plan_add(
            &mut draft,
            &layout(),
            RuntimeId::Hermes.spec(),
            "x",
            &e,
            false,
        )
        .unwrap();
        let plan = draft.finish();
        let c = plan.file_changes().next().unwrap();
        assert_eq!(c.after.mode(), Some(0o600));
    }

    #[test]
    fn remove_absent_is_nothing_to_do() {
        let (_d, fs) = setup(&[(
            "root/.config/opencode/opencode.json",
            "{\n  // keep\n  \"mcp\": {\"a\": {\"type\": \"local\", \"command\": [\"x\"]}}\n}\n",
        )]);
        let rt = RuntimeId::Opencode.spec();
        let mut draft = Draft::new(&fs);
        let p = plan_remove(&mut draft, &layout(), rt, "b").unwrap();
        assert_eq!(p.outcome, EntryChange::Absent);
        let p = plan_remove(&mut draft, &layout(), rt, "a").unwrap();
        assert_eq!(p.outcome, EntryChange::Removed);
        let text = draft
            .read_text(&DevPath::new("/root/.config/opencode/opencode.json"))
            .unwrap()
            .unwrap();
        assert!(text.contains("// keep"), "{text}");
        assert!(!text.contains("\"a\""), "{text}");
    }
}
