//! `/root/config/config.json`: the device's settings (docs/device-contract.md §3.1).
//!
//! os-server owns this file and osctl shares it: osctl reads the fields it needs and, when it
//! writes, changes only the keys it owns through the format-preserving JSON editor, so every
//! field osctl does not know survives with its key order and formatting.

use serde_json::{Map, Value};

use crate::error::{Error, Location, Result};
use crate::format::json::JsonDoc;
use crate::path::DevPath;
use crate::plan::Draft;
use crate::redact;
use crate::runtime::{Channel, RuntimeId};
use crate::system::fs::RootFs;

/// `llm_config_mode`: who owns the runtimes' LLM settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LlmMode {
    /// Missing or empty: upstream's legacy behaviour (codex/claudecode detect subscriptions).
    Legacy,
    /// Always apply the OS provider, model and key.
    Os,
    /// Keep the runtime's native LLM configuration.
    Runtime,
}

impl LlmMode {
    pub fn as_str(self) -> &'static str {
        match self {
            LlmMode::Legacy => "",
            LlmMode::Os => "os",
            LlmMode::Runtime => "runtime",
        }
    }

    /// How status shows it.
    pub fn label(self) -> &'static str {
        match self {
            LlmMode::Legacy => "legacy",
            LlmMode::Os => "os",
            LlmMode::Runtime => "runtime",
        }
    }
}

/// The credential fields of each channel, in config.json (docs/device-contract.md §3.1 and §8.1).
pub fn channel_fields(channel: Channel) -> &'static [&'static str] {
    match channel {
        Channel::Telegram => &["telegram_bot_token", "telegram_user_id"],
        Channel::Slack => &["slack_bot_token", "slack_app_token", "slack_user_id"],
        Channel::Discord => &["discord_bot_token", "discord_guild_id", "discord_user_id"],
        Channel::Whatsapp => &["whatsapp_user_id"],
        Channel::Imessage => &[
            "bluebubbles_server_url",
            "bluebubbles_password",
            "bluebubbles_user_address",
            "bluebubbles_caller_context",
        ],
    }
}

/// The field whose presence means a channel is configured (ChannelReconcile,
/// docs/device-contract.md §8.2).
fn channel_presence_field(channel: Channel) -> &'static str {
    match channel {
        Channel::Telegram => "telegram_bot_token",
        Channel::Slack => "slack_bot_token",
        Channel::Discord => "discord_bot_token",
        Channel::Whatsapp => "whatsapp_user_id",
        Channel::Imessage => "bluebubbles_server_url",
    }
}

/// config.json as read.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    pub path: DevPath,
    /// The file's bytes as text, for format-preserving edits.
    pub text: String,
    pub fields: Map<String, Value>,
    /// Whether the file exists. A device without one (factory-fresh, or after `osctl reset`)
    /// reads as empty defaults.
    pub exists: bool,
}

impl DeviceConfig {
    /// Reads config.json. A missing file reads as empty defaults (every field unset): that is
    /// what a factory-fresh or reset device looks like, and every command works on it (the
    /// first write creates the file, see [`edit`]). A root whose device config folder does not
    /// exist at all is not a device: that is an error that says where osctl looked.
    pub fn load(fs: &RootFs, path: &DevPath) -> Result<DeviceConfig> {
        if let Some(c) = Self::load_optional(fs, path)? {
            return Ok(c);
        }
        let folder = path.parent().unwrap_or_else(|| DevPath::new("/"));
        if !fs.is_dir(&folder)? {
            return Err(Error::input(
                "not_a_device_root",
                format!(
                    "{} is not a device root: {folder} does not exist",
                    fs.root().display()
                ),
            )
            .hint(format!(
                "--root must name the device's root folder; osctl expects the device config folder {folder} (config.json in it may be missing on a reset device, the folder may not)"
            )));
        }
        Ok(Self::empty(path.clone()))
    }

