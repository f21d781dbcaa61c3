//! Seed-on-empty (docs/device-contract.md §3.1 and §3.2, upstream's `SeedAgentRuntimeFromGateway`):
//! the first boot of a fresh or legacy config.json, whose `agent_runtime` is missing or empty,
//! writes the runtime the resolution chain gives into `agent_runtime`, once. It seeds only from the
//! sources upstream seeds from, `f_r_default_agent` and ROBOT.md `gateway.default`: with neither,
//! the key stays empty (the device runs the built-in openclaw without that being written down as a
//! choice). A concrete value is never overwritten, so the step is up to date from then on and
//! later changes to the image default or ROBOT.md do not move a device that has chosen. A value of
//! the wrong type is never "empty": config.json is refused when it is read ([`crate::device::keys`]),
//! before this step plans anything. It runs first, so the steps after it read the seeded value.

use serde_json::Value;

use super::{Input, Status, StepName, StepReport};
use crate::device::config;
use crate::device::resolve::Source;
use crate::error::Result;
use crate::plan::Draft;

pub(crate) fn plan(draft: &mut Draft<'_>, input: &Input<'_>) -> Result<StepReport> {
    let device = input.device;
    if let Some(rt) = device.config.agent_runtime()? {
        return Ok(StepReport::new(
            StepName::Seed,
            Status::UpToDate,
            format!("agent_runtime is {rt}"),
        ));
    }
    let resolution = device.resolve()?;
    if resolution.source == Source::BuiltIn {
        return Ok(StepReport::new(
            StepName::Seed,
            Status::UpToDate,
            format!(
                "agent_runtime is empty and nothing names a default (no {}, no ROBOT.md gateway.default): left empty, the device runs {}",
                device.env.default_agent_file(),
                resolution.runtime
            ),
        ));
    }
    config::edit(
        draft,
        &device.config.path,
        &[(
            "agent_runtime",
            Some(Value::from(resolution.runtime.as_str())),
        )],
        "seed agent_runtime on first boot",
    )?;
    Ok(StepReport::new(
        StepName::Seed,
        Status::Seeded,
        format!(
            "agent_runtime was empty: seeded {} (from {})",
            resolution.runtime, resolution.from
        ),
    ))
}
