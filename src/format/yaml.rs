//! YAML editor: yaml-edit for comment-preserving edits, serde-saphyr for reads and re-validation.
//!
//! [`YamlDoc`] edits hermes' `config.yaml`. Comments, blank lines, key order and the style of
//! every node osctl does not touch (flow or block, quoting) stay as written. A replaced string
//! keeps the quoting style of the string it replaces where that style can carry it.
//!
//! **Paths** are slices of keys from the root. A step into a sequence is its index written in
//! decimal (`["custom_providers", "0", "base_url"]`); the index equal to the length appends. On a
//! mapping, a numeric step is an ordinary key. A step through something that is not a mapping
//! (a scalar such as the `''` a reset leaves, `null`, an alias) replaces it: by a sequence when
//! the step is `0`, else by a mapping, as hermes' presync coerces `.model` and
//! `.custom_providers`. An index past the end is refused.
//!
//! **Setting** an object or sequence over an existing one recurses (keys missing from the new
//! object are removed, changed leaves replaced, new keys appended at the end of their mapping,
//! sequence items updated in place), so comments inside survive. [`YamlDoc::merge`] never removes
//! keys. New values are written in block style inside block collections and in flow style inside
//! flow collections; an empty `{}` / `[]` placeholder that gains content becomes block content.
//! New block content is indented two spaces under its key whatever the file's own indentation
//! (yaml-edit lays it out so); new block sequences follow the file's sequence style (`key:\n- a`
//! or `key:\n  - a`).
//!
//! **Quoting**: hermes reads YAML 1.1 with PyYAML, which takes `off`, `yes`, `y`, `~`, `0755`,
//! `12:30` or `2026-01-01` for booleans, null, numbers and dates. Every string that YAML 1.1 or
//! 1.2 could read as anything but that string is written double-quoted (see [`needs_quotes`]),
//! keys included: `mode: "off"`.
//!
//! **Verification**: after every edit the new text is re-parsed with serde-saphyr and must equal
//! the old document with exactly that change; otherwise the edit is undone and an internal error
//! returned, so a broken document is never handed out. [`YamlDoc::validate`] re-checks the text.
//!
//! **Reading** uses serde-saphyr's defaults, which accept YAML 1.1 booleans (`off` reads
//! `false`); dates and times read as strings, non-finite floats as `".inf"`-style strings.
//! Refused as parse errors naming the line: YAML syntax errors, duplicate keys, several
//! documents in one file, and anything yaml-edit cannot reproduce byte for byte. Known limits:
//! replacing a mapping that pulls keys in with `<<:` cannot remove those keys (the edit is then
//! refused as above); a root that is not a mapping can be read but not edited.

use std::fmt;

use serde_json::{Map, Number, Value};
use yaml_edit::{Mapping, MappingEntry, Scalar, ScalarValue, Sequence, YamlFile, YamlNode};

use super::{line_col, show_path};
use crate::error::{Error, Location, Result};

/// A YAML document being edited in place.
pub struct YamlDoc {
    file: YamlFile,
    editor: Editor,
    /// The text of `file` between edits.
    text: String,
    /// The document as serde-saphyr reads the current text.
    value: Value,
    origin: String,
}

impl fmt::Debug for YamlDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("YamlDoc")
            .field("origin", &self.origin)
            .field("text", &self.text)
            .finish()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Replace,
    Merge,
}