    /// The config of a device that has no config.json: every field unset.
    pub fn empty(path: DevPath) -> DeviceConfig {
        DeviceConfig {
            path,
            text: String::new(),
            fields: Map::new(),
            exists: false,
        }
    }

    /// config.json as planned in `draft` (an earlier step's edits included); empty defaults
    /// when it does not (or will not) exist.
    pub fn planned(draft: &Draft<'_>, path: &DevPath) -> Result<DeviceConfig> {
        match draft.read_text(path)? {
            Some(text) => Self::parse(path.clone(), text),
            None => Ok(Self::empty(path.clone())),
        }
    }

    pub fn load_optional(fs: &RootFs, path: &DevPath) -> Result<Option<DeviceConfig>> {
        match fs.read_text(path)? {
            None => Ok(None),
            Some(text) => Self::parse(path.clone(), text).map(Some),
        }
    }

    /// Parses config.json text: it must be one JSON object.
    pub fn parse(path: DevPath, text: String) -> Result<DeviceConfig> {
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            Error::json(&path, &e)
                .hint("nothing was written; fix the file (it is JSON) and run again")
        })?;
        let Value::Object(fields) = value else {
            return Err(
                Error::parse(&path, Some(1), Some(1), "expected a JSON object")
                    .hint("nothing was written; config.json must hold one JSON object"),
            );
        };
        register_secrets(&fields);
        // Every key osctl reads has one declared type: a value of another type is an error,
        // never read as empty (issue 26).
        super::keys::check(
            &path.to_string(),
            &text,
            &fields,
            super::keys::CONFIG,
            "in config.json (a missing key reads as unset), then run again",
        )?;
        Ok(DeviceConfig {
            path,
            text,
            fields,
            exists: true,
        })
    }

    /// A string field, trimmed; `""` when missing or null (a declared string key of another
    /// type was refused when the file was parsed, see [`super::keys`]).
    pub fn str(&self, key: &str) -> &str {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("")
    }

    /// A string field when it is set and not empty.
    pub fn opt(&self, key: &str) -> Option<&str> {
        Some(self.str(key)).filter(|s| !s.is_empty())
    }

    /// A list of strings (`channels_unsupported`); empty when missing or null (its type was
    /// checked when the file was parsed).
    pub fn str_list(&self, key: &str) -> Vec<String> {
        match self.fields.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// 1-based line of the first occurrence of `"key"` as a key, for error messages.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let needle = format!("\"{key}\"");
        let at = self.text.find(&needle)?;
        Some(self.text[..at].matches('\n').count() + 1)
    }

    fn location_of(&self, key: &str) -> Location {
        Location {
            file: self.path.to_string(),
            line: self.line_of(key),
            column: None,
        }
    }

    /// `agent_runtime`: `None` when empty; an error (naming the line) when not a runtime
    /// osctl manages.
    pub fn agent_runtime(&self) -> Result<Option<RuntimeId>> {
        let raw = self.str("agent_runtime");
        if raw.is_empty() {
            return Ok(None);
        }
        RuntimeId::parse(raw).map(Some).map_err(|e| {
            let why = if e.code == "runtime_not_managed" {
                "names the remote runtime, which the device's HTTP API manages, not osctl"
            } else {
                "is not a runtime osctl knows"
            };
            Error::input(e.code, format!("{}: agent_runtime \"{raw}\" {why}", self.path))
                .at(self.location_of("agent_runtime"))
                .hint(format!(
                    "nothing was written; set agent_runtime to one of {} (or run `osctl switch <runtime>`)",
                    crate::runtime::names().join(", ")
                ))
        })
    }

    /// `llm_config_mode`; any value other than "", "os" or "runtime" is an error.
    pub fn llm_mode(&self) -> Result<LlmMode> {
        match self.str("llm_config_mode").to_ascii_lowercase().as_str() {
            "" => Ok(LlmMode::Legacy),
            "os" => Ok(LlmMode::Os),
            "runtime" => Ok(LlmMode::Runtime),
            other => Err(Error::input(
                "bad_llm_config_mode",
                format!(
                    "{}: llm_config_mode `{other}` is not one of \"\", \"os\", \"runtime\"",
                    self.path
                ),
            )
            .at(self.location_of("llm_config_mode"))
            .hint("nothing was written; fix llm_config_mode in config.json")),
        }
    }

    /// Channels whose credentials are present, in the order of [`Channel`].
    pub fn configured_channels(&self) -> Vec<Channel> {
        [
            Channel::Telegram,
            Channel::Slack,
            Channel::Discord,
            Channel::Whatsapp,
            Channel::Imessage,
        ]
        .into_iter()
        .filter(|c| self.opt(channel_presence_field(*c)).is_some())
        .collect()
    }

    /// `config.device_type`.
    pub fn device_type(&self) -> Option<&str> {
        self.opt("device_type")
    }
}

