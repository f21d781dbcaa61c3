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

use std::collections::HashMap;
use std::fmt;

use jsonc_parser::ast;
use jsonc_parser::cst::{
    CstContainerNode, CstInputValue, CstLeafNode, CstNode, CstObjectProp, CstRootNode,
};
use jsonc_parser::errors::ParseError;
use jsonc_parser::tokens::{Token, TokenAndRange};
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};
use serde_json::{Map, Number, Value};

use super::line_col;
use crate::error::{Error, Result};

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

/// A non-empty object or array written on one line, as it was before an edit: jsonc-parser lays
/// a container it inserts into out over several lines, so osctl puts it back on its line.
struct OneLine {
    node: CstNode,
    /// The blanks after its `{` / `[` and before its `}` / `]`.
    open: String,
    close: String,
    /// The blanks after its first comma (between items), `" "` when it has one item.
    between: String,
    trailing_comma: bool,
    /// Its ancestors, held so that asking whether it is still in the document never follows a
    /// parent an edit has dropped.
    _ancestors: Vec<CstContainerNode>,
}

impl OneLine {
    fn of(node: &CstNode) -> Option<OneLine> {
        let text = node.to_string();
        let empty = match node {
            CstNode::Container(CstContainerNode::Object(o)) => o.properties().is_empty(),
            CstNode::Container(CstContainerNode::Array(a)) => a.elements().is_empty(),
            _ => return None,
        };
        if empty || text.contains('\n') {
            return None;
        }
        let inner = &text[1..text.len() - 1];
        let open = inner[..inner.len() - inner.trim_start().len()].to_string();
        let close = inner[inner.trim_end().len()..].to_string();
        let between = node
            .children()
            .iter()
            .position(CstNode::is_comma)
            .and_then(|i| node.children().get(i + 1).and_then(CstNode::as_whitespace))
            .map_or_else(
                || {
                    let one = node.children().iter().filter(|c| c.is_comma()).count() == 0
                        || inner.trim_end().ends_with(',');
                    if one { " ".to_string() } else { String::new() }
                },
                |ws| ws.value(),
            );
        Some(OneLine {
            _ancestors: node.ancestors().collect(),
            between,
            node: node.clone(),
            trailing_comma: inner.trim_end().ends_with(','),
            open,
            close,
        })
    }

    /// The outermost one-line containers an edit at `path` can reach: the first on the path, or
    /// else those inside the value at the path.
    fn reached(root: &CstRootNode, path: &[&str]) -> Vec<OneLine> {
        let Some(mut node) = root.value() else {
            return Vec::new();
        };
        for key in path {
            if let Some(one) = OneLine::of(&node) {
                return vec![one];
            }
            match node
                .as_object()
                .and_then(|o| o.get(key))
                .and_then(|p| p.value())
            {
                Some(next) => node = next,
                None => return Vec::new(),
            }
        }
        let mut found = Vec::new();
        fn walk(node: &CstNode, found: &mut Vec<OneLine>) {
            match OneLine::of(node) {
                Some(one) => found.push(one),
                None => {
                    for child in node.children() {
                        if matches!(child, CstNode::Container(_)) {
                            walk(&child, found);
                        }
                    }
                }
            }
        }
        walk(&node, &mut found);
        found
    }

    /// Puts the container back on one line, if it is still in the document and holds no line
    /// comment (which would swallow what follows it).
    fn restore(&self) {
        if self.node.root_node().is_none() {
            return;
        }
        if !self.node.to_string().contains('\n') {
            self.pad(&self.node);
            return;
        }
        fn has_line_comment(node: &CstNode) -> bool {
            node.as_comment().is_some_and(|c| c.is_line_comment())
                || node.children().iter().any(has_line_comment)
        }
        if has_line_comment(&self.node) {
            return;
        }
        self.flatten(&self.node, true);
    }

    /// The blanks after the opening brace as they were (removing the first item leaves the
    /// blank that followed its comma there).
    fn pad(&self, container: &CstNode) {
        let children = container.children();
        let Some(open) = children
            .iter()
            .position(|c| matches!(c.token_char(), Some('{' | '[')))
        else {
            return;
        };
        if let Some(ws) = children.get(open + 1).and_then(CstNode::as_whitespace)
            && ws.value() != self.open
        {
            if self.open.is_empty() {
                ws.remove();
            } else {
                ws.set_value(self.open.clone());
            }
        }
    }

