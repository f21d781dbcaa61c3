//! Presync: heal a runtime's native configuration before it starts (spec section 2, each
//! runtime's "Presync" and the file work of its boot onboarding).

use crate::device::Device;
use crate::error::Result;
use crate::plan::Draft;
use crate::runtime::RuntimeId;

/// What a presync planned.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub runtime: RuntimeId,
    /// False when this build has no presync for the runtime.
    pub available: bool,
}

/// Plans the presync of `rt` into `draft`.
pub fn plan(draft: &mut Draft<'_>, _device: &Device, rt: RuntimeId) -> Result<Report> {
    draft.warn(format!(
        "presync for {rt} is not available in this build yet; its files are left as they are"
    ));
    Ok(Report {
        runtime: rt,
        available: false,
    })
}
