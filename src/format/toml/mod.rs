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
//!
//! **Layout.** toml_edit renders some valid files differently from how they are written: quoted
//! or spaced parts of dotted keys and table headers that share a parent (`"a" . b = 1`,
//! `['a']` then `[a.'b']`), dotted keys of one table interleaved with another's (it groups
//! them), a missing final line break. So osctl never writes toml_edit's rendering of the file:
//! the lines an edit changes in that rendering are carried over to the text as written
//! ([`super::carry`]), and the result must read back as the edited document. Comments and blank
//! lines that end the file stay above a table added at the end. An edit that would have to
//! rewrite a line toml_edit renders differently is refused, naming that line. A UTF-8 byte order
//! mark, CRLF line endings and a missing final line break are kept.
//!
//! **Refused**, in osctl's words with the line and column (never the parser's): every document
//! that is not TOML 1.1, which codex reads (codex 0.171 accepts 1.1's newlines and trailing
//! commas in inline tables, `\e` and `\xHH` escapes and times without seconds; the toml-test
//! suite's TOML 1.1 list checks this in `tests/it/format_conformance/`), and nesting deeper than
//! 80 levels, which codex's parser refuses too.
//!
//! **Parts.** This file owns the document (its edits, what it renders, the carry of edited lines
//! to the text as written); `read` owns parsing, the refusals in osctl's words and reading
//! values back; `edit` owns writing values into toml_edit's tables (which object becomes a
//! standard table, which an inline one, and what cannot be written).

use std::fmt;

use serde_json::Value;
use toml_edit::{DocumentMut, Item};

use super::{carry::carry, show_path};
use crate::error::{Error, Location, Result};

mod edit;
mod read;

use edit::{check_writable, set_in_table, update_table};
use read::{item_value, parse_document, table_value};

/// Deepest level (1 = a root key) at which a new object becomes a standard table.
const STANDARD_TABLE_DEPTH: usize = 2;

/// A TOML document being edited in place.
#[derive(Clone, Debug)]
pub struct TomlDoc {
    /// The document as toml_edit parsed `text`.
    doc: DocumentMut,
    /// The file's text as written (plus osctl's edits), with LF line endings, without a byte
    /// order mark and with a final line break: what edits are carried over to.
    text: String,
    /// `doc` as toml_edit renders it, which may differ from `text` in layout (module docs).
    rendered: String,
    origin: String,
    /// The file used CRLF line endings; edits happen on LF text.
    crlf: bool,
    /// The file started with a UTF-8 byte order mark, which is kept.
    bom: bool,
    /// The file's last line had no line break: (that line). It keeps having none while an edit
    /// leaves it last and unchanged.
    no_final_newline: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Replace,
    Merge,
}

