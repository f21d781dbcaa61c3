//! picoclaw's channels: a removed channel is disabled in `config.json` and its credentials leave
//! `.security.yml`.

use serde_json::Value;

use super::SPEC;
use crate::device::Device;
use crate::error::Result;
use crate::format::Format;
use crate::plan::Draft;
use crate::runtime::Channel;

/// `channel_list.<ch>.enabled` becomes false; `channel_list.<ch>` of `.security.yml` goes.
pub(super) fn remove_channel(draft: &mut Draft<'_>, device: &Device, ch: Channel) -> Result<bool> {
    let reason = format!("channel remove {ch}");
    let c = ch.as_str();
    let mut changed = false;
    if let Some(f) = SPEC.native_file("config") {
        let path = device.layout.path(f.loc);
        if draft.exists(&path)? {
            let mut doc = draft.doc(&path, f.format)?;
            if doc.get(&["channel_list", c, "enabled"]) == Some(Value::Bool(true)) {
                doc.set(&["channel_list", c, "enabled"], Value::Bool(false))?;
                changed |= draft.write(&path, doc.text(), None, &reason)?;
            }
        }
    }
    if let Some(f) = SPEC.native_file("secrets") {
        let path = device.layout.path(f.loc);
        if draft.exists(&path)? {
            let mut doc = draft.doc(&path, Format::Yaml)?;
            if doc.remove(&["channel_list", c])? {
                changed |= draft.write(&path, doc.text(), Some(0o600), &reason)?;
            }
        }
    }
    Ok(changed)
}
