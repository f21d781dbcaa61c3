//! The declared type of every key osctl reads from a JSON state file (config.json, bootstrap.json),
//! and the typed read that enforces it.
//!
//! osctl used to read these files as a `Value` and take each key with `.as_str()`, so a value of
//! another type (`"agent_runtime": ["brain-b"]`, `5`) read as empty: `status` resolved the runtime
//! from ROBOT.md instead, `presync` wrote that runtime's files and the boot pass seeded over the
//! value (issue 26). Now each key osctl reads has one declared type, and the document is read once
//! through serde against those types: a value of another type is an error that names the file,
//! the line and column (serde_json's, from the typed parse of the whole text), the key, what was
//! expected and what was found. Keys osctl does not read are not looked at: os-server owns the
//! file and osctl keeps every key it does not own.
//!
//! `null` reads as unset for every key, as os-server's Go decoder leaves the field at its zero
//! value. A key given twice is checked each time (both values must have the declared type).

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::error::{Error, Location};

/// One declared key: its name, its type in words, and the check that deserializes its value.
pub(crate) struct Key {
    pub name: &'static str,
    /// What the key must hold, as the error says it: "a string", "a list of strings".
    pub expected: &'static str,
    seed: Seed,
}

/// The types a declared key can have. Each deserializes a value only to see that it fits (from
/// the text's deserializer, so an error carries its position); the value is then read by kind
/// where it is used.
#[derive(Clone, Copy)]
pub(crate) enum Seed {
    Str,
    Bool,
    Port,
    StrList,
    List,
    History,
}

macro_rules! keys {
    ($( $name:literal : $seed:ident ),* $(,)?) => {
        &[$( Key { name: $name, expected: Seed::$seed.expected(), seed: Seed::$seed } ),*]
    };
}

impl Seed {
    const fn expected(self) -> &'static str {
        match self {
            Seed::Str => "a string",
            Seed::Bool => "true or false",
            Seed::Port => "a port number (0 to 65535)",
            Seed::StrList => "a list of strings",
            Seed::List => "a list",
            Seed::History => {
                "a list of switch entries ({\"runtime\": <name>, \"at\": <unix seconds>})"
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        use serde::Deserialize;
        match self {
            Seed::Str => Option::<String>::deserialize(d).map(drop),
            Seed::Bool => Option::<bool>::deserialize(d).map(drop),
            Seed::Port => Option::<u16>::deserialize(d).map(drop),
            Seed::StrList => Option::<Vec<Option<String>>>::deserialize(d).map(drop),
            Seed::List => Option::<Vec<IgnoredAny>>::deserialize(d).map(drop),
            Seed::History => Vec::<super::state::StateEntry>::deserialize(d).map(drop),
        }
    }
}

/// config.json's keys that osctl reads (docs/device-contract.md §3.1), with their types.
pub(crate) const CONFIG: &[Key] = keys! {
    "agent_runtime": Str,
    "llm_config_mode": Str,
    "llm_api_key": Str,
    "llm_base_url": Str,
    "llm_model": Str,
    "llm_disable_thinking": Bool,
    "channel": Str,
    "telegram_bot_token": Str,
    "telegram_user_id": Str,
    "slack_bot_token": Str,
    "slack_app_token": Str,
    "slack_user_id": Str,
    "discord_bot_token": Str,
    "discord_guild_id": Str,
    "discord_user_id": Str,
    "whatsapp_user_id": Str,
    "bluebubbles_server_url": Str,
    "bluebubbles_password": Str,
    "bluebubbles_user_address": Str,
    "bluebubbles_caller_context": Str,
    "channels_applied_runtime": Str,
    "channels_unsupported": StrList,
    "mcp_applied_runtime": Str,
    "llm_config_applied_runtime": Str,
    "claude_code_oauth_token": Str,
    "mcp_tools": List,
    "openclaw_config_dir": Str,
    "device_type": Str,
    "httpPort": Port,
};

/// bootstrap.json's keys that osctl reads (docs/device-contract.md §3.4).
pub(crate) const BOOTSTRAP: &[Key] = keys! {
    "metadata_url": Str,
    "signing_public_key": Str,
};

/// agent_state.json's keys (docs/device-contract.md §3.3): osctl owns the file.
pub(crate) const STATE: &[Key] = keys! {
    "history": History,
};

/// What a wrong-typed key was found holding, in JSON's words (never the value: it may be a
/// secret).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// serde's words for what it found (`invalid type: integer `5`, expected ...`) in JSON's, the
/// value left out.
fn serde_found(message: &str) -> Option<&'static str> {
    if message.starts_with("missing field ") {
        return Some("an entry without a field it needs");
    }
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    Some(match rest.split([' ', ',']).next()? {
        "sequence" => "a list",
        "map" => "an object",
        "integer" | "floating" => "a number",
        "boolean" => "true or false",
        "string" => "a string",
        "null" | "unit" => "null",
        _ => return None,
    })
}

