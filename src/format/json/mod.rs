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
//! - An object or array written on one line (`{"a": 1}`) stays on one line when a key or item
//!   is added to it (or below it), in its own spacing (jsonc-parser alone would lay it out over
//!   several lines). An empty `{}` or `[]` that gains content is laid out over several lines.
//!
//! **Dialects** ([`Dialect`], from the runtime's declared format): what osctl accepts is what
//! the runtime's own reader accepts, so it never edits a file the runtime could not read.
//!
//! - strict JSON (picoclaw, Claude Code): no comments, trailing commas, single quotes, unquoted
//!   keys, hex, `+1`, `.5`, leading zeros, raw control characters in strings or byte order mark;
//! - JSONC (opencode, which reads it with jsonc-parser and `allowTrailingComma`): JSON plus
//!   comments and trailing commas, nothing else (checked against opencode 1.18);
//! - JSON5 (openclaw, which reads it with the json5 package): comments, trailing commas,
//!   unquoted keys (names: letters, digits, `_`, `$`), single-quoted strings, hex numbers, a
//!   leading `+`, `.5` and `5.`, JSON5 escapes and line continuations, JSON5's blanks and a
//!   byte order mark are read and kept as written; `Infinity`, `NaN` and integers beyond 64
//!   bits are refused (a JSON value cannot hold them, so osctl could not keep them exactly).
//!
//! In every dialect a key written twice in one object is refused, naming the key and both
//! lines (which one would the runtime read?). Errors are osctl's own words, with the line and
//! column. A refused file is never rewritten.
//!
//! **Parts.** This file owns the document and its CST editor (setting, merging and removing
//! values at a path, and reading them back); `read` owns the dialects and parsing (what each
//! runtime's reader accepts, and osctl's words for what it refuses); `layout` keeps a container
//! written on one line on one line when an edit adds to it.

use std::fmt;

use jsonc_parser::cst::{
    CstContainerNode, CstInputValue, CstLeafNode, CstNode, CstObjectProp, CstRootNode,
};
use serde_json::{Map, Number, Value};

mod layout;
mod read;

use layout::OneLine;

pub use read::Dialect;

/// A JSON, JSONC or JSON5-subset document being edited in place.
pub struct JsonDoc {
    root: CstRootNode,
    origin: String,
    /// A JSON5 file's byte order mark (JSON5 reads it as a blank), kept in front of the text.
    bom: bool,
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

impl JsonDoc {
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
                let one_line: Vec<OneLine> = self
                    .lookup(parent)
                    .and_then(|n| OneLine::of(&n))
                    .into_iter()
                    .collect();
                prop.remove();
                for container in &one_line {
                    container.restore();
                }
                true
            }
            None => false,
        }
    }

    /// The text of the document.
    #[allow(clippy::inherent_to_string_shadow_display)]
    pub fn to_string(&self) -> String {
        let text = self.root.to_string();
        if self.bom {
            format!("\u{feff}{text}")
        } else {
            text
        }
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
        let one_line = OneLine::reached(&self.root, path);
        self.edit_inner(path, value, mode);
        for container in &one_line {
            container.restore();
        }
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
        f.write_str(&JsonDoc::to_string(self))
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
    // `-0` is the integer 0 to every reader osctl writes for
    if integer && text.trim_start_matches('-').bytes().all(|b| b == b'0') {
        return Some(Number::from(0));
    }
    let number: Number = serde_json::from_str(&text).ok()?;
    // serde_json reads an integer too large for 64 bits as a float: not as written.
    if integer && number.is_f64() {
        return None;
    }
    Some(number)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
