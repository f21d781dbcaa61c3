//! A channel's credentials in the runtimes' own files, removed on `channel remove`.
//!
//! Presync writes a channel into a runtime's files from config.json and fills in only what
//! config.json holds, so once the credentials leave config.json nothing else would take them out
//! of `.env` or `openclaw.json`: a token the operator removed would keep working. This module
//! takes them out of every runtime that runs channels itself, whichever is active (a switch back
//! must not bring a removed channel back):
//!
//! | runtime | what goes |
//! |---|---|
//! | openclaw | `channels.<ch>`; `plugins.entries.<ch>.enabled` becomes false |
//! | hermes | the channel's `.env` variables (presync's mapping, docs/device-contract.md §2.2 step 5) |
//! | picoclaw | `channel_list.<ch>.enabled` becomes false; `channel_list.<ch>` of `.security.yml` |
//!
//! Each file is edited only when it exists and holds the channel; other keys and comments stay.

use serde_json::Value;

use crate::device::Device;
use crate::error::Result;
use crate::format::doc::Doc;
use crate::format::dotenv::DotEnv;
use crate::plan::Draft;
use crate::runtime::{Channel, Format, RuntimeId};

/// hermes' `.env` variables of each channel.
pub fn hermes_vars(ch: Channel) -> &'static [&'static str] {
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

/// Plans the removal of `ch` from every runtime's own files; returns the runtimes touched.
pub fn plan_remove(draft: &mut Draft<'_>, device: &Device, ch: Channel) -> Result<Vec<RuntimeId>> {
    let mut touched = Vec::new();
    let reason = format!("channel remove {ch}");
    let c = ch.as_str();

    let oc = RuntimeId::Openclaw.spec();
    if let Some(f) = oc.native_file("config") {
        let path = device.layout.path(f.loc);
        if draft.exists(&path)? {
            let mut doc = Doc::load(draft, &path, f.format)?;
            let mut changed = doc.remove(&["channels", c])?;
            if doc.get(&["plugins", "entries", c]).is_some() {
                changed |= doc.set(&["plugins", "entries", c, "enabled"], Value::Bool(false))?;
            }
            if changed && draft.write(&path, doc.text(), Some(0o600), &reason)? {
                touched.push(RuntimeId::Openclaw);
            }
        }
    }

    let hermes = RuntimeId::Hermes.spec();
    if let Some(f) = hermes.native_file("env") {
        let path = device.layout.path(f.loc);
        if let Some(text) = draft.read_text(&path)? {
            let mut env = DotEnv::parse(&text, &path.to_string())?;
            let mut changed = false;
            for var in hermes_vars(ch) {
                changed |= env.remove(var);
            }
            if changed && draft.write(&path, env.to_string(), Some(0o600), &reason)? {
                touched.push(RuntimeId::Hermes);
            }
        }
    }

    let pico = RuntimeId::Picoclaw.spec();
    let mut pico_changed = false;
    if let Some(f) = pico.native_file("config") {
        let path = device.layout.path(f.loc);
        if draft.exists(&path)? {
            let mut doc = Doc::load(draft, &path, f.format)?;
            if doc.get(&["channel_list", c, "enabled"]) == Some(Value::Bool(true)) {
                doc.set(&["channel_list", c, "enabled"], Value::Bool(false))?;
                pico_changed |= draft.write(&path, doc.text(), None, &reason)?;
            }
        }
    }
    if let Some(f) = pico.native_file("secrets") {
        let path = device.layout.path(f.loc);
        if draft.exists(&path)? {
            let mut doc = Doc::load(draft, &path, Format::Yaml)?;
            if doc.remove(&["channel_list", c])? {
                pico_changed |= draft.write(&path, doc.text(), Some(0o600), &reason)?;
            }
        }
    }
    if pico_changed {
        touched.push(RuntimeId::Picoclaw);
    }
    Ok(touched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::paths::DeviceEnv;
    use crate::system::fs::RootFs;
    use crate::system::path::DevPath;

    #[test]
    fn removes_the_channel_from_every_runtime_that_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("root/config/config.json", "{\"agent_runtime\": \"codex\"}"),
            (
                "root/.openclaw/openclaw.json",
                "{\n  // mine\n  \"channels\": {\"telegram\": {\"enabled\": true, \"botToken\": \"1:abc\"}, \"slack\": {\"enabled\": true}},\n  \"plugins\": {\"entries\": {\"telegram\": {\"enabled\": true}}}\n}\n",
            ),
            (
                "root/.hermes/.env",
                "# hermes\nTELEGRAM_BOT_TOKEN=1:abc\nTELEGRAM_ALLOWED_USERS=42\nAPI_SERVER_KEY=hermes-local-api-key\n",
            ),
            (
                "root/.picoclaw/config.json",
                "{\"channel_list\": {\"telegram\": {\"type\": \"telegram\", \"enabled\": true}}}",
            ),
            (
                "root/.picoclaw/.security.yml",
                "channel_list:\n  pico:\n    settings:\n      token: darren_pico_token\n  telegram:\n    settings:\n      token: 1:abc\n",
            ),
        ];
        for (p, t) in files {
            let host = dir.path().join(p);
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(host, t).unwrap();
        }
        let fs = RootFs::new(dir.path()).unwrap();
        let device = Device::load(&fs, &DeviceEnv::default()).unwrap();
        let mut d = Draft::new(&fs);
        let touched = plan_remove(&mut d, &device, Channel::Telegram).unwrap();
        assert_eq!(
            touched,
            vec![RuntimeId::Openclaw, RuntimeId::Hermes, RuntimeId::Picoclaw]
        );
        let read = |p: &str| d.read_text(&DevPath::new(p)).unwrap().unwrap();
        let oc = read("/root/.openclaw/openclaw.json");
        assert!(oc.contains("// mine") && !oc.contains("botToken") && oc.contains("\"slack\""));
        assert!(oc.contains("\"enabled\": false"), "{oc}");
        assert_eq!(
            read("/root/.hermes/.env"),
            "# hermes\nAPI_SERVER_KEY=hermes-local-api-key\n"
        );
        assert!(read("/root/.picoclaw/config.json").contains("\"enabled\": false"));
        let sec = read("/root/.picoclaw/.security.yml");
        assert!(sec.contains("pico") && !sec.contains("1:abc"), "{sec}");
        // A second pass has nothing left to do.
        assert!(
            plan_remove(&mut d, &device, Channel::Telegram)
                .unwrap()
                .is_empty()
        );
    }
}
