//! The LLM key and base URL carry-over (docs/device-contract.md §8.4), guarded by
//! `llm_config_applied_runtime`.
//!
//! After a switch, the key and base URL the operator may have set in the previous runtime's own
//! files are carried to the active one: read from the previous runtime's native files, saved into
//! config.json (base URL normalized as upstream's `NormalizeBaseURL`), then written into the active
//! runtime's native files by its presync's LLM part, which reads config.json through the draft and
//! so sees the values just saved. The runtime restarts (`try-restart`) when its files changed, and
//! the marker advances, all in one plan.
//!
//! An empty marker, or `llm_config_mode = runtime` (the native LLM settings are the runtime's),
//! records the marker only. Values that are empty in the previous runtime never blank
//! config.json. Where each runtime keeps them is its own (`Runtime::llm_source`, in
//! `src/runtime/<rt>/llm.rs`).

use serde_json::Value;

use super::{Input, Status, StepName, StepReport};
use crate::device::config::{self, LlmMode};
use crate::error::Result;
use crate::plan::{Draft, ServiceAction};
use crate::presync;
use crate::runtime::RuntimeId;
use crate::runtime::kit::llm::normalize_base_url;
use crate::runtime::native::NativeFiles;

const MARKER: &str = "llm_config_applied_runtime";

pub(crate) fn plan(draft: &mut Draft<'_>, input: &Input<'_>) -> Result<StepReport> {
    let device = input.device;
    let path = device.env.config_json();
    let cfg = match draft.read_text(&path)? {
        Some(text) => config::DeviceConfig::parse(path.clone(), text)?,
        None => device.config.clone(),
    };
    let active = input.active;
    let marker = cfg.str(MARKER).to_string();
    if marker == active.as_str() {
        return Ok(StepReport::new(
            StepName::Llm,
            Status::UpToDate,
            format!("{MARKER} is already {active}"),
        ));
    }
    let record = |draft: &mut Draft<'_>| {
        config::edit(
            draft,
            &path,
            &[(MARKER, Some(Value::from(active.as_str())))],
            "record the LLM config marker",
        )
    };
    if cfg.llm_mode()? == LlmMode::Runtime {
        record(draft)?;
        return Ok(StepReport::new(
            StepName::Llm,
            Status::Skipped,
            format!(
                "llm_config_mode is runtime: {active}'s own LLM settings are kept; {MARKER} = {active}"
            ),
        ));
    }
    let previous = if marker.is_empty() {
        None
    } else {
        match RuntimeId::parse(&marker) {
            Ok(rt) => Some(rt),
            Err(_) => {
                draft.warn(format!(
                    "{MARKER} `{marker}` is not a runtime osctl knows; recording a baseline"
                ));
                None
            }
        }
    };
    let Some(previous) = previous else {
        record(draft)?;
        return Ok(StepReport::new(
            StepName::Llm,
            Status::Baseline,
            format!("first run: {MARKER} = {active}, nothing carried"),
        ));
    };

    let (key, base) = read_native(draft, device, previous)?;
    if let Some(k) = &key {
        crate::redact::register(k);
    }
    let base = base
        .map(|b| normalize_base_url(&b))
        .filter(|b| !b.is_empty());
    let mut edits: Vec<(&str, Option<Value>)> = Vec::new();
    if let Some(k) = key
        .as_ref()
        .filter(|k| cfg.str("llm_api_key") != k.as_str())
    {
        edits.push(("llm_api_key", Some(Value::from(k.as_str()))));
    }
    if let Some(b) = base
        .as_ref()
        .filter(|b| cfg.str("llm_base_url") != b.as_str())
    {
        edits.push(("llm_base_url", Some(Value::from(b.as_str()))));
    }
    let saved: Vec<&str> = edits.iter().map(|(k, _)| *k).collect::<Vec<_>>();
    let saved = saved.join(" and ");
    if !edits.is_empty() {
        config::edit(draft, &path, &edits, "carry the LLM key and base URL over")?;
    }
    let report = presync::plan_llm(draft, device, active)?;
    if report.changed {
        draft.service(ServiceAction::RestartIfActive(
            active.spec().unit.to_string(),
        ));
    }
    record(draft)?;
    let carried = match (key.is_some(), base.is_some()) {
        (false, false) => format!("{previous} has no key or base URL of its own"),
        _ if saved.is_empty() => format!("config.json already holds {previous}'s key and base URL"),
        _ => format!("saved {previous}'s {saved} into config.json"),
    };
    Ok(StepReport::new(
        StepName::Llm,
        Status::Reconciled,
        format!(
            "{carried}; {active}'s LLM settings {}; {MARKER} = {active}",
            if report.changed {
                "written"
            } else {
                "already in place"
            }
        ),
    ))
}

/// The previous runtime's own key and base URL (empty values read as absent), from its
/// `Runtime::llm_source`. A file that does not exist has none; one that cannot be parsed fails
/// the step (its marker stays).
fn read_native(
    draft: &Draft<'_>,
    device: &crate::device::Device,
    rt: RuntimeId,
) -> Result<(Option<String>, Option<String>)> {
    let spec = rt.spec();
    let files = NativeFiles::new(draft, &device.layout, device.layout.path(spec.home));
    let (key, base) = (spec.llm_source)(&files)?;
    let clean = |s: Option<String>| s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    Ok((clean(key), clean(base)))
}
