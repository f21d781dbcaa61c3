//! The reconcilers the device runs at every boot and a switch runs after its commit point, in
//! upstream's order (docs/device-contract.md §4.1 step 10): seed-on-empty (boot only: a switch has
//! just written `agent_runtime`) → persona → LLM config → channels → MCP → the user's MCP tools.
//!
//! Each carrying step is guarded by its own marker (the last `agent_state.json` entry for
//! persona; `llm_config_applied_runtime`, `channels_applied_runtime`, `mcp_applied_runtime` in
//! config.json): when the marker already names the active runtime the step has nothing to do; an
//! empty marker records a baseline without migrating; otherwise the step carries state from the
//! marker's runtime to the active one and advances the marker in the same plan.
//!
//! **Each step is its own transaction.** A run plans a step on the device as the steps before it
//! left it and applies it alone ([`run`]): a step that cannot be planned, or whose write or
//! restart fails, is rolled back alone and keeps its marker, so the next run retries it, while
//! the others land. A preview ([`preview`]) plans the same steps in the same order, each on the
//! draft of the one before (phases of one [`Draft`]), so replaying its diff gives what the run
//! does. [`verdict`] turns the outcome into the exit: 5 when some steps landed and some did not,
//! 4 when the only change was rolled back, 1 when a step could not be planned and nothing else
//! changed.

pub(crate) mod channels;
pub(crate) mod llm;
pub(crate) mod mcp;
pub(crate) mod mcp_tools;
pub(crate) mod persona;
pub(crate) mod seed;

use crate::apply::{self, Target};
use crate::device::Device;
use crate::device::config::DeviceConfig;
use crate::device::paths::Layout;
use crate::error::{Error, Exit, Result};
use crate::plan::{Draft, Plan};
use crate::runtime::RuntimeId;
use crate::system::interrupt;

/// A reconcile step (`osctl reconcile --only STEP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepName {
    Seed,
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
    /// Every step, in the order a run takes them.
    pub const ALL: [StepName; 6] = [
        StepName::Seed,
        StepName::Persona,
        StepName::Llm,
        StepName::Channels,
        StepName::Mcp,
        StepName::McpTools,
    ];

    /// The steps a switch runs after its commit point: all but the seed (the commit point has
    /// just written `agent_runtime`).
    pub fn after_switch() -> Vec<StepName> {
        Self::ALL
            .into_iter()
            .filter(|s| *s != StepName::Seed)
            .collect()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StepName::Seed => "seed",
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
    /// An empty `agent_runtime` was given the resolved runtime (first boot).
    Seeded,
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
            Status::Seeded => "seeded",
            Status::Reconciled => "reconciled",
            Status::Skipped => "skipped",
            Status::NotAvailable => "not available",
            Status::Failed => "failed",
        }
    }
}

/// A step as the `--json` documents of `reconcile` and `switch` list it: its report, and what
/// became of it (none in a preview).
#[derive(serde::Serialize)]
pub(crate) struct StepLine<'a> {
    #[serde(flatten)]
    pub(crate) report: &'a StepReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<StepOutcome>,
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

    /// Whether the step carries state that lags behind the active runtime (its marker names
    /// another runtime), as opposed to a baseline or nothing to do.
    pub fn lagging(&self) -> bool {
        matches!(self.status, Status::Reconciled | Status::Skipped)
    }
}

/// What every step is given.
pub(crate) struct Input<'a> {
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

/// A step as planned: its report and its own plan (one transaction).
#[derive(Clone, Debug)]
pub struct Planned {
    pub report: StepReport,
    pub plan: Plan,
}

/// Plans `steps` for a preview: each on the draft the ones before it leave (one phase of `draft`
/// each), exactly as [`run`] plans each on the device the ones before it left.
pub(crate) fn preview(
    draft: &mut Draft<'_>,
    device: &Device,
    steps: &[StepName],
    now: i64,
) -> Result<Vec<Planned>> {
    let mut out = Vec::new();
    for &step in steps {
        let report = plan_next(draft, device, step, now);
        out.push(Planned {
            report,
            plan: draft.end_phase(),
        });
    }
    Ok(out)
}

/// What a run did with one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepOutcome {
    /// Nothing to change (up to date, or planned nothing).
    Nothing,
    /// Its plan was applied.
    Applied,
    /// It could not be planned: nothing was written.
    NotPlanned,
    /// Applying it failed and everything it had written was restored.
    RolledBack,
    /// Applying it failed and the restore did not finish (the journal keeps the originals).
    Incomplete,
}

