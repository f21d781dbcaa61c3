//! Writing values into toml_edit's tree: objects become standard tables near the root and
//! inline tables deeper, existing values keep their decoration, and what TOML cannot hold
//! (`null` in an array, integers beyond 64 bits) is refused.

use serde_json::{Map, Value};
use toml_edit::{Array, InlineTable, Item, Table};

use super::{
    Mode, STANDARD_TABLE_DEPTH,
    read::{item_value, toml_value},
};

/// Why `value` cannot be written as TOML, if it cannot.
pub(super) fn check_writable(value: &Value) -> std::result::Result<(), &'static str> {
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
pub(super) fn set_in_table(
    table: &mut Table,
    path: &[&str],
    value: &Value,
    depth: usize,
    mode: Mode,
) {
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
pub(super) fn update_table(table: &mut Table, map: &Map<String, Value>, depth: usize, mode: Mode) {
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
