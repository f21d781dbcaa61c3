//! Reading a runtime's native file into one value type ([`serde_json::Value`]), whatever its
//! format. Used wherever osctl only reads another runtime's settings (status, the MCP and LLM
//! carry-over on a switch); edits go through the format-preserving editors in `format/`.

use serde_json::{Map, Value};

use super::Format;
use crate::device::paths::Layout;
use crate::error::{Error, Result};
use crate::format::doc::Doc;
use crate::format::dotenv::DotEnv;
use crate::path::DevPath;
use crate::plan::Draft;
use crate::system::fs::RootFs;

/// Reads and parses `path`; `None` when the file does not exist. A file that cannot be parsed is
/// an error naming its line.
pub(crate) fn read_value(fs: &RootFs, path: &DevPath, format: Format) -> Result<Option<Value>> {
    match fs.read_text(path)? {
        None => Ok(None),
        Some(text) => parse_value(path, &text, format).map(Some),
    }
}

/// Parses text of the given format, with the same parser and rules as the format-preserving
/// editor that edits it (so what `mcp list` or a switch reads is what `mcp add` would edit, and
/// a file one refuses the other refuses in the same words). An empty document reads as `{}`.
pub(crate) fn parse_value(path: &DevPath, text: &str, format: Format) -> Result<Value> {
    match format {
        Format::DotEnv | Format::Markdown => Err(Error::internal(format!(
            "{path}: {format:?} is not read as a value"
        ))),
        _ => {
            let value = Doc::parse_or_empty(format, Some(text), &path.to_string())?.value();
            Ok(if value.is_null() {
                Value::Object(Map::new())
            } else {
                value
            })
        }
    }
}

/// The value at `keys` (map keys from the root).
pub(crate) fn get<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().try_fold(value, |v, k| v.get(k))
}

/// Read access to a runtime's own files, through the draft, for its LLM source
/// (`Runtime::llm_source`).
pub(crate) struct NativeFiles<'d, 'a> {
    draft: &'d Draft<'a>,
    pub layout: &'d Layout,
    /// The runtime's home.
    pub home: DevPath,
}

impl<'d, 'a> NativeFiles<'d, 'a> {
    pub(crate) fn new(draft: &'d Draft<'a>, layout: &'d Layout, home: DevPath) -> Self {
        NativeFiles {
            draft,
            layout,
            home,
        }
    }

    /// The value of a structured file; `None` when it does not exist.
    pub(crate) fn value(&self, path: &DevPath, format: Format) -> Result<Option<Value>> {
        match self.draft.read_text(path)? {
            Some(text) => parse_value(path, &text, format).map(Some),
            None => Ok(None),
        }
    }

    /// The value of `key` in a `.env` file; `None` when the file or the key is absent.
    pub(crate) fn env(&self, path: &DevPath, key: &str) -> Result<Option<String>> {
        match self.draft.read_text(path)? {
            Some(text) => Ok(DotEnv::parse(&text, &path.to_string())?.get(key)),
            None => Ok(None),
        }
    }
}

/// A string value, trimmed; `None` when it is absent, not a string or empty.
pub(crate) fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
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
