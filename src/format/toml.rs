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
//! suite's TOML 1.1 list checks this in `tests/it/format_conformance.rs`), and nesting deeper than
//! 80 levels, which codex's parser refuses too.

use std::fmt;

use serde_json::{Map, Number, Value};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use super::carry::carry;
use super::{line_col, show_path};
use crate::error::{Error, Location, Result};

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

/// Removes the key at `path` from `doc`; whether it was there.
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
    match item.as_table_like_mut() {
        Some(t) => t.remove(last).is_some(),
        None => false,
    }
}

/// Parses LF text, refusing it in osctl's words (the line and column of the fault, what is
/// wrong there and how TOML writes it) rather than the parser's.
fn parse_document(text: &str, origin: &str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|e| {
        let (line, column) = match e.span() {
            Some(span) => {
                let (l, c) = line_col(text, span.start);
                (Some(l), Some(c))
            }
            // toml_edit gives no place for a key of too many parts: find it
            None => (deepest_key_line(text), Some(1)),
        };
        let at = e.span().and_then(|span| text.get(span)).unwrap_or("");
        let (cause, hint) = explain(e.message(), at);
        // The fix goes with the cause: the hint is the command's (how to run it again).
        let cause = match hint {
            Some(fix) => format!("{cause} ({fix})"),
            None => cause,
        };
        Error::parse(origin, line, column, cause)
    })
}

/// The first line whose key (or table header) has more parts than toml_edit and codex read.
fn deepest_key_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let key = line.split(['=', '#']).next().unwrap_or("");
            key.matches('.').count() >= MAX_DEPTH
        })
        .map(|i| i + 1)
}

/// How deep toml_edit (and the `toml` crate codex reads its file with) nest tables, arrays and
/// dotted keys: deeper is refused by both.
const MAX_DEPTH: usize = 80;

