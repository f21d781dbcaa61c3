//! openclaw presync: the file work of its boot onboarding (docs/device-contract.md §2.1,
//! `EnsureOnboarding`; openclaw has no presync script upstream): the OS blocks of SOUL.md,
//! AGENTS.md and HEARTBEAT.md and the KNOWLEDGE.md seed; in `openclaw.json` the logging block, the
//! local gateway and its token, the `autonomous` provider, agent defaults, the Control UI origins,
//! the message queue, and the channels whose credentials config.json holds (with their
//! `plugins.entries.<ch>.enabled`).
//!
//! Differences from upstream, on purpose:
//! - the provider's model catalog is not fetched (presync never touches the network on the
//!   boot path): an existing `models` list is kept and the configured `llm_model` added to it,
//!   else upstream's fallback catalog is written;
//! - `compaction.reserveTokensFloor` and `gateway.controlUi.allowInsecureAuth` are removed, not
//!   written: openclaw 2026.9.6 rejects both ("Unrecognized key";
//!   docs/device-contract.md §10 item 11);
//! - `reasoning` is kept in step with `llm_disable_thinking` on the `autonomous` provider's
//!   models only (upstream touches every provider's);
//! - channel plugins (`@openclaw/slack`, `discord`, `whatsapp`) are not installed (that needs
//!   npm and the network; `osctl channel add` does it), and a plugin channel is written only
//!   once its plugin is set up (`plugins.entries.<ch>` exists): openclaw accepts the config
//!   without the plugin but then tries to fetch it at every start. telegram is built in.

use serde_json::{Value, json};

use crate::device::config::LlmMode;
use crate::error::Result;
use crate::format::Format;
use crate::runtime::kit::blocks::{self, OPENCLAW_AGENTS, OPENCLAW_HEARTBEAT_ENDING};
use crate::runtime::kit::cx::{Cx, DocEdit, SECRET_MODE, fill};
use crate::runtime::kit::llm::{DEFAULT_BASE_URL, is_autonomous_host};

const PROVIDER: &str = "autonomous";
/// upstream's catalog when it cannot ask the API (`defaultModels`).
const FALLBACK_MODELS: [&str; 2] = ["claude-opus-4-6", "claude-haiku-4-5"];
const GATEWAY_PORT: u64 = 18789;
/// A model the agent defaults always carry (upstream appends it after the catalog).
const EXTRA_AGENT_MODEL: &str = "openai-codex/gpt-5.5";

pub(super) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let dir = cx.openclaw_dir();
    let ws = cx.workspace();
    if cx.full() {
        cx.mkdir(&ws, "openclaw workspace")?;
        let soul = blocks::device_soul(cx)?;
        blocks::ensure_soul(cx, &ws.join("SOUL.md"), soul.as_deref())?;
        cx.seed(
            &ws.join("KNOWLEDGE.md"),
            blocks::KNOWLEDGE_SEED,
            "seed KNOWLEDGE.md",
        )?;
        let connectors = blocks::connectors_dir(cx);
        let agents = fill(OPENCLAW_AGENTS, &[("CONNECTORS_DIR", connectors.as_str())]);
        blocks::ensure_block(
            cx,
            &ws.join("AGENTS.md"),
            &agents,
            None,
            true,
            "OS rules block",
        )?;
        let heartbeat = blocks::heartbeat("skip this step", false, OPENCLAW_HEARTBEAT_ENDING);
        blocks::ensure_block(
            cx,
            &ws.join("HEARTBEAT.md"),
            &heartbeat,
            None,
            true,
            "OS heartbeat block",
        )?;
    }

    let config = dir.join("openclaw.json");
    let first_setup = !cx.exists(&config)?;
    let mut json = cx.doc(&config, Format::Json5)?;
    if cx.full() {
        if first_setup {
            setup_defaults(&mut json, &ws.to_string())?;
        }
        gateway(&mut json)?;
    }
    if cx.owns_llm() {
        provider(cx, &mut json)?;
    }
    agent_defaults(cx, &mut json, &ws.to_string())?;
    if cx.full() {
        messages(&mut json)?;
        channels(cx, &mut json)?;
    }
    cx.save_doc(json, Some(SECRET_MODE), "openclaw settings (config.json)")
}