impl YamlDoc {
    /// Parses `text`; `origin` (the device path) names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<YamlDoc> {
        let value = read(text, origin)?;
        let file = edit_tree(text, origin)?;
        Ok(YamlDoc {
            file,
            editor: Editor {
                seq_indent: sequence_indent(text),
            },
            text: text.to_string(),
            value,
            origin: origin.to_string(),
        })
    }

    /// An empty document, for a file that does not exist yet.
    pub fn new_empty() -> YamlDoc {
        YamlDoc {
            file: YamlFile::parse("").tree(),
            editor: Editor { seq_indent: 2 },
            text: String::new(),
            value: Value::Null,
            origin: String::new(),
        }
    }

    /// The whole document (`null` for an empty file).
    pub fn value(&self) -> Value {
        self.value.clone()
    }

    /// The value at `path` (numeric steps index sequences), if present.
    pub fn get(&self, path: &[&str]) -> Option<Value> {
        lookup(&self.value, path).cloned()
    }

    /// The keys of the mapping at `path`, in file order; empty when absent or not a mapping.
    pub fn keys(&self, path: &[&str]) -> Vec<String> {
        match lookup(&self.value, path) {
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Sets the value at `path`; returns whether the text changed.
    ///
    /// Errors, leaving the document unchanged, when the path cannot be followed (an index past
    /// the end, a root that is not a mapping) or when the edited text would not read back as
    /// the intended document.
    pub fn set(&mut self, path: &[&str], value: Value) -> Result<bool> {
        self.edit(path, &value, Mode::Replace)
    }

    /// Like [`YamlDoc::set`], but mappings are merged key by key and no key is removed.
    pub fn merge(&mut self, path: &[&str], value: Value) -> Result<bool> {
        self.edit(path, &value, Mode::Merge)
    }

    /// Removes the key (or sequence item) at `path`; returns whether it was there. Comments
    /// above it stay.
    pub fn remove(&mut self, path: &[&str]) -> Result<bool> {
        let Some((last, parent)) = path.split_last() else {
            return Ok(false);
        };
        let mut expected = self.value.clone();
        let removed = match lookup_mut(&mut expected, parent) {
            Some(Value::Object(map)) => map.shift_remove(*last).is_some(),
            Some(Value::Array(items)) => match parse_index(last) {
                Some(i) if i < items.len() => {
                    items.remove(i);
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !removed {
            return Ok(false);
        }
        let done = match self.node_at(parent) {
            // (MappingEntry::remove mangles the lines after a mapping's last entry)
            Some(YamlNode::Mapping(m)) => find_entry(&m, last)
                .and_then(|e| e.key_node())
                .and_then(|k| m.remove(&k))
                .is_some(),
            Some(YamlNode::Sequence(s)) => parse_index(last).and_then(|i| s.remove(i)).is_some(),
            _ => false,
        };
        if !done {
            // Not written as a mapping or sequence here (an alias, say): write the parent anew.
            let parent_value = lookup(&expected, parent).cloned().unwrap_or(Value::Null);
            return self.set(parent, parent_value);
        }
        self.commit(path, expected)
    }

    /// The text of the document.
    #[allow(clippy::inherent_to_string_shadow_display)]
    pub fn to_string(&self) -> String {
        self.text.clone()
    }

    /// Re-parses the current text and checks it reads as the document osctl believes it holds.
    pub fn validate(&self) -> Result<()> {
        let text = self.file.to_string();
        if text != self.text {
            return Err(self.not_verified(&[], "the tree and the text disagree"));
        }
        let reread = read(&text, &self.origin)
            .map_err(|e| self.not_verified(&[], &format!("it no longer parses: {e}")))?;
        edit_tree(&text, &self.origin)
            .map_err(|e| self.not_verified(&[], &format!("it no longer parses: {e}")))?;
        if reread != self.value {
            return Err(self.not_verified(&[], "it reads back differently"));
        }
        Ok(())
    }

    fn edit(&mut self, path: &[&str], value: &Value, mode: Mode) -> Result<bool> {
        if mode == Mode::Replace && self.get(path).as_ref() == Some(value) {
            return Ok(false);
        }
        let mut expected = self.value.clone();
        apply(&mut expected, path, value, mode).map_err(|why| self.refused(path, &why))?;
        if expected == self.value {
            return Ok(false);
        }
        if let Err(e) = self.edit_nodes(path, value, mode, &expected) {
            self.file = YamlFile::parse(&self.text).tree();
            return Err(e);
        }
        self.commit(path, expected)
    }

    /// Checks the edited tree against `expected`: keeps it, or restores the text before the
    /// edit and errors.
    fn commit(&mut self, path: &[&str], expected: Value) -> Result<bool> {
        let after = self.file.to_string();
        let check = read(&after, &self.origin)
            .map_err(|e| format!("the result does not parse: {e}"))
            .and_then(|reread| {
                if reread == expected {
                    Ok(())
                } else {
                    Err(format!("the result reads back as {reread}, not {expected}"))
                }
            });
        match check {
            Ok(()) => {
                self.value = expected;
                let changed = after != self.text;
                self.text = after;
                Ok(changed)
            }
            Err(why) => {
                self.file = YamlFile::parse(&self.text).tree();
                if let Some((line, column)) = first_alias(&self.text) {
                    // The edit reads back changed somewhere else too: the node it changed is
                    // anchored and repeated by an alias. A refusal (exit 1), not a bug.
                    return Err(Error::input(
                        "cannot_edit_in_place",
                        format!(
                            "cannot change {} in {} in place: it is in an anchored node (`&name`) \
                             that an alias (`*name`) repeats elsewhere, and the change would \
                             show there too",
                            show_path(path),
                            self.shown()
                        ),
                    )
                    .at(Location {
                        file: self.shown().to_string(),
                        line: Some(line),
                        column: Some(column),
                    })
                    .hint(
                        "nothing was written; write the repeated part out in full instead of \
                         the alias, then run the command again",
                    ));
                }
                Err(self.not_verified(path, &why))
            }
        }
    }

    fn edit_nodes(&self, path: &[&str], value: &Value, mode: Mode, expected: &Value) -> Result<()> {
        let root = self.file.document().and_then(|d| d.as_mapping());
        if let Some(tag) = root_tag(&self.text) {
            let (line, column) = line_col(&self.text, self.text.find(&tag).unwrap_or(0));
            return Err(self
                .refused(
                    path,
                    &format!("the document root is a `{tag}`, not a mapping osctl can add keys to"),
                )
                .at(Location {
                    file: self.shown().to_string(),
                    line: Some(line),
                    column: Some(column),
                }));
        }
        match (root, &self.value) {
            (Some(m), _) => {
                if path.is_empty() {
                    let Value::Object(map) = value else {
                        return Err(self.refused(path, "the document root stays a mapping"));
                    };
                    self.editor.update_mapping(&m, map, mode, Some(&self.value))
                } else {
                    self.editor
                        .set_in_mapping(&m, path, value, mode, Some(&self.value))
                }
            }
            // An empty document: every top-level key of the result is new.
            (None, Value::Null) => {
                let Value::Object(map) = expected else {
                    return Err(self.refused(path, "the document root stays a mapping"));
                };
                for (key, sub) in map {
                    let node = NewNode::of(&self.editor, sub)?;
                    if !node.set_in_file(&self.file, key) {
                        return Err(self.refused(path, "the document has no mapping to add to"));
                    }
                }
                Ok(())
            }
            (None, _) => Err(self
                .refused(
                    path,
                    "the document root is not a mapping, so no key can be added",
                )
                .at(Location {
                    file: self.shown().to_string(),
                    line: Some(1),
                    column: Some(1),
                })),
        }
        .map_err(|e: Error| {
            if e.code == "internal" || e.code == "invalid_value" {
                e
            } else {
                self.not_verified(path, &e.message)
            }
        })
    }

    /// The yaml-edit node at `path`, following mappings and sequences.
    fn node_at(&self, path: &[&str]) -> Option<YamlNode> {
        let mut node = YamlNode::Mapping(self.file.document()?.as_mapping()?);
        for step in path {
            node = match node {
                YamlNode::Mapping(m) => find_entry(&m, step)?.value_node()?,
                YamlNode::Sequence(s) => s.get(parse_index(step)?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    fn refused(&self, path: &[&str], why: &str) -> Error {
        Error::input(
            "invalid_value",
            format!("cannot set {} in {}: {why}", show_path(path), self.shown()),
        )
    }

    fn not_verified(&self, path: &[&str], why: &str) -> Error {
        Error::internal(format!(
            "editing {} in {} would not give the intended YAML ({why}); the edit was undone",
            show_path(path),
            self.shown()
        ))
    }

    fn shown(&self) -> &str {
        if self.origin.is_empty() {
            "the YAML file"
        } else {
            &self.origin
        }
    }
}

impl fmt::Display for YamlDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&YamlDoc::to_string(self))
    }
}

/// Reads `text` with serde-saphyr into a value (`null` for an empty document).
fn read(text: &str, origin: &str) -> Result<Value> {
    let mut options = serde_saphyr::options::Options::default();
    options.non_finite_float_policy = serde_saphyr::options::NonFiniteFloatPolicy::AsString;
    // Comments are still checked as syntax; not collecting their text reads twice as fast.
    options.emit_comments = false;
    serde_saphyr::from_str_with_options::<Value>(text, options).map_err(|e| {
        let location = e.location();
        let line = location.as_ref().map(|l| l.line() as usize);
        let column = location.as_ref().map(|l| l.column() as usize);
        let message = e.without_snippet().to_string();
        let mut message = match message.rfind(" at line ") {
            Some(i) if line.is_some() => message[..i].to_string(),
            _ => message,
        };
        if let Some(key) = message.strip_prefix("duplicate mapping key: ") {
            let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
            message = format!(
                "duplicate key `{key}`: osctl cannot tell which one the runtime reads; remove one"
            );
        } else {
            message = explain(&message).to_string();
        }
        Error::parse(origin, line, column, message)
    })
}

/// What a serde-saphyr message means, in osctl's words (never the parser's own text).
fn explain(message: &str) -> &'static str {
    const TABLE: &[(&str, &str)] = &[
        (
            "did not find expected key",
            "a line indented as no key of the block above it",
        ),
        (
            "did not find expected",
            "the indentation or a `-` or `:` is not where YAML expects it",
        ),
        (
            "mapping values are not allowed",
            "a `:` inside a plain value: quote the value (`key: \"a: b\"`)",
        ),
        (
            "illegal placement of ':'",
            "a `:` inside a plain value, or a flow collection left open",
        ),
        (
            "tabs disallowed",
            "a tab used for indentation: YAML indents with spaces",
        ),
        (
            "found character '\\t'",
            "a tab where YAML does not allow one",
        ),
        ("unclosed quote", "a quoted string with no closing quote"),
        (
            "found unexpected end of stream",
            "the file ends inside a quoted string or a flow collection",
        ),
        (
            "unknown escape",
            "a backslash that starts no valid escape in a double-quoted string",
        ),
        (
            "unknown anchor",
            "an alias (`*name`) with no anchor (`&name`) before it",
        ),
        (
            "multiple YAML documents",
            "the file holds several YAML documents; osctl edits single-document files",
        ),
        (
            "expected string scalar",
            "a key that is not text (a mapping or sequence used as a key), which hermes cannot read",
        ),
        (
            "cannot deserialize null into string",
            "a null key (`~:` or `null:`), which osctl cannot read as a key",
        ),
        ("invalid tag", "a tag YAML does not know"),
        ("recursion", "values nested too deep to read"),
        (
            "budget",
            "more aliases or nodes than osctl reads (an alias bomb?)",
        ),
        ("could not find expected ':'", "a key with no `:` after it"),
        (
            "while scanning an anchor",
            "an anchor or alias name with a character it cannot hold",
        ),
        ("while scanning", "a character YAML does not allow here"),
        (
            "while parsing a flow",
            "a flow collection (`[...]` or `{...}`) not closed or separated as YAML expects",
        ),
    ];
    TABLE
        .iter()
        .find(|(words, _)| message.contains(words))
        .map_or("this is not valid YAML here", |(_, ours)| ours)
}

/// Parses `text` into yaml-edit's lossless tree, refusing what it cannot edit faithfully.
fn edit_tree(text: &str, origin: &str) -> Result<YamlFile> {
    let parsed = YamlFile::parse(text);
    if let Some(err) = parsed.positioned_errors().first() {
        let (line, column) = line_col(text, err.range.start as usize);
        return Err(Error::parse(
            origin,
            Some(line),
            Some(column),
            format!("osctl's YAML editor cannot read this: {}", err.message),
        ));
    }
    let file = parsed.tree();
    if file.documents().count() > 1 {
        return Err(Error::parse(
            origin,
            None,
            None,
            "the file holds several YAML documents; osctl edits single-document files",
        ));
    }
    if file.to_string() != text {
        return Err(Error::parse(
            origin,
            None,
            None,
            "osctl's YAML editor cannot reproduce this file exactly, so it does not edit it",
        ));
    }
    Ok(file)
}

/// The line and column of the first alias `*name` in the text (outside comments, roughly).
fn first_alias(text: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let code = line.split(" #").next().unwrap_or(line);
        let at = [": *", "- *"].iter().filter_map(|p| code.find(p)).min()?;
        Some((i + 1, code[..at + 2].chars().count() + 1))
    })
}

/// The tag of the document's root node (`!!set`, `!!omap`, ...), if it has one: such a root
/// reads as a mapping but is not one osctl may add a key to.
fn root_tag(text: &str) -> Option<String> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('%') && *l != "---")?;
    let rest = first.strip_prefix("---").unwrap_or(first).trim_start();
    rest.starts_with('!')
        .then(|| rest.split_whitespace().next().unwrap_or(rest).to_string())
        .filter(|tag| tag != "!!map")
}

