//! The shared core of every runtime's presync: [`Cx`], the context a runtime's planner works in,
//! and the editing helpers it uses.
//!
//! Everything goes through the [`Draft`], so a planner sees what earlier planners (or its own
//! earlier steps) planned: config.json is read through the draft too, which is how a caller that
//! saves new values into config.json first (`channel add`, the LLM carry-over, the switch) gets
//! them applied by the presync it runs next. A file is written only when its text changes, so an
//! already-healed device plans nothing.

use serde_json::Value;

use super::Scope;
use crate::device::Device;
use crate::device::config::{DeviceConfig, LlmMode};
use crate::error::Result;
use crate::format::Format;
use crate::format::doc::Doc;
use crate::format::dotenv::DotEnv;
use crate::path::DevPath;
use crate::plan::{CommandAction, Draft, FileState, ServiceAction};
use crate::runtime::{Loc, Runtime};
use crate::system::fs::Kind;

/// The first line of a `.env` file presync creates.
const ENV_HEADER: &str = "# Keys osctl presync owns are kept in sync with /root/config/config.json; other lines are kept.\n";

/// Mode of the secret files presync writes (`.env`, `.security.yml`, the BlueBubbles context).
pub(crate) const SECRET_MODE: u32 = 0o600;

/// A step planned to run after every file change of a presync.
pub(crate) enum Queued {
    Command(CommandAction),
    Service(ServiceAction),
}

/// The context of one runtime's presync.
pub(crate) struct Cx<'c, 'a> {
    pub draft: &'c mut Draft<'a>,
    pub device: &'c Device,
    /// config.json as planned so far (read through the draft).
    pub cfg: DeviceConfig,
    pub mode: LlmMode,
    pub rt: &'static Runtime,
    pub scope: Scope,
    /// Whether this presync planned a change to any file.
    pub changed: bool,
    /// Programs (and the service actions they need first) to run after every file change, in
    /// order (see [`Cx::command`] and [`Cx::service`]).
    pub(super) commands: Vec<Queued>,
    /// Whether commands may be planned (the settle pass after a run plans none).
    pub(super) allow_commands: bool,
    lan_ip: Option<Option<String>>,
}

impl<'c, 'a> Cx<'c, 'a> {
    /// Queues the programs this presync planned on the draft, after all its file changes, and
    /// returns their labels.
    pub(crate) fn queue_commands(&mut self) -> Vec<String> {
        let labels = self
            .commands
            .iter()
            .filter_map(|s| match s {
                Queued::Command(c) => Some(c.label.clone()),
                Queued::Service(_) => None,
            })
            .collect();
        for step in std::mem::take(&mut self.commands) {
            match step {
                Queued::Command(command) => self.draft.command(command),
                Queued::Service(action) => self.draft.service(action),
            }
        }
        labels
    }

    pub(crate) fn new(
        draft: &'c mut Draft<'a>,
        device: &'c Device,
        rt: &'static Runtime,
        scope: Scope,
        allow_commands: bool,
    ) -> Result<Self> {
        // A device without config.json (reset, factory-fresh) presyncs on empty defaults.
        let cfg = DeviceConfig::planned(draft, &device.env.config_json())?;
        let mode = cfg.llm_mode()?;
        Ok(Cx {
            draft,
            device,
            cfg,
            mode,
            rt,
            scope,
            changed: false,
            commands: Vec::new(),
            allow_commands,
            lan_ip: None,
        })
    }

    /// Whether this run does more than the LLM wiring (the LLM carry-over runs only that part).
    pub(crate) fn full(&self) -> bool {
        self.scope == Scope::All
    }

    /// Whether osctl owns the native LLM settings (`llm_config_mode` is not `runtime`).
    pub(crate) fn owns_llm(&self) -> bool {
        self.mode != LlmMode::Runtime
    }

    /// A config.json string field when set and not empty.
    pub(crate) fn val(&self, key: &str) -> Option<String> {
        self.cfg.opt(key).map(str::to_string)
    }

    pub(crate) fn path(&self, loc: Loc) -> DevPath {
        self.device.layout.path(loc)
    }

    /// `<agent home>/<rel>` (`/root/<rel>` by default).
    pub(crate) fn home(&self, rel: &str) -> DevPath {
        self.device.layout.agent_home.join(rel)
    }

    pub(crate) fn workspace(&self) -> DevPath {
        self.path(self.rt.workspace)
    }

    /// The openclaw config dir (`config.openclaw_config_dir`, default `/root/.openclaw`).
    pub(crate) fn openclaw_dir(&self) -> DevPath {
        self.device.layout.openclaw_dir.clone()
    }

    pub(crate) fn warn(&mut self, message: impl Into<String>) {
        self.draft
            .warn(format!("presync {}: {}", self.rt.name, message.into()));
    }

    pub(crate) fn text(&self, path: &DevPath) -> Result<Option<String>> {
        self.draft.read_text(path)
    }

    pub(crate) fn exists(&self, path: &DevPath) -> Result<bool> {
        self.draft.exists(path)
    }

    pub(crate) fn is_dir(&self, path: &DevPath) -> Result<bool> {
        self.draft.is_dir(path)
    }

