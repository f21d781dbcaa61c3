//! openclaw's own LLM key and base URL, read for the LLM carry-over when the device switches away
//! from it (docs/device-contract.md §8.4): the key is `openclaw.json`
//! `models.providers.autonomous.apiKey`, the base URL `.baseUrl`.

use crate::error::Result;
use crate::format::Format;
use crate::runtime::native::{self, NativeFiles, text};

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let v = files.value(&files.home.join("openclaw.json"), Format::Json5)?;
    let p = v
        .as_ref()
        .and_then(|v| native::get(v, &["models", "providers", "autonomous"]));
    Ok((
        text(p.and_then(|p| p.get("apiKey"))),
        text(p.and_then(|p| p.get("baseUrl"))),
    ))
}