/// What a toml_edit error message means, in osctl's words: the cause, and how to fix it where
/// one fix is clear. A message not listed gets a plain cause, never the parser's text.
///
/// `at` is the text the error points at (the key, for a key defined twice).
fn explain(message: &str, at: &str) -> (String, Option<&'static str>) {
    let first = message.lines().next().unwrap_or("").trim();
    if first.starts_with("duplicate key") {
        return (
            format!(
                "`{}` is defined twice: TOML allows each key and table once",
                at.trim()
            ),
            Some("remove or rename one of the two definitions"),
        );
    }
    if let Some(rest) = first.strip_prefix("cannot extend value of type ") {
        let kind = rest.split(" with").next().unwrap_or("value");
        return (
            format!("a dotted key or table adds keys to a {kind}, which is not a table"),
            Some("rename one of them, or make the value a table"),
        );
    }
    type Entry = (&'static str, &'static str, Option<&'static str>);
    const QUOTE_TEXT: Option<&str> = Some(r#"write text in quotes: `key = "text"`"#);
    const FLOAT: Option<&str> =
        Some("floats have digits on both sides of the `.` (1.0, 0.5) and after an exponent (1e6)");
    const ESCAPES: Option<&str> = Some(
        r#"TOML escapes are \b \t \n \f \r \e \" \\ \xHH \uHHHH \UHHHHHHHH; write a backslash as \\"#,
    );
    const TABLE: &[Entry] = &[
        (
            "key with no value",
            "a key with no `= value` after it",
            Some("write `key = value`"),
        ),
        (
            "missing value",
            "a key with no value after its `=`",
            Some("write `key = value`"),
        ),
        (
            "unexpected key or value",
            "more text after a value: each `key = value` pair needs a line of its own",
            None,
        ),
        ("unexpected content", "text where TOML allows none", None),
        (
            "string values must be quoted",
            "a value that is not a TOML value",
            QUOTE_TEXT,
        ),
        (
            "invalid boolean",
            "a value that is not a TOML value (booleans are `true` or `false`, in lowercase)",
            QUOTE_TEXT,
        ),
        ("invalid value", "a value that is not a TOML value", None),
        ("unclosed table", "a table header with no closing `]`", None),
        (
            "unclosed array table",
            "an array-of-tables header with no closing `]]`",
            None,
        ),
        ("unclosed array", "an array with no closing `]`", None),
        (
            "unclosed inline table",
            "an inline table with no closing `}`",
            None,
        ),
        ("missing table open", "a `]` with no `[` before it", None),
        (
            "missing array opening",
            "an array with no opening `[`",
            None,
        ),
        (
            "missing inline table opening",
            "an inline table with no opening `{`",
            None,
        ),
        (
            "invalid inline table element",
            "an inline table holds something other than `key = value` pairs",
            None,
        ),
        (
            "missing key for inline table element",
            "an inline table holds a value without its key",
            None,
        ),
        (
            "extra comma in inline table",
            "a comma with no entry before it in an inline table",
            None,
        ),
        (
            "extra comma in array",
            "a comma with no value before it in an array",
            None,
        ),
        (
            "missing comma between array elements",
            "two array elements with no comma between them",
            None,
        ),
        (
            "missing comma between key-value pairs",
            "two inline table entries with no comma between them",
            None,
        ),
        (
            "missing assignment between key-value pairs",
            "a key with no `=` after it",
            None,
        ),
        (
            "extra assignment between key-value pairs",
            "one `=` too many",
            None,
        ),
        ("extra `=`", "one `=` too many", None),
        ("unexpected `=` in array", "a `=` inside an array", None),
        (
            "unquoted keys cannot be empty",
            "an empty key",
            Some(r#"an empty key is written `"" = value`"#),
        ),
        (
            "invalid unquoted key",
            "a bare key with a character bare keys cannot hold (they hold A-Z a-z 0-9 - _)",
            Some(r#"quote the key: `"my key" = value`"#),
        ),
        (
            "keys cannot be multi-line",
            "a key written as a multi-line string",
            None,
        ),
        (
            "too few unicode value digits",
            "a unicode escape with too few hexadecimal digits",
            Some(r"write \uXXXX (4 digits) or \UXXXXXXXX (8 digits)"),
        ),
        (
            "missing escaped value",
            "a backslash that starts no valid escape",
            ESCAPES,
        ),
        (
            "invalid escape",
            "a backslash that starts no valid escape",
            ESCAPES,
        ),
        (
            "missing opening quote",
            "a string with no opening quote",
            None,
        ),
        (
            "invalid basic string",
            "a string with a character TOML does not allow there (a control character or a line \
             break), or with no closing quote",
            None,
        ),
        (
            "invalid multi-line basic string",
            "a multi-line string with a character TOML does not allow there, or with no closing \
             `\"\"\"`",
            None,
        ),
        (
            "invalid literal string",
            "a literal string with a character TOML does not allow there (a control character or \
             a line break), or with no closing quote",
            None,
        ),
        (
            "invalid multi-line literal string",
            "a multi-line literal string with a character TOML does not allow there, or with no \
             closing `'''`",
            None,
        ),
        (
            "invalid comment character",
            "a control character in a comment",
            None,
        ),
        (
            "missing comment start",
            "text where only a `#` comment may follow",
            None,
        ),
        (
            "carriage return must be followed by newline",
            "a carriage return that is not part of a line break",
            None,
        ),
        (
            "unexpected leading zero",
            "a number with a leading zero",
            Some("write it without the leading zero, or with a 0x, 0o or 0b prefix"),
        ),
        (
            "integers with a radix cannot be signed",
            "a hexadecimal, octal or binary integer with a sign",
            None,
        ),
        (
            "radix must be lowercase",
            "an integer prefix in capitals",
            Some("write 0x, 0o or 0b"),
        ),
        (
            "redundant integer number prefix",
            "an integer prefix written twice",
            None,
        ),
        ("redundant numeric sign", "a number with two signs", None),
        (
            "unexpected sign",
            "a sign where a number cannot have one",
            None,
        ),
        (
            "`_` may only go between digits",
            "an underscore in a number that is not between two digits",
            None,
        ),
        (
            "integer number overflowed",
            "an integer outside the 64-bit range",
            None,
        ),
        (
            "invalid hexadecimal number",
            "a digit a hexadecimal number cannot hold",
            None,
        ),
        (
            "invalid octal number",
            "a digit an octal number cannot hold",
            None,
        ),
        (
            "invalid binary number",
            "a digit a binary number cannot hold",
            None,
        ),
        ("invalid float", "a number that is not a valid float", FLOAT),
        (
            "invalid fraction",
            "a number that is not a valid float",
            FLOAT,
        ),
        (
            "invalid exponent",
            "a number whose exponent has no digits",
            FLOAT,
        ),
        (
            "invalid mantissa",
            "a number that is not a valid float",
            FLOAT,
        ),
        (
            "invalid date-time",
            "not a valid date and time",
            Some("write YYYY-MM-DDTHH:MM:SS, with Z or +HH:MM for an offset"),
        ),
        (
            "invalid date",
            "not a valid date",
            Some("write YYYY-MM-DD, a day that exists"),
        ),
        (
            "invalid time",
            "not a valid time",
            Some("write HH:MM or HH:MM:SS (hours 00-23, minutes 00-59, seconds 00-60)"),
        ),
        (
            "invalid offset",
            "not a valid time offset",
            Some("write Z, +HH:MM or -HH:MM"),
        ),
        (
            "cannot recurse further",
            "arrays or inline tables nested more than 80 deep, which codex cannot read either",
            None,
        ),
        (
            "recursion limit",
            "a key or table name of more than 80 parts, which codex cannot read either",
            None,
        ),
        (
            "invalid table header",
            "a table header that is not `[name]`",
            None,
        ),
        (
            "invalid array table",
            "an array-of-tables header that is not `[[name]]`",
            None,
        ),
        ("invalid key", "not a valid key", None),
        (
            "invalid key-value pair",
            "not a valid `key = value` pair",
            None,
        ),
    ];
    for (prefix, cause, hint) in TABLE {
        if first.starts_with(prefix) {
            return ((*cause).to_string(), *hint);
        }
    }
    ("this is not valid TOML".to_string(), None)
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
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
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
        assert!(d.remove(&["mcp_servers", "github"]).unwrap());
        assert!(!d.remove(&["mcp_servers", "github"]).unwrap());
        assert!(!d.remove(&["no", "such"]).unwrap());
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

    #[test]
    fn regression_toml_quoted_and_spaced_dotted_keys_were_refused() {
        let text = "name.first = \"Arthur\"\n\"name\".'last' = \"Dent\"\ncount . b = 2 # spaced\n";
        let mut d = doc(text);
        assert_eq!(d.to_string(), text);
        assert!(
            d.set(&["mcp_servers", "x", "command"], json!("cmd"))
                .unwrap()
        );
        assert_eq!(
            d.to_string(),
            format!("{text}\n[mcp_servers.x]\ncommand = \"cmd\"\n")
        );
        // a change elsewhere keeps those lines too
        assert!(d.set(&["count", "c"], json!(3)).unwrap());
        assert!(d.to_string().starts_with(text), "{d}");
        assert_eq!(d.get(&["name", "last"]), Some(json!("Dent")));
    }

    #[test]
    fn regression_toml_quoted_table_names_were_refused() {
        let text = "['a']\n[a.'b']\n[a.'b'.c]\nanswer = 42 \n";
        let mut d = doc(text);
        assert!(
            d.set(&["mcp_servers", "x"], json!({"command": "cmd"}))
                .unwrap()
        );
        assert_eq!(
            d.to_string(),
            format!("{text}\n[mcp_servers.x]\ncommand = \"cmd\"\n")
        );
        assert_eq!(d.get(&["a", "b", "c", "answer"]), Some(json!(42)));
    }

    #[test]
    fn regression_toml_interleaved_dotted_keys_were_regrouped() {
        let text = "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"\n";
        let mut d = doc(text);
        assert!(
            d.set(&["mcp_servers", "x", "command"], json!("cmd"))
                .unwrap()
        );
        assert!(d.to_string().starts_with(text), "{d}");
        assert!(d.set(&["apple", "color"], json!("red")).unwrap());
        assert_eq!(d.get(&["apple", "color"]), Some(json!("red")));
        assert!(TomlDoc::parse(&d.to_string(), "x").is_ok());
    }

    #[test]
    fn an_edit_of_a_line_kept_as_written_is_refused_naming_it() {
        let text = "a = 1\n\"count\" . b = 2\ncount.c = 3\n";
        let mut d = doc(text);
        // toml_edit writes line 3 as `"count" .c = 3`
        let e = d.set(&["count", "c"], json!(5)).unwrap_err();
        assert_eq!(e.code, "cannot_edit_in_place");
        assert_eq!(e.location.as_ref().unwrap().line, Some(3), "{e}");
        assert!(e.message.contains("(`count.c = 3`)"), "{e}");
        assert_eq!(d.to_string(), text);
        assert!(d.set(&["count", "b"], json!(5)).unwrap());
        assert_eq!(d.get(&["count"]), Some(json!({"b": 5, "c": 3})));
        // the document is still usable
        assert!(d.set(&["a"], json!(2)).unwrap());
        assert_eq!(
            d.to_string(),
            text.replace("a = 1", "a = 2").replace("b = 2", "b = 5")
        );
    }

    #[test]
    fn regression_toml_without_a_final_newline_was_refused() {
        let text = "# No newline at end of file.\n[table]\na=1";
        let mut d = doc(text);
        assert_eq!(d.to_string(), text);
        // an edit before the last line keeps it without a line break
        assert!(d.set(&["first"], json!(true)).unwrap());
        assert!(d.to_string().ends_with("\na=1"), "{d:?}");
        // one after it gives it one
        assert!(
            d.set(&["mcp_servers", "x", "command"], json!("cmd"))
                .unwrap()
        );
        assert!(
            d.to_string()
                .ends_with("a=1\n\n[mcp_servers.x]\ncommand = \"cmd\"\n"),
            "{:?}",
            d.to_string()
        );
        let mut d = doc("# only a comment");
        d.set(&["k"], json!(1)).unwrap();
        assert_eq!(d.to_string(), "# only a comment\nk = 1\n");
    }

    #[test]
    fn regression_toml_with_a_byte_order_mark_was_refused() {
        let text = "\u{feff}model = \"m\"\r\n";
        let mut d = doc(text);
        assert_eq!(d.to_string(), text);
        d.set(&["mcp_servers", "x", "command"], json!("cmd"))
            .unwrap();
        assert_eq!(
            d.to_string(),
            "\u{feff}model = \"m\"\r\n\r\n[mcp_servers.x]\r\ncommand = \"cmd\"\r\n"
        );
        let e = TomlDoc::parse("\u{feff}\u{feff}a = 1\n", "x").unwrap_err();
        assert_eq!(e.location.as_ref().unwrap().line, Some(1));
    }

    #[test]
    fn regression_trailing_comments_slipped_below_a_new_table() {
        let text = "a = 1\n# the end\n\n";
        let mut d = doc(text);
        d.set(&["mcp_servers", "x", "command"], json!("cmd"))
            .unwrap();
        assert!(d.to_string().starts_with(text), "{d:?}");
        let mut d = doc(" \n");
        d.set(&["mcp_servers", "x", "command"], json!("cmd"))
            .unwrap();
        assert!(d.to_string().starts_with(" \n["), "{:?}", d.to_string());
    }

    #[test]
    fn regression_toml_errors_showed_the_parsers_words() {
        for (text, line, column, words) in [
            ("a = [1,,2]\n", 1, 8, "extra comma"),
            ("a = tru\n", 1, 5, "invalid boolean"),
            ("a = 1\na = 2\n", 2, 1, "duplicate key"),
            ("[t\nx = 1\n", 1, 3, "unclosed table"),
            ("s = \"\\q\"\n", 1, 7, "missing escaped value"),
        ] {
            let e = TomlDoc::parse(text, "/root/.codex/config.toml").unwrap_err();
            let loc = e.location.as_ref().unwrap();
            assert_eq!(
                (loc.line, loc.column),
                (Some(line), Some(column)),
                "{text:?}: {e}"
            );
            assert!(!e.to_string().contains(words), "{text:?}: {e}");
            assert!(!e.to_string().contains("expected"), "{text:?}: {e}");
        }
        let e = TomlDoc::parse("a = 1\na = 2\n", "x").unwrap_err();
        assert!(e.to_string().contains("`a` is defined twice"), "{e}");
    }

    #[test]
    fn nesting_up_to_codex_limit_is_edited_and_deeper_refused() {
        let keys = |n: usize| {
            (0..n)
                .map(|i| format!("k{i}"))
                .collect::<Vec<_>>()
                .join(".")
        };
        let mut d = doc(&format!("[{}]\nx = 1\n", keys(79)));
        assert!(d.set(&["mcp_servers", "x", "command"], json!("c")).unwrap());
        let e = TomlDoc::parse(&format!("a = 1\n[{}]\nx = 1\n", keys(90)), "x").unwrap_err();
        assert_eq!(e.location.as_ref().unwrap().line, Some(2), "{e}");
        let deep = format!("a = {}{}\n", "[".repeat(90), "]".repeat(90));
        let e = TomlDoc::parse(&deep, "x").unwrap_err();
        assert!(e.to_string().contains("80"), "{e}");
    }
}
