//! TOML editor on toml_edit (codex `config.toml`).
//!
//! [`TomlDoc`] changes only the values at the paths osctl sets or removes; comments, blank lines,
//! key order, table layout and every key osctl does not own stay as written.
//!
//! - Paths are slices of table keys from the root (standard, implicit, dotted or inline tables).
//!   A step that exists but is not a table is replaced by one.
//! - Replacing a value keeps its decoration, so `model = "a" # pinned` becomes
//!   `model = "b" # pinned` (plain assignment in toml_edit would drop the comment).
//! - Objects become tables. A new object at depth one or two below the root inside a standard
//!   table becomes a standard table (`[mcp_servers.notion]`, `[model_providers.autonomous]`; a
//!   new parent holding only tables gets no header of its own); deeper objects, and objects
//!   inside an inline table or an array, become inline tables (`env = { KEY = "v" }`).
//! - Setting an object or array over an existing one recurses, like the JSON editor: keys
//!   missing from the new object are removed, changed leaves replaced, new keys appended, so
//!   comments inside survive. [`TomlDoc::merge`] never removes keys.
//! - TOML has no null: setting `null` removes the key, and `null` members of an object are
//!   left out. A `null` inside an array, or an integer beyond the 64-bit signed range, cannot be
//!   written and is refused.
//! - Reading: datetimes read as their TOML text, non-finite floats as `"inf"`, `"-inf"`, `"nan"`.

use std::fmt;

use serde_json::{Map, Number, Value};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use super::{line_col, show_path};
use crate::error::{Error, Result};

/// Deepest level (1 = a root key) at which a new object becomes a standard table.
const STANDARD_TABLE_DEPTH: usize = 2;

/// A TOML document being edited in place.
#[derive(Clone, Debug)]
pub struct TomlDoc {
    doc: DocumentMut,
    origin: String,
    /// The file used CRLF line endings; edits happen on LF text.
    crlf: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Replace,
    Merge,
}

impl TomlDoc {
    /// Parses `text`; `origin` (the device path) names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<TomlDoc> {
        let crlf = super::is_crlf(text);
        let lf = if crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_string()
        };
        let doc: DocumentMut = lf.parse().map_err(|e: toml_edit::TomlError| {
            let (line, column) = e.span().map_or((None, None), |span| {
                let (l, c) = line_col(&lf, span.start);
                (Some(l), Some(c))
            });
            Error::parse(origin, line, column, e.message().trim_end().to_string())
        })?;
        if doc.to_string() != lf {
            return Err(Error::parse(
                origin,
                None,
                None,
                "osctl cannot edit this file without changing its layout, so it is left as it is",
            ));
        }
        Ok(TomlDoc {
            doc,
            origin: origin.to_string(),
            crlf,
        })
    }

    /// An empty document, for a file that does not exist yet.
    pub fn new_empty() -> TomlDoc {
        TomlDoc {
            doc: DocumentMut::new(),
            origin: String::new(),
            crlf: false,
        }
    }

    /// The whole document as an object.
    pub fn value(&self) -> Value {
        table_value(self.doc.as_table())
    }

    /// The value at `path`, if present.
    pub fn get(&self, path: &[&str]) -> Option<Value> {
        let mut item = self.doc.as_item();
        for key in path {
            item = item.get(key)?;
        }
        item_value(item)
    }

    /// The keys of the table at `path`, in file order; empty when absent or not a table.
    pub fn keys(&self, path: &[&str]) -> Vec<String> {
        let mut item = self.doc.as_item();
        for key in path {
            match item.get(key) {
                Some(next) => item = next,
                None => return Vec::new(),
            }
        }
        match item.as_table_like() {
            Some(t) => t.iter().map(|(k, _)| k.to_string()).collect(),
            None => Vec::new(),
        }
    }

    /// Sets the value at `path`; returns whether the text changed. `null` removes.
    ///
    /// Errors when the value cannot be written as TOML (module docs); the document is then
    /// unchanged.
    pub fn set(&mut self, path: &[&str], value: Value) -> Result<bool> {
        self.edit(path, &value, Mode::Replace)
    }

    /// Like [`TomlDoc::set`], but tables are merged key by key and no key is removed.
    pub fn merge(&mut self, path: &[&str], value: Value) -> Result<bool> {
        self.edit(path, &value, Mode::Merge)
    }

    /// Removes the key at `path` (a value or a whole table); returns whether it was there.
    pub fn remove(&mut self, path: &[&str]) -> bool {
        let Some((last, parent)) = path.split_last() else {
            return false;
        };
        let mut item = self.doc.as_item_mut();
        for key in parent {
            match item.get_mut(key) {
                Some(next) => item = next,
                None => return false,
            }
        }
        match item.as_table_like_mut() {
            Some(t) => t.remove(last).is_some(),
            None => false,
        }
    }

    /// The text of the document.
    #[allow(clippy::inherent_to_string_shadow_display)]
    pub fn to_string(&self) -> String {
        let text = self.doc.to_string();
        if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        }
    }

    fn edit(&mut self, path: &[&str], value: &Value, mode: Mode) -> Result<bool> {
        if value.is_null() {
            return Ok(self.remove(path));
        }
        if mode == Mode::Replace && self.get(path).as_ref() == Some(value) {
            return Ok(false);
        }
        check_writable(value).map_err(|why| self.unwritable(path, why))?;
        let before = self.doc.to_string();
        if path.is_empty() {
            let Value::Object(map) = value else {
                return Err(self.unwritable(path, "a TOML document is a table"));
            };
            update_table(self.doc.as_table_mut(), map, 0, mode);
        } else {
            set_in_table(self.doc.as_table_mut(), path, value, 0, mode);
        }
        Ok(self.doc.to_string() != before)
    }

    fn unwritable(&self, path: &[&str], why: &str) -> Error {
        let file = if self.origin.is_empty() {
            "the TOML file"
        } else {
            &self.origin
        };
        Error::input(
            "invalid_value",
            format!("cannot write {} to {file}: {why}", show_path(path)),
        )
    }
}

