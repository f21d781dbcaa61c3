//! The operations that are not osctl: provisioning a device, a runtime editing its own files,
//! the owner writing theirs (each recorded in the model, so the checks know what must stay).

use super::*;

impl Life<'_> {
    // ---- operations that are not osctl ----

    pub(super) fn provision(&mut self, rt: Option<usize>, n: u32) {
        let path = self.dev.root.join("root/config/config.json");
        let mut doc: serde_json::Value = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_else(|| {
                serde_json::json!({
                    "httpPort": 5000,
                    "device_id": "lamp-7f3a",
                    "device_type": "lamp",
                    "timezone": "Asia/Ho_Chi_Minh",
                })
            });
        let o = doc.as_object_mut().unwrap();
        let set =
            |o: &mut serde_json::Map<String, serde_json::Value>, k: &str, v: serde_json::Value| {
                o.insert(k.to_string(), v);
            };
        set(
            o,
            "agent_runtime",
            rt.map(|i| RUNTIMES[i]).unwrap_or("").into(),
        );
        set(o, "llm_config_mode", "os".into());
        set(o, "llm_api_key", token("sk-owner-", n).into());
        set(
            o,
            "llm_base_url",
            "https://campaign-api.autonomous.ai/api/v1/ai/v1".into(),
        );
        set(o, "llm_model", "Auto-AI".into());
        set(o, "channel", "telegram".into());
        set(
            o,
            "telegram_bot_token",
            format!("{n}00000:AA{}", token("tg", n)).into(),
        );
        set(o, "telegram_user_id", format!("{n}").into());
        for k in [
            "slack_bot_token",
            "slack_app_token",
            "slack_user_id",
            "discord_bot_token",
            "discord_guild_id",
            "discord_user_id",
            "whatsapp_user_id",
        ] {
            set(o, k, "".into());
        }
        set(
            o,
            "mcp_tools",
            serde_json::json!([{
                "name": format!("owner{n}"),
                "url": format!("https://mcp.example.com/owner{n}"),
                "headers": {"Authorization": format!("Bearer {}", token("tool", n))},
            }]),
        );
        rs::write(
            &self.dev.root,
            "root/config/config.json",
            format!("{}\n", serde_json::to_string_pretty(&doc).unwrap()).as_bytes(),
            0o600,
        );
        self.model.channels = ["telegram".to_string()].into();
    }

    pub(super) fn edit(&mut self, rt: &str, file: usize, comment: bool, n: u32) {
        let (path, fmt) = own_files(rt)[file.min(1)];
        let Some(text) = self.dev.read(path) else {
            return; // the runtime has not written this file yet: nothing to edit
        };
        let key = format!("lifecycle_own_{n}");
        let note = format!("lifecycle-own-{n}");
        let comment = comment && fmt != Fmt::Json;
        let nl = if text.ends_with('\n') || text.is_empty() {
            ""
        } else {
            "\n"
        };
        let (new, marker) = match (fmt, comment) {
            (Fmt::Json | Fmt::Json5, false) => {
                let Some(at) = text.find('{') else { return };
                let rest = text[at + 1..].trim_start();
                let sep = if rest.starts_with('}') { "" } else { "," };
                (
                    format!(
                        "{}\n  \"{key}\": \"kept\"{sep}{}",
                        &text[..=at],
                        &text[at + 1..]
                    ),
                    format!("\"{key}\""),
                )
            }
            (Fmt::Json | Fmt::Json5, true) => {
                let Some(at) = text.find('{') else { return };
                (
                    format!("{}\n  // {note}\n{}", &text[..=at], &text[at + 1..]),
                    note.clone(),
                )
            }
            (Fmt::Yaml, false) => (format!("{text}{nl}{key}: kept\n"), format!("{key}: kept")),
            (Fmt::Yaml | Fmt::Env, true) => (format!("{text}{nl}# {note}\n"), note.clone()),
            (Fmt::Toml, false) => (
                format!("{key} = \"kept\"\n{text}"),
                format!("{key} = \"kept\""),
            ),
            (Fmt::Toml, true) => (format!("# {note}\n{text}"), note.clone()),
            (Fmt::Env, false) => {
                let k = key.to_uppercase();
                (format!("{text}{nl}{k}=kept\n"), format!("{k}=kept"))
            }
        };
        let mode = std::fs::metadata(self.dev.root.join(path))
            .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
            .unwrap_or(0o644);
        rs::write(&self.dev.root, path, new.as_bytes(), mode);
        self.model
            .edits
            .push((path.to_string(), marker, rt.to_string()));
    }

    pub(super) fn owner_writes(&mut self, kind: OwnerKind, n: u32) {
        let Some(rt) = self.model.active.clone() else {
            return;
        };
        let line =
            format!("Owner line {n}: my lamp is called Pip {n} and likes tea at {n} o'clock.");
        let (path, new) = match kind {
            OwnerKind::Soul | OwnerKind::SoulHeading => {
                let path = soul_path(&rt);
                let old = self.dev.read(path).unwrap_or_default();
                let new = if kind == OwnerKind::Soul {
                    format!(
                        "{}{}\n{line}\n",
                        old,
                        if old.ends_with('\n') || old.is_empty() {
                            ""
                        } else {
                            "\n"
                        }
                    )
                } else {
                    // The owner writes a soul of their own; the OS block on top (if any) stays.
                    let marker = "<!-- OS DO NOT REMOVE -->";
                    let block = if old.starts_with(marker) {
                        old.find("\n---\n")
                            .map(|e| old[..e + 5].to_string())
                            .unwrap_or_default()
                    } else {
                        String::new()
                    };
                    let gap = if block.is_empty() { "" } else { "\n" };
                    // The owner keeps what they wrote before.
                    let earlier: String = self
                        .model
                        .owner
                        .iter()
                        .filter(|(p, _)| p == path)
                        .map(|(_, l)| format!("{l}\n"))
                        .collect();
                    format!("{block}{gap}# Soul\n\n{earlier}{line}\n")
                };
                (path, new)
            }
            OwnerKind::Memory => {
                let path = memory_path(&rt);
                let old = self.dev.read(path).unwrap_or_default();
                (
                    path,
                    format!(
                        "{}{}- {line}\n",
                        old,
                        if old.ends_with('\n') || old.is_empty() {
                            ""
                        } else {
                            "\n"
                        }
                    ),
                )
            }
        };
        rs::write(&self.dev.root, path, new.as_bytes(), 0o644);
        self.model.owner.push((path.to_string(), line));
    }
}
