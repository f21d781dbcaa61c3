//! The MCP server carry-over (spec section 8.3).

use super::{Input, Status, StepName, StepReport};
use crate::error::Result;
use crate::plan::Draft;

pub fn plan(_draft: &mut Draft<'_>, _input: &Input<'_>) -> Result<StepReport> {
    Ok(StepReport::new(
        StepName::Mcp,
        Status::NotAvailable,
        "not available in this build yet; its marker is left as it is",
    ))
}
