//! codex's own LLM key and base URL, read for the LLM carry-over when the device switches away from
//! it (docs/device-contract.md §8.4): the key is `.env` `OPENAI_API_KEY`, the base URL
//! `config.toml` `model_providers.autonomous.base_url`.

use crate::error::Result;
use crate::format::Format;
use crate::runtime::native::{self, NativeFiles, text};

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let v = files.value(&files.home.join("config.toml"), Format::Toml)?;
    let base = v.as_ref().and_then(|v| {
        text(native::get(
            v,
            &["model_providers", "autonomous", "base_url"],
        ))
    });
    Ok((files.env(&files.home.join(".env"), "OPENAI_API_KEY")?, base))
}
