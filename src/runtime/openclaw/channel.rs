//! openclaw's channels: slack, discord and whatsapp are npm plugins of its own, and a removed
//! channel leaves `openclaw.json`.

use serde_json::Value;

use super::SPEC;
use crate::device::Device;
use crate::error::Result;
use crate::plan::{CommandAction, Draft};
use crate::runtime::{Channel, ChannelPlugins, Loc};

pub(super) const PLUGINS: ChannelPlugins = ChannelPlugins {
    channels: &[Channel::Slack, Channel::Discord, Channel::Whatsapp],
    install: install_plugin,
    enable: enable_plugin,
};

/// Plans `openclaw plugins install @openclaw/<ch>` when the plugin's folder is missing.
fn install_plugin(draft: &mut Draft<'_>, device: &Device, ch: Channel) -> Result<()> {
    let dir = device
        .layout
        .path(Loc::openclaw("extensions"))
        .join(ch.as_str());
    if !draft.is_dir(&dir)? {
        draft.command(CommandAction {
            argv: vec![
                "openclaw".into(),
                "plugins".into(),
                "install".into(),
                format!("@openclaw/{ch}"),
            ],
            env: vec![("HOME".into(), device.layout.agent_home.to_string())],
            timeout_secs: 300,
            optional: true,
            label: format!("install openclaw's {ch} plugin"),
        });
    }
    Ok(())
}

/// openclaw runs slack, discord and whatsapp as npm plugins (`@openclaw/<ch>`): as upstream's
/// `ensureChannelPlugin` and `AddChannel` do, the plugin is installed when missing
/// ([`install_plugin`]) and `plugins.entries.<ch>.enabled` is set, and then presync writes
/// `channels.<ch>` (it writes a plugin channel only once its entry is there). The install runs
/// before any file is written, and the files are planned on what it leaves
/// (`channel::run_programs_first`). Its failure (no network) is a warning: the credentials stay
/// persisted, openclaw accepts the config and says which plugin to install, and the next add
/// retries.
fn enable_plugin(draft: &mut Draft<'_>, device: &Device, ch: Channel) -> Result<()> {
    let Some(f) = SPEC.native_file("config") else {
        return Ok(());
    };
    let path = device.layout.path(f.loc);
    let mut doc = draft.doc(&path, f.format)?;
    if doc.set(
        &["plugins", "entries", ch.as_str(), "enabled"],
        Value::Bool(true),
    )? {
        draft.write(
            &path,
            doc.text(),
            Some(0o600),
            &format!("enable openclaw's {ch} plugin"),
        )?;
    }
    Ok(())
}

/// `channels.<ch>` goes; `plugins.entries.<ch>.enabled` becomes false.
pub(super) fn remove_channel(draft: &mut Draft<'_>, device: &Device, ch: Channel) -> Result<bool> {
    let Some(f) = SPEC.native_file("config") else {
        return Ok(false);
    };
    let path = device.layout.path(f.loc);
    if !draft.exists(&path)? {
        return Ok(false);
    }
    let c = ch.as_str();
    let mut doc = draft.doc(&path, f.format)?;
    let mut changed = doc.remove(&["channels", c])?;
    if doc.get(&["plugins", "entries", c]).is_some() {
        changed |= doc.set(&["plugins", "entries", c, "enabled"], Value::Bool(false))?;
    }
    let reason = format!("channel remove {ch}");
    Ok(changed && draft.write(&path, doc.text(), Some(0o600), &reason)?)
}
