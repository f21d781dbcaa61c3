//! The channel re-apply (docs/device-contract.md §8.2), guarded by `channels_applied_runtime`.
//!
//! When the marker names another runtime, every channel with credentials in config.json is
//! sorted against what the active runtime can run: supported channels are applied to it (see
//! [`crate::channel::apply`]: presync where the runtime runs them itself, nothing where the
//! device does), the others are recorded in `channels_unsupported` and their credentials stay in
//! config.json, so switching back restores them. The marker and `channels_unsupported` are saved
//! in the same plan; any error leaves both untouched, so the next run retries. An empty marker
//! records a baseline without re-applying.

use serde_json::{Value, json};

use super::{Input, Marker, Status, StepName, StepReport, marker};
use crate::channel;
use crate::device::config;
use crate::error::Result;
use crate::plan::Draft;
use crate::runtime::{Channel, Owner};

const MARKER: &str = "channels_applied_runtime";
const UNSUPPORTED: &str = "channels_unsupported";

pub(crate) fn plan(draft: &mut Draft<'_>, input: &Input<'_>) -> Result<StepReport> {
    let device = input.device;
    let active = input.active;
    let config_path = device.env.config_json();
    if let Marker::Settled(report) = marker(
        draft,
        input,
        StepName::Channels,
        MARKER,
        "without re-applying",
    )? {
        return Ok(report);
    }
    let spec = active.spec();
    let configured = device.config.configured_channels();
    let (supported, unsupported): (Vec<Channel>, Vec<Channel>) =
        configured.iter().partition(|c| spec.supports(**c));
    let changed = channel::apply(draft, device, active, &supported)?;
    let unsupported_names: Vec<&str> = unsupported.iter().map(|c| c.as_str()).collect();
    // Saved like upstream's `omitempty` list: absent when empty.
    let list = if unsupported.is_empty() {
        None
    } else {
        Some(json!(unsupported_names))
    };
    let mut edits = vec![(MARKER, Some(Value::from(active.as_str())))];
    if list.is_some() || device.config.fields.contains_key(UNSUPPORTED) {
        edits.push((UNSUPPORTED, list));
    }
    config::edit(
        draft,
        &config_path,
        &edits,
        &format!("channels reconcile: applied for {active}"),
    )?;
    let names = |cs: &[Channel]| cs.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
    let mut detail = if supported.is_empty() {
        format!("no channel for {active} to run")
    } else {
        let runtime: Vec<Channel> = supported
            .iter()
            .copied()
            .filter(|c| channel::owner(active, *c) == Owner::Runtime)
            .collect();
        let device_run: Vec<Channel> = supported
            .iter()
            .copied()
            .filter(|c| channel::owner(active, *c) == Owner::Device)
            .collect();
        let mut parts = Vec::new();
        if !runtime.is_empty() {
            parts.push(format!(
                "{} applied to the {active} config{}",
                names(&runtime),
                if changed { "" } else { " (already there)" }
            ));
        }
        if !device_run.is_empty() {
            parts.push(format!(
                "{} run by the device's own loop (nothing to write)",
                names(&device_run)
            ));
        }
        parts.join("; ")
    };
    if !unsupported.is_empty() {
        detail.push_str(&format!(
            "; {active} cannot run {} (credentials kept in config.json)",
            names(&unsupported)
        ));
    }
    Ok(StepReport::new(
        StepName::Channels,
        Status::Reconciled,
        detail,
    ))
}