fn lookup<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut value = value;
    for step in path {
        value = match value {
            Value::Object(map) => map.get(*step)?,
            Value::Array(items) => items.get(parse_index(step)?)?,
            _ => return None,
        };
    }
    Some(value)
}

fn lookup_mut<'a>(value: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    let mut value = value;
    for step in path {
        value = match value {
            Value::Object(map) => map.get_mut(*step)?,
            Value::Array(items) => items.get_mut(parse_index(step)?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// A sequence index: decimal digits without a leading zero (`0`, `1`, `12`).
fn parse_index(step: &str) -> Option<usize> {
    let canonical = !step.is_empty()
        && step.bytes().all(|b| b.is_ascii_digit())
        && (step == "0" || !step.starts_with('0'));
    if canonical { step.parse().ok() } else { None }
}

/// The document `target` becomes when `new` is set at `path`: the same path rules as the tree
/// edits, on plain values. `Err` says why the path cannot be followed.
fn apply(
    target: &mut Value,
    path: &[&str],
    new: &Value,
    mode: Mode,
) -> std::result::Result<(), String> {
    let Some((step, rest)) = path.split_first() else {
        match (mode, &mut *target, new) {
            (Mode::Merge, Value::Object(current), Value::Object(map)) => {
                for (key, sub) in map {
                    apply(
                        current.entry(key.clone()).or_insert(Value::Null),
                        &[],
                        sub,
                        mode,
                    )?;
                }
            }
            _ => *target = new.clone(),
        }
        return Ok(());
    };
    match target {
        Value::Object(map) => apply(
            map.entry(step.to_string()).or_insert(Value::Null),
            rest,
            new,
            mode,
        ),
        Value::Array(items) if parse_index(step).is_some() => {
            let index = parse_index(step).unwrap_or_default();
            if index > items.len() {
                return Err(format!(
                    "index {index} is past the end of a sequence of {}",
                    items.len()
                ));
            }
            if index == items.len() {
                items.push(Value::Null);
            }
            apply(&mut items[index], rest, new, mode)
        }
        _ => {
            *target = match parse_index(step) {
                Some(0) => Value::Array(Vec::new()),
                Some(index) => {
                    return Err(format!("index {index} is past the end of a new sequence"));
                }
                None => Value::Object(Map::new()),
            };
            apply(target, path, new, mode)
        }
    }
}

/// The entry of `m` whose key reads as `key`.
fn find_entry(m: &Mapping, key: &str) -> Option<MappingEntry> {
    m.entries().find(|entry| {
        entry
            .key_node()
            .and_then(|k| k.as_scalar().map(Scalar::as_string))
            .is_some_and(|k| k == key)
    })
}

/// How new nodes are laid out, from the style of the file being edited.
#[derive(Clone, Copy)]
struct Editor {
    /// Columns from a mapping key to the `-` of its block sequence: 0 (`key:\n- a`, as PyYAML
    /// writes) or 2 (`key:\n  - a`).
    seq_indent: usize,
}

impl Editor {
    fn set_in_mapping(
        &self,
        m: &Mapping,
        path: &[&str],
        value: &Value,
        mode: Mode,
        current: Option<&Value>,
    ) -> Result<()> {
        let (key, rest) = path.split_first().expect("a non-empty path");
        let current_child = current.and_then(|c| c.get(*key));
        let entry = find_entry(m, key);
        if rest.is_empty() {
            return self.set_entry(m, entry, key, value, mode, current_child);
        }
        if let Some(entry) = &entry {
            match entry.value_node().filter(|n| !is_empty_flow(n)) {
                Some(YamlNode::Mapping(child)) => {
                    return self.set_in_mapping(&child, rest, value, mode, current_child);
                }
                Some(YamlNode::Sequence(seq)) if parse_index(rest[0]).is_some() => {
                    return self.set_in_sequence(&seq, rest, value, mode, current_child);
                }
                _ => {}
            }
        }
        // Missing, a scalar, an alias, an empty `{}` / `[]` placeholder or the other kind of
        // collection: write the whole new value.
        let mut child = current_child.cloned().unwrap_or(Value::Null);
        apply(&mut child, rest, value, mode).map_err(|why| Error::input("invalid_value", why))?;
        self.set_entry(m, entry, key, &child, Mode::Replace, current_child)
    }

    fn set_in_sequence(
        &self,
        seq: &Sequence,
        path: &[&str],
        value: &Value,
        mode: Mode,
        current: Option<&Value>,
    ) -> Result<()> {
        let (step, rest) = path.split_first().expect("a non-empty path");
        let index = parse_index(step).expect("an index step");
        let current_item = current.and_then(|c| c.get(index));
        if index >= seq.len() {
            let mut item = Value::Null;
            apply(&mut item, rest, value, mode)
                .map_err(|why| Error::input("invalid_value", why))?;
            NewNode::of(self, &item)?.push_to(seq);
            return Ok(());
        }
        if rest.is_empty() {
            return self.set_item(seq, index, value, mode, current_item);
        }
        match seq.get(index).filter(|n| !is_empty_flow(n)) {
            Some(YamlNode::Mapping(m)) => self.set_in_mapping(&m, rest, value, mode, current_item),
            Some(YamlNode::Sequence(s)) if parse_index(rest[0]).is_some() => {
                self.set_in_sequence(&s, rest, value, mode, current_item)
            }
            _ => {
                let mut item = current_item.cloned().unwrap_or(Value::Null);
                apply(&mut item, rest, value, mode)
                    .map_err(|why| Error::input("invalid_value", why))?;
                self.set_item(seq, index, &item, Mode::Replace, current_item)
            }
        }
    }

    /// Sets `key` of `m` (its `entry`, if present) to `value`, editing the old value in place where
    /// the shapes agree.
    fn set_entry(
        &self,
        m: &Mapping,
        entry: Option<MappingEntry>,
        key: &str,
        value: &Value,
        mode: Mode,
        current: Option<&Value>,
    ) -> Result<()> {
        let Some(entry) = entry else {
            NewNode::of(self, value)?.set_in_mapping(m, key);
            return Ok(());
        };
        if mode == Mode::Replace && current == Some(value) {
            return Ok(());
        }
        match (entry.value_node().filter(|n| !is_empty_flow(n)), value) {
            (Some(YamlNode::Mapping(old)), Value::Object(map)) => {
                self.update_mapping(&old, map, mode, current)
            }
            (Some(YamlNode::Sequence(old)), Value::Array(items)) => {
                self.update_sequence(&old, items, current)
            }
            (old, _) => {
                let old = old.as_ref().and_then(|n| n.as_scalar());
                NewNode::of_replacing(self, value, old)?.replace_in_mapping(m, &entry);
                Ok(())
            }
        }
    }

    /// Makes the mapping `m` (whose value is `current`) hold `map`.
    fn update_mapping(
        &self,
        m: &Mapping,
        map: &Map<String, Value>,
        mode: Mode,
        current: Option<&Value>,
    ) -> Result<()> {
        if mode == Mode::Replace {
            let old_keys: Vec<String> = match current {
                Some(Value::Object(old)) => old.keys().cloned().collect(),
                _ => Vec::new(),
            };
            for key in old_keys.iter().filter(|k| !map.contains_key(*k)) {
                if let Some(k) = find_entry(m, key).and_then(|e| e.key_node()) {
                    m.remove(&k);
                }
            }
        }
        for (key, sub) in map {
            let current_child = current.and_then(|c| c.get(key));
            if current_child == Some(sub) {
                continue;
            }
            self.set_entry(m, find_entry(m, key), key, sub, mode, current_child)?;
        }
        Ok(())
    }

    /// Makes the sequence `seq` (whose value is `current`) hold `items`, item by item.
    fn update_sequence(
        &self,
        seq: &Sequence,
        items: &[Value],
        current: Option<&Value>,
    ) -> Result<()> {
        let len = seq.len();
        for (index, item) in items.iter().enumerate().take(len) {
            let current_item = current.and_then(|c| c.get(index));
            if current_item != Some(item) {
                self.set_item(seq, index, item, Mode::Replace, current_item)?;
            }
        }
        for index in (items.len()..len).rev() {
            seq.remove(index);
        }
        for item in items.iter().skip(len) {
            NewNode::of(self, item)?.push_to(seq);
        }
        Ok(())
    }

    fn set_item(
        &self,
        seq: &Sequence,
        index: usize,
        value: &Value,
        mode: Mode,
        current: Option<&Value>,
    ) -> Result<()> {
        match (seq.get(index).filter(|n| !is_empty_flow(n)), value) {
            (Some(YamlNode::Mapping(old)), Value::Object(map)) => {
                self.update_mapping(&old, map, mode, current)
            }
            (Some(YamlNode::Sequence(old)), Value::Array(items)) => {
                self.update_sequence(&old, items, current)
            }
            (old, _) => {
                let old = old.as_ref().and_then(|n| n.as_scalar());
                NewNode::of_replacing(self, value, old)?.set_item(seq, index);
                Ok(())
            }
        }
    }
}

/// An empty `{}` or `[]`: a placeholder that new content replaces in the style of its parent
/// (block in a block mapping, as PyYAML writes `custom_providers: []` until it has items).
fn is_empty_flow(node: &YamlNode) -> bool {
    match node {
        YamlNode::Mapping(m) => m.is_empty() && m.is_flow_style(),
        YamlNode::Sequence(s) => s.is_empty() && s.is_flow_style(),
        _ => false,
    }
}

/// A new node for a value: a scalar, or a collection parsed from text osctl rendered.
enum NewNode {
    Scalar(ScalarValue),
    Mapping(Mapping),
    Sequence(Sequence),
}

impl NewNode {
    fn of(editor: &Editor, value: &Value) -> Result<NewNode> {
        Self::of_replacing(editor, value, None)
    }

    /// The node for `value`; a string replacing a quoted string keeps its quote style.
    fn of_replacing(editor: &Editor, value: &Value, old: Option<&Scalar>) -> Result<NewNode> {
        match value {
            Value::Object(_) | Value::Array(_) => {
                let text = render_block(value, editor.seq_indent);
                let doc = YamlFile::parse(&text).tree().document();
                let node = match (value, doc.as_ref()) {
                    (Value::Object(_), Some(d)) => d.as_mapping().map(NewNode::Mapping),
                    (_, Some(d)) => d.as_sequence().map(NewNode::Sequence),
                    _ => None,
                };
                node.ok_or_else(|| {
                    Error::internal(format!("osctl rendered YAML it cannot read back: {text}"))
                })
            }
            _ => Ok(NewNode::Scalar(scalar(value, old))),
        }
    }

    fn set_in_mapping(&self, m: &Mapping, key: &str) {
        let key = key_scalar(key);
        match self {
            NewNode::Scalar(s) => m.set(key, s),
            NewNode::Mapping(n) => m.set(key, n),
            NewNode::Sequence(n) => m.set(key, n),
        }
    }

    fn set_in_file(&self, file: &YamlFile, key: &str) -> bool {
        let key = key_scalar(key);
        match self {
            NewNode::Scalar(s) => file.set(key, s),
            NewNode::Mapping(n) => file.set(key, n),
            NewNode::Sequence(n) => file.set(key, n),
        }
    }

    /// Replaces the value of `entry` of `m`. Through the mapping, not the entry: only the
    /// mapping turns a block value into flow form for a flow mapping.
    fn replace_in_mapping(&self, m: &Mapping, entry: &MappingEntry) {
        let Some(key) = entry.key_node() else { return };
        match self {
            NewNode::Scalar(s) => m.set(&key, s),
            NewNode::Mapping(n) => m.set(&key, n),
            NewNode::Sequence(n) => m.set(&key, n),
        }
    }

    fn set_item(&self, seq: &Sequence, index: usize) {
        match self {
            NewNode::Scalar(s) => seq.set(index, s),
            NewNode::Mapping(n) => seq.set(index, n),
            NewNode::Sequence(n) => seq.set(index, n),
        };
    }

    fn push_to(&self, seq: &Sequence) {
        match self {
            NewNode::Scalar(s) => seq.push(s),
            NewNode::Mapping(n) => seq.push(n),
            NewNode::Sequence(n) => seq.push(n),
        }
    }
}

fn key_scalar(key: &str) -> ScalarValue {
    if needs_quotes(key) {
        ScalarValue::double_quoted(key)
    } else {
        ScalarValue::plain(key)
    }
}

/// The scalar for a non-collection value; a string replacing a quoted one keeps its quotes.
fn scalar(value: &Value, old: Option<&Scalar>) -> ScalarValue {
    match value {
        Value::Null => ScalarValue::null(),
        Value::Bool(b) => ScalarValue::parse(b.to_string()),
        Value::Number(n) => ScalarValue::parse(number_text(n)),
        Value::String(s) => {
            let old_style = old.map(Scalar::value).and_then(|raw| raw.chars().next());
            let printable = !s.chars().any(char::is_control);
            match old_style {
                Some('"') => ScalarValue::double_quoted(s.as_str()),
                Some('\'') if printable => ScalarValue::single_quoted(s.as_str()),
                _ if needs_quotes(s) => ScalarValue::double_quoted(s.as_str()),
                _ => ScalarValue::plain(s.as_str()),
            }
        }
        Value::Object(_) | Value::Array(_) => ScalarValue::null(),
    }
}

/// A number as YAML 1.1 and 1.2 both read it: floats always carry a `.` and a signed exponent.
fn number_text(n: &Number) -> String {
    if !n.is_f64() {
        return n.to_string();
    }
    let text = n.to_string();
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text.as_str(), None),
    };
    let mut out = mantissa.to_string();
    if !out.contains('.') {
        out.push_str(".0");
    }
    if let Some(exponent) = exponent {
        out.push('e');
        if !exponent.starts_with(['+', '-']) {
            out.push('+');
        }
        out.push_str(exponent);
    }
    out
}

/// Whether a string must be quoted so that YAML 1.1 (PyYAML) and YAML 1.2 readers, in block and
/// flow context, read it back as that string.
///
/// Quoted: the empty string; leading or trailing blanks; any control character; the YAML 1.1
/// booleans and nulls in any case (`y n yes no on off true false null ~`); anything that looks
/// like a number, a date or a time (a sign or digit or `.` followed only by digits, letters of
/// hex/octal/binary/exponent forms, `_ . : + -`, e.g. `0755`, `0x1F`, `1_000`, `12:30`,
/// `2026-01-01`, and `.inf` / `.nan`); strings starting with an indicator
/// (`- ? : , [ ] { } # & * ! | > ' " % @ ` < =`); strings holding `: `, ` #`, a flow indicator
/// (`, [ ] { }`) or ending with `:`; and timestamps (`2026-01-01T10:00:00Z`).
pub fn needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    if s.trim() != s || s.chars().any(|c| c.is_control() || c == '\u{feff}') {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
    ) {
        return true;
    }
    if "-?:,[]{}#&*!|>'\"%@`<=".contains(first) {
        return true;
    }
    if s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.contains([',', '[', ']', '{', '}'])
    {
        return true;
    }
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let numberish = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && unsigned
            .chars()
            .all(|c| c.is_ascii_hexdigit() || "xXoObB_.:+-".contains(c));
    if numberish {
        return true;
    }
    let lower_unsigned = unsigned.to_ascii_lowercase();
    if matches!(
        lower_unsigned.as_str(),
        ".inf" | ".nan" | "inf" | "nan" | "infinity"
    ) {
        return true;
    }
    // YAML 1.1 timestamps: 2026-01-01T10:00:00Z, 2026-1-1 10:00:00 +1
    let bytes = s.as_bytes();
    bytes.len() > 5 && bytes[..4].iter().all(u8::is_ascii_digit) && bytes[4] == b'-'
}