/// One step of a run.
#[derive(Clone, Debug)]
pub struct StepRun {
    pub report: StepReport,
    /// What it planned (applied when `outcome` is `Applied`).
    pub plan: Plan,
    pub outcome: StepOutcome,
    /// What applying it did (service actions not run for want of systemd, say).
    pub applied: Option<apply::Applied>,
    /// Why applying it failed.
    pub error: Option<Error>,
}

/// Runs `steps`, each its own transaction: planned on the device as the steps before it left it
/// (`device` gives the paths and the robot profile; config.json is read again for each step),
/// then applied alone through [`apply::apply`]. A step that fails (its plan, a write, a restart)
/// is rolled back alone, keeps its marker and is reported failed; the next steps go on. The
/// caller holds the device lock. Returns an error only when a program a step runs first could
/// not be started.
pub(crate) fn run(
    t: &Target<'_>,
    device: &Device,
    steps: &[StepName],
    now: i64,
) -> Result<Vec<StepRun>> {
    let mut out = Vec::new();
    for &step in steps {
        // An interrupt ends the run between steps: the step it stopped rolled itself back, and
        // the ones after it do not start (their markers stay; [`verdict`] says which).
        if interrupt::pending().is_some() {
            break;
        }
        let mut draft = Draft::new(t.fs);
        let mut report = plan_next(&mut draft, device, step, now);
        let mut plan = draft.finish();
        // A program the step runs (openclaw's plugin install) edits the runtime's files: it goes
        // first, and the step is planned again on what it left.
        if !report.failed() && crate::channel::run_programs_first(t, &plan)? {
            let mut draft = Draft::new(t.fs);
            report = plan_next(&mut draft, device, step, now);
            plan = crate::channel::without_programs(draft.finish());
        }
        let mut applied = None;
        let (outcome, error) = if report.failed() {
            (StepOutcome::NotPlanned, None)
        } else if plan.is_empty() {
            (StepOutcome::Nothing, None)
        } else {
            match apply::apply(t, &plan) {
                Ok(a) => {
                    applied = Some(a);
                    (StepOutcome::Applied, None)
                }
                Err(e) => {
                    report.status = Status::Failed;
                    report.detail = describe(&e);
                    let outcome = if e.exit == Exit::PartlyApplied {
                        StepOutcome::Incomplete
                    } else {
                        StepOutcome::RolledBack
                    };
                    (outcome, Some(e))
                }
            }
        };
        out.push(StepRun {
            report,
            plan,
            outcome,
            applied,
            error,
        });
    }
    Ok(out)
}

