//! How a YAML edit lays out what it writes: setting values in mappings and sequences in the
//! style of the file being edited, and building new nodes.

use super::*;

/// How new nodes are laid out, from the style of the file being edited.
#[derive(Clone, Copy)]
pub(super) struct Editor {
    /// Columns from a mapping key to the `-` of its block sequence: 0 (`key:\n- a`, as PyYAML
    /// writes) or 2 (`key:\n  - a`).
    pub(super) seq_indent: usize,
}

impl Editor {
    pub(super) fn set_in_mapping(
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

    pub(super) fn set_in_sequence(
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
    pub(super) fn set_entry(
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
    pub(super) fn update_mapping(
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
    pub(super) fn update_sequence(
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

    pub(super) fn set_item(
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
pub(super) fn is_empty_flow(node: &YamlNode) -> bool {
    match node {
        YamlNode::Mapping(m) => m.is_empty() && m.is_flow_style(),
        YamlNode::Sequence(s) => s.is_empty() && s.is_flow_style(),
        _ => false,
    }
}

/// A new node for a value: a scalar, or a collection parsed from text osctl rendered.
pub(super) enum NewNode {
    Scalar(ScalarValue),
    Mapping(Mapping),
    Sequence(Sequence),
}

impl NewNode {
    pub(super) fn of(editor: &Editor, value: &Value) -> Result<NewNode> {
        Self::of_replacing(editor, value, None)
    }

    /// The node for `value`; a string replacing a quoted string keeps its quote style.
    pub(super) fn of_replacing(
        editor: &Editor,
        value: &Value,
        old: Option<&Scalar>,
    ) -> Result<NewNode> {
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

    pub(super) fn set_in_mapping(&self, m: &Mapping, key: &str) {
        let key = key_scalar(key);
        match self {
            NewNode::Scalar(s) => m.set(key, s),
            NewNode::Mapping(n) => m.set(key, n),
            NewNode::Sequence(n) => m.set(key, n),
        }
    }

    pub(super) fn set_in_file(&self, file: &YamlFile, key: &str) -> bool {
        let key = key_scalar(key);
        match self {
            NewNode::Scalar(s) => file.set(key, s),
            NewNode::Mapping(n) => file.set(key, n),
            NewNode::Sequence(n) => file.set(key, n),
        }
    }

    /// Replaces the value of `entry` of `m`. Through the mapping, not the entry: only the
    /// mapping turns a block value into flow form for a flow mapping.
    pub(super) fn replace_in_mapping(&self, m: &Mapping, entry: &MappingEntry) {
        let Some(key) = entry.key_node() else { return };
        match self {
            NewNode::Scalar(s) => m.set(&key, s),
            NewNode::Mapping(n) => m.set(&key, n),
            NewNode::Sequence(n) => m.set(&key, n),
        }
    }

    pub(super) fn set_item(&self, seq: &Sequence, index: usize) {
        match self {
            NewNode::Scalar(s) => seq.set(index, s),
            NewNode::Mapping(n) => seq.set(index, n),
            NewNode::Sequence(n) => seq.set(index, n),
        };
    }

    pub(super) fn push_to(&self, seq: &Sequence) {
        match self {
            NewNode::Scalar(s) => seq.push(s),
            NewNode::Mapping(n) => seq.push(n),
            NewNode::Sequence(n) => seq.push(n),
        }
    }
}

pub(super) fn key_scalar(key: &str) -> ScalarValue {
    if needs_quotes(key) {
        ScalarValue::double_quoted(key)
    } else {
        ScalarValue::plain(key)
    }
}

/// The scalar for a non-collection value; a string replacing a quoted one keeps its quotes.
pub(super) fn scalar(value: &Value, old: Option<&Scalar>) -> ScalarValue {
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