impl fmt::Display for TomlDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&TomlDoc::to_string(self))
    }
}

/// Why `value` cannot be written as TOML, if it cannot.
fn check_writable(value: &Value) -> std::result::Result<(), &'static str> {
    match value {
        Value::Number(n) if n.is_u64() && n.as_i64().is_none() => {
            Err("the integer is outside TOML's 64-bit signed range")
        }
        Value::Array(items) => {
            if items.iter().any(Value::is_null) {
                return Err("TOML arrays cannot hold null");
            }
            items.iter().try_for_each(check_writable)
        }
        Value::Object(map) => map.values().try_for_each(check_writable),
        _ => Ok(()),
    }
}

/// Sets `path` below `table`, which sits at `depth` (0 = the root).
fn set_in_table(table: &mut Table, path: &[&str], value: &Value, depth: usize, mode: Mode) {
    let (key, rest) = path.split_first().expect("a non-empty path");
    if rest.is_empty() {
        set_key(table, key, value, depth + 1, mode);
        return;
    }
    let is_table = matches!(
        table.get(key),
        Some(Item::Table(_) | Item::Value(toml_edit::Value::InlineTable(_)))
    );
    if !is_table {
        // A fresh key: a value's key carries the spaces around its `=`, a header has none.
        table.remove(key);
        let new = if depth < STANDARD_TABLE_DEPTH {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        } else {
            Item::Value(toml_edit::Value::InlineTable(InlineTable::new()))
        };
        table.insert(key, new);
    }
    match table.get_mut(key) {
        Some(Item::Table(t)) => set_in_table(t, rest, value, depth + 1, mode),
        Some(Item::Value(toml_edit::Value::InlineTable(t))) => set_in_inline(t, rest, value, mode),
        _ => unreachable!("a table was just put there"),
    }
}

/// Sets `key` of the standard `table` to `value`, which sits at `depth`.
fn set_key(table: &mut Table, key: &str, value: &Value, depth: usize, mode: Mode) {
    let Some(existing) = table.get_mut(key).filter(|item| !item.is_none()) else {
        table.insert(key, new_item(value, depth));
        return;
    };
    let object = value.is_object();
    let reshape = match existing {
        Item::Table(_) => !object,
        Item::ArrayOfTables(_) => !value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_object)),
        Item::Value(toml_edit::Value::InlineTable(_)) => false,
        Item::Value(_) => object && depth <= STANDARD_TABLE_DEPTH,
        Item::None => true,
    };
    if reshape {
        // A value's key carries the spaces around its `=`, a table header has none: start afresh.
        table.remove(key);
        table.insert(key, new_item(value, depth));
    } else {
        update_item(existing, value, depth, mode);
    }
}