/// Reads `text` (already known to be one JSON object, whose parsed fields are `fields`) against
/// `keys`. The first value of a wrong type, in document order, is an error naming `file`, its
/// line and column, the key, what was expected and what was found; `fix` ends the hint (where
/// to fix it).
pub(crate) fn check(
    file: &str,
    text: &str,
    fields: &serde_json::Map<String, Value>,
    keys: &'static [Key],
    fix: &str,
) -> Result<(), Error> {
    let current = RefCell::new(None::<&'static Key>);
    let mut de = serde_json::Deserializer::from_str(text);
    let Err(e) = de.deserialize_map(Doc {
        keys,
        current: &current,
    }) else {
        return Ok(());
    };
    let Some(key) = current.into_inner() else {
        // Not a type error of a declared key (the text parsed as a Value before, so this cannot
        // be a syntax error): report serde's words as they are.
        return Err(Error::json(file, &e));
    };
    let message = e.to_string();
    let message = message
        .rfind(" at line ")
        .map_or(message.as_str(), |i| &message[..i]);
    let whole = fields.get(key.name).map_or("nothing", kind);
    let inner = serde_found(message).unwrap_or("a value of another type");
    let found = if inner == whole {
        whole.to_string()
    } else {
        format!("{whole} holding {inner}")
    };
    let (line, column) = match value_start(text, e.line(), e.column()) {
        Some((l, c)) => (Some(l), Some(c)),
        None => (Some(e.line()).filter(|l| *l > 0), None),
    };
    Err(Error::input(
        "wrong_type",
        format!(
            "{file}: {} must be {}, found {found}",
            key.name, key.expected
        ),
    )
    .at(Location {
        file: file.to_string(),
        line,
        column,
    })
    .hint(format!(
        "nothing was written; set {} to {} or remove it, {fix}",
        key.name, key.expected
    )))
}

/// Where the wrong value starts (1-based line and column), from serde_json's position, which is
/// the last character it read: before the value for a list or an object (it only peeked), the
/// value's last character for a number, a literal or a string.
fn value_start(text: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let line_text = text.split('\n').nth(line.checked_sub(1)?)?;
    let chars: Vec<char> = line_text.chars().collect();
    let mut at = column.checked_sub(1)?.min(chars.len().checked_sub(1)?);
    match chars[at] {
        c if c.is_whitespace() || c == ':' => {
            while at + 1 < chars.len() && (chars[at].is_whitespace() || chars[at] == ':') {
                at += 1;
            }
        }
        '"' => {
            // Back to the opening quote (one not escaped).
            at = (0..at)
                .rev()
                .find(|&i| chars[i] == '"' && (i == 0 || chars[i - 1] != '\\'))?;
        }
        _ => {
            while at > 0 && (chars[at - 1].is_alphanumeric() || "+-.".contains(chars[at - 1])) {
                at -= 1;
            }
        }
    }
    Some((line, at + 1))
}

/// The whole document as a map; each declared key's value read as its type, the rest skipped.
struct Doc<'a> {
    keys: &'static [Key],
    /// The declared key whose value is being read, left set when that read fails.
    current: &'a RefCell<Option<&'static Key>>,
}

impl<'de> Visitor<'de> for Doc<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match self.keys.iter().find(|k| k.name == name) {
                Some(key) => {
                    *self.current.borrow_mut() = Some(key);
                    map.next_value_seed(key.seed)?;
                    *self.current.borrow_mut() = None;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<(), Error> {
        let fields: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
        check("/c.json", text, &fields, CONFIG, "fix it")
    }

    #[test]
    fn a_wrong_type_names_line_column_key_expected_and_found() {
        let e = run("{\n  \"httpPort\": 5000,\n  \"agent_runtime\": [\"brain-b\"]\n}").unwrap_err();
        assert_eq!(e.code, "wrong_type");
        assert_eq!(
            e.message,
            "/c.json: agent_runtime must be a string, found a list"
        );
        let at = e.location.clone().unwrap();
        assert_eq!((at.line, at.column), (Some(3), Some(20)));
        let e = run("{\"agent_runtime\": 5}").unwrap_err();
        assert!(e.message.ends_with("found a number"), "{}", e.message);
        // The column is where the value starts, whatever its kind.
        for (text, column) in [
            ("{\"agent_runtime\": 12345}", 19),
            ("{\"agent_runtime\": true}", 19),
            ("{\"agent_runtime\":{\"a\": 1}}", 18),
            ("{\"llm_disable_thinking\":  \"y\\\"es\"}", 27),
        ] {
            let at = run(text).unwrap_err().location.clone().unwrap();
            assert_eq!((at.line, at.column), (Some(1), Some(column)), "{text}");
        }
    }

    #[test]
    fn unknown_keys_null_and_right_types_pass() {
        run("{\"x\": [1], \"agent_runtime\": null, \"httpPort\": 5000, \"channels_unsupported\": [\"whatsapp\"], \"mcp_tools\": [{}], \"llm_disable_thinking\": true}").unwrap();
    }

    #[test]
    fn inner_wrong_types_and_secrets_are_not_shown() {
        let e = run("{\"channels_unsupported\": [\"slack\", 7]}").unwrap_err();
        assert_eq!(
            e.message,
            "/c.json: channels_unsupported must be a list of strings, found a list holding a number"
        );
        let e = run("{\"telegram_bot_token\": 123456789}").unwrap_err();
        assert!(!e.to_string().contains("123456789"), "{e}");
        let e = run("{\"httpPort\": 70000}").unwrap_err();
        assert!(
            e.message.contains("httpPort must be a port number"),
            "{}",
            e.message
        );
    }
}