/// What upstream's `SetupAgent` writes when it creates openclaw.json (docs/device-contract.md §2.1,
/// "Setup defaults"): full elevated exec without a sandbox or approvals (the device is the
/// sandbox), and the workspace skills folder, watched. Upstream rewrites them at every setup;
/// osctl writes them once, into a new openclaw.json, so an owner's later choice stays. The
/// image model is left out: upstream sets it only from the model API's `default_image_model`,
/// which presync, offline, does not have.
fn setup_defaults(json: &mut DocEdit, ws: &str) -> Result<()> {
    let d = ["agents", "defaults"];
    json.default(&[d[0], d[1], "elevatedDefault"], "full")?;
    json.default(&[d[0], d[1], "sandbox", "mode"], "off")?;
    json.default(&["tools", "profile"], "full")?;
    json.default(
        &["tools", "exec"],
        json!({"host": "gateway", "security": "full", "ask": "off"}),
    )?;
    json.default(&["tools", "elevated", "enabled"], true)?;
    json.default(
        &["skills", "load"],
        json!({"extraDirs": [format!("{ws}/skills")], "watch": true}),
    )?;
    Ok(())
}

fn gateway(json: &mut DocEdit) -> Result<()> {
    if json.get(&["logging"]).is_none() {
        json.set(
            &["logging"],
            json!({"consoleStyle": "pretty", "file": "/var/log/openclaw/agent.log",
                   "level": "debug", "consoleLevel": "debug"}),
        )?;
    }
    json.default(&["gateway", "mode"], "local")?;
    json.default(&["gateway", "bind"], "loopback")?;
    json.default(&["gateway", "port"], GATEWAY_PORT)?;
    json.default(&["gateway", "auth", "mode"], "token")?;
    if json.get_str(&["gateway", "auth", "token"]).is_none() {
        let token = new_token();
        crate::redact::register(&token);
        json.set(&["gateway", "auth", "token"], token)?;
    }
    // The Control UI handshake accepts loopback origins only.
    let strict = json!(["http://127.0.0.1", "http://localhost"]);
    match json.get(&["gateway", "controlUi", "allowedOrigins"]) {
        None => json.set(&["gateway", "controlUi", "allowedOrigins"], strict)?,
        Some(Value::Array(v)) if v == [json!("*")] => {
            json.set(&["gateway", "controlUi", "allowedOrigins"], strict)?
        }
        _ => {}
    }
    json.remove(&["gateway", "controlUi", "allowInsecureAuth"])
}

/// `models.providers.autonomous`: key and base URL from config.json (an empty field keeps the
/// value in place), the API style by host, the model list.
fn provider(cx: &mut Cx<'_, '_>, json: &mut DocEdit) -> Result<()> {
    let p = ["models", "providers", PROVIDER];
    let key = cx.val("llm_api_key");
    let exists = json.get(&p).is_some();
    if key.is_none() && !exists {
        return Ok(());
    }
    let base = cx
        .val("llm_base_url")
        .or_else(|| json.get_str(&[p[0], p[1], p[2], "baseUrl"]))
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
    let api = if is_autonomous_host(Some(&base)) {
        "anthropic-messages"
    } else {
        "openai-completions"
    };
    json.set(&["models", "mode"], "merge")?;
    json.set(&[p[0], p[1], p[2], "baseUrl"], base)?;
    json.set(&[p[0], p[1], p[2], "api"], api)?;
    if let Some(key) = key {
        json.set(&[p[0], p[1], p[2], "apiKey"], key)?;
    }
    let mut models = match json.get(&[p[0], p[1], p[2], "models"]) {
        Some(Value::Array(items)) if !items.is_empty() => items,
        _ => FALLBACK_MODELS.iter().map(|id| model_entry(id)).collect(),
    };
    if let Some(model) = cx.val("llm_model")
        && !models
            .iter()
            .any(|m| m.get("id").and_then(Value::as_str) == Some(&model))
    {
        models.push(model_entry(&model));
    }
    let reasoning = !thinking_disabled(cx);
    for m in &mut models {
        if let Some(obj) = m.as_object_mut() {
            obj.insert("reasoning".into(), reasoning.into());
        }
    }
    json.set(&[p[0], p[1], p[2], "models"], Value::Array(models))
}