fn set_in_inline(table: &mut InlineTable, path: &[&str], value: &Value, mode: Mode) {
    let (key, rest) = path.split_first().expect("a non-empty path");
    if rest.is_empty() {
        match table.get_mut(key) {
            Some(v) => update_value(v, value, mode),
            None => inline_insert(table, key, new_value(value)),
        }
        return;
    }
    match table.get_mut(key) {
        Some(toml_edit::Value::InlineTable(t)) => set_in_inline(t, rest, value, mode),
        Some(other) => {
            let mut t = InlineTable::new();
            set_in_inline(&mut t, rest, value, mode);
            replace_value(other, toml_edit::Value::InlineTable(t));
        }
        None => {
            let mut t = InlineTable::new();
            set_in_inline(&mut t, rest, value, mode);
            inline_insert(table, key, toml_edit::Value::InlineTable(t));
        }
    }
}

/// Makes `item` (at `depth`) equal to `value`, editing in place where the shapes agree.
fn update_item(item: &mut Item, value: &Value, depth: usize, mode: Mode) {
    if item_value(item).as_ref() == Some(value) {
        return;
    }
    match (item, value) {
        (Item::Table(t), Value::Object(map)) => update_table(t, map, depth, mode),
        (Item::Value(v), _) => update_value(v, value, mode),
        (Item::ArrayOfTables(aot), Value::Array(items)) if items.iter().all(Value::is_object) => {
            for (i, sub) in items.iter().enumerate() {
                let Value::Object(map) = sub else { continue };
                match aot.get_mut(i) {
                    Some(t) => update_table(t, map, depth, Mode::Replace),
                    None => {
                        let mut t = Table::new();
                        update_table(&mut t, map, depth, Mode::Replace);
                        aot.push(t);
                    }
                }
            }
            while aot.len() > items.len() {
                aot.remove(aot.len() - 1);
            }
        }
        // set_key reshapes tables into values and back; what is left is a `None` item.
        (item, _) => *item = new_item(value, depth),
    }
}

/// Makes the standard `table` (at `depth`) hold `map`.
fn update_table(table: &mut Table, map: &Map<String, Value>, depth: usize, mode: Mode) {
    if mode == Mode::Replace {
        table.retain(|k, _| map.get(k).is_some_and(|v| !v.is_null()));
    }
    for (key, sub) in map {
        if sub.is_null() {
            table.remove(key);
        } else {
            set_key(table, key, sub, depth + 1, mode);
        }
    }
}

fn update_value(current: &mut toml_edit::Value, value: &Value, mode: Mode) {
    if toml_value(current) == *value {
        return;
    }
    match (current, value) {
        (toml_edit::Value::InlineTable(t), Value::Object(map)) => {
            if mode == Mode::Replace {
                t.retain(|k, _| map.get(k).is_some_and(|v| !v.is_null()));
            }
            for (key, sub) in map {
                if sub.is_null() {
                    t.remove(key);
                    continue;
                }
                match t.get_mut(key) {
                    Some(v) => update_value(v, sub, mode),
                    None => inline_insert(t, key, new_value(sub)),
                }
            }
        }
        (toml_edit::Value::Array(arr), Value::Array(items)) => update_array(arr, items),
        (current, _) => replace_value(current, new_value(value)),
    }
}

fn update_array(arr: &mut Array, items: &[Value]) {
    let common = arr.len().min(items.len());
    for (i, item) in items.iter().enumerate().take(common) {
        if let Some(v) = arr.get_mut(i) {
            update_value(v, item, Mode::Replace);
        }
    }
    while arr.len() > items.len() {
        arr.remove(arr.len() - 1);
    }
    // New elements take the layout of the last one (one per line in a multi-line array), without
    // the comments around it.
    let layout = arr.iter().last().map(|v| {
        let prefix = v.decor().prefix().and_then(|p| p.as_str()).unwrap_or(" ");
        let prefix = match prefix.rfind('\n') {
            Some(i) => format!("\n{}", &prefix[i + 1..]),
            None => prefix.to_string(),
        };
        let suffix = v.decor().suffix().and_then(|s| s.as_str()).unwrap_or("");
        let suffix = if suffix.contains(['#', '\n']) {
            ""
        } else {
            suffix
        };
        (prefix, suffix.to_string())
    });
    for item in &items[common..] {
        let mut v = new_value(item);
        match &layout {
            Some((prefix, suffix)) => {
                v.decor_mut().set_prefix(prefix.as_str());
                v.decor_mut().set_suffix(suffix.as_str());
                arr.push_formatted(v);
            }
            None => arr.push(v),
        }
    }
}

