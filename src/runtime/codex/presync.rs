//! codex presync (docs/device-contract.md §2.4): `config.toml` LLM wiring (api-key or subscription
//! mode), `.env` for the bridge, the one-time migrate from openclaw, the profile.d snippet, and the
//! OS blocks of the workspace AGENTS.md (with the persona inline block on top), SOUL.md,
//! HEARTBEAT.md and the global `$CODEX_HOME/AGENTS.md`.
//!
//! Unlike upstream, which regenerates the head of config.toml, osctl sets the keys it owns in
//! place: `[mcp_servers.*]` tables, comments and every other key stay where they are.

use crate::device::config::LlmMode;
use crate::error::Result;
use crate::format::Format;
use crate::runtime::kit::blocks;
use crate::runtime::kit::cx::Cx;
use crate::runtime::kit::llm::{DEFAULT_BASE_URL, DEFAULT_MODEL, with_v1};

/// Must match the bridge's token (docs/device-contract.md §2.7).
const WS_TOKEN: &str = "autonomous_codex_token";
const PORT: &str = "18792";

pub(super) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let home = cx.path(cx.rt.home);
    let ws = cx.workspace();
    let skills = cx.path(cx.rt.skills.dir);
    if cx.full() {
        cx.mkdir(&ws, "codex workspace")?;
        cx.mkdir(&home.join("attachments"), "codex attachments")?;
        crate::runtime::kit::migrate_once(cx, &skills)?;
    }
    // ChatGPT subscription: codex's built-in provider, no OPENAI_API_KEY (it would conflict).
    let subscription = match cx.mode {
        LlmMode::Runtime => true,
        LlmMode::Os => false,
        LlmMode::Legacy => cx.exists(&home.join("auth.json"))?,
    };

    if cx.owns_llm() {
        let mut toml = cx.doc(&home.join("config.toml"), Format::Toml)?;
        toml.set(&["approval_policy"], "never")?;
        toml.set(&["sandbox_mode"], "danger-full-access")?;
        let ours = toml.get_str(&["model_provider"]).as_deref() == Some("autonomous");
        if subscription {
            if ours {
                toml.remove(&["model_provider"])?;
                toml.remove(&["model"])?;
            }
            toml.remove(&["model_providers", "autonomous"])?;
        } else {
            let model = cx
                .val("llm_model")
                .or_else(|| ours.then(|| toml.get_str(&["model"])).flatten())
                .unwrap_or_else(|| DEFAULT_MODEL.to_string());
            // codex speaks the Responses API and appends /responses: the base needs /v1.
            let base = cx
                .val("llm_base_url")
                .map(|b| with_v1(&b))
                .or_else(|| toml.get_str(&["model_providers", "autonomous", "base_url"]))
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
            toml.set(&["model"], model)?;
            toml.set(&["model_provider"], "autonomous")?;
            let p = ["model_providers", "autonomous"];
            toml.set(&[p[0], p[1], "name"], "Autonomous campaign-api")?;
            toml.set(&[p[0], p[1], "base_url"], base)?;
            toml.set(&[p[0], p[1], "env_key"], "OPENAI_API_KEY")?;
            toml.set(&[p[0], p[1], "wire_api"], "responses")?;
        }
        cx.save_doc(toml, None, "codex LLM provider and model (config.json)")?;
    }

    let mut env = cx.dotenv(&home.join(".env"))?;
    if cx.full() {
        env.set("CODEX_WS_TOKEN", WS_TOKEN)?;
        env.set("CODEX_PORT", PORT)?;
        env.set("CODEX_APP_SERVER", "1")?;
        env.set("CODEX_HOME", &home.to_string())?;
        env.set("CODEX_WORKSPACE", &ws.to_string())?;
    }
    match (cx.owns_llm(), subscription) {
        (false, _) => {}
        (true, true) => env.remove("OPENAI_API_KEY"),
        (true, false) => env.set_some("OPENAI_API_KEY", cx.val("llm_api_key").as_deref())?,
    }
    cx.save_env(env, "codex bridge environment (config.json)")?;

    if !cx.full() {
        return Ok(());
    }
    crate::runtime::kit::profile_snippet(cx)?;
    // codex loads $CODEX_HOME/AGENTS.md in every session, whatever the folder.
    let bridge = blocks::Bridge {
        cli: "codex",
        brand: "Codex",
        mcp_list: "`config.toml`/`mcp_servers`",
        schedule: "",
        honorifics: false,
        user_agents: &home.join("AGENTS.md"),
    };
    blocks::bridge_onboarding(cx, &ws, &skills, &bridge)
}
