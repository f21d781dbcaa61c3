//! picoclaw presync (docs/device-contract.md §2.3): `config.json` (agent defaults, the `autonomous`
//! and `autonomous_vision` models, the gateway, `channel_list`), `.security.yml` (API keys, the
//! pico token, channel credentials), the one-time migrate from openclaw and, when the config is
//! missing, `picoclaw onboard`; the os-server observer process hook (when the image ships it);
//! then the OS blocks of SOUL.md, AGENTS.md and HEARTBEAT.md and
//! the KNOWLEDGE.md seed.
//!
//! picoclaw has no installable package, so there is no runtime to ask whether it accepts these
//! files; the tests check them against the shape in docs/device-contract.md §2.3 instead.

use serde_json::{Value, json};

use crate::device::config::LlmMode;
use crate::error::Result;
use crate::format::Format;
use crate::path::DevPath;
use crate::plan::ServiceAction;
use crate::runtime::kit::blocks::{self, PICOCLAW_AGENTS};
use crate::runtime::kit::cx::{Cx, DocEdit, SECRET_MODE, fill};
use crate::runtime::kit::llm::{
    DEFAULT_BASE_URL, DEFAULT_MODEL, VISION_MODEL, is_campaign, with_v1,
};

/// Must match os-server's bearer token for the pico channel (docs/device-contract.md §2.7).
const PICO_TOKEN: &str = "darren_pico_token";
const PICO_BIN: &str = "/usr/local/bin/picoclaw";
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const MIGRATE: &str = include_str!("../../../embedded/presync/picoclaw-migrate.sh");
const CHANNELS: [&str; 4] = ["telegram", "discord", "slack", "whatsapp"];
/// The observer hook program the OS image ships (relative to picoclaw's home).
/// The unit the migrate stops first (openclaw's unit is baked into the image).
const OPENCLAW_UNIT: &str = "openclaw";
const OBSERVER: &str = "hooks/os-server-observer/observer.py";

pub(crate) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let home = cx.path(cx.rt.home);
    let ws = cx.workspace();
    let config = home.join("config.json");
    let configured = cx.exists(&config)?;
    if !configured {
        // `picoclaw onboard` writes the config (and the workspace templates) presync edits.
        if cx.full() && cx.is_executable(&DevPath::new(PICO_BIN))? {
            cx.command(
                &[PICO_BIN, "onboard"],
                &[("HOME", "/root".into()), ("PATH", PATH.into())],
                120,
                "create picoclaw's config (picoclaw onboard)",
            );
        }
        cx.warn(format!(
            "{config} does not exist (picoclaw onboard creates it): its settings are wired by the next presync"
        ));
    }
    // Planned after onboard (commands run in plan order): the migrate carries the workspace only.
    if cx.full() {
        migrate_once(cx, &ws)?;
    }
    if configured {
        config_json(cx, &config)?;
        security(cx, &home.join(".security.yml"))?;
    }
    if !cx.full() {
        return Ok(());
    }
    cx.seed(
        &ws.join("KNOWLEDGE.md"),
        blocks::KNOWLEDGE_SEED,
        "seed KNOWLEDGE.md",
    )?;
    let soul = blocks::device_soul(cx)?;
    blocks::ensure_soul(cx, &ws.join("SOUL.md"), soul.as_deref())?;
    let connectors = blocks::connectors_dir(cx);
    let agents = fill(PICOCLAW_AGENTS, &[("CONNECTORS_DIR", connectors.as_str())]);
    // picoclaw's onboard writes AGENTS.md; without it there is nothing to add a block to.
    blocks::ensure_block(
        cx,
        &ws.join("AGENTS.md"),
        &agents,
        None,
        false,
        "OS rules block",
    )?;
    let heartbeat = blocks::heartbeat("skip silently", false, "");
    blocks::ensure_block(
        cx,
        &ws.join("HEARTBEAT.md"),
        &heartbeat,
        None,
        true,
        "OS heartbeat block",
    )
}

