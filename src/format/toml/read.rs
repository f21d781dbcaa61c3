//! Reading: parsing a document (TOML 1.1, as its runtime reads it, at most 80 levels deep), each
//! refusal in osctl's words with the line and column, and values read back as JSON (datetimes
//! as their TOML text, non-finite floats as strings).

use serde_json::{Number, Value};
use toml_edit::{DocumentMut, Item, Table};

use crate::error::{Error, Result};
use crate::format::line_col;

/// Parses LF text, refusing it in osctl's words (the line and column of the fault, what is
/// wrong there and how TOML writes it) rather than the parser's.
pub(super) fn parse_document(text: &str, origin: &str) -> Result<DocumentMut> {
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

pub(super) fn item_value(item: &Item) -> Option<Value> {
    match item {
        Item::None => None,
        Item::Value(v) => Some(toml_value(v)),
        Item::Table(t) => Some(table_value(t)),
        Item::ArrayOfTables(aot) => Some(Value::Array(aot.iter().map(table_value).collect())),
    }
}

pub(super) fn table_value(table: &Table) -> Value {
    Value::Object(
        table
            .iter()
            .filter_map(|(k, item)| item_value(item).map(|v| (k.to_string(), v)))
            .collect(),
    )
}

pub(super) fn toml_value(value: &toml_edit::Value) -> Value {
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
