//! JSON / JSONC / JSON5-subset editor on jsonc-parser's concrete syntax tree.
//!
//! [`JsonDoc`] edits the JSON files runtimes own (openclaw.json, opencode.json, picoclaw's
//! config.json, claude settings) without re-serialising them: comments (`//`, `/* */`), trailing
//! commas, indentation, key order and every key osctl does not touch stay as written. Only the
//! values at the paths osctl sets or removes change.
//!
//! - Paths are slices of object keys from the root. Arrays are values, not path steps: setting a
//!   path through an array (or any non-object) replaces it with an object, as the runtimes'
//!   presync scripts "coerce" (`.x = (.x // {})`).
//! - Setting an object or array over an existing one recurses: keys missing from the new value are
//!   removed, changed leaves are replaced, new keys are appended at the end of their object with
//!   the file's indentation. Comments inside the subtree survive. [`JsonDoc::merge`] does the same
//!   but never removes keys.
//! - Setting a value equal to the current one returns `false` and leaves the text byte-identical.
//! - Adding a key to an object written on one line (`{"a": 1}`) lays that object out over
//!   several lines (jsonc-parser's insertion does); its other lines are untouched.
//!
//! openclaw reads its file as JSON5. osctl accepts the JSON5 forms it can carry faithfully
//! (comments, trailing commas, unquoted keys, single-quoted strings, hex numbers, leading `+`,
//! bare decimal points, extended string escapes) and refuses the rest with a parse error naming
//! the line: `Infinity` / `NaN`, missing commas, duplicate keys, numbers a JSON value cannot hold
//! exactly. A refused file is never rewritten.

use std::collections::HashSet;
use std::fmt;

use jsonc_parser::ast;
use jsonc_parser::cst::{
    CstContainerNode, CstInputValue, CstLeafNode, CstNode, CstObjectProp, CstRootNode,
};
use jsonc_parser::errors::ParseError;
use jsonc_parser::{CollectOptions, ParseOptions};
use serde_json::{Map, Number, Value};

use super::line_col;
use crate::error::{Error, Result};

/// What a parse error adds about the syntax osctl edits.
const SYNTAX_NOTE: &str = "osctl edits JSON with comments and trailing commas, and the JSON5 it \
     can keep as written (unquoted keys, single-quoted strings, hex numbers); other syntax, \
     including JSON5 such as Infinity, NaN or missing commas, is refused and the file left as it is";

/// A JSON, JSONC or JSON5-subset document being edited in place.
pub struct JsonDoc {
    root: CstRootNode,
    origin: String,
}

impl fmt::Debug for JsonDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonDoc")
            .field("origin", &self.origin)
            .field("text", &self.root.to_string())
            .finish()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The value at the path becomes exactly the new value.
    Replace,
    /// Objects are merged key by key; nothing is removed.
    Merge,
}

fn parse_options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: true,
        allow_trailing_commas: true,
        // JSON5 has no missing commas: openclaw could not read such a file.
        allow_missing_commas: false,
        allow_single_quoted_strings: true,
        allow_hexadecimal_numbers: true,
        allow_unary_plus_numbers: true,
        allow_bare_decimal_point_numbers: true,
        // serde_json::Value cannot hold them.
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: true,
    }
}

