//! hermes' own LLM key and base URL, read for the LLM carry-over when the device switches away from
//! it (docs/device-contract.md §8.4): the key is `.env` `AUTONOMOUS_API_KEY`, the base URL
//! `config.yaml` `custom_providers[name=autonomous].base_url`.

use serde_json::Value;

use crate::error::Result;
use crate::format::Format;
use crate::runtime::native::{NativeFiles, text};

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let v = files.value(&files.home.join("config.yaml"), Format::Yaml)?;
    let base = v
        .as_ref()
        .and_then(|v| v.get("custom_providers"))
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .find(|p| p.get("name").and_then(Value::as_str) == Some("autonomous"))
        })
        .and_then(|p| text(p.get("base_url")));
    Ok((
        files.env(&files.home.join(".env"), "AUTONOMOUS_API_KEY")?,
        base,
    ))
}
