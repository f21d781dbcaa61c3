//! picoclaw's own LLM key and base URL, read for the LLM carry-over when the device switches away
//! from it (docs/device-contract.md §8.4): the key is `.security.yml`
//! `model_list["autonomous:0"].api_keys[0]`, the base URL `config.json`
//! `model_list[model_name=autonomous].api_base`.
//!
//! Upstream reads picoclaw from a file that does not exist; osctl reads its `config.json`
//! `model_list` and `.security.yml` (docs/device-contract.md §10 item 4).

use serde_json::Value;

use crate::error::Result;
use crate::format::Format;
use crate::runtime::native::{self, NativeFiles, text};

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let v = files.value(&files.home.join("config.json"), Format::Json)?;
    let base = v
        .as_ref()
        .and_then(|v| v.get("model_list"))
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .find(|e| e.get("model_name").and_then(Value::as_str) == Some("autonomous"))
        })
        .and_then(|e| text(e.get("api_base")));
    let s = files.value(&files.home.join(".security.yml"), Format::Yaml)?;
    let key = s
        .as_ref()
        .and_then(|s| native::get(s, &["model_list", "autonomous:0", "api_keys"]))
        .and_then(Value::as_array)
        .and_then(|keys| text(keys.first()));
    Ok((key, base))
}