/// How a run of the steps `asked` ends: `None` when no step failed, else the error to report.
/// Exit 130 when a signal stopped it (whatever else happened: the steps that landed stand, the
/// one it stopped was rolled back, the rest did not run); 5 (partly applied) when some steps
/// landed and some did not, or a rollback did not finish; 4 when the only change was rolled
/// back; 1 when a step could not be planned and nothing else changed.
pub(crate) fn verdict(asked: &[StepName], ran: &[StepRun]) -> Option<Error> {
    // A signal that came after the last step had finished stopped nothing: the run ends as
    // it would have (the apply engine warned that it finished the change).
    let every_step_ran = asked
        .iter()
        .all(|s| ran.iter().any(|r| r.report.step == *s));
    let one_was_stopped = ran.iter().any(|r| {
        r.error
            .as_ref()
            .is_some_and(|e| e.exit == Exit::Interrupted)
    });
    if let Some(sig) = interrupt::pending()
        && (!every_step_ran || one_was_stopped)
    {
        return Some(interrupted_run(sig, asked, ran));
    }
    let names = |f: &dyn Fn(&StepRun) -> bool| {
        ran.iter()
            .filter(|r| f(r))
            .map(|r| r.report.step.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let failed = names(&|r| r.report.failed());
    if failed.is_empty() {
        return None;
    }
    let several = ran.iter().filter(|r| r.report.failed()).count() > 1;
    let (kept_it, left, rolled) = if several {
        (
            "kept their markers",
            "their markers were left",
            "what they wrote was rolled back and their markers kept",
        )
    } else {
        (
            "kept its marker",
            "its marker was left",
            "what it wrote was rolled back and its marker kept",
        )
    };
    let landed = names(&|r| r.outcome == StepOutcome::Applied);
    let kept: Vec<String> = ran
        .iter()
        .filter(|r| r.outcome == StepOutcome::Incomplete)
        .filter_map(|r| r.error.as_ref().and_then(|e| e.hint.clone()))
        .collect();
    let retry = "fix the cause named above and run `osctl reconcile` again; it retries only the failed steps";
    let e = if !landed.is_empty() || !kept.is_empty() {
        let mut e = Error::new(
            Exit::PartlyApplied,
            "reconcile_partly_applied",
            if landed.is_empty() {
                format!("reconcile step {failed} failed and could not be rolled back whole")
            } else {
                format!("reconcile partly applied: {landed} landed; {failed} failed and {kept_it}")
            },
        );
        e = e.hint(if kept.is_empty() {
            retry.to_string()
        } else {
            kept.join("; ")
        });
        e
    } else if ran.iter().any(|r| r.outcome == StepOutcome::RolledBack) {
        Error::new(
            Exit::RolledBack,
            "reconcile_step_failed",
            format!("reconcile step {failed} failed; {rolled}"),
        )
        .hint(retry)
    } else {
        Error::input(
            "reconcile_step_failed",
            format!("reconcile step {failed} failed; {left} so the next run retries it"),
        )
        .hint(
            "nothing else had to change; fix the cause named above and run `osctl reconcile` again",
        )
    };
    Some(e)
}

/// A run of steps stopped by `sig`: which steps landed, which it rolled back, which never ran.
fn interrupted_run(sig: i32, asked: &[StepName], ran: &[StepRun]) -> Error {
    let names = |f: &dyn Fn(&StepRun) -> bool| -> Vec<&str> {
        ran.iter()
            .filter(|r| f(r))
            .map(|r| r.report.step.as_str())
            .collect()
    };
    let landed = names(&|r| r.outcome == StepOutcome::Applied);
    let stopped = names(&|r| {
        r.error
            .as_ref()
            .is_some_and(|e| e.exit == Exit::Interrupted)
    });
    let failed = names(&|r| {
        r.report.failed()
            && !r
                .error
                .as_ref()
                .is_some_and(|e| e.exit == Exit::Interrupted)
    });
    let not_run: Vec<&str> = asked
        .iter()
        .filter(|s| !ran.iter().any(|r| r.report.step == **s))
        .map(|s| s.as_str())
        .collect();
    let mut parts = Vec::new();
    let list = |v: &[&str]| v.join(", ");
    if !landed.is_empty() {
        parts.push(format!("{} landed", list(&landed)));
    }
    if !stopped.is_empty() {
        parts.push(format!("{} was stopped and rolled back", list(&stopped)));
    }
    if !failed.is_empty() {
        parts.push(format!("{} failed", list(&failed)));
    }
    if !not_run.is_empty() {
        parts.push(format!("{} did not run", list(&not_run)));
    }
    let mut e = interrupt::interrupted(sig);
    if !parts.is_empty() {
        e.message = format!("{}: reconcile {}", e.message, parts.join("; "));
    }
    e.hint("the steps that did not finish keep their markers: the next `osctl reconcile` (at boot, or run by hand) runs them")
}

/// Plans `step` on the device as `draft` shows it: config.json is read again through the draft
/// (the steps before may have changed it), and the active runtime resolved from it. A device
/// that cannot be read so fails the step, like any other planning error.
fn plan_next(draft: &mut Draft<'_>, device: &Device, step: StepName, now: i64) -> StepReport {
    let planned = as_planned(draft, device).and_then(|d| Ok((d.active()?, d)));
    match planned {
        Ok((active, device)) => {
            let input = Input {
                active,
                device: &device,
                now,
            };
            plan_step(draft, &input, step)
        }
        Err(e) => StepReport::new(step, Status::Failed, describe(&e)),
    }
}

/// `device` with config.json as `draft` reads it now.
fn as_planned(draft: &Draft<'_>, device: &Device) -> Result<Device> {
    let path = device.config.path.clone();
    let mut d = device.clone();
    if let Some(text) = draft.read_text(&path)?
        && text != device.config.text
    {
        d.config = DeviceConfig::parse(path, text)?;
        d.layout = Layout::new(&d.env, d.config.opt("openclaw_config_dir"));
    }
    Ok(d)
}

/// Plans one step into `draft`. On error nothing of the step stays in the draft.
pub(crate) fn plan_step(draft: &mut Draft<'_>, input: &Input<'_>, step: StepName) -> StepReport {
    let checkpoint = draft.checkpoint();
    let result: Result<StepReport> = match step {
        StepName::Seed => seed::plan(draft, input),
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
