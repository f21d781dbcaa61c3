//! The persona reconciler (docs/device-contract.md §5.5): after a switch, carry the persona from
//! the runtime the device ran before to the one it runs now.
//!
//! prev is the last entry of `agent_state.json`, current the active runtime. No history (first
//! boot) records a baseline and migrates nothing; prev = current is up to date; otherwise the
//! persona is migrated prev → current with overwrite and daily memory (what os-server did), and
//! current is appended. A prev without a persona adapter (`remote`, an unknown name) is appended
//! over without migrating, as upstream's `CanMigrate` guard does. A migration that cannot be
//! planned is an error: the framework drops the whole step, so agent_state.json keeps prev and the
//! next run retries. The history keeps the newest 50 entries and is written with mode 0644.

use super::{Input, Status, StepName, StepReport};
use crate::device::state::AgentState;
use crate::error::Result;
use crate::persona::{self, Options};
use crate::plan::Draft;
use crate::runtime::RuntimeId;

pub(crate) fn plan(draft: &mut Draft<'_>, input: &Input<'_>) -> Result<StepReport> {
    let path = input.device.env.agent_state();
    let mut state = match draft.read_text(&path)? {
        Some(text) if !text.trim().is_empty() => {
            AgentState::parse(&text, &path).map_err(|e| {
                e.hint(
                    "fix or remove the file (it only holds the switch history); until then the persona is not migrated",
                )
            })?
        }
        _ => AgentState::default(),
    };
    let current = input.active;
    let prev = state.last().map(|e| e.runtime.clone());
    let (status, detail) = match prev {
        None => (
            Status::Baseline,
            format!("first boot: recorded {current} without migrating"),
        ),
        Some(prev) => match RuntimeId::parse(&prev) {
            Ok(id) if id == current => (Status::UpToDate, format!("{current} already recorded")),
            Ok(id) if persona::adapter(id).is_some() => {
                let report = persona::run_migration(
                    draft,
                    &input.device.layout,
                    id,
                    current,
                    &Options::default(),
                )?;
                (
                    Status::Reconciled,
                    format!("migrated {id} → {current}: {}", report.counts()),
                )
            }
            _ => (
                Status::Skipped,
                format!(
                    "no persona adapter for `{}`; recorded {current} without migrating",
                    prev.trim()
                ),
            ),
        },
    };
    if state.record(current.as_str(), input.now) {
        draft.write(
            &path,
            state.to_text(),
            Some(0o644),
            "record the active runtime in the switch history",
        )?;
    }
    Ok(StepReport::new(StepName::Persona, status, detail))
}
