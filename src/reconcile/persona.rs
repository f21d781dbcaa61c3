//! The persona reconciler (spec section 5.5).

use super::{Input, Status, StepName, StepReport};
use crate::error::Result;
use crate::plan::Draft;

pub fn plan(_draft: &mut Draft<'_>, _input: &Input<'_>) -> Result<StepReport> {
    Ok(StepReport::new(
        StepName::Persona,
        Status::NotAvailable,
        "not available in this build yet; agent_state.json is left as it is",
    ))
}
