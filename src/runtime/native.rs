//! Reading a runtime's native file into one value type ([`serde_json::Value`]), whatever its
//! format. Used wherever osctl only reads another runtime's settings (status, the MCP and LLM
//! carry-over on a switch); edits go through the format-preserving editors in `format/`.

use serde_json::{Map, Value};

use super::Format;
use crate::error::{Error, Result};
use crate::system::fs::RootFs;
use crate::system::path::DevPath;

/// Reads and parses `path`; `None` when the file does not exist. A file that cannot be parsed is
/// an error naming its line.
pub fn read_value(fs: &RootFs, path: &DevPath, format: Format) -> Result<Option<Value>> {
    match fs.read_text(path)? {
        None => Ok(None),
        Some(text) => parse_value(path, &text, format).map(Some),
    }
}

/// Parses text of the given format.
pub fn parse_value(path: &DevPath, text: &str, format: Format) -> Result<Value> {
    match format {
        Format::Json => serde_json::from_str(text).map_err(|e| Error::json(path, &e)),
        Format::Jsonc | Format::Json5 => {
            if text.trim().is_empty() {
                return Ok(Value::Object(Map::new()));
            }
            jsonc_parser::parse_to_serde_value::<Value>(text, &Default::default()).map_err(|e| {
                Error::parse(
                    path,
                    Some(e.line_display()),
                    Some(e.column_display()),
                    e.kind().to_string(),
                )
            })
        }
        Format::Yaml => {
            if text.trim().is_empty() {
                return Ok(Value::Object(Map::new()));
            }
            serde_saphyr::from_str::<Value>(text).map_err(|e| {
                let loc = e.location();
                Error::parse(
                    path,
                    loc.map(|l| l.line() as usize),
                    loc.map(|l| l.column() as usize),
                    first_line(&e.to_string()),
                )
            })
        }
        Format::Toml => {
            let doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
                let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
                Error::parse(path, Some(line), Some(col), first_line(e.message()))
            })?;
            Ok(toml_table(doc.as_table()))
        }
        Format::DotEnv | Format::Markdown => Err(Error::internal(format!(
            "{path}: {format:?} is not read as a value"
        ))),
    }
}

/// The value at `keys` (map keys from the root).
pub fn get<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().try_fold(value, |v, k| v.get(k))
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count() + 1)
        .unwrap_or(1);
    (line, col)
}

fn toml_table(t: &toml_edit::Table) -> Value {
    Value::Object(
        t.iter()
            .map(|(k, item)| (k.to_string(), toml_item(item)))
            .collect(),
    )
}

fn toml_item(item: &toml_edit::Item) -> Value {
    match item {
        toml_edit::Item::None => Value::Null,
        toml_edit::Item::Value(v) => toml_value(v),
        toml_edit::Item::Table(t) => toml_table(t),
        toml_edit::Item::ArrayOfTables(a) => Value::Array(a.iter().map(toml_table).collect()),
    }
}

fn toml_value(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match v {
        T::String(s) => Value::String(s.value().clone()),
        T::Integer(i) => Value::from(*i.value()),
        T::Float(f) => serde_json::Number::from_f64(*f.value())
            .map(Value::Number)
            .unwrap_or(Value::Null),
        T::Boolean(b) => Value::Bool(*b.value()),
        T::Datetime(d) => Value::String(d.value().to_string()),
        T::Array(a) => Value::Array(a.iter().map(toml_value).collect()),
        T::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), toml_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_structured_format() {
        let p = DevPath::new("/x");
        let json5 = "{\n // c\n mcp: { servers: { a: { command: 'x', }, }, },\n}";
        let v = parse_value(&p, json5, Format::Json5).unwrap();
        assert_eq!(
            get(&v, &["mcp", "servers", "a", "command"]),
            Some(&Value::from("x"))
        );
        let v = parse_value(
            &p,
            "mcp_servers:\n  n: {url: 'u', enabled: true}\n",
            Format::Yaml,
        )
        .unwrap();
        assert_eq!(
            get(&v, &["mcp_servers", "n", "enabled"]),
            Some(&Value::Bool(true))
        );
        let v = parse_value(
            &p,
            "model = \"m\" # c\n[mcp_servers.x]\ncommand = \"c\"\n",
            Format::Toml,
        )
        .unwrap();
        assert_eq!(
            get(&v, &["mcp_servers", "x", "command"]),
            Some(&Value::from("c"))
        );
    }

    #[test]
    fn errors_name_the_line() {
        let p = DevPath::new("/x");
        for (text, format, line) in [
            ("{\n\"a\": 1,\n\"b\" 2\n}", Format::Json, 3),
            ("{\n a: 1,\n b: [1,,]\n}", Format::Json5, 3),
            ("a: 1\nb: [1, 2\nc: 3\n", Format::Yaml, 3),
            ("a = 1\nb = = 2\n", Format::Toml, 2),
        ] {
            let err = parse_value(&p, text, format).unwrap_err();
            assert_eq!(err.code, "parse_error", "{format:?}");
            assert!(
                err.location.as_ref().unwrap().line.is_some(),
                "{format:?}: {err:?}"
            );
            let got = err.location.clone().unwrap().line.unwrap();
            assert!(
                got >= line - 1 && got <= line,
                "{format:?}: line {got}, expected about {line}"
            );
        }
    }
}