/// `value`, a collection, as block YAML; a sequence's `-` sits `seq_indent` columns right of its
/// key, and a sequence at the root at column `seq_indent` too (yaml-edit then lays a root-level
/// insertion out the same way). Empty collections are `{}` / `[]`.
fn render_block(value: &Value, seq_indent: usize) -> String {
    let r = Render { seq_indent };
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => r.mapping(map, 0, &mut out),
        Value::Array(items) if !items.is_empty() => r.sequence(items, seq_indent, &mut out),
        Value::Object(_) => out.push_str("{}\n"),
        _ => out.push_str("[]\n"),
    }
    out
}

struct Render {
    seq_indent: usize,
}

impl Render {
    fn mapping(&self, map: &Map<String, Value>, indent: usize, out: &mut String) {
        for (key, value) in map {
            out.push_str(&" ".repeat(indent));
            out.push_str(&scalar_text(&Value::String(key.clone())));
            out.push(':');
            match value {
                Value::Object(map) if !map.is_empty() => {
                    out.push('\n');
                    self.mapping(map, indent + 2, out);
                }
                Value::Array(items) if !items.is_empty() => {
                    out.push('\n');
                    self.sequence(items, indent + self.seq_indent, out);
                }
                _ => {
                    out.push(' ');
                    out.push_str(&scalar_text(value));
                    out.push('\n');
                }
            }
        }
    }

