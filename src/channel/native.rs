//! A channel's credentials in the runtimes' own files, removed on `channel remove`.
//!
//! Presync writes a channel into a runtime's files from config.json and fills in only what
//! config.json holds, so once the credentials leave config.json nothing else would take them out
//! of the runtime's own files: a token the operator removed would keep working. This module takes
//! them out of every runtime that runs channels itself, whichever is active (a switch back must
//! not bring a removed channel back).
//!
//! Each file is edited only when it exists and holds the channel; other keys and comments stay.
//! What goes is each runtime's own (`Runtime::remove_channel`, in `src/runtime/<rt>/channel.rs`).

use crate::device::Device;
use crate::error::Result;
use crate::plan::Draft;
use crate::runtime::{Channel, REGISTRY, RuntimeId};

/// Plans the removal of `ch` from every runtime's own files (each runtime's
/// `Runtime::remove_channel`); returns the runtimes touched, in registry order.
pub(crate) fn plan_remove(
    draft: &mut Draft<'_>,
    device: &Device,
    ch: Channel,
) -> Result<Vec<RuntimeId>> {
    let mut touched = Vec::new();
    for rt in REGISTRY {
        if let Some(remove) = rt.remove_channel
            && remove(draft, device, ch)?
        {
            touched.push(rt.id);
        }
    }
    Ok(touched)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::paths::DeviceEnv;
    use crate::path::DevPath;
    use crate::system::fs::RootFs;

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