    /// An executable regular file on the device (a runtime's binary).
    pub(crate) fn is_executable(&self, path: &DevPath) -> Result<bool> {
        self.draft.fs().is_executable(path)
    }

    /// Plans `path` to hold `content` (`mode`: see [`Draft::write`]).
    pub(crate) fn write(
        &mut self,
        path: &DevPath,
        content: impl Into<Vec<u8>>,
        mode: Option<u32>,
        reason: &str,
    ) -> Result<()> {
        self.changed |= self.draft.write(path, content, mode, reason)?;
        Ok(())
    }

    /// Writes `content` only when the file does not exist yet.
    pub(crate) fn seed(&mut self, path: &DevPath, content: &str, reason: &str) -> Result<()> {
        if !self.exists(path)? {
            self.write(path, content, None, reason)?;
        }
        Ok(())
    }

    pub(crate) fn remove(&mut self, path: &DevPath, reason: &str) -> Result<()> {
        self.changed |= self.draft.remove(path, reason)?;
        Ok(())
    }

    pub(crate) fn mkdir(&mut self, path: &DevPath, reason: &str) -> Result<()> {
        self.changed |= self.draft.mkdir(path, reason)?;
        Ok(())
    }

    /// Plans a program to run after every file change of this presync, on the live device only
    /// (printed otherwise). Programs run last because they may rewrite files this presync
    /// also plans, and a file that changes under a plan stops it.
    pub(crate) fn command(
        &mut self,
        argv: &[&str],
        env: &[(&str, String)],
        timeout_secs: u64,
        label: &str,
    ) {
        if !self.allow_commands {
            return;
        }
        self.commands.push(Queued::Command(CommandAction {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            timeout_secs,
            optional: true,
            label: label.to_string(),
        }));
    }

    /// Plans a service action to run among this presync's programs, just before the next one
    /// planned: a program that needs a unit stopped gets the stop through the services door
    /// (`OSCTL_SYSTEMCTL`, printed when there is no systemd), never from its own shell.
    pub(crate) fn service(&mut self, action: ServiceAction) {
        if self.allow_commands {
            self.commands.push(Queued::Service(action));
        }
    }

    /// Opens a structured native file for editing (an empty document when it does not exist).
    pub(crate) fn doc(&self, path: &DevPath, format: Format) -> Result<DocEdit> {
        let original = self.text(path)?;
        let doc = Doc::parse_or_empty(format, original.as_deref(), &path.to_string())?;
        // Secret files only: the others' values would be converted for nothing on the boot
        // path (the printer's key-based net still masks secret-looking keys anywhere).
        if self
            .rt
            .native
            .iter()
            .any(|f| f.secret && self.path(f.loc) == *path)
        {
            register_secrets("", &doc.value());
        }
        // The runtime's MCP servers: their header and env values are secrets by the redactor's
        // pair rule, which a diff's context lines must respect too.
        if self.path(self.rt.mcp.file) == *path
            && let Some(servers) = doc.get(self.rt.mcp.path)
        {
            crate::runtime::mcp::register_container(&servers);
        }
        Ok(DocEdit {
            path: path.clone(),
            original,
            doc,
        })
    }

    /// Opens a `.env` file for editing (empty when it does not exist).
    pub(crate) fn dotenv(&self, path: &DevPath) -> Result<EnvEdit> {
        let original = self.text(path)?;
        let env = match &original {
            Some(text) => DotEnv::parse(text, &path.to_string())?,
            None => DotEnv::parse(ENV_HEADER, &path.to_string())?,
        };
        for key in env.keys() {
            if crate::redact::is_secret_key(&key)
                && let Some(value) = env.get(&key)
            {
                crate::redact::register(&value);
            }
        }
        Ok(EnvEdit {
            path: path.clone(),
            original,
            env,
        })
    }

    /// Writes a structured file back when its text changed (`mode` as in [`Draft::write`]); a
    /// file that does not exist (or is empty) is written only when something was set in it.
    /// With `mode` given, an unchanged file still gets that mode (a secret file left 0644 is
    /// healed).
    pub(crate) fn save_doc(
        &mut self,
        edit: DocEdit,
        mode: Option<u32>,
        reason: &str,
    ) -> Result<()> {
        let text = edit.doc.text();
        let nothing_set = || edit.doc.value().as_object().is_none_or(|m| m.is_empty());
        let unchanged = match &edit.original {
            Some(original) => *original == text || (original.trim().is_empty() && nothing_set()),
            None => nothing_set(),
        };
        if !unchanged {
            return self.write(&edit.path, text, mode, reason);
        }
        if let (Some(original), Some(m)) = (edit.original, mode) {
            self.write(&edit.path, original, Some(m), reason)?;
        }
        Ok(())
    }

    /// Writes a `.env` file back (mode 0600) when its text changed or its mode is not 0600.
    pub(crate) fn save_env(&mut self, edit: EnvEdit, reason: &str) -> Result<()> {
        if edit.original.is_none() && edit.env.keys().is_empty() {
            return Ok(());
        }
        let text = edit.env.to_string();
        self.write(&edit.path, text, Some(SECRET_MODE), reason)
    }