    fn sequence(&self, items: &[Value], indent: usize, out: &mut String) {
        for item in items {
            out.push_str(&" ".repeat(indent));
            out.push('-');
            // a nested collection starts on the dash's line, the rest lines up under it
            let mut nested = String::new();
            match item {
                Value::Object(map) if !map.is_empty() => self.mapping(map, indent + 2, &mut nested),
                Value::Array(items) if !items.is_empty() => {
                    self.sequence(items, indent + 2, &mut nested)
                }
                _ => {
                    out.push(' ');
                    out.push_str(&scalar_text(item));
                    out.push('\n');
                    continue;
                }
            }
            out.push(' ');
            out.push_str(&nested[indent + 2..]);
        }
    }
}

/// The file's block sequence style: 0 when the first block sequence under a mapping key sits at
/// the key's column (`key:\n- a`, PyYAML's style), else 2.
fn sequence_indent(text: &str) -> usize {
    let mut key_indent: Option<usize> = None;
    for line in text.lines() {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        if let Some(key) = key_indent
            && (content == "-" || content.starts_with("- "))
        {
            return if indent == key { 0 } else { 2 };
        }
        let without_comment = content.split(" #").next().unwrap_or(content).trim_end();
        key_indent = without_comment.ends_with(':').then_some(indent);
    }
    2
}

/// A scalar (or empty collection) as YAML text.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) if needs_quotes(s) => double_quote(s),
        Value::String(s) => s.clone(),
        Value::Object(_) => "{}".to_string(),
        Value::Array(_) => "[]".to_string(),
    }
}

fn double_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::format::testutil::assert_diff;
    use serde_json::json;

    const HERMES: &str = "\
# Hermes Agent configuration
# (edited by the owner; osctl keeps these comments)

model: ''  # left by a reset
custom_providers: ''

# terminal backend
terminal:
  backend: local
  cwd: /data/scratch # the owner's scratch dir

