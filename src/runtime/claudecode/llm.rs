//! claudecode's own LLM key and base URL, read for the LLM carry-over when the device switches away
//! from it (docs/device-contract.md §8.4): the key is `.env` `ANTHROPIC_API_KEY`, the base URL
//! `.env` `ANTHROPIC_BASE_URL`.

use crate::error::Result;
use crate::runtime::native::NativeFiles;

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let path = files.home.join(".env");
    Ok((
        files.env(&path, "ANTHROPIC_API_KEY")?,
        files.env(&path, "ANTHROPIC_BASE_URL")?,
    ))
}