    /// Copies a file or a folder tree from `from` to `to` as planned writes (modes kept,
    /// symbolic links skipped with a warning). Used by the one-time migrates only: the boot
    /// path never walks a tree.
    pub(crate) fn copy_tree(&mut self, from: &DevPath, to: &DevPath, reason: &str) -> Result<()> {
        let fs = self.draft.fs();
        match fs.lstat(from)?.map(|m| m.kind) {
            Some(Kind::Symlink) => {
                self.warn(format!("{from} is a symbolic link; not copied"));
                Ok(())
            }
            Some(Kind::Dir) => {
                self.mkdir(to, reason)?;
                for name in self.draft.list_dir(from)? {
                    self.copy_tree(&from.join(&name), &to.join(&name), reason)?;
                }
                Ok(())
            }
            Some(Kind::File) => match self.draft.state(from)? {
                FileState::File { content, mode } => self.write(to, content, Some(mode), reason),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// The device's LAN address (for the BlueBubbles webhook), found once and only on the live
    /// device: the source address the kernel would use towards a public address (a UDP
    /// `connect` sends nothing).
    pub(crate) fn lan_ip(&mut self) -> Option<String> {
        if self.lan_ip.is_none() {
            let found = if self.draft.fs().is_live() {
                crate::system::net::lan_address()
            } else {
                None
            };
            self.lan_ip = Some(found);
        }
        self.lan_ip.clone().flatten()
    }
}

/// A structured file being edited.
pub(crate) struct DocEdit {
    pub path: DevPath,
    original: Option<String>,
    pub doc: Doc,
}

impl DocEdit {
    pub(crate) fn get(&self, path: &[&str]) -> Option<Value> {
        self.doc.get(path)
    }

    pub(crate) fn get_str(&self, path: &[&str]) -> Option<String> {
        match self.doc.get(path) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
            _ => None,
        }
    }

    pub(crate) fn set(&mut self, path: &[&str], value: impl Into<Value>) -> Result<()> {
        self.doc.set(path, value.into())?;
        Ok(())
    }

    /// Sets `path` only when it is absent (or null).
    pub(crate) fn default(&mut self, path: &[&str], value: impl Into<Value>) -> Result<()> {
        if matches!(self.doc.get(path), None | Some(Value::Null)) {
            self.doc.set(path, value.into())?;
        }
        Ok(())
    }

    /// Sets the leaves of `value` under `path`, never removing a key: one edit for several
    /// owned keys (each YAML edit is re-parsed to verify it, so fewer edits cost less).
    pub(crate) fn merge(&mut self, path: &[&str], value: Value) -> Result<()> {
        self.doc.merge(path, value)?;
        Ok(())
    }

    pub(crate) fn remove(&mut self, path: &[&str]) -> Result<()> {
        self.doc.remove(path)?;
        Ok(())
    }

    /// Adds `item` to the string list at `path` unless it is there (a missing or non-list value
    /// becomes `[item]`).
    pub(crate) fn add_to_list(&mut self, path: &[&str], item: &str) -> Result<()> {
        let mut list = match self.doc.get(path) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        if !list.iter().any(|v| v.as_str() == Some(item)) {
            list.push(Value::from(item));
        }
        self.set(path, Value::Array(list))
    }
}

/// A `.env` file being edited.
pub(crate) struct EnvEdit {
    pub path: DevPath,
    original: Option<String>,
    pub env: DotEnv,
}

impl EnvEdit {
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        self.env.get(key)
    }

    pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<()> {
        self.env.set(key, value)?;
        Ok(())
    }

    /// Sets `key` when `value` is present: an empty config.json field never clears a value.
    pub(crate) fn set_some(&mut self, key: &str, value: Option<&str>) -> Result<()> {
        match value {
            Some(v) => self.set(key, v),
            None => Ok(()),
        }
    }

    /// Sets `key` only when the file does not assign it yet.
    pub(crate) fn default(&mut self, key: &str, value: &str) -> Result<()> {
        if self.env.get(key).is_none() {
            self.set(key, value)?;
        }
        Ok(())
    }

    pub(crate) fn remove(&mut self, key: &str) {
        self.env.remove(key);
    }
}

/// Registers the secrets a native file holds (values of secret-looking keys, bearer tokens),
/// so no output shows them, the ones config.json does not hold included.
fn register_secrets(key: &str, value: &Value) {
    match value {
        // `${VAR}` and `{env:VAR}` name a secret kept elsewhere; they are shown as they are.
        Value::String(s) if s.starts_with("${") || s.starts_with("{env:") => {}
        Value::String(s) if crate::redact::is_secret_key(key) => crate::redact::register(s),
        Value::String(s) => {
            if let Some(token) = s.strip_prefix("Bearer ") {
                crate::redact::register(token);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| register_secrets(key, v)),
        Value::Object(map) => map.iter().for_each(|(k, v)| register_secrets(k, v)),
        _ => {}
    }
}

/// Replaces `${NAME}` placeholders in an embedded text.
pub(crate) fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in vars {
        out = out.replace(&format!("${{{name}}}"), value);
    }
    out
}