    fn flatten(&self, container: &CstNode, outer: bool) {
        let children = container.children();
        let significant = |i: usize, step: isize| -> Option<CstNode> {
            let mut j = i as isize + step;
            while j >= 0 && (j as usize) < children.len() {
                let c = &children[j as usize];
                if !(c.is_whitespace() || c.is_newline()) {
                    return Some(c.clone());
                }
                j += step;
            }
            None
        };
        for (i, child) in children.iter().enumerate() {
            if matches!(child, CstNode::Container(_)) {
                self.flatten(child, false);
                continue;
            }
            let Some(newline) = child.as_newline() else {
                continue;
            };
            let next = significant(i, 1).and_then(|n| n.token_char());
            let prev = significant(i, -1).and_then(|n| n.token_char());
            let blank = match (prev, next) {
                (_, Some('}' | ']')) if outer => self.close.clone(),
                (Some('{' | '['), _) if outer => self.open.clone(),
                (_, Some('}' | ']')) | (Some('{' | '['), _) => String::new(),
                _ => self.between.clone(),
            };
            // the indentation after the line break becomes the blank; before it, none
            let mut rest = children[i + 1..].iter();
            let mut set = false;
            for c in rest.by_ref() {
                match c.as_whitespace() {
                    Some(ws) if !set => {
                        ws.set_value(blank.clone());
                        set = true;
                    }
                    Some(ws) => ws.remove(),
                    None => break,
                }
            }
            if !set && !blank.is_empty() {
                // no indentation to reuse: use the blanks before the line break
                if let Some(ws) = i.checked_sub(1).and_then(|j| children[j].as_whitespace()) {
                    ws.set_value(blank.clone());
                }
            } else if let Some(ws) = i.checked_sub(1).and_then(|j| children[j].as_whitespace()) {
                ws.remove();
            }
            newline.remove();
        }
        if outer {
            self.pad(container);
        }
        if outer && !self.trailing_comma {
            // jsonc-parser adds a comma after the last item in files that use them
            let children = container.children();
            let close = children
                .iter()
                .rposition(|c| matches!(c.token_char(), Some('}' | ']')));
            if let Some(close) = close
                && let Some(comma) = children[..close]
                    .iter()
                    .rev()
                    .find(|c| !(c.is_whitespace() || c.is_newline()))
                && comma.is_comma()
                && let Some(token) = comma.as_token()
            {
                token.remove();
            }
        }
    }
}

/// Which JSON a file is read as. The runtime's own reader decides, so a file osctl accepts is
/// one the runtime can read, and osctl never writes into one it cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Strict JSON (RFC 8259): picoclaw (Go's encoding/json), Claude Code (JSON.parse).
    Json,
    /// JSON plus `//` and `/* */` comments and trailing commas, nothing else: opencode reads its
    /// file with jsonc-parser and refuses unquoted keys, single quotes, hex numbers, `+1`.
    Jsonc,
    /// JSON5, as openclaw reads it (the json5 package), less what a JSON value cannot hold
    /// exactly: `Infinity`, `NaN` and integers beyond 64 bits are refused.
    Json5,
}

impl Dialect {
    fn options(self) -> ParseOptions {
        let json5 = self == Dialect::Json5;
        ParseOptions {
            allow_comments: self != Dialect::Json,
            allow_loose_object_property_names: json5,
            allow_trailing_commas: self != Dialect::Json,
            // no dialect has missing commas
            allow_missing_commas: false,
            allow_single_quoted_strings: json5,
            allow_hexadecimal_numbers: json5,
            allow_unary_plus_numbers: json5,
            allow_bare_decimal_point_numbers: json5,
            // serde_json::Value cannot hold them
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: json5,
        }
    }

    /// Who reads the file so, for messages.
    fn reader(self) -> &'static str {
        match self {
            Dialect::Json => {
                "this file is strict JSON (its runtime reads it with a strict JSON parser)"
            }
            Dialect::Jsonc => {
                "this file is JSON with comments and trailing commas only (what opencode reads)"
            }
            Dialect::Json5 => "this file is JSON5 (what openclaw reads)",
        }
    }

    /// JSON5's whitespace, else JSON's.
    fn is_space(self, c: char) -> bool {
        matches!(c, ' ' | '\t' | '\n' | '\r')
            || self == Dialect::Json5
                && (matches!(
                    c,
                    '\u{0b}' | '\u{0c}' | '\u{a0}' | '\u{feff}' | '\u{2028}' | '\u{2029}'
                ) || c.is_whitespace() && !c.is_control())
    }
}

