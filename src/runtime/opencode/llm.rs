//! opencode's own LLM key and base URL, read for the LLM carry-over when the device switches away
//! from it (docs/device-contract.md §8.4): the key is `~/.opencode/.env` `LLM_API_KEY`, the base
//! URL `opencode.json` `provider.campaign.options.baseURL`.

use crate::error::Result;
use crate::format::Format;
use crate::runtime::native::{self, NativeFiles, text};

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let xdg = files
        .layout
        .agent_home
        .join(".config/opencode/opencode.json");
    let v = files.value(&xdg, Format::Jsonc)?;
    let base = v.as_ref().and_then(|v| {
        text(native::get(
            v,
            &["provider", "campaign", "options", "baseURL"],
        ))
    });
    Ok((files.env(&files.home.join(".env"), "LLM_API_KEY")?, base))
}