/// Inserts into an inline table, keeping the space before its `}` at the end.
fn inline_insert(table: &mut InlineTable, key: &str, mut value: toml_edit::Value) {
    let suffix = table.iter_mut().last().and_then(|(_, last)| {
        let suffix = last.decor().suffix().cloned();
        last.decor_mut().set_suffix("");
        suffix
    });
    if let Some(suffix) = suffix {
        value.decor_mut().set_suffix(suffix);
    }
    table.insert(key, value);
}

/// Replaces `current` by `new`, keeping the spaces and comment around it.
fn replace_value(current: &mut toml_edit::Value, mut new: toml_edit::Value) {
    *new.decor_mut() = current.decor().clone();
    *current = new;
}

/// A new item for `value` at `depth` inside a standard table.
fn new_item(value: &Value, depth: usize) -> Item {
    match value {
        Value::Object(map) if depth <= STANDARD_TABLE_DEPTH => {
            let mut t = Table::new();
            for (key, sub) in map {
                if !sub.is_null() {
                    t.insert(key, new_item(sub, depth + 1));
                }
            }
            if !t.is_empty() && t.iter().all(|(_, item)| item.is_table()) {
                t.set_implicit(true);
            }
            Item::Table(t)
        }
        _ => Item::Value(new_value(value)),
    }
}

/// A new inline value (checked writable before).
fn new_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or(f64::NAN).into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().map(new_value).collect::<Array>())
        }
        Value::Object(map) => {
            let mut t = InlineTable::new();
            for (key, sub) in map {
                if !sub.is_null() {
                    t.insert(key, new_value(sub));
                }
            }
            toml_edit::Value::InlineTable(t)
        }
        // Never reached: nulls are removed or refused before.
        Value::Null => "".into(),
    }
}

fn item_value(item: &Item) -> Option<Value> {
    match item {
        Item::None => None,
        Item::Value(v) => Some(toml_value(v)),
        Item::Table(t) => Some(table_value(t)),
        Item::ArrayOfTables(aot) => Some(Value::Array(aot.iter().map(table_value).collect())),
    }
}

fn table_value(table: &Table) -> Value {
    Value::Object(
        table
            .iter()
            .filter_map(|(k, item)| item_value(item).map(|v| (k.to_string(), v)))
            .collect(),
    )
}

fn toml_value(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::Number((*i.value()).into()),
        toml_edit::Value::Float(f) => {
            let f = *f.value();
            match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None if f.is_nan() => Value::String("nan".into()),
                None if f > 0.0 => Value::String("inf".into()),
                None => Value::String("-inf".into()),
            }
        }
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(arr) => Value::Array(arr.iter().map(toml_value).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), toml_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::testutil::assert_diff;
    use serde_json::json;

    const CODEX: &str = r#"# Codex configuration (owner's notes below)
model = "gpt-5-codex" # the owner's pick
model_provider = "autonomous"
approval_policy = "never"

[model_providers.autonomous]
name = "Autonomous"
base_url = "https://campaign-api.autonomous.ai/api/v1/ai/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

# MCP servers
[mcp_servers.github]
command = "gh-mcp"
args = [
  "--stdio", # talk over stdio
  "--verbose",
]
env = { GITHUB_TOKEN = "ghp-x" }

