//! One editor for any structured native file: [`Doc`] picks the JSON, YAML or TOML editor from a
//! runtime's declared [`Format`] and gives them one interface, so code that works on "the MCP
//! container of runtime X" or "this key of runtime X's config" is written once, not per format.
//! `.env` and Markdown are line formats with their own editors ([`super::dotenv`],
//! [`super::mdblock`]).

use serde_json::Value;

use super::json::{Dialect, JsonDoc};
use super::{toml::TomlDoc, yaml::YamlDoc};
use crate::error::{Error, Result};
use crate::format::Format;

/// A structured document being edited in place.
#[derive(Debug)]
pub enum Doc {
    Json(JsonDoc),
    Yaml(YamlDoc),
    Toml(TomlDoc),
}

impl Doc {
    /// Parses `text` as `format`.
    pub fn parse(format: Format, text: &str, origin: &str) -> Result<Doc> {
        Ok(match format {
            Format::Json | Format::Jsonc | Format::Json5 => {
                let dialect = match format {
                    Format::Json => Dialect::Json,
                    Format::Jsonc => Dialect::Jsonc,
                    _ => Dialect::Json5,
                };
                let doc = JsonDoc::parse_as(text, origin, dialect)?;
                // Every native JSON file is an object: the editor would replace any other top
                // level by one on the first `set`, losing the user's file, so refuse it here.
                let value = doc.value();
                if !(value.is_object() || value.is_null()) {
                    let start = text.find(['[', '"', '\'']).unwrap_or(0);
                    let (line, column) = super::line_col(text, start);
                    return Err(Error::parse(
                        origin,
                        Some(line),
                        Some(column),
                        "the top level is not a JSON object",
                    )
                    .hint("nothing was written; the file must hold one JSON object"));
                }
                Doc::Json(doc)
            }
            Format::Yaml => Doc::Yaml(YamlDoc::parse(text, origin)?),
            Format::Toml => Doc::Toml(TomlDoc::parse(text, origin)?),
            Format::DotEnv | Format::Markdown => {
                return Err(Error::internal(format!(
                    "{origin}: {format:?} is not a structured document"
                )));
            }
        })
    }

    /// An empty document of `format` (for a file that does not exist yet).
    pub fn empty(format: Format) -> Result<Doc> {
        Ok(match format {
            Format::Json | Format::Jsonc | Format::Json5 => Doc::Json(JsonDoc::new_object()),
            Format::Yaml => Doc::Yaml(YamlDoc::new_empty()),
            Format::Toml => Doc::Toml(TomlDoc::new_empty()),
            Format::DotEnv | Format::Markdown => {
                return Err(Error::internal(format!(
                    "{format:?} is not a structured document"
                )));
            }
        })
    }

    /// Parses a file's text, or gives an empty document when there is no file (`None`) or
    /// the file is empty. Anything else goes through the format's parser, so blank lines are
    /// kept and a file of control characters that only look blank is refused.
    pub fn parse_or_empty(format: Format, text: Option<&str>, origin: &str) -> Result<Doc> {
        match text {
            Some(text) if !text.is_empty() => Doc::parse(format, text, origin),
            _ => Doc::empty(format),
        }
    }

    pub fn value(&self) -> Value {
        match self {
            Doc::Json(d) => d.value(),
            Doc::Yaml(d) => d.value(),
            Doc::Toml(d) => d.value(),
        }
    }

    pub fn get(&self, path: &[&str]) -> Option<Value> {
        match self {
            Doc::Json(d) => d.get(path),
            Doc::Yaml(d) => d.get(path),
            Doc::Toml(d) => d.get(path),
        }
    }

    /// Keys of the map at `path`, in file order.
    pub fn keys(&self, path: &[&str]) -> Vec<String> {
        match self {
            Doc::Json(d) => d.keys(path),
            Doc::Yaml(d) => d.keys(path),
            Doc::Toml(d) => d.keys(path),
        }
    }

    /// Sets the value at `path` (exactly: keys missing from an object value are removed).
    pub fn set(&mut self, path: &[&str], value: Value) -> Result<bool> {
        match self {
            Doc::Json(d) => Ok(d.set(path, value)),
            Doc::Yaml(d) => d.set(path, value),
            Doc::Toml(d) => d.set(path, value),
        }
    }

    /// Sets the leaves of `value` under `path`, never removing keys.
    pub fn merge(&mut self, path: &[&str], value: Value) -> Result<bool> {
        match self {
            Doc::Json(d) => Ok(d.merge(path, value)),
            Doc::Yaml(d) => d.merge(path, value),
            Doc::Toml(d) => d.merge(path, value),
        }
    }

    pub fn remove(&mut self, path: &[&str]) -> Result<bool> {
        match self {
            Doc::Json(d) => Ok(d.remove(path)),
            Doc::Yaml(d) => d.remove(path),
            Doc::Toml(d) => d.remove(path),
        }
    }

    /// The document's text as it will be written.
    pub fn text(&self) -> String {
        match self {
            Doc::Json(d) => d.to_string(),
            Doc::Yaml(d) => d.to_string(),
            Doc::Toml(d) => d.to_string(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_interface_over_three_formats() {
        for (format, text) in [
            (
                Format::Json5,
                "{\n  // servers\n  \"mcp\": {\"servers\": {}},\n}\n",
            ),
            (Format::Yaml, "# servers\nmcp:\n  servers: {}\n"),
            (Format::Toml, "# servers\n[mcp.servers]\n"),
        ] {
            let mut doc = Doc::parse(format, text, "/x").unwrap();
            let entry = json!({"command": "npx", "args": ["-y", "srv"]});
            assert!(
                doc.set(&["mcp", "servers", "a"], entry.clone()).unwrap(),
                "{format:?}"
            );
            assert!(
                !doc.set(&["mcp", "servers", "a"], entry.clone()).unwrap(),
                "{format:?}"
            );
            assert_eq!(doc.keys(&["mcp", "servers"]), vec!["a"], "{format:?}");
            assert_eq!(doc.get(&["mcp", "servers", "a"]), Some(entry), "{format:?}");
            assert!(
                doc.text().contains("# servers") || doc.text().contains("// servers"),
                "{format:?}"
            );
            assert!(doc.remove(&["mcp", "servers", "a"]).unwrap(), "{format:?}");
            assert!(doc.keys(&["mcp", "servers"]).is_empty(), "{format:?}");
        }
    }
}