impl TomlDoc {
    /// Parses `text`; `origin` (the device path) names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<TomlDoc> {
        let (bom, text) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if text.starts_with('\u{feff}') {
            return Err(Error::parse(
                origin,
                Some(1),
                Some(2),
                "a second byte order mark (U+FEFF): TOML allows one, only at the very start",
            ));
        }
        let crlf = super::is_crlf(text);
        let mut lf = if crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_string()
        };
        let no_final_newline = match lf.rsplit_once('\n') {
            _ if lf.is_empty() || lf.ends_with('\n') => None,
            Some((_, last)) => Some(last.to_string()),
            None => Some(lf.clone()),
        };
        // Errors are reported on the text as written; edits work on it with a final line break.
        let doc = parse_document(&lf, origin)?;
        let doc = if no_final_newline.is_some() {
            lf.push('\n');
            parse_document(&lf, origin)?
        } else {
            doc
        };
        Ok(TomlDoc {
            rendered: doc.to_string(),
            doc,
            text: lf,
            origin: origin.to_string(),
            crlf,
            bom,
            no_final_newline,
        })
    }

    /// An empty document, for a file that does not exist yet.
    pub fn new_empty() -> TomlDoc {
        TomlDoc {
            doc: DocumentMut::new(),
            text: String::new(),
            rendered: String::new(),
            origin: String::new(),
            crlf: false,
            bom: false,
            no_final_newline: None,
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
    ///
    /// Errors, leaving the document unchanged, when the removal would have to rewrite a line
    /// osctl cannot keep as written (see [`TomlDoc::set`]).
    pub fn remove(&mut self, path: &[&str]) -> Result<bool> {
        if self.get(path).is_none() {
            return Ok(false);
        }
        let mut doc = self.doc.clone();
        if !remove_in(&mut doc, path) {
            return Ok(false);
        }
        self.commit(path, doc)
    }

    /// The text of the document.
    #[allow(clippy::inherent_to_string_shadow_display)]
    pub fn to_string(&self) -> String {
        let mut text = self.text.clone();
        if let Some(last) = &self.no_final_newline
            && (text.ends_with(&format!("\n{last}\n")) || text == format!("{last}\n"))
        {
            text.pop();
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        if self.bom {
            text.insert(0, '\u{feff}');
        }
        text
    }

    fn edit(&mut self, path: &[&str], value: &Value, mode: Mode) -> Result<bool> {
        if value.is_null() {
            return self.remove(path);
        }
        if mode == Mode::Replace && self.get(path).as_ref() == Some(value) {
            return Ok(false);
        }
        check_writable(value).map_err(|why| self.unwritable(path, why))?;
        let mut doc = self.doc.clone();
        if path.is_empty() {
            let Value::Object(map) = value else {
                return Err(self.unwritable(path, "a TOML document is a table"));
            };
            update_table(doc.as_table_mut(), map, 0, mode);
        } else {
            set_in_table(doc.as_table_mut(), path, value, 0, mode);
        }
        self.commit(path, doc)
    }

    /// Makes `edited` (an edited copy of `self.doc`) the document: its changes are carried over
    /// to the text as written, and the result must read back as `edited`.
    fn commit(&mut self, path: &[&str], edited: DocumentMut) -> Result<bool> {
        let rendered = keep_trailing_in_place(&self.rendered, &edited);
        if rendered == self.rendered {
            return Ok(false);
        }
        let text = carry(&self.rendered, &self.text, &rendered)
            .map_err(|c| self.layout_conflict(path, c.line))?;
        // What the edited document says once written (an empty implicit table, for one, is not
        // written), and what the carried-over text says: they must agree.
        let intended = rendered.parse::<DocumentMut>().ok();
        let reread = text.parse::<DocumentMut>().ok().filter(|d| {
            intended
                .as_ref()
                .is_some_and(|i| table_value(i.as_table()) == table_value(d.as_table()))
        });
        let Some(reread) = reread else {
            return Err(Error::internal(format!(
                "editing {} in {} would not give the intended TOML; the edit was undone",
                show_path(path),
                self.shown()
            )));
        };
        let changed = text != self.text;
        self.rendered = reread.to_string();
        self.doc = reread;
        self.text = text;
        Ok(changed)
    }

    fn layout_conflict(&self, path: &[&str], line: usize) -> Error {
        let written = self.text.lines().nth(line - 1).unwrap_or("").trim();
        Error::input(
            "cannot_edit_in_place",
            format!(
                "cannot change {} in {} without rewriting line {line} (`{written}`) in another \
                 form: osctl keeps such lines as written and this edit would have to change it",
                show_path(path),
                self.shown()
            ),
        )
        .at(Location {
            file: self.shown().to_string(),
            line: Some(line),
            column: Some(1),
        })
        .hint(
            "nothing was written; write the keys on that line without quotes or spaces around \
             their dots (`a.b = 1`), then run the command again",
        )
    }

    fn shown(&self) -> &str {
        if self.origin.is_empty() {
            "the TOML file"
        } else {
            &self.origin
        }
    }

    fn unwritable(&self, path: &[&str], why: &str) -> Error {
        Error::input(
            "invalid_value",
            format!(
                "cannot write {} to {}: {why}",
                show_path(path),
                self.shown()
            ),
        )
    }
}

impl fmt::Display for TomlDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&TomlDoc::to_string(self))
    }
}

