//! The reconcilers the device runs after a runtime switch (and at every boot), in upstream's
//! order: persona → LLM config → channels → MCP → the user's MCP tools (spec section 4.1 step 10).
//!
//! Each step is guarded by its own marker (the last `agent_state.json` entry for persona;
//! `llm_config_applied_runtime`, `channels_applied_runtime`, `mcp_applied_runtime` in
//! config.json): when the marker already names the active runtime the step has nothing to do; an
//! empty marker records a baseline without migrating; otherwise the step carries state from the
//! marker's runtime to the active one and advances the marker in the same plan. A step that fails
//! contributes nothing (its marker stays), so the next run retries it; the other steps go ahead.

pub mod channels;
pub mod llm;
pub mod mcp;
pub mod mcp_tools;
pub mod persona;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::plan::Draft;
use crate::runtime::RuntimeId;

/// A reconcile step (`osctl reconcile --only STEP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepName {
    Persona,
    Llm,
    Channels,
    Mcp,
    /// config.json's `mcp_tools` as `tool_<name>` servers of the active runtime (no marker).
    #[value(name = "mcp-tools", alias = "mcp_tools")]
    #[serde(rename = "mcp-tools")]
    McpTools,
}

impl StepName {
    pub const ALL: [StepName; 5] = [
        StepName::Persona,
        StepName::Llm,
        StepName::Channels,
        StepName::Mcp,
        StepName::McpTools,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StepName::Persona => "persona",
            StepName::Llm => "llm",
            StepName::Channels => "channels",
            StepName::Mcp => "mcp",
            StepName::McpTools => "mcp-tools",
        }
    }
}

/// How a step ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The marker already names the active runtime.
    UpToDate,
    /// First run: the marker was recorded without carrying anything.
    Baseline,
    /// State was carried to the active runtime and the marker advanced.
    Reconciled,
    /// Skipped on purpose (e.g. `llm_config_mode = runtime`); the marker records it.
    Skipped,
    /// This build does not carry this step yet.
    NotAvailable,
    /// The step failed; its marker stays so the next run retries.
    Failed,
}

impl Status {
    /// How the status reads in a report line.
    pub fn word(&self) -> &'static str {
        match self {
            Status::UpToDate => "up to date",
            Status::Baseline => "baseline recorded",
            Status::Reconciled => "reconciled",
            Status::Skipped => "skipped",
            Status::NotAvailable => "not available",
            Status::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct StepReport {
    pub step: StepName,
    pub status: Status,
    pub detail: String,
}

impl StepReport {
    pub fn new(step: StepName, status: Status, detail: impl Into<String>) -> Self {
        StepReport {
            step,
            status,
            detail: detail.into(),
        }
    }

    /// `persona: not available (detail)`.
    pub fn line(&self) -> String {
        format!(
            "{}: {} ({})",
            self.step.as_str(),
            self.status.word(),
            self.detail
        )
    }

    pub fn failed(&self) -> bool {
        self.status == Status::Failed
    }
}

/// What every step is given.
pub struct Input<'a> {
    pub device: &'a Device,
    /// The runtime the device runs now (config.json, else the resolution chain).
    pub active: RuntimeId,
    /// Unix seconds "now" (for history entries).
    pub now: i64,
}

/// Where a step guarded by a config.json marker (`<step>_applied_runtime`) stands.
pub(crate) enum Marker {
    /// Nothing to carry: the baseline is planned, or the marker already names the active runtime.
    Settled(StepReport),
    /// The marker names another runtime: carry from it, and advance the marker in the same plan.
    From(RuntimeId),
}

/// The guard of the MCP and channel steps: no marker plans a baseline (the active runtime is
/// recorded, nothing is carried: `baseline` says what is not done); a marker naming the active
/// runtime is up to date; a name osctl does not know is bad input that names config.json.
pub(crate) fn marker(
    draft: &mut Draft<'_>,
    input: &Input<'_>,
    step: StepName,
    key: &str,
    baseline: &str,
) -> Result<Marker> {
    let active = input.active;
    let config_path = input.device.env.config_json();
    let Some(marker) = input.device.config.opt(key) else {
        crate::device::config::edit(
            draft,
            &config_path,
            &[(key, Some(serde_json::Value::from(active.as_str())))],
            &format!("{} reconcile: baseline", step.as_str()),
        )?;
        return Ok(Marker::Settled(StepReport::new(
            step,
            Status::Baseline,
            format!("no marker yet: recorded {active} {baseline}"),
        )));
    };
    let prev = RuntimeId::parse(marker).map_err(|e| {
        crate::error::Error::input(
            e.code,
            format!("{config_path}: {key} \"{marker}\" is not a runtime osctl knows"),
        )
    })?;
    if prev == active {
        return Ok(Marker::Settled(StepReport::new(
            step,
            Status::UpToDate,
            format!("already applied for {active}"),
        )));
    }
    Ok(Marker::From(prev))
}

/// Plans `steps` into `draft` in order, each on its own (used by `osctl reconcile` and by
/// `osctl switch` after its commit point).
pub fn plan_steps(draft: &mut Draft<'_>, input: &Input<'_>, steps: &[StepName]) -> Vec<StepReport> {
    steps
        .iter()
        .map(|&step| plan_step(draft, input, step))
        .collect()
}

/// Plans one step into `draft`. On error nothing of the step stays in the draft.
pub fn plan_step(draft: &mut Draft<'_>, input: &Input<'_>, step: StepName) -> StepReport {
    let checkpoint = draft.checkpoint();
    let result: Result<StepReport> = match step {
        StepName::Persona => persona::plan(draft, input),
        StepName::Llm => llm::plan(draft, input),
        StepName::Channels => channels::plan(draft, input),
        StepName::Mcp => mcp::plan(draft, input),
        StepName::McpTools => mcp_tools::plan(draft, input),
    };
    match result {
        Ok(report) => report,
        Err(err) => {
            draft.rollback_to(checkpoint);
            StepReport::new(step, Status::Failed, describe(&err))
        }
    }
}

fn describe(err: &Error) -> String {
    let mut s = err.to_string();
    if let Some(loc) = &err.location
        && loc.line.is_some()
    {
        s.push_str(&format!(" (at {loc})"));
    }
    s
}