approvals: {mode: \"on\"}
display:
  skin: default   # try 'mono'
  compact: false
toolsets:
  - hermes-cli
  - web
# end of file
";

    fn doc(text: &str) -> YamlDoc {
        YamlDoc::parse(text, "/root/.hermes/config.yaml").unwrap()
    }

    #[test]
    fn reads_values_and_keys() {
        let d = doc(HERMES);
        assert_eq!(d.get(&["model"]), Some(json!("")));
        assert_eq!(d.get(&["terminal", "cwd"]), Some(json!("/data/scratch")));
        assert_eq!(d.get(&["toolsets", "1"]), Some(json!("web")));
        assert_eq!(d.get(&["toolsets", "2"]), None);
        assert_eq!(d.get(&["approvals", "mode"]), Some(json!("on")));
        assert_eq!(
            d.keys(&[]),
            [
                "model",
                "custom_providers",
                "terminal",
                "approvals",
                "display",
                "toolsets"
            ]
        );
        assert_eq!(d.keys(&["display"]), ["skin", "compact"]);
        assert_eq!(d.to_string(), HERMES);
        d.validate().unwrap();
    }

    #[test]
    fn approvals_mode_off_is_written_double_quoted() {
        let mut d = doc(HERMES);
        assert!(d.set(&["approvals", "mode"], json!("off")).unwrap());
        assert_diff(
            HERMES,
            &d.to_string(),
            &["approvals: {mode: \"on\"}"],
            &["approvals: {mode: \"off\"}"],
        );
        // in a block mapping too, and for a new key
        let mut d = doc("approvals:\n  mode: manual # ask\n");
        d.set(&["approvals", "mode"], json!("off")).unwrap();
        d.set(&["approvals", "timeout"], json!("yes")).unwrap();
        assert_eq!(
            d.to_string(),
            "approvals:\n  mode: \"off\" # ask\n  timeout: \"yes\"\n"
        );
        assert_eq!(d.get(&["approvals", "mode"]), Some(json!("off")));
        d.validate().unwrap();
    }

    #[test]
    fn terminal_cwd_replaces_only_its_value() {
        let mut d = doc(HERMES);
        assert!(d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap());
        assert_diff(
            HERMES,
            &d.to_string(),
            &["  cwd: /data/scratch # the owner's scratch dir"],
            &["  cwd: /root/.hermes # the owner's scratch dir"],
        );
    }

    #[test]
    fn coerces_a_reset_model_and_custom_providers() {
        let mut d = doc(HERMES);
        d.set(&["model", "provider"], json!("custom:autonomous"))
            .unwrap();
        d.set(&["model", "default"], json!("Auto-AI")).unwrap();
        d.set(
            &["custom_providers", "0"],
            json!({
                "name": "autonomous",
                "key_env": "AUTONOMOUS_API_KEY",
                "api_mode": "anthropic_messages",
                "base_url": "https://campaign-api.autonomous.ai/api/v1/ai"
            }),
        )
        .unwrap();
        d.set(
            &[
                "custom_providers",
                "0",
                "models",
                "Auto-AI",
                "prompt_caching",
            ],
            json!(true),
        )
        .unwrap();
        let expected = HERMES
            .replace(
                "model: ''  # left by a reset\n",
                "model:  # left by a reset\n  provider: custom:autonomous\n  default: Auto-AI\n",
            )
            .replace(
                "custom_providers: ''\n",
                "custom_providers:\n  - name: autonomous\n    key_env: AUTONOMOUS_API_KEY\n    \
                 api_mode: anthropic_messages\n    \
                 base_url: https://campaign-api.autonomous.ai/api/v1/ai\n    \
                 models:\n      Auto-AI:\n        prompt_caching: true\n",
            );
        assert_eq!(d.to_string(), expected);
        assert_eq!(
            d.get(&[
                "custom_providers",
                "0",
                "models",
                "Auto-AI",
                "prompt_caching"
            ]),
            Some(json!(true))
        );
        // and the base_url in place
        d.set(
            &["custom_providers", "0", "base_url"],
            json!("https://example.test/v1"),
        )
        .unwrap();
        assert_diff(
            &expected,
            &d.to_string(),
            &["    base_url: https://campaign-api.autonomous.ai/api/v1/ai"],
            &["    base_url: https://example.test/v1"],
        );
        d.validate().unwrap();
    }

    const FLOW: &str = "\
model: {provider: custom:autonomous, default: Auto-AI}
custom_providers:
  - {name: autonomous, key_env: AUTONOMOUS_API_KEY, api_mode: anthropic_messages,
     base_url: \"https://campaign-api.autonomous.ai/api/v1/ai/v1\", models: {Auto-AI: {prompt_caching: true}}}
prompt_caching: {cache_ttl: 1h}
approvals: {mode: \"off\"}
";

    #[test]
    fn flow_style_survives_edits() {
        let mut d = doc(FLOW);
        assert!(
            d.set(&["model", "default"], json!("qwen/qwen3.6-plus"))
                .unwrap()
        );
        assert_diff(
            FLOW,
            &d.to_string(),
            &["model: {provider: custom:autonomous, default: Auto-AI}"],
            &["model: {provider: custom:autonomous, default: qwen/qwen3.6-plus}"],
        );
        let mut d = doc(FLOW);
        assert!(
            d.set(
                &["custom_providers", "0", "base_url"],
                json!("https://example.test/v1")
            )
            .unwrap()
        );
        // the quoted URL stays quoted
        assert!(
            d.to_string()
                .contains("base_url: \"https://example.test/v1\", models:"),
            "{d}"
        );
        let mut d = doc(FLOW);
        d.set(
            &["model", "fallback"],
            json!({"provider": "x", "when": "off"}),
        )
        .unwrap();
        assert!(
            d.to_string()
                .starts_with("model: {provider: custom:autonomous, default: Auto-AI, fallback: {provider: x, when: \"off\"}}\n"),
            "{d}"
        );
        d.validate().unwrap();
    }

    #[test]
    fn idempotent_sets_are_byte_identical() {
        for text in [HERMES, FLOW] {
            let mut d = doc(text);
            let whole = d.value();
            assert!(!d.set(&[], whole.clone()).unwrap());
            for key in d.keys(&[]) {
                let v = d.get(&[&key]).unwrap();
                assert!(!d.set(&[&key], v).unwrap(), "{key}");
            }
            assert!(!d.merge(&[], whole).unwrap());
            assert_eq!(d.to_string(), text);
        }
        let mut d = doc(FLOW);
        assert!(!d.set(&["approvals", "mode"], json!("off")).unwrap());
        assert!(
            !d.set(
                &["custom_providers", "0", "models", "Auto-AI"],
                json!({"prompt_caching": true})
            )
            .unwrap()
        );
        assert_eq!(d.to_string(), FLOW);
        // after a change, the second identical set is a no-op
        let mut d = doc(HERMES);
        let v =
            json!({"vision": {"provider": "custom:autonomous", "timeout": 120, "extra_body": {}}});
        assert!(d.set(&["auxiliary"], v.clone()).unwrap());
        let once = d.to_string();
        assert!(!d.set(&["auxiliary"], v).unwrap());
        assert_eq!(d.to_string(), once);
    }

    #[test]
    fn risky_strings_are_quoted() {
        let mut d = doc("a: 1\n");
        let values = [
            "off",
            "On",
            "YES",
            "n",
            "~",
            "null",
            "True",
            "",
            " lead",
            "trail ",
            "0755",
            "0x1F",
            "1_000",
            "12:30",
            "1e3",
            "2026-01-01",
            "2026-01-01T10:00:00Z",
            ".inf",
            "-.5",
            "+1",
            "*star",
            "&amp",
            "!tag",
            "%pct",
            "@at",
            "`tick",
            "|pipe",
            ">fold",
            "{brace",
            "[bracket",
            "- dash",
            "? q",
            ": colon",
            "a: b",
            "a #b",
            "ends:",
            "a,b",
            "line\nbreak",
            "tab\tin",
        ];
        for (i, v) in values.iter().enumerate() {
            d.set(&[&format!("k{i}")], json!(v)).unwrap();
        }
        for (i, v) in values.iter().enumerate() {
            assert_eq!(d.get(&[&format!("k{i}")]), Some(json!(v)));
            let line = d
                .to_string()
                .lines()
                .find(|l| l.starts_with(&format!("k{i}: ")))
                .unwrap()
                .to_string();
            assert!(line.contains(": \""), "{line}");
        }
        // safe in any style
        for v in ["quote\"s", "back\\slash", "it's"] {
            d.set(&["safe"], json!(v)).unwrap();
            assert_eq!(d.get(&["safe"]), Some(json!(v)));
        }
        d.validate().unwrap();
        // plain where plain is safe
        for v in [
            "custom:autonomous",
            "qwen/qwen3.6-plus",
            "Auto-AI",
            "1h",
            "https://x.y/v1",
            "yes please",
            "é",
        ] {
            assert!(!needs_quotes(v), "{v}");
        }
    }

    #[test]
    fn date_like_strings_and_keys() {
        let mut d = doc("a: 1\n");
        d.set(&["since"], json!("2026-01-01")).unwrap();
        d.set(&["on"], json!("x")).unwrap();
        d.set(&["n", "12:30"], json!(1.5)).unwrap();
        // `n` is a YAML 1.1 boolean, as a key too
        assert_eq!(
            d.to_string(),
            "a: 1\nsince: \"2026-01-01\"\n\"on\": x\n\"n\":\n  \"12:30\": 1.5\n"
        );
        assert_eq!(d.get(&["n", "12:30"]), Some(json!(1.5)));
    }

    #[test]
    fn empty_flow_placeholders_become_block() {
        let text = "# providers\ncustom_providers: []\nmcp_servers: {}\nflow: {list: []}\n";
        let mut d = doc(text);
        d.set(&["custom_providers", "0", "name"], json!("autonomous"))
            .unwrap();
        d.set(
            &["mcp_servers", "notion", "url"],
            json!("https://mcp.notion.com/mcp"),
        )
        .unwrap();
        d.set(&["flow", "list", "0"], json!("x")).unwrap();
        assert_eq!(
            d.to_string(),
            "# providers\ncustom_providers:\n  - name: autonomous\nmcp_servers:\n  notion:\n    \
             url: https://mcp.notion.com/mcp\nflow: {list: [x]}\n"
        );
        d.validate().unwrap();
    }

    #[test]
    fn whole_sequences_and_items() {
        let mut d = doc(HERMES);
        d.set(
            &["toolsets"],
            json!(["hermes-cli", "browser", "web", "mcp"]),
        )
        .unwrap();
        assert_eq!(
            d.get(&["toolsets"]),
            Some(json!(["hermes-cli", "browser", "web", "mcp"]))
        );
        assert!(
            d.to_string().contains(
                "toolsets:\n  - hermes-cli\n  - browser\n  - web\n  - mcp\n# end of file\n"
            ),
            "{d}"
        );
        d.set(&["toolsets"], json!(["web"])).unwrap();
        assert!(
            d.to_string()
                .contains("toolsets:\n  - web\n# end of file\n"),
            "{d}"
        );
        assert!(d.set(&["toolsets", "5"], json!("x")).is_err());
        assert!(d.set(&["toolsets", "1"], json!("appended")).unwrap());
        assert_eq!(d.get(&["toolsets"]), Some(json!(["web", "appended"])));
        assert!(d.remove(&["toolsets", "0"]).unwrap());
        assert_eq!(d.get(&["toolsets"]), Some(json!(["appended"])));
        d.validate().unwrap();
    }

    #[test]
    fn new_top_level_keys_append_at_the_end() {
        let mut d = doc(HERMES);
        d.set(&["mcp_servers", "notion"], json!({"url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer t"}, "enabled": true})).unwrap();
        assert_eq!(
            d.to_string(),
            format!(
                "{HERMES}mcp_servers:\n  notion:\n    url: https://mcp.notion.com/mcp\n    headers:\n      \
                 Authorization: Bearer t\n    enabled: true\n"
            )
        );
    }

    #[test]
    fn setting_a_mapping_recurses_and_keeps_comments() {
        let mut d = doc(HERMES);
        d.set(&["display"], json!({"skin": "mono", "theme": "dark"}))
            .unwrap();
        assert_diff(
            HERMES,
            &d.to_string(),
            &["  skin: default   # try 'mono'", "  compact: false"],
            &["  skin: mono   # try 'mono'", "  theme: dark"],
        );
        d.merge(&["display"], json!({"compact": true})).unwrap();
        assert_eq!(
            d.get(&["display"]),
            Some(json!({"skin": "mono", "theme": "dark", "compact": true}))
        );
    }

    #[test]
    fn remove_keys() {
        let mut d = doc(HERMES);
        assert!(d.remove(&["display", "compact"]).unwrap());
        assert_diff(HERMES, &d.to_string(), &["  compact: false"], &[]);
        assert!(!d.remove(&["display", "compact"]).unwrap());
        assert!(!d.remove(&["nope", "x"]).unwrap());
        let mut d = doc(FLOW);
        assert!(d.remove(&["model", "default"]).unwrap());
        assert!(
            d.to_string()
                .starts_with("model: {provider: custom:autonomous}\n"),
            "{d}"
        );
    }

    #[test]
    fn empty_and_comment_only_files() {
        let mut d = YamlDoc::new_empty();
        assert_eq!(d.value(), Value::Null);
        d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap();
        assert_eq!(d.to_string(), "terminal:\n  cwd: /root/.hermes\n");
        let mut d = doc("# nothing here yet\n");
        d.set(&["approvals", "mode"], json!("off")).unwrap();
        assert_eq!(
            d.to_string(),
            "# nothing here yet\napprovals:\n  mode: \"off\"\n"
        );
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "a: 1\r\nb:\r\n  c: 2 # two\r\n";
        let mut d = doc(text);
        d.set(&["b", "c"], json!(3)).unwrap();
        d.set(&["b", "d"], json!({"e": "off"})).unwrap();
        let out = d.to_string();
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
        assert!(out.starts_with("a: 1\r\nb:\r\n  c: 3 # two\r\n"), "{out:?}");
    }

    #[test]
    fn numbers_round_trip() {
        let mut d = doc("a: 1\n");
        for (i, v) in [
            json!(120),
            json!(-3),
            json!(1.5),
            json!(1e300),
            json!(2.5e-8),
            json!(u64::MAX),
        ]
        .iter()
        .enumerate()
        {
            d.set(&[&format!("n{i}")], v.clone()).unwrap();
            assert_eq!(d.get(&[&format!("n{i}")]).as_ref(), Some(v));
        }
        assert!(d.to_string().contains("n3: 1.0e+300\n"), "{d}");
        d.validate().unwrap();
    }

    #[test]
    fn anchors_and_aliases() {
        let text = "base: &b\n  x: 1\ncopy: *b\n";
        let mut d = doc(text);
        assert_eq!(d.get(&["copy", "x"]), Some(json!(1)));
        d.set(&["copy", "y"], json!(2)).unwrap();
        assert_eq!(d.get(&["copy"]), Some(json!({"x": 1, "y": 2})));
        assert_eq!(d.get(&["base"]), Some(json!({"x": 1})));
        d.validate().unwrap();
        let mut d = doc(text);
        assert!(d.remove(&["copy", "x"]).unwrap());
        assert_eq!(d.get(&["copy"]), Some(json!({})));
        assert_eq!(d.get(&["base", "x"]), Some(json!(1)));
    }

    fn parse_err(text: &str) -> Error {
        YamlDoc::parse(text, "/root/.hermes/config.yaml").unwrap_err()
    }

    #[test]
    fn malformed_files_are_refused_with_their_line() {
        for (text, line) in [
            ("model: x\nterminal: a: b\n", 2),
            ("a:\n  b: 1\n c: 2\n", 3),
            ("a: 1\nb: [1, 2\nc: 3\n", 3),
            ("a: 1\na: 2\n", 2),
            ("x:\n  k: 1\n  k: 2\n", 3),
            ("a: 'unterminated\nb: 1\n", 1),
        ] {
            let e = parse_err(text);
            assert_eq!(e.code, "parse_error", "{text:?}");
            let loc = e.location.as_ref().unwrap();
            assert_eq!(loc.file, "/root/.hermes/config.yaml");
            assert_eq!(loc.line, Some(line), "{text:?}: {e}");
        }
        let e = parse_err("a: 1\n---\nb: 2\n");
        assert_eq!(e.code, "parse_error");
        let e = parse_err("a: 1\na: 2\n");
        assert!(e.to_string().contains("duplicate key `a`"), "{e}");
        assert!(!e.to_string().contains("DuplicateKeyPolicy"), "{e}");
    }

    #[test]
    fn refuses_roots_it_cannot_edit() {
        let mut d = doc("- a\n- b\n");
        assert_eq!(d.get(&["1"]), Some(json!("b")));
        assert!(d.set(&["x"], json!(1)).is_err());
        assert_eq!(d.to_string(), "- a\n- b\n");
    }

    #[test]
    fn a_result_that_reads_back_wrong_is_undone() {
        // Simulate an editor slip: change the tree, but claim a different intended document.
        let mut d = doc(HERMES);
        let before = d.to_string();
        let root = d.file.document().unwrap().as_mapping().unwrap();
        root.set("terminal", ScalarValue::plain("oops"));
        let mut wrong = d.value();
        wrong["terminal"]["cwd"] = json!("/root/.hermes");
        let e = d.commit(&["terminal", "cwd"], wrong).unwrap_err();
        assert_eq!(e.code, "internal");
        assert!(e.message.contains("terminal.cwd"), "{}", e.message);
        assert_eq!(d.to_string(), before);
        assert_eq!(d.file.to_string(), before);
        assert_eq!(d.value(), doc(HERMES).value());
        d.validate().unwrap();
    }

    #[test]
    fn sequence_style_follows_the_file() {
        let v = json!([{"name": "x", "models": ["a", "b"]}]);
        let mut d = doc("toolsets:\n- a\n");
        d.set(&["custom_providers"], v.clone()).unwrap();
        assert_eq!(
            d.to_string(),
            "toolsets:\n- a\ncustom_providers:\n- name: x\n  models:\n  - a\n  - b\n"
        );
        let mut d = doc("toolsets:\n  - a\n");
        d.set(&["custom_providers"], v.clone()).unwrap();
        assert_eq!(
            d.to_string(),
            "toolsets:\n  - a\ncustom_providers:\n  - name: x\n    models:\n      - a\n      - b\n"
        );
        assert_eq!(sequence_indent("a: 1\n"), 2);
        assert_eq!(sequence_indent("a:\n  b: # c\n  - x\n"), 0);
    }

    #[test]
    fn new_content_in_a_four_space_file_is_indented_two() {
        // A known limit, kept honest: valid YAML, verified, but not the file's 4-space step.
        let mut d = doc("terminal:\n    backend: local\n");
        d.set(&["terminal", "env"], json!({"A": "1"})).unwrap();
        assert_eq!(
            d.to_string(),
            "terminal:\n    backend: local\n    env:\n      A: \"1\"\n"
        );
        assert_eq!(d.get(&["terminal", "env", "A"]), Some(json!("1")));
    }

    #[test]
    fn comments_at_column_zero_inside_a_block() {
        // hermes' example config resumes a block's keys after comment lines at column 0
        let text = "terminal:\n  backend: \"local\"\n  cwd: \".\"  # local backend\n  timeout: 180\n\n\
                    # -----\n# OPTION 2\n# terminal:\n#   backend: \"ssh\"\n\n\
                    # --- Container limits\n  container_cpu: 1              # CPU cores\n\
                    \x20 container_persistent: true    # persist\n\n# ----\nbrowser:\n  timeout: 120\n";
        let mut d = doc(text);
        assert_eq!(
            d.get(&["terminal", "container_persistent"]),
            Some(json!(true))
        );
        d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap();
        d.set(&["terminal", "home_mode"], json!("auto")).unwrap();
        assert!(d.remove(&["terminal", "container_cpu"]).unwrap());
        d.set(&["approvals", "mode"], json!("off")).unwrap();
        assert_diff(
            text,
            &d.to_string(),
            &[
                "  cwd: \".\"  # local backend",
                "  container_cpu: 1              # CPU cores",
            ],
            &[
                "  cwd: \"/root/.hermes\"  # local backend",
                "  home_mode: auto",
                "approvals:",
                "  mode: \"off\"",
            ],
        );
        assert!(
            d.to_string()
                .contains("# persist\n  home_mode: auto\n\n# ----\n"),
            "{d}"
        );
    }

    /// A config in the shape hermes ships: banner comments, comments inside and after blocks,
    /// whitespace-only lines, quoted strings, an indentless sequence.
    const SHIPPED: &str = "\
# Hermes Agent configuration for this device
# Edit with `hermes config set` or by hand.

_config_version: 50

# ====================
# Database
# ====================
database:
  journal_mode: \"wal\"  # or \"delete\"
  # wal_autocheckpoint: 1000

# ====================
# Model
# ====================
model:
  # Default model (overridable with --model)
  default: \"anthropic/claude-opus-4.6\"
  \n  # Provider: auto, openrouter, nous, custom, ...
  provider: \"auto\"
  \n  base_url: \"https://openrouter.ai/api/v1\"

  # context_length: 131072
  # streaming: true

# providers:
#   my-proxy:
#     base_url: https://llm.internal.example/v1

terminal:
  backend: local   # local, docker, ssh
  cwd: \".\"
  timeout: 180

approvals:
  mode: manual   # manual | smart | off

toolsets:
- hermes-cli
- web
";

    #[test]
    fn presync_on_a_shipped_config_touches_only_its_lines() {
        let mut d = doc(SHIPPED);
        d.set(&["model", "provider"], json!("custom:autonomous"))
            .unwrap();
        d.set(&["model", "default"], json!("Auto-AI")).unwrap();
        d.set(
            &["custom_providers", "0"],
            json!({
                "name": "autonomous",
                "key_env": "AUTONOMOUS_API_KEY",
                "api_mode": "anthropic_messages",
                "base_url": "https://campaign-api.autonomous.ai/api/v1/ai"
            }),
        )
        .unwrap();
        d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap();
        d.set(&["approvals", "mode"], json!("off")).unwrap();
        d.set(&["database", "wal_autocheckpoint"], json!(1000))
            .unwrap();
        assert_diff(
            SHIPPED,
            &d.to_string(),
            &[
                "  default: \"anthropic/claude-opus-4.6\"",
                "  provider: \"auto\"",
                "  cwd: \".\"",
                "  mode: manual   # manual | smart | off",
            ],
            &[
                "  wal_autocheckpoint: 1000",
                "  default: \"Auto-AI\"",
                "  provider: \"custom:autonomous\"",
                "  cwd: \"/root/.hermes\"",
                "  mode: \"off\"   # manual | smart | off",
                "custom_providers:",
                "- name: autonomous",
                "  key_env: AUTONOMOUS_API_KEY",
                "  api_mode: anthropic_messages",
                "  base_url: https://campaign-api.autonomous.ai/api/v1/ai",
            ],
        );
        // the new key goes under the block's last key, above its trailing comments
        assert!(d.to_string().contains(
            "  journal_mode: \"wal\"  # or \"delete\"\n  wal_autocheckpoint: 1000\n  # wal_autocheckpoint: 1000\n"
        ));
        // running the same presync again changes nothing
        let once = d.to_string();
        assert!(
            !d.set(&["model", "provider"], json!("custom:autonomous"))
                .unwrap()
        );
        assert!(!d.set(&["approvals", "mode"], json!("off")).unwrap());
        assert!(
            !d.set(&["custom_providers", "0", "name"], json!("autonomous"))
                .unwrap()
        );
        assert_eq!(d.to_string(), once);
        d.validate().unwrap();
    }

    #[test]
    fn number_texts() {
        let n = |v: Value| number_text(v.as_number().unwrap());
        assert_eq!(n(json!(1)), "1");
        assert_eq!(n(json!(1.5)), "1.5");
        assert_eq!(n(json!(100.0)), "100.0");
        assert_eq!(n(json!(1e300)), "1.0e+300");
        assert_eq!(n(json!(2.5e-8)), "2.5e-8");
    }

    #[test]
    fn regression_a_set_root_was_edited_into_a_broken_set() {
        let text = "--- !!set\n? a\n? b\n";
        let mut d = doc(text);
        let e = d
            .set(&["mcp_servers", "x"], json!({"command": "c"}))
            .unwrap_err();
        assert_eq!(e.code, "invalid_value");
        assert!(e.to_string().contains("`!!set`"), "{e}");
        assert_eq!(e.location.as_ref().unwrap().line, Some(1));
        assert_eq!(d.to_string(), text);
        let e = doc("- a\n").set(&["k"], json!(1)).unwrap_err();
        assert_eq!(e.location.as_ref().unwrap().line, Some(1), "{e}");
    }

    #[test]
    fn regression_yaml_errors_showed_the_parsers_words() {
        for (text, words) in [
            ("a:\n  b: 1\n c: 2\n", "did not find expected key"),
            ("a: b: c\n", "mapping values are not allowed"),
            ("a: *nope\n", "alias references unknown anchor"),
            ("a: 1\na: 2\n", "DuplicateKeyPolicy"),
        ] {
            let e = parse_err(text);
            assert!(!e.to_string().contains(words), "{text:?}: {e}");
            let loc = e.location.as_ref().unwrap();
            assert!(loc.line.is_some() && loc.column.is_some(), "{text:?}: {e}");
        }
    }

    #[test]
    fn an_anchor_on_mcp_servers_is_edited_in_place() {
        let text = "defaults: &srv\n  enabled: true\nmcp_servers: &servers\n  gh:\n    command: gh\n    <<: *srv\n";
        let mut d = doc(text);
        d.set(
            &["mcp_servers", "x"],
            json!({"command": "c", "enabled": true}),
        )
        .unwrap();
        assert!(d.to_string().starts_with(text), "{d}");
        assert_eq!(d.get(&["mcp_servers", "gh", "enabled"]), Some(json!(true)));
        assert_eq!(d.get(&["mcp_servers", "x", "command"]), Some(json!("c")));
        d.validate().unwrap();
    }

    #[test]
    fn regression_an_aliased_anchor_on_mcp_servers_exited_101() {
        let text = "mcp_servers: &s\n  gh:\n    command: gh\nmirror: *s\n";
        let mut d = doc(text);
        let e = d
            .set(&["mcp_servers", "x"], json!({"command": "c"}))
            .unwrap_err();
        assert_eq!(
            (e.code, e.exit),
            ("cannot_edit_in_place", crate::error::Exit::Failed)
        );
        assert!(e.to_string().contains("alias"), "{e}");
        assert_eq!(d.to_string(), text);
        d.validate().unwrap();
    }
}