fn model_entry(id: &str) -> Value {
    json!({"id": id, "name": id, "reasoning": true, "input": ["text", "image"],
           "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
           "contextWindow": 200000, "maxTokens": 8192})
}

fn thinking_disabled(cx: &Cx<'_, '_>) -> bool {
    cx.cfg.fields.get("llm_disable_thinking") == Some(&Value::Bool(true))
}

fn agent_defaults(cx: &mut Cx<'_, '_>, json: &mut DocEdit, ws: &str) -> Result<()> {
    let d = ["agents", "defaults"];
    // Also in the LLM carry-over: upstream's LLM write pins the workspace (docs/device-contract.md
    // §8.4).
    json.set(&[d[0], d[1], "workspace"], ws)?;
    if cx.full() {
        json.set(&[d[0], d[1], "compaction", "mode"], "safeguard")?;
        json.remove(&[d[0], d[1], "compaction", "reserveTokensFloor"])?;
        // Room for the device soul and the OS blocks (openclaw drops the middle of a longer file).
        json.set(&[d[0], d[1], "bootstrapMaxChars"], 24000)?;
        json.set(&[d[0], d[1], "bootstrapTotalMaxChars"], 48000)?;
        if cx.mode == LlmMode::Runtime {
            json.set(
                &[d[0], d[1], "heartbeat"],
                json!({"every": "0m", "target": "none", "isolatedSession": true}),
            )?;
        }
    }
    if !cx.owns_llm() {
        return Ok(());
    }
    json.set(&[d[0], d[1], "thinkingDefault"], "low")?;
    let mut keys: Vec<String> = match json.get(&["models", "providers", PROVIDER, "models"]) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|m| m.get("id").and_then(Value::as_str))
            .map(|id| format!("{PROVIDER}/{id}"))
            .collect(),
        _ => Vec::new(),
    };
    keys.push(EXTRA_AGENT_MODEL.to_string());
    for key in &keys {
        let params = [d[0], d[1], "models", key.as_str(), "params"];
        if key.contains("claude-") {
            json.set(
                &[
                    params[0],
                    params[1],
                    params[2],
                    params[3],
                    params[4],
                    "cacheRetention",
                ],
                "short",
            )?;
        }
        json.set(
            &[
                params[0], params[1], params[2], params[3], params[4], "fastMode",
            ],
            true,
        )?;
    }
    // The primary model: `os` always selects the OS model; legacy only when no other
    // provider's model was chosen.
    if let Some(model) = cx.val("llm_model") {
        let current = json
            .get(&[d[0], d[1], "model"])
            .and_then(|m| match m {
                Value::String(s) => Some(s),
                Value::Object(o) => o.get("primary").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
            .unwrap_or_default();
        let ours = current.is_empty() || current.starts_with(&format!("{PROVIDER}/"));
        if cx.mode == LlmMode::Os || ours {
            json.set(
                &[d[0], d[1], "model", "primary"],
                format!("{PROVIDER}/{model}"),
            )?;
        }
    }
    Ok(())
}

/// Concurrent producers batch into the active turn; the old `auto` reply prefix (it prints
/// `[main]` before replies) is dropped everywhere openclaw copied it.
fn messages(json: &mut DocEdit) -> Result<()> {
    json.set(&["messages", "queue", "mode"], "steer")?;
    if json.get_str(&["messages", "responsePrefix"]).as_deref() == Some("auto") {
        json.remove(&["messages", "responsePrefix"])?;
    }
    let channels: Vec<String> = match json.get(&["channels"]) {
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    };
    for ch in &channels {
        if json.get_str(&["channels", ch, "responsePrefix"]).as_deref() == Some("auto") {
            json.remove(&["channels", ch, "responsePrefix"])?;
        }
        let accounts: Vec<String> = match json.get(&["channels", ch, "accounts"]) {
            Some(Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        };
        for acc in &accounts {
            let path = ["channels", ch, "accounts", acc, "responsePrefix"];
            if json.get_str(&path).as_deref() == Some("auto") {
                json.remove(&path)?;
            }
        }
    }
    Ok(())
}

/// `channels.<ch>` for every channel with credentials in config.json (a plugin channel once its
/// plugin is set up, see [`plugin_set_up`]), as `AddChannel` writes it
/// (slack in socket mode with its app token, or HTTP mode with its signing secret: never
/// `llm_api_key` in its place, which upstream's `RefreshChannelConfig` forces), plus `plugins.entries.<ch>.enabled`.
fn channels(cx: &mut Cx<'_, '_>, json: &mut DocEdit) -> Result<()> {
    let mut done = Vec::new();
    if let Some(token) = cx.val("telegram_bot_token") {
        let c = ["channels", "telegram"];
        json.set(&[c[0], c[1], "enabled"], true)?;
        json.set(&[c[0], c[1], "botToken"], token)?;
        match cx.val("telegram_user_id") {
            Some(user) => {
                json.set(&[c[0], c[1], "dmPolicy"], "allowlist")?;
                json.add_to_list(&[c[0], c[1], "allowFrom"], &user)?;
            }
            None => {
                json.set(&[c[0], c[1], "dmPolicy"], "open")?;
                json.add_to_list(&[c[0], c[1], "allowFrom"], "*")?;
            }
        }
        done.push("telegram");
    }
    if let Some(token) = cx.val("discord_bot_token")
        && plugin_set_up(cx, json, "discord")
    {
        let c = ["channels", "discord"];
        let user = cx.val("discord_user_id").unwrap_or_default();
        json.set(&[c[0], c[1], "enabled"], true)?;
        json.set(&[c[0], c[1], "dmPolicy"], "allowlist")?;
        json.set(&[c[0], c[1], "token"], token)?;
        json.add_to_list(&[c[0], c[1], "allowFrom"], &user)?;
        if let Some(guild) = cx.val("discord_guild_id") {
            json.set(&[c[0], c[1], "groupPolicy"], "allowlist")?;
            json.set(
                &[c[0], c[1], "guilds"],
                json!({ guild: {"requireMention": false, "users": [user]} }),
            )?;
        }
        done.push("discord");
    }
    if let Some(token) = cx.val("slack_bot_token")
        && plugin_set_up(cx, json, "slack")
    {
        let c = ["channels", "slack"];
        json.set(&[c[0], c[1], "enabled"], true)?;
        json.set(&[c[0], c[1], "botToken"], token)?;
        json.set(
            &[c[0], c[1], "dm"],
            json!({"enabled": true, "groupEnabled": false}),
        )?;
        json.set(&[c[0], c[1], "groupPolicy"], "open")?;
        json.set(&[c[0], c[1], "ackReaction"], "eyes")?;
        json.set(&[c[0], c[1], "typingReaction"], "writing_hand")?;
        json.set(
            &[c[0], c[1], "streaming"],
            json!({"mode": "partial", "nativeTransport": true}),
        )?;
        json.set(&[c[0], c[1], "userTokenReadOnly"], true)?;
        json.set(
            &[c[0], c[1], "slashCommand"],
            json!({"enabled": true, "name": "openclaw", "sessionPrefix": "slack:slash",
                   "ephemeral": true}),
        )?;
        json.set(&[c[0], c[1], "commands"], json!({"native": true}))?;
        // The owner allow-list, as telegram: the owner's id when given, else open to all.
        match cx.val("slack_user_id") {
            Some(user) => {
                json.set(&[c[0], c[1], "dmPolicy"], "allowlist")?;
                json.add_to_list(&[c[0], c[1], "allowFrom"], &user)?;
            }
            None => {
                json.set(&[c[0], c[1], "dmPolicy"], "open")?;
                json.add_to_list(&[c[0], c[1], "allowFrom"], "*")?;
            }
        }
        // Socket mode with the app token; HTTP mode signed with the signing secret given,
        // never another secret in its place.
        let (mode, keep, drop): (&str, Vec<(&str, String)>, &[&str]) = match (
            cx.val("slack_app_token"),
            cx.val("slack_signing_secret"),
        ) {
            (Some(app), _) => (
                "socket",
                vec![("appToken", app)],
                &["signingSecret", "webhookPath"],
            ),
            (None, Some(secret)) => (
                "http",
                vec![
                    ("signingSecret", secret),
                    ("webhookPath", "/slack/events".into()),
                ],
                &["appToken"],
            ),
            (None, None) => {
                cx.warn("slack needs slack_app_token (socket mode) or slack_signing_secret (HTTP mode) in config.json");
                ("socket", Vec::new(), &["signingSecret", "webhookPath"])
            }
        };
        json.set(&[c[0], c[1], "mode"], mode)?;
        for (k, v) in keep {
            json.set(&[c[0], c[1], k], v)?;
        }
        for gone in drop
            .iter()
            .copied()
            .chain(["socketMode", "requireMention", "nativeStreaming"])
        {
            json.remove(&[c[0], c[1], gone])?;
        }
        done.push("slack");
    }
    if let Some(user) = cx.val("whatsapp_user_id")
        && plugin_set_up(cx, json, "whatsapp")
    {
        let c = ["channels", "whatsapp"];
        json.set(&[c[0], c[1], "enabled"], true)?;
        json.set(&[c[0], c[1], "dmPolicy"], "allowlist")?;
        json.add_to_list(&[c[0], c[1], "allowFrom"], &user)?;
        json.set(&[c[0], c[1], "groupPolicy"], "allowlist")?;
        json.add_to_list(&[c[0], c[1], "groupAllowFrom"], &user)?;
        let a = [c[0], c[1], "accounts", "default"];
        json.set(&[a[0], a[1], a[2], a[3], "enabled"], true)?;
        json.set(&[a[0], a[1], a[2], a[3], "dmPolicy"], "allowlist")?;
        json.add_to_list(&[a[0], a[1], a[2], a[3], "allowFrom"], &user)?;
        done.push("whatsapp");
    }
    let elevated = json.get(&["tools", "elevated"]).is_some();
    for ch in done {
        json.set(&["plugins", "entries", ch, "enabled"], true)?;
        if elevated {
            json.set(&["tools", "elevated", "allowFrom", ch], json!(["*"]))?;
        }
    }
    Ok(())
}

/// slack, discord and whatsapp are npm plugins (`@openclaw/<ch>`). A channel whose plugin is
/// missing makes openclaw try to fetch it on every start (minutes offline, measured with the
/// oracle), so presync refreshes such a channel only once it is set up: `plugins.entries.<ch>`
/// exists, which `osctl channel add` writes when it installs the plugin.
fn plugin_set_up(cx: &mut Cx<'_, '_>, json: &DocEdit, ch: &str) -> bool {
    if json.get(&["plugins", "entries", ch]).is_some() {
        return true;
    }
    cx.warn(format!(
        "{ch} credentials are in config.json but openclaw's @openclaw/{ch} plugin is not set up (no plugins.entries.{ch}): channels.{ch} is left as it is; `osctl channel add {ch}` installs the plugin"
    ));
    false
}

/// A new gateway token: 24 random bytes, hex. Debug builds with `OSCTL_TEST_NOW` set use a fixed
/// value, so golden cases are reproducible.
fn new_token() -> String {
    hex::encode(crate::system::random::bytes::<24>())
}
