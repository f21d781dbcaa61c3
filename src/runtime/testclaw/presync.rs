//! testclaw presync: `config.json` (the OS LLM key, base URL and model, the workspace) and the
//! workspace SOUL.md block and KNOWLEDGE.md seed, on the shared core and blocks.

use crate::error::Result;
use crate::format::Format;
use crate::runtime::kit::blocks;
use crate::runtime::kit::cx::{Cx, SECRET_MODE};
use crate::runtime::kit::llm::{DEFAULT_BASE_URL, DEFAULT_MODEL};

pub(super) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let ws = cx.workspace();
    let config = cx.path(cx.rt.home).join("config.json");
    let mut json = cx.doc(&config, Format::Json)?;
    if cx.owns_llm() {
        if let Some(key) = cx.val("llm_api_key") {
            json.set(&["llm", "api_key"], key)?;
        }
        let base = cx
            .val("llm_base_url")
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        json.set(&["llm", "base_url"], base)?;
        let model = cx
            .val("llm_model")
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        json.set(&["llm", "model"], model)?;
    }
    if cx.full() {
        json.set(&["workspace"], ws.to_string())?;
    }
    cx.save_doc(
        json,
        Some(SECRET_MODE),
        "testclaw model and workspace (config.json)",
    )?;
    if !cx.full() {
        return Ok(());
    }
    cx.mkdir(&ws.join("memory"), "daily memory folder")?;
    cx.seed(
        &ws.join("KNOWLEDGE.md"),
        blocks::KNOWLEDGE_SEED,
        "seed KNOWLEDGE.md",
    )?;
    let soul = blocks::device_soul(cx)?;
    blocks::ensure_soul(cx, &ws.join("SOUL.md"), soul.as_deref())
}