/// Once, from openclaw: `picoclaw migrate --workspace-only` and the files it does not carry.
/// It is a program, so it runs after presync's own changes, on the live device; its script
/// writes the marker only when the migrate succeeded.
fn migrate_once(cx: &mut Cx<'_, '_>, ws: &DevPath) -> Result<()> {
    let Some(marker) = cx.rt.migrate_marker.map(|m| cx.path(m)) else {
        return Ok(());
    };
    let openclaw = cx.openclaw_dir();
    if cx.exists(&marker)?
        || !cx.is_dir(&openclaw)?
        || !cx.is_executable(&DevPath::new(PICO_BIN))?
    {
        return Ok(());
    }
    // One line in the printed plan: the script's command lines joined with "; ".
    let script: Vec<&str> = MIGRATE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let script = script.join("; ");
    // openclaw must not write its workspace while it is copied; the stop goes through the
    // services door, right before the migrate.
    cx.service(ServiceAction::Stop(OPENCLAW_UNIT.into()));
    cx.command(
        &["/bin/sh", "-c", &script, "picoclaw-migrate"],
        &[
            ("PICO_BIN", PICO_BIN.into()),
            ("OC_WS", openclaw.join("workspace").to_string()),
            ("WS", ws.to_string()),
            ("MARKER", marker.to_string()),
            ("PATH", PATH.into()),
        ],
        300,
        "one-time migrate from openclaw (picoclaw migrate --workspace-only)",
    );
    Ok(())
}

fn config_json(cx: &mut Cx<'_, '_>, path: &DevPath) -> Result<()> {
    let mut json = cx.doc(path, Format::Json)?;
    if cx.full() {
        json.set(&["agents", "defaults", "restrict_to_workspace"], false)?;
        json.set(
            &["agents", "defaults", "allow_read_outside_workspace"],
            true,
        )?;
    }
    if cx.owns_llm() {
        let d = ["agents", "defaults"];
        json.set(&[d[0], d[1], "provider"], "anthropic-messages")?;
        json.set(&[d[0], d[1], "model_name"], "autonomous")?;
        json.set(&[d[0], d[1], "image_model"], "autonomous_vision")?;
        let base = cx.val("llm_base_url");
        let model = cx.val("llm_model");
        let campaign = is_campaign(base.as_deref());
        let chosen = match &model {
            Some(m) if !campaign || cx.mode == LlmMode::Os => m.clone(),
            _ => DEFAULT_MODEL.to_string(),
        };
        if !campaign && model.is_none() {
            cx.warn("llm_base_url is not campaign-api but llm_model is empty: the model stays Auto-AI, which only campaign-api resolves");
        }
        upsert_model(&mut json, "autonomous", &chosen, base.as_deref())?;
        upsert_model(
            &mut json,
            "autonomous_vision",
            VISION_MODEL,
            base.as_deref(),
        )?;
    }
    if cx.full() {
        json.set(
            &["gateway"],
            json!({"host": "localhost", "port": 18790, "hot_reload": false, "log_level": "warn"}),
        )?;
        let pico = ["channel_list", "pico"];
        json.set(&[pico[0], pico[1], "enabled"], true)?;
        json.set(&[pico[0], pico[1], "type"], "pico")?;
        json.default(&[pico[0], pico[1], "reasoning_channel_id"], "")?;
        json.default(&[pico[0], pico[1], "group_trigger"], json!({}))?;
        json.default(&[pico[0], pico[1], "typing"], json!({}))?;
        json.default(&[pico[0], pico[1], "placeholder"], json!({"enabled": true}))?;
        json.default(
            &[pico[0], pico[1], "settings"],
            json!({"max_connections": 100, "ping_interval": 30, "read_timeout": 60,
                   "streaming": {"enabled": false}, "write_timeout": 10, "allow_token_query": true}),
        )?;
        for ch in CHANNELS {
            json.set(&["channel_list", ch, "type"], ch)?;
            json.default(&["channel_list", ch, "enabled"], false)?;
            json.default(&["channel_list", ch, "reasoning_channel_id"], "")?;
            json.default(&["channel_list", ch, "group_trigger"], json!({}))?;
            json.default(&["channel_list", ch, "typing"], json!({}))?;
            json.default(
                &["channel_list", ch, "placeholder"],
                json!({"enabled": false}),
            )?;
        }
        for ch in enabled_channels(cx) {
            json.set(&["channel_list", ch, "enabled"], true)?;
        }
        observer_hook(cx, &mut json)?;
        if cx.val("whatsapp_user_id").is_some() {
            let store = cx.workspace().join("whatsapp").to_string();
            json.set(
                &["channel_list", "whatsapp", "settings", "use_native"],
                true,
            )?;
            json.set(
                &["channel_list", "whatsapp", "settings", "session_store_path"],
                store,
            )?;
        }
    }
    cx.save_doc(
        json,
        None,
        "picoclaw model, gateway and channels (config.json)",
    )
}

