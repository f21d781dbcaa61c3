//! testclaw's own LLM key and base URL, for the carry-over: `config.json` `llm.api_key` and
//! `llm.base_url`.

use crate::error::Result;
use crate::format::Format;
use crate::runtime::native::{NativeFiles, text};

pub(super) fn source(files: &NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)> {
    let v = files.value(&files.home.join("config.json"), Format::Json)?;
    let llm = v.as_ref().and_then(|v| v.get("llm"));
    Ok((
        text(llm.and_then(|l| l.get("api_key"))),
        text(llm.and_then(|l| l.get("base_url"))),
    ))
}