impl JsonDoc {
    /// Parses `text` as JSON5 (the most the editor reads); `origin` (the device path) names the
    /// file in errors. See [`JsonDoc::parse_as`].
    pub fn parse(text: &str, origin: &str) -> Result<JsonDoc> {
        JsonDoc::parse_as(text, origin, Dialect::Json5)
    }

    /// Parses `text` as `dialect`; `origin` (the device path) names the file in errors, which
    /// give the line and column and say what is wrong in osctl's words.
    ///
    /// An empty file (or one holding only comments and blanks) is an empty document:
    /// [`JsonDoc::value`] is `null` and the first `set` creates the root object.
    pub fn parse_as(text: &str, origin: &str, dialect: Dialect) -> Result<JsonDoc> {
        let (bom, text) = match text.strip_prefix('\u{feff}') {
            Some(rest) if dialect == Dialect::Json5 => (true, rest),
            Some(_) => {
                return Err(Error::parse(
                    origin,
                    Some(1),
                    Some(1),
                    format!("a byte order mark at the start: {}", dialect.reader()),
                ));
            }
            None => (false, text),
        };
        let options = dialect.options();
        let collect = CollectOptions {
            comments: CommentCollectionStrategy::AsTokens,
            tokens: true,
        };
        let parsed = jsonc_parser::parse_to_ast(text, &collect, &options)
            .map_err(|e| parse_error(text, origin, &e, dialect))?;
        let check = Check {
            text,
            origin,
            dialect,
        };
        check.blanks(parsed.tokens.as_deref().unwrap_or_default())?;
        if let Some(value) = &parsed.value {
            check.value(value)?;
        }
        let root = CstRootNode::parse(text, &options)
            .map_err(|e| parse_error(text, origin, &e, dialect))?;
        if root.to_string() != text {
            return Err(Error::internal(format!(
                "the JSON syntax tree of {origin} does not reproduce the file"
            )));
        }
        Ok(JsonDoc {
            root,
            origin: origin.to_string(),
            bom,
        })
    }
}

/// A jsonc-parser error in osctl's words: what is wrong at that line and column.
fn parse_error(text: &str, origin: &str, err: &ParseError, dialect: Dialect) -> Error {
    use jsonc_parser::ParseStringErrorKind as S;
    use jsonc_parser::errors::ParseErrorKind as K;
    let not_here = |what: &str| format!("{what}, which is not allowed here: {}", dialect.reader());
    let cause = match err.kind() {
        K::CommentsNotAllowed => not_here("a comment"),
        K::TrailingCommasNotAllowed => not_here("a comma after the last item"),
        K::SingleQuotedStringsNotAllowed => not_here("a single-quoted string"),
        K::HexadecimalNumbersNotAllowed => not_here("a hexadecimal number"),
        K::UnaryPlusNumbersNotAllowed => not_here("a number with a leading `+`"),
        K::BareDecimalPointNumbersNotAllowed => {
            not_here("a number with no digit before or after its `.`")
        }
        K::ExpectedStringObjectProperty => match dialect {
            Dialect::Json5 => "an object key that is not a string or a name".to_string(),
            _ => not_here("an object key without double quotes"),
        },
        K::NonFiniteNumbersNotAllowed => format!(
            "`Infinity` or `NaN`, which osctl cannot keep exactly ({})",
            dialect.reader()
        ),
        K::ExpectedColonAfterObjectKey => "an object key with no `:` after it".to_string(),
        K::ExpectedObjectValue => "an object key with no value after its `:`".to_string(),
        K::ExpectedDigit
        | K::ExpectedDigitFollowingNegativeSign
        | K::ExpectedPlusMinusOrDigitInNumberLiteral => "a number with a digit missing".to_string(),
        K::ExpectedComma => "two values with no comma between them".to_string(),
        K::MultipleRootJsonValues => "more text after the end of the document".to_string(),
        K::UnexpectedCloseBrace => "a `}` that closes nothing".to_string(),
        K::UnexpectedCloseBracket => "a `]` that closes nothing".to_string(),
        K::UnexpectedColon => "a `:` where none belongs".to_string(),
        K::UnexpectedComma => "a comma where none belongs (two in a row, or one first)".to_string(),
        K::UnexpectedWord
            if matches!(
                text.get(err.range().start..err.range().end),
                Some("Infinity" | "-Infinity" | "+Infinity" | "NaN" | "-NaN" | "+NaN")
            ) =>
        {
            format!(
                "`Infinity` or `NaN`, which osctl cannot keep exactly ({})",
                dialect.reader()
            )
        }
        K::UnexpectedWord => match dialect {
            Dialect::Json5 => "a word that is not a value: text needs quotes".to_string(),
            _ => "a word that is not a value: text needs double quotes".to_string(),
        },
        K::UnexpectedToken | K::UnexpectedTokenInObject => {
            "a character that does not belong here".to_string()
        }
        K::UnterminatedArray => "an array with no closing `]`".to_string(),
        K::UnterminatedObject => "an object with no closing `}`".to_string(),
        K::UnterminatedCommentBlock => "a `/*` comment with no closing `*/`".to_string(),
        K::NestingDepthExceeded => "objects or arrays nested too deep to read".to_string(),
        K::String(S::UnterminatedStringLiteral) => {
            "a string with no closing quote on its line".to_string()
        }
        K::String(S::ExpectedFourHexDigits) => {
            "a \\u escape without four hexadecimal digits".to_string()
        }
        K::String(S::ExpectedTwoHexDigits) => {
            "a \\x escape without two hexadecimal digits".to_string()
        }
        K::String(S::InvalidUnicodeEscapeSequence(_)) => {
            "a \\u escape that is not a character (a lone surrogate)".to_string()
        }
        K::String(_) => format!(
            "a backslash that starts no valid escape (write a backslash as \\\\; {})",
            dialect.reader()
        ),
        _ => "this is not valid JSON".to_string(),
    };
    let (line, column) = line_col(text, err.range().start);
    Error::parse(origin, Some(line), Some(column), cause)
}

