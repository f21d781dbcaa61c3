//! What the previous owner left in the runtimes' own files, cleared on every reset.
//!
//! config.json goes with a reset, but presync copied its values into each runtime it ran for
//! (hermes `.env`, openclaw.json, codex `.env`, ...), and `mcp add` and the MCP carry-over put
//! the owner's servers there: left behind, the next owner's agent would still answer the old
//! owner's bots and call their MCP servers with their tokens. So, in the tree of **every**
//! runtime, active or not, and whether or not its own state is kept:
//!
//! 1. **Channels**, by the channel planner ([`channel::native::plan_remove`], what `channel
//!    remove` does for each channel): openclaw `channels.*`, hermes' channel variables,
//!    picoclaw's `channel_list`.
//! 2. **MCP servers**, by the MCP planner ([`planner::remove_entries_and_emptied_container`]):
//!    every server of every runtime's container, and the container when that leaves it empty
//!    (the file is then as it was before the first server came). The image ships none; each
//!    one was added by the owner (`mcp add`, a user tool, a connector) or carried over from
//!    another runtime on a switch.
//! 3. **Every value that came from config.json** ([`OwnerValues`]: channel credentials, the
//!    LLM key and a BYO endpoint, tokens, user-tool URLs and headers), wherever presync or the
//!    LLM carry-over put it: a key of a native file whose value (or name) holds one is removed,
//!    a list item that holds one is dropped. One generic rule over each runtime's declared
//!    native files, so it needs no knowledge of where each runtime keeps what.
//! 4. The owner's **credential files** each runtime declares ([`crate::runtime::ResetSpec::owner`])
//!    and the **backups of native files** (`openclaw.json.bak*`, `*.last-good`), which hold
//!    copies of all of the above.
//!
//! The rest of each file (the image's and the runtime's own settings, comments, key order)
//! stays; what the image provides (bootstrap.json, `f_r_default_agent`, installed runtimes) is
//! not touched. [`cleared`] lists, per file, every value that goes (masked), for the preview.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Planner;
use crate::channel;
use crate::device::config::{DeviceConfig, channel_fields};
use crate::error::Result;
use crate::format::Format;
use crate::format::doc::Doc;
use crate::format::dotenv::DotEnv;
use crate::mcp::{planner, reader};
use crate::path::DevPath;
use crate::plan::{FileState, Plan};
use crate::redact;
use crate::runtime::kit::llm::is_autonomous_host;
use crate::runtime::{Channel, REGISTRY};

/// Owner values shorter than this are not searched for by value (a user id `42` would match
/// unrelated settings); the channel planner removes them where they are written.
const MIN_VALUE_LEN: usize = 8;

/// A string this long that is part of an owner value is taken for a piece of it.
const MIN_FRAGMENT_LEN: usize = 12;

const CHANNELS: [Channel; 5] = [
    Channel::Telegram,
    Channel::Slack,
    Channel::Discord,
    Channel::Whatsapp,
    Channel::Imessage,
];

/// config.json fields, besides the channels' and every secret-looking one, whose values the
/// owner set and presync copies into the runtimes.
const OWNER_FIELDS: &[&str] = &[
    "llm_api_key",
    "claude_code_oauth_token",
    "agent_remote_url",
    "agent_remote_token",
    "backend_api_key",
];

/// The values of config.json that came from the owner, as they are searched for in the
/// runtimes' files.
#[derive(Clone, Debug, Default)]
pub(crate) struct OwnerValues {
    values: BTreeSet<String>,
}

