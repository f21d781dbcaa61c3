//! hermes presync (docs/device-contract.md §2.2): `config.yaml` model and provider structure,
//! terminal cwd and approvals, `.env` (the key, channel credentials, BlueBubbles defaults, the
//! local API key), the BlueBubbles caller-context file, the skills restore, and the OS blocks: the
//! device soul atop SOUL.md (the legacy skill-priority block pruned from it) and the rules block of
//! `~/.hermes/AGENTS.md`, which hermes finds through `terminal.cwd`; then the observer hook's
//! endpoint (when the image ships the hook) and the dedupe of `<name>-imported` skills.

use serde_json::{Value, json};

use crate::device::config::LlmMode;
use crate::error::Result;
use crate::format::Format;
use crate::path::DevPath;
use crate::runtime::kit::blocks::{self, HERMES_AGENTS};
use crate::runtime::kit::cx::{Cx, SECRET_MODE};
use crate::runtime::kit::llm::{DEFAULT_BASE_URL_AI, DEFAULT_MODEL, VISION_MODEL, is_campaign};

/// Must match the gateway's key (docs/device-contract.md §2.2, §2.7; the code wins over the docs'
/// `hermes-api-key`).
const API_SERVER_KEY: &str = "hermes-local-api-key";
const HERMES_BIN: &str = "/usr/local/bin/hermes";
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// config.json field → `.env` variable (upserted when the field is not empty).
const CHANNEL_VARS: &[(&str, &str)] = &[
    ("telegram_bot_token", "TELEGRAM_BOT_TOKEN"),
    ("telegram_user_id", "TELEGRAM_ALLOWED_USERS"),
    ("slack_bot_token", "SLACK_BOT_TOKEN"),
    ("slack_app_token", "SLACK_APP_TOKEN"),
    ("slack_user_id", "SLACK_ALLOWED_USERS"),
    ("discord_bot_token", "DISCORD_BOT_TOKEN"),
    ("discord_guild_id", "DISCORD_GUILD_ID"),
    ("discord_user_id", "DISCORD_ALLOWED_USERS"),
    ("whatsapp_user_id", "WHATSAPP_ALLOWED_USERS"),
    ("bluebubbles_server_url", "BLUEBUBBLES_SERVER_URL"),
    ("bluebubbles_password", "BLUEBUBBLES_PASSWORD"),
    ("bluebubbles_user_address", "BLUEBUBBLES_ALLOWED_USERS"),
];

pub(super) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let home = cx.path(cx.rt.home);
    if cx.full() && cx.owns_llm() {
        skills_restore(cx)?;
    }
    config_yaml(cx, &home)?;
    dotenv(cx, &home)?;
    if !cx.full() {
        return Ok(());
    }
    caller_context(cx, &home)?;
    let soul = blocks::device_soul(cx)?;
    let path = home.join("SOUL.md");
    let old = cx.text(&path)?;
    if old.is_some() || soul.is_some() {
        let original = old.as_deref().unwrap_or("");
        let mut text = blocks::strip_hermes_rules(original);
        if text != original {
            text = format!("{}\n", text.trim_end());
        }
        let mut discarded = None;
        if let Some(soul) = &soul {
            (text, discarded) = blocks::upsert_soul(&text, soul, cx.rt.id);
        }
        blocks::write_prompt(
            cx,
            &path,
            old.as_deref(),
            &text,
            "device soul block; legacy rules block moved to AGENTS.md",
            discarded.as_deref(),
        )?;
    }
    blocks::ensure_block(
        cx,
        &home.join("AGENTS.md"),
        HERMES_AGENTS,
        None,
        true,
        "OS rules block",
    )?;
    observer_hook(cx, &home)?;
    dedupe_imported_skills(cx)
}

/// The observer hook that forwards channel turns to os-server (`~/.hermes/hooks/
/// os-server-observer/{HOOK.yaml,handler.py}`, docs/device-contract.md §2.2): hermes loads every
/// hook in that folder at start. The hook comes with the OS image; presync registers it when both
/// files are there by pointing its handler at os-server's loopback endpoint (config.json
/// `httpPort`): upstream's placeholder `__OS_SERVER_TURN_URL__`, or an endpoint written for another
/// port.
fn observer_hook(cx: &mut Cx<'_, '_>, home: &DevPath) -> Result<()> {
    let dir = home.join("hooks/os-server-observer");
    let handler = dir.join("handler.py");
    if !cx.exists(&dir.join("HOOK.yaml"))? {
        return Ok(());
    }
    let Some(text) = cx.text(&handler)? else {
        return Ok(());
    };
    let url = crate::runtime::picoclaw::presync::turn_url(cx);
    let new = point_at(&text, &url);
    if new != text {
        cx.write(
            &handler,
            new,
            None,
            "observer hook: os-server's channel-turn endpoint",
        )?;
    }
    Ok(())
}