/// `edited` rendered, with the comments and blank lines that end the file before the edit kept
/// where they were: toml_edit writes them after the last table, so a table added at the end
/// would otherwise slip in above them.
fn keep_trailing_in_place(before: &str, edited: &DocumentMut) -> String {
    let rendered = edited.to_string();
    let trailing = edited.trailing().as_str().unwrap_or("");
    let Some(kept) = before
        .strip_suffix(trailing)
        .filter(|_| !trailing.is_empty())
    else {
        return rendered;
    };
    let mut bare = edited.clone();
    bare.set_trailing("");
    match bare.to_string().strip_prefix(kept) {
        Some(added) if !added.is_empty() => format!("{kept}{trailing}{added}"),
        _ => rendered,
    }
}

/// Removes the key at `path` from `doc`; whether it was there. The comments on their own lines
/// above it (and, for a table, above its keys) are the owner's: they go to what follows it.
fn remove_in(doc: &mut DocumentMut, path: &[&str]) -> bool {
    let Some((last, parent)) = path.split_last() else {
        return false;
    };
    let mut item = doc.as_item_mut();
    for key in parent {
        match item.get_mut(key) {
            Some(next) => item = next,
            None => return false,
        }
    }
    let parent_pos = item.as_table().and_then(|t| t.position());
    let Some(t) = item.as_table_like_mut() else {
        return false;
    };
    let keys: Vec<String> = t.iter().map(|(k, _)| k.to_string()).collect();
    let Some(at) = keys.iter().position(|k| k == last) else {
        return false;
    };
    let Some(key) = t.key(last).cloned() else {
        return false;
    };
    let Some(removed) = t.remove(last) else {
        return false;
    };
    let comments = own_line_comments(&key, &removed);
    if comments.is_empty() {
        return true;
    }
    // A value's comments go to the next value of its table, when there is one.
    if !removed.is_table() {
        for next in &keys[at + 1..] {
            if let Some((mut k, v)) = t.get_key_value_mut(next)
                && v.is_value()
            {
                let decor = k.leaf_decor_mut();
                let prefix = raw(decor.prefix());
                decor.set_prefix(format!("{comments}{prefix}"));
                return true;
            }
        }
    }
    // Else the next table header in the file, or the end of the file.
    let after = removed.as_table().and_then(|t| t.position()).or(parent_pos);
    let mut tables = Vec::new();
    table_paths(doc.as_table(), &mut Vec::new(), &mut tables);
    let next = tables
        .into_iter()
        .filter(|(p, _)| after.is_none_or(|a| *p > a))
        .min_by_key(|(p, _)| *p);
    let table = next.and_then(|(_, path)| {
        let mut item = doc.as_item_mut();
        for k in &path {
            item = item.get_mut(k)?;
        }
        item.as_table_mut()
    });
    match table {
        Some(table) => {
            let decor = table.decor_mut();
            let prefix = raw(decor.prefix());
            decor.set_prefix(format!("{comments}{prefix}"));
        }
        None => {
            let trailing = doc.trailing().as_str().unwrap_or("").to_string();
            doc.set_trailing(format!("{trailing}{comments}"));
        }
    }
    true
}

fn raw(r: Option<&toml_edit::RawString>) -> String {
    r.and_then(|r| r.as_str()).unwrap_or("").to_string()
}

/// The comment lines standing on their own above `key` (and above the keys of a removed table).
fn own_line_comments(key: &toml_edit::Key, item: &Item) -> String {
    let mut prefixes = vec![raw(key.leaf_decor().prefix())];
    if let Some(t) = item.as_table() {
        prefixes.push(raw(t.decor().prefix()));
        prefixes.extend(t.iter().map(|(k, _)| {
            t.key(k)
                .map(|k| raw(k.leaf_decor().prefix()))
                .unwrap_or_default()
        }));
    }
    prefixes
        .iter()
        .flat_map(|p| p.lines())
        .filter(|l| l.trim_start().starts_with('#'))
        .map(|l| format!("{}\n", l.trim_start()))
        .collect()
}

/// The position and path of every table below `table`.
fn table_paths(
    table: &toml_edit::Table,
    at: &mut Vec<String>,
    out: &mut Vec<(isize, Vec<String>)>,
) {
    for (k, item) in table.iter() {
        if let Some(t) = item.as_table() {
            at.push(k.to_string());
            if let Some(p) = t.position()
                && !t.is_implicit()
            {
                out.push((p, at.clone()));
            }
            table_paths(t, at, out);
            at.pop();
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