[profiles.fast]
model = "o4-mini"
"#;

    fn doc(text: &str) -> TomlDoc {
        TomlDoc::parse(text, "/root/.codex/config.toml").unwrap()
    }

    #[test]
    fn reads_values_and_keys() {
        let d = doc(CODEX);
        assert_eq!(d.get(&["model"]), Some(json!("gpt-5-codex")));
        assert_eq!(
            d.get(&["mcp_servers", "github"]),
            Some(json!({
                "command": "gh-mcp",
                "args": ["--stdio", "--verbose"],
                "env": {"GITHUB_TOKEN": "ghp-x"}
            }))
        );
        assert_eq!(
            d.get(&["mcp_servers", "github", "env", "GITHUB_TOKEN"]),
            Some(json!("ghp-x"))
        );
        assert_eq!(d.get(&["nope"]), None);
        assert_eq!(
            d.keys(&[]),
            [
                "model",
                "model_provider",
                "approval_policy",
                "model_providers",
                "mcp_servers",
                "profiles"
            ]
        );
        assert_eq!(d.keys(&["mcp_servers", "github", "env"]), ["GITHUB_TOKEN"]);
        assert_eq!(d.value()["profiles"]["fast"]["model"], json!("o4-mini"));
        assert_eq!(d.to_string(), CODEX);
    }

    #[test]
    fn changing_model_keeps_its_inline_comment() {
        let mut d = doc(CODEX);
        assert!(d.set(&["model"], json!("Auto-AI")).unwrap());
        assert_diff(
            CODEX,
            &d.to_string(),
            &[r#"model = "gpt-5-codex" # the owner's pick"#],
            &[r#"model = "Auto-AI" # the owner's pick"#],
        );
    }

    #[test]
    fn add_an_mcp_server_as_a_standard_table() {
        let mut d = doc(CODEX);
        let notion = json!({
            "url": "https://mcp.notion.com/mcp",
            "http_headers": {"Authorization": "Bearer tok"}
        });
        assert!(d.set(&["mcp_servers", "notion"], notion.clone()).unwrap());
        let expected = CODEX.replace(
            "env = { GITHUB_TOKEN = \"ghp-x\" }\n",
            "env = { GITHUB_TOKEN = \"ghp-x\" }\n\n[mcp_servers.notion]\n\
             url = \"https://mcp.notion.com/mcp\"\n\
             http_headers = { Authorization = \"Bearer tok\" }\n",
        );
        assert_eq!(d.to_string(), expected);
        assert_eq!(d.get(&["mcp_servers", "notion"]), Some(notion.clone()));
        assert!(!d.set(&["mcp_servers", "notion"], notion).unwrap());
        assert_eq!(d.to_string(), expected);
    }

    #[test]
    fn remove_an_mcp_server() {
        let mut d = doc(CODEX);
        assert!(d.remove(&["mcp_servers", "github"]));
        assert!(!d.remove(&["mcp_servers", "github"]));
        assert!(!d.remove(&["no", "such"]));
        let out = d.to_string();
        assert!(!out.contains("github"), "{out}");
        assert!(out.contains("[profiles.fast]\nmodel = \"o4-mini\"\n"));
        assert!(out.contains("[model_providers.autonomous]\n"));
        assert!(TomlDoc::parse(&out, "x").is_ok());
    }

    #[test]
    fn null_removes() {
        let mut d = doc(CODEX);
        assert!(d.set(&["approval_policy"], Value::Null).unwrap());
        assert_diff(
            CODEX,
            &d.to_string(),
            &[r#"approval_policy = "never""#],
            &[],
        );
        assert!(!d.set(&["approval_policy"], Value::Null).unwrap());
    }

    #[test]
    fn new_provider_table_in_an_empty_file() {
        let mut d = TomlDoc::new_empty();
        d.set(&["model"], json!("Auto-AI")).unwrap();
        d.set(&["model_provider"], json!("autonomous")).unwrap();
        d.set(
            &["model_providers", "autonomous"],
            json!({"name": "Autonomous", "base_url": "https://x/v1", "env_key": "OPENAI_API_KEY"}),
        )
        .unwrap();
        d.set(&["mcp_servers", "fs", "command"], json!("npx"))
            .unwrap();
        d.set(&["mcp_servers", "fs", "args"], json!(["-y", "server-fs"]))
            .unwrap();
        d.set(&["mcp_servers", "fs", "env", "ROOT"], json!("/data"))
            .unwrap();
        assert_eq!(
            d.to_string(),
            "model = \"Auto-AI\"\nmodel_provider = \"autonomous\"\n\n\
             [model_providers.autonomous]\nname = \"Autonomous\"\nbase_url = \"https://x/v1\"\n\
             env_key = \"OPENAI_API_KEY\"\n\n\
             [mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"server-fs\"]\n\
             env = { ROOT = \"/data\" }\n"
        );
        let whole = d.value();
        assert!(!d.set(&[], whole).unwrap());
    }

    #[test]
    fn setting_a_table_recurses_and_keeps_comments() {
        let mut d = doc(CODEX);
        let mut github = d.get(&["mcp_servers", "github"]).unwrap();
        github["args"] = json!(["--stdio", "--quiet", "--color=never"]);
        github["env"]["EXTRA"] = json!("1");
        github.as_object_mut().unwrap().remove("command");
        github["url"] = json!("https://api.githubcopilot.com/mcp/");
        assert!(d.set(&["mcp_servers", "github"], github.clone()).unwrap());
        assert_eq!(d.get(&["mcp_servers", "github"]), Some(github));
        let out = d.to_string();
        assert!(
            out.contains(
                "  \"--stdio\", # talk over stdio\n  \"--quiet\",\n  \"--color=never\",\n]"
            ),
            "{out}"
        );
        assert!(
            out.contains("env = { GITHUB_TOKEN = \"ghp-x\", EXTRA = \"1\" }"),
            "{out}"
        );
        assert!(!out.contains("command"));
        // merge adds without removing
        assert!(
            d.merge(&["profiles"], json!({"fast": {"approval_policy": "never"}}))
                .unwrap()
        );
        assert_eq!(
            d.get(&["profiles", "fast"]),
            Some(json!({"model": "o4-mini", "approval_policy": "never"}))
        );
    }

    #[test]
    fn coerces_non_tables_on_the_way() {
        let mut d = doc("features = \"off\"\n[tools]\nweb_search = true\n");
        d.set(&["features", "rmcp_client"], json!(true)).unwrap();
        assert_eq!(d.get(&["features"]), Some(json!({"rmcp_client": true})));
        d.set(&["tools", "web_search", "x"], json!(1)).unwrap();
        assert_eq!(d.get(&["tools"]), Some(json!({"web_search": {"x": 1}})));
        assert!(TomlDoc::parse(&d.to_string(), "x").is_ok());
        // a value turned into a table gets a clean header
        let mut d = doc("features = \"off\"\n[tools]\nweb_search = true\n");
        d.set(&["features"], json!({"a": 1})).unwrap();
        d.set(&["tools"], json!(5)).unwrap();
        assert_eq!(d.to_string(), "tools = 5\n\n[features]\na = 1\n");
    }

    #[test]
    fn inline_tables_stay_inline() {
        let mut d = doc("[mcp_servers]\nx = { command = \"a\", env = { K = \"v\" } }\n");
        d.set(&["mcp_servers", "x", "env", "L"], json!("w"))
            .unwrap();
        d.set(&["mcp_servers", "x", "headers"], json!({"A": "b"}))
            .unwrap();
        assert_eq!(
            d.to_string(),
            "[mcp_servers]\nx = { command = \"a\", env = { K = \"v\", L = \"w\" }, headers = { A = \"b\" } }\n"
        );
    }

    #[test]
    fn refuses_what_toml_cannot_hold() {
        let mut d = doc(CODEX);
        let e = d.set(&["x"], json!([1, null])).unwrap_err();
        assert_eq!(e.code, "invalid_value");
        assert!(
            e.message.contains("/root/.codex/config.toml"),
            "{}",
            e.message
        );
        assert!(d.set(&["x"], json!(u64::MAX)).is_err());
        assert!(d.set(&[], json!(3)).is_err());
        assert_eq!(d.to_string(), CODEX);
    }

    #[test]
    fn idempotent_set_is_byte_identical() {
        let mut d = doc(CODEX);
        assert!(!d.set(&["model"], json!("gpt-5-codex")).unwrap());
        assert!(
            !d.set(
                &["mcp_servers", "github", "env"],
                json!({"GITHUB_TOKEN": "ghp-x"})
            )
            .unwrap()
        );
        assert!(
            !d.merge(
                &["model_providers"],
                json!({"autonomous": {"wire_api": "responses"}})
            )
            .unwrap()
        );
        let whole = d.value();
        assert!(!d.set(&[], whole).unwrap());
        assert_eq!(d.to_string(), CODEX);
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "a = 1 # one\r\n\r\n[t]\r\nb = 2\r\n";
        let mut d = doc(text);
        assert_eq!(d.to_string(), text);
        d.set(&["t", "c"], json!(3)).unwrap();
        d.set(&["u", "v"], json!({"w": 1})).unwrap();
        let out = d.to_string();
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
        assert!(
            out.starts_with("a = 1 # one\r\n\r\n[t]\r\nb = 2\r\nc = 3\r\n"),
            "{out:?}"
        );
    }

    #[test]
    fn malformed_files_are_refused_with_their_line() {
        for (text, line) in [
            ("model = \"x\"\n[tools\nweb = true\n", 2),
            ("a = 1\nb = \n", 2),
            ("a = 1\n\n[t]\nk = 1\nk = 2\n", 5),
            ("a = \"unterminated\n", 1),
        ] {
            let e = TomlDoc::parse(text, "/root/.codex/config.toml").unwrap_err();
            assert_eq!(e.code, "parse_error", "{text:?}");
            let loc = e.location.as_ref().unwrap();
            assert_eq!(loc.file, "/root/.codex/config.toml");
            assert_eq!(loc.line, Some(line), "{text:?}: {e}");
        }
    }
}