impl JsonDoc {
    /// Parses `text`; `origin` (the device path) names the file in errors.
    ///
    /// An empty file (or one holding only comments) is an empty document: [`JsonDoc::value`] is
    /// `null` and the first `set` creates the root object.
    pub fn parse(text: &str, origin: &str) -> Result<JsonDoc> {
        let options = parse_options();
        let parsed = jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options)
            .map_err(|e| parse_error(origin, &e))?;
        if let Some(value) = &parsed.value {
            check_faithful(text, origin, value)?;
        }
        let root = CstRootNode::parse(text, &options).map_err(|e| parse_error(origin, &e))?;
        if root.to_string() != text {
            return Err(Error::internal(format!(
                "the JSON syntax tree of {origin} does not reproduce the file"
            )));
        }
        Ok(JsonDoc {
            root,
            origin: origin.to_string(),
        })
    }

    /// A document for a file that does not exist yet: `{}` and a final newline.
    pub fn new_object() -> JsonDoc {
        JsonDoc::parse("{}\n", "").expect("`{}` parses")
    }

    /// The device path given to [`JsonDoc::parse`].
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The whole document as a value (`null` for an empty file).
    pub fn value(&self) -> Value {
        self.root.value().map_or(Value::Null, |n| node_value(&n))
    }

    /// The value at `path`, if every step is an object holding the key.
    pub fn get(&self, path: &[&str]) -> Option<Value> {
        self.lookup(path).map(|n| node_value(&n))
    }

    /// The keys of the object at `path`, in file order; empty when absent or not an object.
    pub fn keys(&self, path: &[&str]) -> Vec<String> {
        let Some(obj) = self.lookup(path).and_then(|n| n.as_object()) else {
            return Vec::new();
        };
        obj.properties()
            .iter()
            .filter_map(|p| p.decoded_name())
            .collect()
    }

    /// Whether the text holds a `//` or `/* */` comment.
    pub fn has_comments(&self) -> bool {
        fn walk(node: &CstNode) -> bool {
            node.is_comment() || node.children().iter().any(walk)
        }
        self.root.children().iter().any(walk)
    }

    /// Sets the value at `path`; returns whether the text changed.
    ///
    /// Missing objects on the way are created; a step that exists but is not an object is
    /// replaced by one. An object or array set over an existing one is edited in place (see the
    /// module docs), so comments inside it survive.
    pub fn set(&mut self, path: &[&str], value: Value) -> bool {
        self.edit(path, &value, Mode::Replace)
    }

    /// Like [`JsonDoc::set`], but objects are merged key by key and no key is removed: every
    /// leaf of `value` is set, everything else stays.
    pub fn merge(&mut self, path: &[&str], value: Value) -> bool {
        self.edit(path, &value, Mode::Merge)
    }

    /// Removes the key at `path`; returns whether it was there. The root cannot be removed
    /// (an empty path returns `false`). Comments written above the key stay.
    pub fn remove(&mut self, path: &[&str]) -> bool {
        let Some((last, parent)) = path.split_last() else {
            return false;
        };
        let Some(obj) = self.lookup(parent).and_then(|n| n.as_object()) else {
            return false;
        };
        match obj.get(last) {
            Some(prop) => {
                prop.remove();
                true
            }
            None => false,
        }
    }

    /// The text of the document.
    #[allow(clippy::inherent_to_string_shadow_display)]
    pub fn to_string(&self) -> String {
        self.root.to_string()
    }

    fn lookup(&self, path: &[&str]) -> Option<CstNode> {
        let mut node = self.root.value()?;
        for key in path {
            node = node.as_object()?.get(key)?.value()?;
        }
        Some(node)
    }

    fn edit(&mut self, path: &[&str], value: &Value, mode: Mode) -> bool {
        if mode == Mode::Replace && self.get(path).as_ref() == Some(value) {
            return false;
        }
        let before = self.root.to_string();
        self.edit_inner(path, value, mode);
        self.root.to_string() != before
    }

    fn edit_inner(&self, path: &[&str], value: &Value, mode: Mode) {
        if path.is_empty() {
            match self.root.value() {
                Some(node) => set_node(&Slot::Root(self.root.clone()), node, value, mode),
                None => self.root.set_value(input(value)),
            }
            return;
        }
        let mut obj = self.root.object_value_or_set();
        for (i, key) in path.iter().enumerate() {
            let rest = &path[i + 1..];
            let Some(prop) = obj.get(key) else {
                obj.append(key, nested_input(rest, value));
                return;
            };
            if rest.is_empty() {
                match prop.value() {
                    Some(node) => set_node(&Slot::Prop(prop), node, value, mode),
                    None => prop.set_value(input(value)),
                }
                return;
            }
            obj = prop.object_value_or_set();
        }
    }
}

impl fmt::Display for JsonDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.root)
    }
}

/// Where a value node sits, so it can be replaced with the right indentation.
enum Slot {
    Root(CstRootNode),
    Prop(CstObjectProp),
    Element(CstNode),
}