/// What the parser lets through but the dialect's reader refuses, or osctl could not edit
/// faithfully.
struct Check<'a> {
    text: &'a str,
    origin: &'a str,
    dialect: Dialect,
}

impl Check<'_> {
    fn refuse(&self, offset: usize, cause: String) -> Result<()> {
        let (line, column) = line_col(self.text, offset);
        Err(Error::parse(self.origin, Some(line), Some(column), cause))
    }

    /// Only the dialect's whitespace between tokens (JSON has no vertical tab, say).
    fn blanks(&self, tokens: &[TokenAndRange<'_>]) -> Result<()> {
        if self.dialect == Dialect::Json
            && let Some(comment) = tokens
                .iter()
                .find(|t| matches!(t.token, Token::CommentLine(_) | Token::CommentBlock(_)))
        {
            return self.refuse(
                comment.range.start,
                format!(
                    "a comment, which is not allowed here: {}",
                    self.dialect.reader()
                ),
            );
        }
        let mut at = 0;
        let gaps = tokens
            .iter()
            .map(|t| (t.range.start, t.range.end))
            .chain([(self.text.len(), self.text.len())]);
        for (start, end) in gaps {
            if let Some((i, c)) = self.text[at..start]
                .char_indices()
                .find(|&(_, c)| !self.dialect.is_space(c))
            {
                let what = if c == '\u{feff}' {
                    "a byte order mark".to_string()
                } else {
                    format!("the character U+{:04X}", c as u32)
                };
                return self.refuse(
                    at + i,
                    format!("{what} between values: {}", self.dialect.reader()),
                );
            }
            at = end.max(at);
        }
        Ok(())
    }

    fn value(&self, value: &ast::Value<'_>) -> Result<()> {
        match value {
            ast::Value::Object(obj) => {
                let mut seen: HashMap<String, usize> = HashMap::new();
                for prop in &obj.properties {
                    let (name, start) = match &prop.name {
                        ast::ObjectPropName::String(s) => {
                            self.string(s)?;
                            (s.value.to_string(), s.range.start)
                        }
                        ast::ObjectPropName::Word(w) => {
                            if !is_identifier(w.value) {
                                return self.refuse(
                                    w.range.start,
                                    format!(
                                        "the key `{}` must be quoted: an unquoted key is a name \
                                         (letters, digits, `_` and `$`, not starting with a \
                                         digit)",
                                        w.value
                                    ),
                                );
                            }
                            (w.value.to_string(), w.range.start)
                        }
                    };
                    if let Some(first) = seen.insert(name.clone(), start) {
                        let (first_line, _) = line_col(self.text, first);
                        let (line, _) = line_col(self.text, start);
                        return self.refuse(
                            start,
                            format!(
                                "the key `{name}` is written twice in one object (lines \
                                 {first_line} and {line}): osctl cannot tell which one the \
                                 runtime reads; remove one of them"
                            ),
                        );
                    }
                    self.value(&prop.value)?;
                }
            }
            ast::Value::Array(arr) => {
                for element in &arr.elements {
                    self.value(element)?;
                }
            }
            ast::Value::NumberLit(n) => self.number(n.value, n.range.start)?,
            ast::Value::StringLit(s) => self.string(s)?,
            ast::Value::BooleanLit(_) | ast::Value::NullKeyword(_) => {}
        }
        Ok(())
    }

    fn number(&self, raw: &str, start: usize) -> Result<()> {
        if !number_syntax(raw, self.dialect == Dialect::Json5) {
            return self.refuse(
                start,
                format!(
                    "`{raw}` is not a number as written: {}",
                    self.dialect.reader()
                ),
            );
        }
        if number_value(raw).is_none() {
            return self.refuse(
                start,
                format!("the number `{raw}` is outside the 64-bit range osctl can keep exactly"),
            );
        }
        Ok(())
    }

    /// A string's raw text: no control character JSON needs escaped, no line break in JSON5.
    fn string(&self, s: &ast::StringLit<'_>) -> Result<()> {
        let raw = &self.text[s.range.start..s.range.end];
        let mut escaped = false;
        for (i, c) in raw.char_indices() {
            let bad = match self.dialect {
                Dialect::Json | Dialect::Jsonc => c < ' ',
                // JSON5 allows a line break only escaped (a line continuation)
                Dialect::Json5 => !escaped && matches!(c, '\n' | '\r'),
            };
            if bad {
                return self.refuse(
                    s.range.start + i,
                    format!(
                        "a raw control character (U+{:04X}) in a string: write it as an escape \
                         such as \\n or \\t",
                        c as u32
                    ),
                );
            }
            escaped = !escaped && c == '\\';
        }
        Ok(())
    }
}