/// Plans edits of config.json through `draft`: each `(key, Some(value))` is set, each
/// `(key, None)` removed, everything else kept as written. A device without config.json (reset
/// or factory-fresh) gets one holding just these keys; like every file osctl writes, it is 0600
/// when it holds a secret ([`Draft::write`]). Returns whether the plan changed.
pub fn edit(
    draft: &mut Draft<'_>,
    path: &DevPath,
    edits: &[(&str, Option<Value>)],
    reason: &str,
) -> Result<bool> {
    let text = match draft.read_text(path)? {
        Some(text) => text,
        None if edits.iter().all(|(_, v)| v.is_none()) => return Ok(false),
        None => "{}\n".to_string(),
    };
    let mut doc = JsonDoc::parse(&text, &path.to_string())?;
    let mut changed = false;
    for (key, value) in edits {
        changed |= match value {
            Some(v) => doc.set(&[key], v.clone()),
            None => doc.remove(&[key]),
        };
    }
    if !changed {
        return Ok(false);
    }
    draft.write(path, doc.to_string(), None, reason)
}

/// Registers every secret the config holds, so no output can show it.
fn register_secrets(fields: &Map<String, Value>) {
    fn walk(key: &str, v: &Value) {
        match v {
            Value::String(s) if redact::is_secret_key(key) => redact::register(s),
            Value::String(s) if key == "Authorization" || s.starts_with("Bearer ") => {
                redact::register(s.trim_start_matches("Bearer "));
            }
            Value::Array(items) => items.iter().for_each(|i| walk(key, i)),
            // A user tool's headers (`mcp_tools`): judged as every header osctl handles.
            Value::Object(m) if key == "headers" => {
                for (k, v) in m {
                    match v {
                        Value::String(s) => redact::register_pair(k, s),
                        other => walk(k, other),
                    }
                }
            }
            Value::Object(m) => m.iter().for_each(|(k, v)| walk(k, v)),
            _ => {}
        }
    }
    for (k, v) in fields {
        walk(k, v);
    }
    // Not named like secrets, but secret all the same.
    for key in [
        "bluebubbles_caller_context",
        "admin_password_hash",
        "session_secret",
    ] {
        if let Some(Value::String(s)) = fields.get(key) {
            redact::register(s);
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn cfg(text: &str) -> Result<DeviceConfig> {
        DeviceConfig::parse(DevPath::new("/root/config/config.json"), text.to_string())
    }

    #[test]
    fn parse_errors_name_line_and_column() {
        let err = cfg("{\n  \"a\": 1,\n  \"b\": ,\n}").unwrap_err();
        assert_eq!(err.code, "parse_error");
        let loc = err.location.clone().unwrap();
        assert_eq!((loc.line, loc.column), (Some(3), Some(8)));
    }

    #[test]
    fn unknown_runtime_names_its_line() {
        let c = cfg("{\n \"httpPort\": 5000,\n \"agent_runtime\": \"nanoclaw\"\n}").unwrap();
        let err = c.agent_runtime().unwrap_err();
        assert_eq!(err.code, "unknown_runtime");
        assert_eq!(err.location.clone().unwrap().line, Some(3));
        let c = cfg("{\"agent_runtime\": \" Remote \"}").unwrap();
        assert_eq!(c.agent_runtime().unwrap_err().code, "runtime_not_managed");
    }

    #[test]
    fn edits_keep_unknown_fields_and_their_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/config")).unwrap();
        let text = "{\n  \"zeta\": 1,\n  \"agent_runtime\": \"hermes\",\n  \"alpha\": {\"x\": [1, 2]}\n}\n";
        std::fs::write(dir.path().join("root/config/config.json"), text).unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let path = DevPath::new("/root/config/config.json");
        let mut draft = Draft::new(&fs);
        edit(
            &mut draft,
            &path,
            &[
                ("agent_runtime", Some("codex".into())),
                ("mcp_applied_runtime", Some("codex".into())),
            ],
            "switch",
        )
        .unwrap();
        let new = draft.read_text(&path).unwrap().unwrap();
        assert_eq!(
            new,
            "{\n  \"zeta\": 1,\n  \"agent_runtime\": \"codex\",\n  \"alpha\": {\"x\": [1, 2]},\n  \"mcp_applied_runtime\": \"codex\"\n}\n"
        );
        assert!(
            !edit(
                &mut draft,
                &path,
                &[("agent_runtime", Some("codex".into()))],
                "again"
            )
            .unwrap()
        );
    }

    /// A reset device (no config.json) made every command fail with "config.json does not
    /// exist": it reads as empty defaults, and the first edit creates the file.
    #[test]
    fn regression_reset_device_reads_as_defaults_and_an_edit_creates_config_json() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let path = DevPath::new("/root/config/config.json");
        let err = DeviceConfig::load(&fs, &path).unwrap_err();
        assert_eq!(err.code, "not_a_device_root");
        assert!(
            err.message.contains("/root/config does not exist"),
            "{}",
            err.message
        );
        std::fs::create_dir_all(dir.path().join("root/config")).unwrap();
        let c = DeviceConfig::load(&fs, &path).unwrap();
        assert!(!c.exists && c.fields.is_empty());
        assert_eq!(c.agent_runtime().unwrap(), None);
        let mut draft = Draft::new(&fs);
        assert!(!edit(&mut draft, &path, &[("x", None)], "nothing").unwrap());
        edit(
            &mut draft,
            &path,
            &[("telegram_bot_token", Some("9:tok-abcdefgh".into()))],
            "channel add",
        )
        .unwrap();
        let plan = draft.finish();
        let c = plan.file_changes().next().unwrap();
        assert_eq!(c.before, crate::plan::FileState::Absent);
        let crate::plan::FileState::File { content, mode } = &c.after else {
            panic!("{c:?}")
        };
        assert_eq!(
            std::str::from_utf8(content).unwrap(),
            "{\n  \"telegram_bot_token\": \"9:tok-abcdefgh\"\n}\n"
        );
        assert_eq!(*mode, 0o600, "it holds a secret");
    }

    #[test]
    fn llm_mode_and_channels() {
        let c = cfg(r#"{"llm_config_mode":"OS","telegram_bot_token":"1:a","whatsapp_user_id":"+1","slack_bot_token":""}"#).unwrap();
        assert_eq!(c.llm_mode().unwrap(), LlmMode::Os);
        assert_eq!(
            c.configured_channels(),
            vec![Channel::Telegram, Channel::Whatsapp]
        );
        assert_eq!(
            cfg(r#"{"llm_config_mode":"cloud"}"#)
                .unwrap()
                .llm_mode()
                .unwrap_err()
                .code,
            "bad_llm_config_mode"
        );
    }
}