/// The observer process hook that forwards channel turns to os-server (docs/device-contract.md
/// §2.3, "Process hooks"). The hook program comes with the OS image; it is registered only when it
/// is there, since picoclaw would otherwise try to spawn a missing program on every turn.
fn observer_hook(cx: &mut Cx<'_, '_>, json: &mut DocEdit) -> Result<()> {
    let program = cx.path(cx.rt.home).join(OBSERVER);
    if !cx.exists(&program)? {
        return Ok(());
    }
    let url = turn_url(cx);
    json.set(&["hooks", "enabled"], true)?;
    json.set(
        &["hooks", "processes", "os-server-observer"],
        json!({
            "enabled": true,
            "transport": "stdio",
            "command": ["python3", program.to_string()],
            "env": {"OS_SERVER_TURN_URL": url},
            "observe": ["turn_start", "turn_end"],
        }),
    )
}

/// os-server's loopback channel-turn endpoint (config.json `httpPort`, default 5000).
pub(crate) fn turn_url(cx: &Cx<'_, '_>) -> String {
    let port = match cx.cfg.fields.get("httpPort") {
        Some(Value::Number(n)) => n.as_u64().filter(|p| (1..=65535).contains(p)),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
    .unwrap_or(5000);
    format!("http://127.0.0.1:{port}/api/agent/channel-turn")
}

/// The `model_list` entry named `name`: updated in place (keys osctl does not own kept), or
/// appended. `api_base` keeps its value unless config.json names a base URL.
fn upsert_model(json: &mut DocEdit, name: &str, model: &str, base: Option<&str>) -> Result<()> {
    let mut list = match json.get(&["model_list"]) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let at = list
        .iter()
        .position(|e| e.get("model_name").and_then(Value::as_str) == Some(name));
    let existing = at
        .and_then(|i| list[i].get("api_base"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let api_base = base
        .map(with_v1)
        .or(existing)
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
    let mut entry = match at {
        Some(i) => list[i].as_object().cloned().unwrap_or_default(),
        None => Default::default(),
    };
    entry.insert("model_name".into(), name.into());
    entry.insert("provider".into(), "anthropic-messages".into());
    entry.insert("model".into(), model.into());
    entry.insert("api_base".into(), api_base.into());
    match at {
        Some(i) => list[i] = Value::Object(entry),
        None => list.push(Value::Object(entry)),
    }
    json.set(&["model_list"], Value::Array(list))
}

/// Channels whose credentials config.json holds (slack needs both tokens).
fn enabled_channels(cx: &Cx<'_, '_>) -> Vec<&'static str> {
    let has = |k: &str| cx.val(k).is_some();
    let mut out = Vec::new();
    if has("telegram_bot_token") {
        out.push("telegram");
    }
    if has("discord_bot_token") {
        out.push("discord");
    }
    if has("slack_bot_token") && has("slack_app_token") {
        out.push("slack");
    }
    if has("whatsapp_user_id") {
        out.push("whatsapp");
    }
    out
}

fn security(cx: &mut Cx<'_, '_>, path: &DevPath) -> Result<()> {
    let mut yaml = cx.doc(path, Format::Yaml)?;
    if cx.owns_llm()
        && let Some(key) = cx.val("llm_api_key")
    {
        for entry in ["autonomous:0", "autonomous_vision:0"] {
            yaml.set(&["model_list", entry, "api_keys"], json!([key]))?;
        }
    }
    if cx.full() {
        yaml.set(&["channel_list", "pico", "settings", "token"], PICO_TOKEN)?;
        for ch in enabled_channels(cx) {
            let (mut settings, user) = match ch {
                "telegram" => (
                    json!({"token": cx.val("telegram_bot_token")}),
                    cx.val("telegram_user_id"),
                ),
                // picoclaw's discord channel takes no guild.
                "discord" => (
                    json!({"token": cx.val("discord_bot_token")}),
                    cx.val("discord_user_id"),
                ),
                "slack" => (
                    json!({"bot_token": cx.val("slack_bot_token"),
                           "app_token": cx.val("slack_app_token")}),
                    cx.val("slack_user_id"),
                ),
                _ => (json!({}), cx.val("whatsapp_user_id")),
            };
            if let Some(user) = user {
                settings["allow_from"] = json!([user]);
            }
            if settings.as_object().is_some_and(|m| !m.is_empty()) {
                yaml.merge(&["channel_list", ch, "settings"], settings)?;
            }
        }
    }
    cx.save_doc(yaml, Some(SECRET_MODE), "picoclaw secrets (config.json)")
}