impl Slot {
    fn replace(&self, new: CstInputValue) {
        match self {
            Slot::Root(root) => root.set_value(new),
            Slot::Prop(prop) => prop.set_value(new),
            Slot::Element(node) => replace_node(node.clone(), new),
        }
    }
}

fn replace_node(node: CstNode, new: CstInputValue) {
    match node {
        CstNode::Container(CstContainerNode::Object(n)) => {
            n.replace_with(new);
        }
        CstNode::Container(CstContainerNode::Array(n)) => {
            n.replace_with(new);
        }
        CstNode::Leaf(CstLeafNode::StringLit(n)) => {
            n.replace_with(new);
        }
        CstNode::Leaf(CstLeafNode::NumberLit(n)) => {
            n.replace_with(new);
        }
        CstNode::Leaf(CstLeafNode::BooleanLit(n)) => {
            n.replace_with(new);
        }
        CstNode::Leaf(CstLeafNode::NullKeyword(n)) => {
            n.replace_with(new);
        }
        CstNode::Leaf(CstLeafNode::WordLit(n)) => {
            n.replace_with(new);
        }
        // Not value nodes: never reached for a value slot.
        _ => {}
    }
}

/// Makes the value in `slot` (currently `node`) equal to `value`, editing in place.
fn set_node(slot: &Slot, node: CstNode, value: &Value, mode: Mode) {
    if node_value(&node) == *value {
        return;
    }
    match (&node, value) {
        (CstNode::Container(CstContainerNode::Object(obj)), Value::Object(map)) => {
            if mode == Mode::Replace {
                for prop in obj.properties() {
                    if prop
                        .decoded_name()
                        .is_some_and(|name| !map.contains_key(&name))
                    {
                        prop.remove();
                    }
                }
            }
            for (key, sub) in map {
                match obj.get(key) {
                    Some(prop) => match prop.value() {
                        Some(child) => set_node(&Slot::Prop(prop), child, sub, mode),
                        None => prop.set_value(input(sub)),
                    },
                    None => {
                        obj.append(key, input(sub));
                    }
                }
            }
        }
        (CstNode::Container(CstContainerNode::Array(arr)), Value::Array(items)) => {
            let elements = arr.elements();
            for (element, item) in elements.iter().zip(items) {
                set_node(
                    &Slot::Element(element.clone()),
                    element.clone(),
                    item,
                    Mode::Replace,
                );
            }
            for element in elements.iter().skip(items.len()).rev() {
                element.clone().remove();
            }
            for item in items.iter().skip(elements.len()) {
                arr.append(input(item));
            }
        }
        _ => slot.replace(input(value)),
    }
}

/// `value` wrapped in one object per remaining path step.
fn nested_input(rest: &[&str], value: &Value) -> CstInputValue {
    rest.iter().rev().fold(input(value), |acc, key| {
        CstInputValue::Object(vec![(key.to_string(), acc)])
    })
}

fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// The value of a CST value node. Duplicate keys and unrepresentable numbers were refused at
/// parse time, so this is exact.
fn node_value(node: &CstNode) -> Value {
    match node {
        CstNode::Container(CstContainerNode::Object(obj)) => {
            let mut map = Map::new();
            for prop in obj.properties() {
                if let (Some(name), Some(v)) = (prop.decoded_name(), prop.value()) {
                    map.insert(name, node_value(&v));
                }
            }
            Value::Object(map)
        }
        CstNode::Container(CstContainerNode::Array(arr)) => {
            Value::Array(arr.elements().iter().map(node_value).collect())
        }
        CstNode::Leaf(CstLeafNode::StringLit(s)) => {
            Value::String(s.decoded_value().unwrap_or_else(|_| s.raw_value()))
        }
        CstNode::Leaf(CstLeafNode::NumberLit(n)) => {
            let raw = n.to_string();
            number_value(&raw).map_or(Value::String(raw), Value::Number)
        }
        CstNode::Leaf(CstLeafNode::BooleanLit(b)) => Value::Bool(b.value()),
        CstNode::Leaf(CstLeafNode::WordLit(w)) => Value::String(w.to_string()),
        _ => Value::Null,
    }
}