/// `text` with the placeholder, and any loopback channel-turn URL, replaced by `url`.
fn point_at(text: &str, url: &str) -> String {
    const PLACEHOLDER: &str = "__OS_SERVER_TURN_URL__";
    const HEAD: &str = "http://127.0.0.1:";
    const TAIL: &str = "/api/agent/channel-turn";
    let mut out = text.replace(PLACEHOLDER, url);
    let mut from = 0;
    while let Some(i) = out[from..].find(HEAD).map(|i| i + from) {
        let port_at = i + HEAD.len();
        let digits = out[port_at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        let end = port_at + digits;
        if digits > 0 && out[end..].starts_with(TAIL) {
            out.replace_range(i..end + TAIL.len(), url);
            from = i + url.len();
        } else {
            from = port_at;
        }
    }
    out
}

/// `hermes claw migrate --skill-conflict rename` leaves `<name>-imported` copies next to skills
/// of the same name; upstream's onboarding prunes them (`pruneImportedSkillDuplicates`): the
/// copy goes when `<name>` exists, else it takes the name. Both are journaled like any change.
fn dedupe_imported_skills(cx: &mut Cx<'_, '_>) -> Result<()> {
    let dir = cx.path(cx.rt.skills.dir);
    for name in cx.draft.list_dir(&dir)? {
        let Some(base) = name.strip_suffix("-imported").filter(|b| !b.is_empty()) else {
            continue;
        };
        let dup = dir.join(&name);
        if !cx.is_dir(&dup)? {
            continue;
        }
        let canonical = dir.join(base);
        if cx.exists(&canonical)? {
            cx.remove(
                &dup,
                &format!("duplicate of the skill {base} (hermes claw migrate)"),
            )?;
        } else {
            let reason = format!("{name} takes its skill's name");
            cx.copy_tree(&dup, &canonical, &reason)?;
            cx.remove(&dup, &reason)?;
        }
    }
    Ok(())
}

/// A factory reset wipes the openclaw-imported skills; `hermes claw migrate` restores them,
/// only when the folder is empty (running it every boot would pile up renamed duplicates).
fn skills_restore(cx: &mut Cx<'_, '_>) -> Result<()> {
    let imports = cx.path(cx.rt.skills.dir);
    if !cx.draft.list_dir(&imports)?.is_empty() {
        return Ok(());
    }
    let bin = DevPath::new(HERMES_BIN);
    if !cx.is_executable(&bin)? || !cx.is_dir(&cx.openclaw_dir())? {
        return Ok(());
    }
    cx.command(
        &[
            HERMES_BIN,
            "claw",
            "migrate",
            "--preset",
            "full",
            "--overwrite",
            "--skill-conflict",
            "rename",
            "--yes",
            "--migrate-secrets",
        ],
        &[("HOME", "/root".into()), ("PATH", PATH.into())],
        180,
        "restore the openclaw-imported skills (hermes claw migrate)",
    );
    Ok(())
}

fn config_yaml(cx: &mut Cx<'_, '_>, home: &DevPath) -> Result<()> {
    let mut yaml = cx.doc(&home.join("config.yaml"), Format::Yaml)?;
    if cx.owns_llm() {
        let base = cx.val("llm_base_url");
        let model = cx.val("llm_model");
        let campaign = is_campaign(base.as_deref());
        // `hermes setup --reset` leaves `custom_providers: ''`; the provider is found by name.
        let at = match yaml.get(&["custom_providers"]) {
            Some(Value::Array(items)) => items
                .iter()
                .position(|p| p.get("name").and_then(Value::as_str) == Some("autonomous"))
                .unwrap_or(items.len()),
            _ => {
                yaml.set(&["custom_providers"], json!([]))?;
                0
            }
        };
        let at = at.to_string();
        // `Auto-AI` resolves only at campaign-api; `os` mode always applies the OS model.
        let default = match &model {
            Some(m) if !campaign || cx.mode == LlmMode::Os => m.clone(),
            _ => DEFAULT_MODEL.to_string(),
        };
        if !campaign && model.is_none() {
            cx.warn("llm_base_url is not campaign-api but llm_model is empty: model.default stays Auto-AI, which only campaign-api resolves");
        }
        yaml.merge(
            &["model"],
            json!({"provider": "custom:autonomous", "default": default}),
        )?;
        let cp = ["custom_providers", at.as_str()];
        let base_url = base
            .clone()
            .or_else(|| yaml.get_str(&[cp[0], cp[1], "base_url"]))
            .unwrap_or_else(|| DEFAULT_BASE_URL_AI.to_string());
        let mut provider = json!({"name": "autonomous", "key_env": "AUTONOMOUS_API_KEY",
                                  "api_mode": "anthropic_messages", "base_url": base_url});
        if campaign {
            // hermes sends cache markers for a custom provider only when the model declares
            // prompt caching; 1h outlives the gaps between voice turns.
            provider["models"] = json!({"Auto-AI": {"prompt_caching": true}});
        }
        // One edit for the provider's owned keys (each YAML edit is re-parsed to verify it).
        yaml.merge(&cp, provider)?;
        yaml.set(
            &["auxiliary", "vision"],
            json!({"provider": "custom:autonomous", "model": VISION_MODEL, "timeout": 120,
                   "download_timeout": 30, "extra_body": {}}),
        )?;
        yaml.set(&["agent", "image_input_mode"], "auto")?;
        if campaign {
            yaml.set(&["prompt_caching", "cache_ttl"], "1h")?;
        }
    }
    if cx.full() {
        // hermes finds AGENTS.md only by walking up from an absolute cwd.
        yaml.set(&["terminal", "cwd"], home.to_string())?;
        // PyYAML reads a bare `off` as false: the editor writes it double-quoted.
        yaml.set(&["approvals", "mode"], "off")?;
    }
    cx.save_doc(
        yaml,
        None,
        "hermes model, provider and gateway settings (config.json)",
    )
}

fn dotenv(cx: &mut Cx<'_, '_>, home: &DevPath) -> Result<()> {
    let mut env = cx.dotenv(&home.join(".env"))?;
    if cx.owns_llm() {
        env.set_some("AUTONOMOUS_API_KEY", cx.val("llm_api_key").as_deref())?;
    }
    if cx.full() {
        for (field, var) in CHANNEL_VARS {
            env.set_some(var, cx.val(field).as_deref())?;
        }
        if cx.val("bluebubbles_server_url").is_some() {
            // The webhook binds loopback by default, which the Mac cannot reach.
            if env.get("BLUEBUBBLES_WEBHOOK_HOST").is_none() {
                match cx.lan_ip() {
                    Some(ip) => env.set("BLUEBUBBLES_WEBHOOK_HOST", &ip)?,
                    None => cx.warn(
                        "BlueBubbles is configured but no LAN address was found (only the live device has one): BLUEBUBBLES_WEBHOOK_HOST stays unset, so the webhook binds loopback",
                    ),
                }
            }
            env.default("BLUEBUBBLES_WEBHOOK_PORT", "8645")?;
            env.default("BLUEBUBBLES_ALLOW_ALL_USERS", "true")?;
            if env.get("BLUEBUBBLES_HOME_CHANNEL").is_none() {
                match cx.val("bluebubbles_user_address") {
                    Some(addr) => env.set("BLUEBUBBLES_HOME_CHANNEL", &format!("any;-;{addr}"))?,
                    None => cx.warn(
                        "BlueBubbles is configured but bluebubbles_user_address is empty: BLUEBUBBLES_HOME_CHANNEL stays unset",
                    ),
                }
            }
        }
        env.set("API_SERVER_KEY", API_SERVER_KEY)?;
    }
    cx.save_env(env, "hermes environment (config.json)")
}

/// The multi-line BlueBubbles caller context cannot live in `.env`; hermes reads this file.
fn caller_context(cx: &mut Cx<'_, '_>, home: &DevPath) -> Result<()> {
    let path = home.join("bluebubbles_caller_context.txt");
    let value = cx
        .cfg
        .fields
        .get("bluebubbles_caller_context")
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string);
    match value {
        Some(v) => cx.write(&path, v, Some(SECRET_MODE), "BlueBubbles caller context"),
        None if cx.exists(&path)? => cx.remove(&path, "bluebubbles_caller_context is empty"),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::point_at;

    #[test]
    fn the_observer_hook_points_at_the_configured_port() {
        let url = "http://127.0.0.1:5080/api/agent/channel-turn";
        assert_eq!(
            point_at("U = \"__OS_SERVER_TURN_URL__\"\n", url),
            format!("U = \"{url}\"\n")
        );
        // Written for another port before: moved; other loopback URLs are left.
        let old = "U = \"http://127.0.0.1:5000/api/agent/channel-turn\"\nV = \"http://127.0.0.1:8642/health\"\n";
        assert_eq!(
            point_at(old, url),
            format!("U = \"{url}\"\nV = \"http://127.0.0.1:8642/health\"\n")
        );
        assert_eq!(point_at(&point_at(old, url), url), point_at(old, url));
    }
}