impl OwnerValues {
    pub(crate) fn from_config(config: &DeviceConfig) -> OwnerValues {
        let mut out = OwnerValues::default();
        for ch in CHANNELS {
            for field in channel_fields(ch) {
                out.add(config.str(field));
            }
        }
        for field in OWNER_FIELDS {
            out.add(config.str(field));
        }
        // An endpoint of the OS's own is the image's, not the owner's.
        if let Some(base) = config.opt("llm_base_url")
            && !is_autonomous_host(Some(base))
        {
            out.add(base);
        }
        for (key, value) in &config.fields {
            if let Value::String(s) = value
                && redact::is_secret_key(key)
            {
                out.add(s);
            }
        }
        if let Some(Value::Array(tools)) = config.fields.get("mcp_tools") {
            for tool in tools {
                if let Some(url) = tool.get("url").and_then(Value::as_str) {
                    out.add(url);
                }
                if let Some(Value::Object(headers)) = tool.get("headers") {
                    for v in headers.values().filter_map(Value::as_str) {
                        out.add(v);
                        for scheme in ["Bearer ", "Basic ", "Token "] {
                            if let Some(rest) = v.strip_prefix(scheme) {
                                out.add(rest);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    fn add(&mut self, value: &str) {
        let v = value.trim();
        if v.chars().count() >= MIN_VALUE_LEN && !redact::is_public_token(v) {
            self.values.insert(v.to_string());
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether `text` holds one of the values, or is a long piece of one (Claude Code keeps the
    /// last 20 characters of an API key it approved).
    fn hit(&self, text: &str) -> bool {
        let fragment = text.chars().count() >= MIN_FRAGMENT_LEN;
        self.values
            .iter()
            .any(|v| text.contains(v.as_str()) || (fragment && v.contains(text)))
    }

    /// `value` without what holds an owner value: `None` when all of it goes.
    fn clean(&self, value: &Value) -> Cleaned {
        match value {
            Value::String(s) if self.hit(s) => Cleaned::Remove,
            Value::Array(items) => {
                let mut changed = false;
                let mut kept = Vec::new();
                for item in items {
                    match self.clean(item) {
                        Cleaned::Keep => kept.push(item.clone()),
                        Cleaned::Remove => changed = true,
                        Cleaned::Replace(v) => {
                            changed = true;
                            kept.push(v);
                        }
                    }
                }
                if changed {
                    Cleaned::Replace(Value::Array(kept))
                } else {
                    Cleaned::Keep
                }
            }
            Value::Object(m) => {
                let mut changed = false;
                let mut kept = serde_json::Map::new();
                for (k, v) in m {
                    if self.hit(k) {
                        changed = true;
                        continue;
                    }
                    match self.clean(v) {
                        Cleaned::Keep => {
                            kept.insert(k.clone(), v.clone());
                        }
                        Cleaned::Remove => changed = true,
                        Cleaned::Replace(v) => {
                            changed = true;
                            kept.insert(k.clone(), v);
                        }
                    }
                }
                if changed {
                    Cleaned::Replace(Value::Object(kept))
                } else {
                    Cleaned::Keep
                }
            }
            _ => Cleaned::Keep,
        }
    }
}

enum Cleaned {
    Keep,
    Remove,
    Replace(Value),
}

/// A runtime native file: where it is and how it is read.
struct Native {
    path: DevPath,
    format: Format,
}

impl Planner<'_, '_> {
    /// Every native file and MCP container of every runtime, each once.
    fn native_files(&self) -> Vec<Native> {
        let mut out: Vec<Native> = Vec::new();
        for rt in REGISTRY {
            let files = rt
                .native
                .iter()
                .map(|f| (f.loc, f.format))
                .chain([(rt.mcp.file, rt.mcp.format)]);
            for (loc, format) in files {
                let path = self.layout.path(loc);
                if !out.iter().any(|n| n.path == path) {
                    out.push(Native { path, format });
                }
            }
        }
        out
    }

    /// Clears the previous owner's values from every runtime's files (module docs).
    pub(super) fn owner_values(&mut self, device: &crate::device::Device) -> Result<()> {
        let why = "the previous owner's values";
        for file in self.native_files() {
            let real = self.real(&file.path)?;
            if self.is_removed(&real) || !self.draft.exists(&file.path)? {
                continue;
            }
            self.guard.check_edit(self.fs, &real)?;
        }
        for ch in CHANNELS {
            channel::native::plan_remove(&mut self.draft, device, ch)?;
        }
        for rt in REGISTRY {
            let servers = reader::read(&self.draft, self.layout, rt)?;
            let names: Vec<String> = servers.servers.iter().map(|s| s.name.clone()).collect();
            planner::remove_entries_and_emptied_container(
                &mut self.draft,
                self.layout,
                rt,
                &names,
                why,
            )?;
        }
        let values = OwnerValues::from_config(&device.config);
        if !values.is_empty() {
            for file in self.native_files() {
                self.scrub(&file, &values, why)?;
            }
        }
        for rt in REGISTRY {
            for loc in rt.reset.owner {
                let why = format!("{}: the previous owner's credentials", rt.name);
                self.remove(&self.layout.path(*loc), &why)?;
            }
        }
        self.native_backups()
    }

    /// Removes the keys and list items of one native file that hold an owner value.
    fn scrub(&mut self, file: &Native, values: &OwnerValues, why: &str) -> Result<()> {
        let Some(text) = self.draft.read_text(&file.path)? else {
            return Ok(());
        };
        let origin = file.path.to_string();
        let new = match file.format {
            Format::DotEnv => {
                let mut env = DotEnv::parse(&text, &origin)?;
                for key in env.keys() {
                    if values.hit(&key) || env.get(&key).is_some_and(|v| values.hit(&v)) {
                        env.remove(&key);
                    }
                }
                env.to_string()
            }
            Format::Markdown => return Ok(()),
            _ => {
                if text.trim().is_empty() {
                    return Ok(());
                }
                let mut doc = Doc::parse(file.format, &text, &origin)?;
                let value = doc.value();
                scrub_doc(&mut doc, &mut Vec::new(), &value, values)?;
                doc.text()
            }
        };
        if new != text {
            self.draft.write(&file.path, new, None, why)?;
        }
        Ok(())
    }

    /// `<native file>.bak*` and `<native file>.last-good` next to every runtime's native files:
    /// copies of the owner's configuration.
    fn native_backups(&mut self) -> Result<()> {
        for file in self.native_files() {
            let (Some(dir), Some(base)) = (file.path.parent(), file.path.file_name()) else {
                continue;
            };
            let backup = |name: &str| {
                name.strip_prefix(base)
                    .is_some_and(|rest| rest.starts_with(".bak") || rest == ".last-good")
            };
            for name in self.list_real_dir(&dir)? {
                if backup(&name) {
                    self.remove(
                        &dir.join(&name),
                        "a backup of the previous owner's settings",
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// Removes from `doc`, under `path` (whose value is `value`), every member whose name or value
/// holds an owner value; a list that holds one is written back without it.
fn scrub_doc(
    doc: &mut Doc,
    path: &mut Vec<String>,
    value: &Value,
    values: &OwnerValues,
) -> Result<()> {
    let Value::Object(members) = value else {
        return Ok(());
    };
    for (key, v) in members {
        path.push(key.clone());
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        if values.hit(key) {
            doc.remove(&keys)?;
        } else {
            match (v, values.clean(v)) {
                (_, Cleaned::Keep) => {}
                (_, Cleaned::Remove) => {
                    doc.remove(&keys)?;
                }
                (Value::Object(_), Cleaned::Replace(_)) => scrub_doc(doc, path, v, values)?,
                (_, Cleaned::Replace(cleaned)) => {
                    doc.set(&keys, cleaned)?;
                }
            }
        }
        path.pop();
    }
    Ok(())
}

/// What a reset plan takes out of each runtime's native files: per file, each removed leaf
/// (`channels.telegram.botToken = 123…mple`), masked. For the listing and `--json`.
pub(crate) fn cleared(
    plan: &Plan,
    layout: &crate::device::paths::Layout,
) -> Vec<(DevPath, Vec<String>)> {
    let mut formats: Vec<(DevPath, Format)> = Vec::new();
    for rt in REGISTRY {
        for (loc, format) in rt
            .native
            .iter()
            .map(|f| (f.loc, f.format))
            .chain([(rt.mcp.file, rt.mcp.format)])
        {
            let p = layout.path(loc);
            if !formats.iter().any(|(q, _)| *q == p) {
                formats.push((p, format));
            }
        }
    }
    let mut out = Vec::new();
    for c in plan.file_changes() {
        let (
            FileState::File {
                content: before, ..
            },
            FileState::File { content: after, .. },
        ) = (&c.before, &c.after)
        else {
            continue;
        };
        let Some((_, format)) = formats.iter().find(|(p, _)| *p == c.path) else {
            continue;
        };
        let (Ok(before), Ok(after)) = (std::str::from_utf8(before), std::str::from_utf8(after))
        else {
            continue;
        };
        let items = removed_leaves(&c.path, *format, before, after);
        if !items.is_empty() {
            out.push((c.path.clone(), items));
        }
    }
    out
}

fn removed_leaves(path: &DevPath, format: Format, before: &str, after: &str) -> Vec<String> {
    let origin = path.to_string();
    let mut out = Vec::new();
    match format {
        Format::DotEnv => {
            let (Ok(b), Ok(a)) = (
                DotEnv::parse(before, &origin),
                DotEnv::parse(after, &origin),
            ) else {
                return out;
            };
            for key in b.keys() {
                let old = b.get(&key).unwrap_or_default();
                if a.get(&key).as_deref() != Some(old.as_str()) {
                    out.push(format!("{key} = {}", shown(&old)));
                }
            }
        }
        Format::Markdown => {}
        _ => {
            let parse = |t: &str| {
                crate::runtime::native::parse_value(path, t, format).unwrap_or(Value::Null)
            };
            leaves_gone("", &parse(before), &parse(after), &mut out);
        }
    }
    out
}

/// A cleared value as the listing shows it: masked whatever it is (a user id is the owner's
/// too), so the preview names what goes without showing it.
fn shown(value: &str) -> String {
    if value.is_empty() {
        "\"\"".to_string()
    } else {
        redact::mask(value)
    }
}

/// The string leaves of `before` that `after` does not hold at the same place.
fn leaves_gone(at: &str, before: &Value, after: &Value, out: &mut Vec<String>) {
    let join = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match before {
        Value::Object(m) => {
            for (k, v) in m {
                let there = after.get(k).unwrap_or(&Value::Null);
                leaves_gone(&join(k), v, there, out);
            }
        }
        Value::Array(items) => {
            let kept: &[Value] = after.as_array().map(Vec::as_slice).unwrap_or(&[]);
            for (i, item) in items.iter().enumerate() {
                if kept.contains(item) {
                    continue;
                }
                match item {
                    Value::String(s) => {
                        out.push(format!("{at}[] = {}", shown(s)));
                    }
                    Value::Object(_) | Value::Array(_) => {
                        // A list that kept its length was cleaned item by item: compare in
                        // place; otherwise the item went whole.
                        let twin = match kept.len() == items.len() {
                            true => &kept[i],
                            false => &Value::Null,
                        };
                        leaves_gone(&format!("{at}[]"), item, twin, out);
                    }
                    _ => {}
                }
            }
        }
        Value::String(s) if after != before => {
            out.push(format!("{at} = {}", shown(s)));
        }
        _ => {}
    }
}
