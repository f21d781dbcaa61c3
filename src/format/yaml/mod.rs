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

mod editor;
mod render;

use editor::{Editor, NewNode};
pub use render::needs_quotes;
use render::*;
#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