/// The exact value of a number literal, or `None` when a JSON value cannot hold it as written.
fn number_value(raw: &str) -> Option<Number> {
    let (negative, body) = match raw.as_bytes().first() {
        Some(b'-') => (true, &raw[1..]),
        Some(b'+') => (false, &raw[1..]),
        _ => (false, raw),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let n = u64::from_str_radix(hex, 16).ok()?;
        return if negative {
            0i64.checked_sub_unsigned(n).map(Number::from)
        } else {
            Some(Number::from(n))
        };
    }
    let mut text = String::with_capacity(body.len() + 3);
    if negative {
        text.push('-');
    }
    if body.starts_with('.') {
        text.push('0');
    }
    text.push_str(body);
    // `5.` and `5.e3` are JSON5 for `5.0` and `5.0e3`.
    let text = if let Some(stripped) = text.strip_suffix('.') {
        format!("{stripped}.0")
    } else {
        text.replace(".e", ".0e").replace(".E", ".0E")
    };
    let integer = !text.contains(['.', 'e', 'E']);
    let number: Number = serde_json::from_str(&text).ok()?;
    // serde_json reads an integer too large for 64 bits as a float: not as written.
    if integer && number.is_f64() {
        return None;
    }
    Some(number)
}

fn parse_error(origin: &str, err: &ParseError) -> Error {
    Error::parse(
        origin,
        Some(err.line_display()),
        Some(err.column_display()),
        format!("{} ({SYNTAX_NOTE})", err.kind()),
    )
}