/// A number literal in the dialect's grammar: JSON's `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`,
/// or JSON5's (a sign, hex, `.5` and `5.`, but no leading zero either).
fn number_syntax(raw: &str, json5: bool) -> bool {
    let body = match raw.as_bytes().first() {
        Some(b'-') => &raw[1..],
        Some(b'+') if json5 => &raw[1..],
        _ => raw,
    };
    if json5 && let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(exp) = exponent {
        let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if !digits(exp) {
            return false;
        }
    }
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let int_ok = digits(int) && (int == "0" || !int.starts_with('0'));
    match frac {
        None => int_ok,
        Some(f) if json5 => (int_ok || int.is_empty()) && (digits(f) || f.is_empty() && int_ok),
        Some(f) => int_ok && digits(f),
    }
}

/// An ECMAScript IdentifierName (without `\u` escapes), as JSON5 allows for unquoted keys.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let start = |c: char| c == '$' || c == '_' || c.is_alphabetic();
    chars.next().is_some_and(start)
        && chars.all(|c| start(c) || c.is_alphanumeric() || matches!(c, '\u{200c}' | '\u{200d}'))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
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
        assert!(e.to_string().contains("the key `a` is written twice"));
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

    #[test]
    fn regression_one_line_objects_were_laid_out_over_several_lines() {
        let mut d = doc("{\"mcp\": {\"servers\": {\"a\": {\"command\": \"x\"}}}}\n");
        assert!(d.set(
            &["mcp", "servers", "b"],
            json!({"command": "y", "args": ["-v"], "env": {}})
        ));
        assert_eq!(
            d.to_string(),
            "{\"mcp\": {\"servers\": {\"a\": {\"command\": \"x\"}, \"b\": {\"command\": \"y\", \"args\": [\"-v\"], \"env\": {}}}}}\n"
        );
        // in a multi-line file, a one-line entry stays on its line too
        let text = "{\n  \"servers\": {\n    \"gh\": { \"command\": \"gh\" },\n  },\n}\n";
        let mut d = doc(text);
        assert!(d.set(&["servers", "gh", "args"], json!(["--stdio"])));
        assert_eq!(
            d.to_string(),
            "{\n  \"servers\": {\n    \"gh\": { \"command\": \"gh\", \"args\": [\"--stdio\"] },\n  },\n}\n"
        );
        // a one-line object inside a value that is replaced goes with it (no panic)
        let mut d = doc("{\n  \"a\": {\n    \"b\": {\"c\": 1}\n  }\n}\n");
        assert!(d.set(&["a"], json!(1)));
        assert_eq!(d.to_string(), "{\n  \"a\": 1\n}\n");
        let mut d = doc("{\n  \"a\": {\n    \"b\": {\"c\": 1}\n  }\n}\n");
        assert!(d.remove(&["a"]));
        // removing the first key keeps the blanks inside the braces
        let mut d = doc("{\"r\": 1, \"a\": 2}\n");
        assert!(d.remove(&["r"]));
        assert_eq!(d.to_string(), "{\"a\": 2}\n");
        // an empty placeholder that gains content becomes multi-line, as before
        let mut d = doc("{\n  \"servers\": {}\n}\n");
        d.set(&["servers", "a"], json!(1));
        assert_eq!(d.to_string(), "{\n  \"servers\": {\n    \"a\": 1\n  }\n}\n");
        assert!(JsonDoc::parse(&d.to_string(), "x").is_ok());
    }

    fn parse_as(text: &str, dialect: Dialect) -> Result<JsonDoc> {
        JsonDoc::parse_as(text, "/root/.config/opencode/opencode.json", dialect)
    }

    #[test]
    fn regression_json5_syntax_was_accepted_in_jsonc_and_json() {
        for text in [
            "{mcp: {}}",
            "{'mcp': {}}",
            "{\"x\": 0x10}",
            "{\"x\": +1}",
            "{\"x\": .5}",
            "{\"x\": 5.}",
            "{\"x\": \"a\\x41\"}",
            "{\"x\": 01}",
            "{\"x\": \"tab\there\"}",
            "{\"x\": 1}\u{0b}",
        ] {
            let e = parse_as(text, Dialect::Jsonc).map(|_| ()).unwrap_err();
            assert_eq!(e.code, "parse_error", "{text:?}");
            let loc = e.location.as_ref().unwrap();
            assert!(loc.line.is_some() && loc.column.is_some(), "{text:?}: {e}");
            assert!(parse_as(text, Dialect::Json).is_err(), "{text:?}");
        }
        // comments and trailing commas are JSONC, not JSON
        let text = "{\n  // c\n  \"a\": 1,\n}\n";
        assert!(parse_as(text, Dialect::Jsonc).is_ok());
        assert!(parse_as(text, Dialect::Json).is_err());
        let e = parse_as("{\n  // c\n  \"a\": 1\n}\n", Dialect::Json)
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().contains("a comment"), "{e}");
        assert_eq!(e.location.as_ref().unwrap().line, Some(2));
    }

    #[test]
    fn json5_edge_cases() {
        // JSON5 openclaw reads, kept and read right
        for (text, value) in [
            ("{$a_1: 1}", json!({"$a_1": 1})),
            ("{é: 1}", json!({"é": 1})),
            ("{a: 'it\\'s'}", json!({"a": "it's"})),
            ("{a: -0x10}", json!({"a": -16})),
            ("{a: 5.}", json!({"a": 5.0})),
        ] {
            let d = parse_as(text, Dialect::Json5).unwrap();
            assert_eq!(d.value(), value, "{text}");
        }
        // not JSON5: refused with the line and column
        for (text, column) in [
            ("{a-b: 1}", 2),
            ("{a: 01}", 6),
            ("{1a: 1}", 3),
            ("{a: Infinity}", 5),
        ] {
            let e = parse_as(text, Dialect::Json5).map(|_| ()).unwrap_err();
            assert_eq!(
                e.location.as_ref().unwrap().column,
                Some(column),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn regression_duplicate_keys_named_one_line() {
        let e = parse_err("{\n  \"a\": 1,\n  \"b\": 2,\n  a: 3\n}\n");
        assert!(e.to_string().contains("`a`"), "{e}");
        assert!(e.to_string().contains("lines 2 and 4"), "{e}");
        assert_eq!(e.location.as_ref().unwrap().line, Some(4));
    }

    #[test]
    fn parse_errors_are_in_osctls_words() {
        for (text, kind) in [
            ("{\"a\": 1,, }", "Unexpected comma"),
            ("{\"a\" 1}", "Expected colon"),
            ("{\"a\": [1, 2}", "Unterminated"),
            ("{\"a\": \"x}", "Unterminated string"),
            ("{\"a\": tru}", "Unexpected word"),
        ] {
            let e = parse_err(text);
            assert!(!e.to_string().contains(kind), "{text}: {e}");
            assert!(e.location.as_ref().unwrap().column.is_some(), "{text}: {e}");
        }
    }
}
