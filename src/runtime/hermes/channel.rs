//! hermes' channels: their credentials are `.env` variables (presync's mapping,
//! docs/device-contract.md §2.2 step 5), removed on `channel remove`.

use super::SPEC;
use crate::device::Device;
use crate::error::Result;
use crate::format::dotenv::DotEnv;
use crate::plan::Draft;
use crate::runtime::Channel;

/// hermes' `.env` variables of each channel.
pub(super) fn vars(ch: Channel) -> &'static [&'static str] {
    match ch {
        Channel::Telegram => &["TELEGRAM_BOT_TOKEN", "TELEGRAM_ALLOWED_USERS"],
        Channel::Slack => &["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_ALLOWED_USERS"],
        Channel::Discord => &[
            "DISCORD_BOT_TOKEN",
            "DISCORD_GUILD_ID",
            "DISCORD_ALLOWED_USERS",
        ],
        Channel::Whatsapp => &["WHATSAPP_ALLOWED_USERS"],
        Channel::Imessage => &[
            "BLUEBUBBLES_SERVER_URL",
            "BLUEBUBBLES_PASSWORD",
            "BLUEBUBBLES_ALLOWED_USERS",
            "BLUEBUBBLES_WEBHOOK_HOST",
            "BLUEBUBBLES_WEBHOOK_PORT",
            "BLUEBUBBLES_ALLOW_ALL_USERS",
            "BLUEBUBBLES_HOME_CHANNEL",
        ],
    }
}

/// The channel's `.env` variables go.
pub(super) fn remove_channel(draft: &mut Draft<'_>, device: &Device, ch: Channel) -> Result<bool> {
    let Some(f) = SPEC.native_file("env") else {
        return Ok(false);
    };
    let path = device.layout.path(f.loc);
    let Some(text) = draft.read_text(&path)? else {
        return Ok(false);
    };
    let mut env = DotEnv::parse(&text, &path.to_string())?;
    let mut changed = false;
    for var in vars(ch) {
        changed |= env.remove(var);
    }
    let reason = format!("channel remove {ch}");
    Ok(changed && draft.write(&path, env.to_string(), Some(0o600), &reason)?)
}