/// Refuses what the CST could read but osctl could not edit faithfully: duplicate keys (which
/// one would a runtime read?) and numbers a JSON value cannot hold as written.
fn check_faithful(text: &str, origin: &str, value: &ast::Value<'_>) -> Result<()> {
    let refuse = |offset: usize, cause: String| {
        let (line, column) = line_col(text, offset);
        Err(Error::parse(origin, Some(line), Some(column), cause))
    };
    match value {
        ast::Value::Object(obj) => {
            let mut seen = HashSet::new();
            for prop in &obj.properties {
                let (name, start) = match &prop.name {
                    ast::ObjectPropName::String(s) => (s.value.to_string(), s.range.start),
                    ast::ObjectPropName::Word(w) => (w.value.to_string(), w.range.start),
                };
                if !seen.insert(name.clone()) {
                    return refuse(
                        start,
                        format!(
                            "duplicate key `{name}`: osctl cannot tell which one the runtime \
                             reads; remove one of them"
                        ),
                    );
                }
                check_faithful(text, origin, &prop.value)?;
            }
        }
        ast::Value::Array(arr) => {
            for element in &arr.elements {
                check_faithful(text, origin, element)?;
            }
        }
        ast::Value::NumberLit(n) => {
            if number_value(n.value).is_none() {
                return refuse(
                    n.range.start,
                    format!(
                        "number `{}` cannot be kept exactly (outside the 64-bit range) ({SYNTAX_NOTE})",
                        n.value
                    ),
                );
            }
        }
        ast::Value::StringLit(_) | ast::Value::BooleanLit(_) | ast::Value::NullKeyword(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::testutil::assert_diff;
    use serde_json::json;

    const OPENCLAW: &str = r#"{
  // openclaw config, edited by hand
  "gateway": {
    "mode": "local",
    "bind": "loopback",
    "port": 18789, // do not change
  },
  /* providers */
  "models": {
    "providers": {
      "autonomous": {
        "baseUrl": "https://campaign-api.autonomous.ai/api/v1/ai",
        "apiKey": "sk-old", // rotated monthly
        "models": ["Auto-AI"],
      },
    },
  },
  "mcp": {
    "servers": {
      // the owner's own server
      "github": {"command": "gh-mcp", "args": ["--stdio"]},
    },
  },
  "ownerKey": true,
}
"#;

    fn doc(text: &str) -> JsonDoc {
        JsonDoc::parse(text, "/root/.openclaw/openclaw.json").unwrap()
    }

    #[test]
    fn reads_values_and_keys() {
        let d = doc(OPENCLAW);
        assert_eq!(d.get(&["gateway", "port"]), Some(json!(18789)));
        assert_eq!(
            d.get(&["models", "providers", "autonomous", "models"]),
            Some(json!(["Auto-AI"]))
        );
        assert_eq!(d.get(&["missing"]), None);
        assert_eq!(d.get(&["gateway", "port", "deeper"]), None);
        assert_eq!(d.keys(&[]), ["gateway", "models", "mcp", "ownerKey"]);
        assert_eq!(d.keys(&["gateway"]), ["mode", "bind", "port"]);
        assert!(d.keys(&["ownerKey"]).is_empty());
        assert!(d.has_comments());
        assert_eq!(
            d.value()["mcp"]["servers"]["github"]["args"],
            json!(["--stdio"])
        );
        assert_eq!(d.to_string(), OPENCLAW);
    }

    #[test]
    fn set_existing_key_replaces_only_its_value() {
        let mut d = doc(OPENCLAW);
        assert!(d.set(
            &["models", "providers", "autonomous", "apiKey"],
            json!("sk-new")
        ));
        assert_diff(
            OPENCLAW,
            &d.to_string(),
            &[r#"        "apiKey": "sk-old", // rotated monthly"#],
            &[r#"        "apiKey": "sk-new", // rotated monthly"#],
        );
        assert_eq!(
            d.get(&["models", "providers", "autonomous", "apiKey"]),
            Some(json!("sk-new"))
        );
    }

    #[test]
    fn set_new_key_appends_with_sibling_indentation() {
        let mut d = doc(OPENCLAW);
        let notion = json!({
            "type": "http",
            "url": "https://mcp.notion.com/mcp",
            "headers": {"Authorization": "Bearer tok"}
        });
        assert!(d.set(&["mcp", "servers", "notion"], notion.clone()));
        let expected = OPENCLAW.replace(
            r#"      "github": {"command": "gh-mcp", "args": ["--stdio"]},
"#,
            r#"      "github": {"command": "gh-mcp", "args": ["--stdio"]},
      "notion": {
        "type": "http",
        "url": "https://mcp.notion.com/mcp",
        "headers": {
          "Authorization": "Bearer tok",
        },
      },
"#,
        );
        assert_eq!(d.to_string(), expected);
        assert_eq!(d.get(&["mcp", "servers", "notion"]), Some(notion));
        // the owner's server and every comment are still there
        assert!(d.to_string().contains("// the owner's own server"));
        assert!(JsonDoc::parse(&d.to_string(), "x").is_ok());
    }

    #[test]
    fn set_equal_value_is_a_byte_identical_no_op() {
        let mut d = doc(OPENCLAW);
        assert!(!d.set(&["gateway", "port"], json!(18789)));
        assert!(!d.set(
            &["mcp", "servers", "github"],
            json!({"command": "gh-mcp", "args": ["--stdio"]})
        ));
        let whole = d.value();
        assert!(!d.set(&[], whole));
        assert!(!d.merge(&["gateway"], json!({"mode": "local"})));
        assert_eq!(d.to_string(), OPENCLAW);
    }

    #[test]
    fn set_is_idempotent_after_a_change() {
        let mut d = doc(OPENCLAW);
        let v = json!({"enabled": true, "list": [1, 2]});
        assert!(d.set(&["tools", "web"], v.clone()));
        let once = d.to_string();
        assert!(!d.set(&["tools", "web"], v));
        assert_eq!(d.to_string(), once);
    }

    #[test]
    fn creates_missing_intermediates_and_coerces_non_objects() {
        let mut d = doc(OPENCLAW);
        assert!(d.set(&["ownerKey", "nested"], json!(1)));
        assert_eq!(d.get(&["ownerKey"]), Some(json!({"nested": 1})));
        assert!(d.set(&["a", "b", "c"], json!("d")));
        assert_eq!(d.get(&["a"]), Some(json!({"b": {"c": "d"}})));
        assert_eq!(d.keys(&[]), ["gateway", "models", "mcp", "ownerKey", "a"]);
    }

    #[test]
    fn setting_an_object_recurses_and_keeps_inner_comments() {
        let mut d = doc(OPENCLAW);
        assert!(d.set(
            &["gateway"],
            json!({"mode": "local", "bind": "lan", "port": 18789, "auth": {"mode": "token"}})
        ));
        let text = d.to_string();
        assert!(
            text.contains(r#""port": 18789, // do not change"#),
            "{text}"
        );
        assert!(text.contains(r#""bind": "lan","#), "{text}");
        assert_eq!(
            d.get(&["gateway"]),
            Some(json!({"mode": "local", "bind": "lan", "port": 18789, "auth": {"mode": "token"}}))
        );
        // keys missing from the new object are removed, with set (not with merge)
        assert!(d.set(&["gateway"], json!({"mode": "local"})));
        assert_eq!(d.get(&["gateway"]), Some(json!({"mode": "local"})));
        assert!(d.merge(
            &["models", "providers", "autonomous"],
            json!({"apiKey": "k2"})
        ));
        assert_eq!(
            d.get(&["models", "providers", "autonomous", "baseUrl"]),
            Some(json!("https://campaign-api.autonomous.ai/api/v1/ai"))
        );
        assert_eq!(
            d.get(&["models", "providers", "autonomous", "apiKey"]),
            Some(json!("k2"))
        );
    }

    #[test]
    fn arrays_are_edited_element_by_element() {
        let text =
            "{\n  \"args\": [\n    \"-y\", // package runner flag\n    \"old-pkg\"\n  ]\n}\n";
        let mut d = doc(text);
        assert!(d.set(&["args"], json!(["-y", "new-pkg", "--stdio"])));
        assert_eq!(d.get(&["args"]), Some(json!(["-y", "new-pkg", "--stdio"])));
        assert!(
            d.to_string().contains("// package runner flag"),
            "{}",
            d.to_string()
        );
        assert!(d.set(&["args"], json!(["-y"])));
        assert_eq!(d.get(&["args"]), Some(json!(["-y"])));
        assert!(JsonDoc::parse(&d.to_string(), "x").is_ok());
    }

    #[test]
    fn remove_drops_only_that_key() {
        let mut d = doc(OPENCLAW);
        assert!(d.remove(&["mcp", "servers", "github"]));
        assert!(!d.remove(&["mcp", "servers", "github"]));
        assert!(!d.remove(&["nope", "deeper"]));
        assert!(!d.remove(&[]));
        assert_diff(
            OPENCLAW,
            &d.to_string(),
            &[r#"      "github": {"command": "gh-mcp", "args": ["--stdio"]},"#],
            &[],
        );
        assert_eq!(d.get(&["mcp", "servers"]), Some(json!({})));
    }

    #[test]
    fn detects_four_space_and_tab_indentation() {
        let mut d = doc("{\n    \"a\": {\n        \"b\": 1\n    }\n}\n");
        d.set(&["a", "c"], json!({"d": true}));
        assert_eq!(
            d.to_string(),
            "{\n    \"a\": {\n        \"b\": 1,\n        \"c\": {\n            \"d\": true\n        }\n    }\n}\n"
        );
        let mut d = doc("{\n\t\"a\": 1\n}\n");
        d.set(&["b"], json!(2));
        assert_eq!(d.to_string(), "{\n\t\"a\": 1,\n\t\"b\": 2\n}\n");
    }

    #[test]
    fn strict_json_stays_strict_json() {
        let text = "{\n  \"model_list\": [],\n  \"tools\": {\"mcp\": {\"enabled\": false}}\n}\n";
        let mut d = doc(text);
        assert!(!d.has_comments());
        d.set(&["tools", "mcp", "enabled"], json!(true));
        d.set(
            &["tools", "mcp", "servers", "notion"],
            json!({"url": "https://x"}),
        );
        let out = d.to_string();
        let strict: Value = serde_json::from_str(&out).expect("still strict JSON");
        assert_eq!(
            strict["tools"]["mcp"]["servers"]["notion"]["url"],
            json!("https://x")
        );
        assert!(out.ends_with("}\n"));
    }

    #[test]
    fn new_object_and_final_newline() {
        let mut d = JsonDoc::new_object();
        assert_eq!(d.to_string(), "{}\n");
        assert_eq!(d.value(), json!({}));
        d.set(&["mcpServers", "x"], json!({"command": "y"}));
        assert_eq!(
            d.to_string(),
            "{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"y\"\n    }\n  }\n}\n"
        );
        let mut d = doc("{\"a\": 1}");
        d.set(&["a"], json!(2));
        assert_eq!(d.to_string(), "{\"a\": 2}");
    }

    #[test]
    fn empty_file_is_an_empty_document() {
        let mut d = doc("");
        assert_eq!(d.value(), Value::Null);
        assert!(d.set(&["a"], json!(1)));
        assert_eq!(d.value(), json!({"a": 1}));
        let d = doc("// nothing yet\n");
        assert_eq!(d.value(), Value::Null);
    }

    #[test]
    fn json5_forms_it_can_carry() {
        let text = "{\n  // json5\n  unquoted: 'single',\n  hex: 0x1F,\n  plus: +3,\n  half: .5,\n  'quoted key': 1,\n}\n";
        let mut d = doc(text);
        assert_eq!(
            d.value(),
            json!({"unquoted": "single", "hex": 31, "plus": 3, "half": 0.5, "quoted key": 1})
        );
        assert!(!d.set(&["hex"], json!(31)));
        assert!(!d.set(&["unquoted"], json!("single")));
        assert_eq!(d.to_string(), text);
        assert!(d.set(&["unquoted"], json!("double")));
        assert!(d.to_string().contains("unquoted: \"double\","));
        assert!(d.set(&["quoted key"], json!(2)));
        assert!(d.to_string().contains("'quoted key': 2,"));
    }

    fn parse_err(text: &str) -> Error {
        JsonDoc::parse(text, "/root/.openclaw/openclaw.json").unwrap_err()
    }

    #[test]
    fn malformed_files_are_refused_with_their_line() {
        let e = parse_err("{\n  \"a\": 1,\n  \"b\": [1, 2\n}\n");
        assert_eq!(e.code, "parse_error");
        let loc = e.location.clone().unwrap();
        assert_eq!(loc.file, "/root/.openclaw/openclaw.json");
        assert_eq!(loc.line, Some(4));
        assert!(e.message.contains("/root/.openclaw/openclaw.json"));

        // JSON5 osctl does not edit
        let e = parse_err("{\n  \"a\": 1,\n  \"b\": Infinity\n}\n");
        assert_eq!(e.code, "parse_error");
        assert_eq!(e.location.as_ref().unwrap().line, Some(3));
        assert!(e.to_string().contains("JSON5"), "{e}");
        let e = parse_err("{\n  \"a\": 1\n  \"b\": 2\n}\n");
        assert_eq!(e.location.as_ref().unwrap().line, Some(2));

        // duplicate keys and numbers a JSON value cannot hold
        let e = parse_err("{\n  \"a\": 1,\n  a: 2\n}\n");
        assert_eq!(
            (e.code, e.location.as_ref().unwrap().line),
            ("parse_error", Some(3))
        );
        assert!(e.to_string().contains("duplicate key `a`"));
        let e = parse_err("{\n  \"big\": 123456789012345678901234567890\n}\n");
        assert_eq!(e.location.as_ref().unwrap().line, Some(2));
        let e = parse_err("{\n  \"x\": 0x1FFFFFFFFFFFFFFFFF\n}");
        assert_eq!(e.location.as_ref().unwrap().line, Some(2));
    }

    #[test]
    fn number_literals() {
        assert_eq!(number_value("-0x10"), Some(Number::from(-16)));
        assert_eq!(number_value("5."), serde_json::from_str("5.0").ok());
        assert_eq!(number_value("5.e2"), serde_json::from_str("500.0").ok());
        assert_eq!(number_value("-.25"), serde_json::from_str("-0.25").ok());
        assert_eq!(
            number_value("18446744073709551615"),
            Some(Number::from(u64::MAX))
        );
        assert_eq!(number_value("18446744073709551616"), None);
        assert_eq!(number_value("1e400"), None);
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let text = "{\r\n  \"a\": 1\r\n}\r\n";
        let mut d = doc(text);
        d.set(&["b"], json!({"c": 2}));
        let out = d.to_string();
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
    }
}
