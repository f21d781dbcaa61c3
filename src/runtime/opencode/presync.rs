//! opencode presync (docs/device-contract.md §2.6): `opencode.json` provider and model, the bridge
//! `.env`, the one-time migrate from openclaw, the profile.d snippet, and the OS blocks of the
//! workspace SOUL.md, AGENTS.md (with the persona inline block on top), HEARTBEAT.md and the global
//! `~/.config/opencode/AGENTS.md`.
//!
//! Upstream regenerates opencode.json keeping only `mcp` and ignores `llm_config_mode`; osctl
//! sets the keys it owns in place (everything else survives, comments included) and leaves the
//! provider, model and key alone in `runtime` mode.

use crate::error::Result;
use crate::format::Format;
use crate::runtime::kit::blocks;
use crate::runtime::kit::cx::Cx;
use crate::runtime::kit::llm::{DEFAULT_BASE_URL, DEFAULT_MODEL};

const WS_TOKEN: &str = "autonomous_opencode_token";
const PORT: &str = "18793";
const SCHEMA: &str = "https://opencode.ai/config.json";

/// opencode's own Scheduled-tasks rule (its AGENTS.md block has one; codex's has not).
const SCHEDULE: &str = "\n**Scheduled tasks (MANDATORY):** The owner's scheduled tasks (morning brief, reminders, custom tasks) are shown in the app and fired by the OS — they are NOT your own cron. ALWAYS use the `schedule` skill (`${SKILLS_DIR}/schedule/SKILL.md`) to answer ANY question about them — \"what's scheduled?\", \"how many tasks do I have?\", \"when does my morning brief run?\", \"why did it run at 8:03?\", \"did it run today?\" — and run its `list` command IN THIS TURN before you state a count, a time or a status. Never answer from memory, never count entries yourself, never explain a run time you have not read. Jobs you create with your own cron/scheduler tool do not appear in the app and are lost on a factory reset: say so when you create one, and never present the skill's list as a total of everything that will run.\n";

pub(super) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let home = cx.path(cx.rt.home);
    let ws = cx.workspace();
    let skills = cx.path(cx.rt.skills.dir);
    let xdg = cx.home(".config/opencode");
    if cx.full() {
        cx.mkdir(&ws, "opencode workspace")?;
        cx.mkdir(&home.join("attachments"), "opencode attachments")?;
        cx.mkdir(&xdg, "opencode config folder")?;
        crate::runtime::kit::migrate_once(cx, &skills)?;
    }

    let mut json = cx.doc(&xdg.join("opencode.json"), Format::Jsonc)?;
    if cx.full() {
        json.set(&["$schema"], SCHEMA)?;
    }
    if cx.owns_llm() {
        let current = json
            .get_str(&["model"])
            .and_then(|m| m.strip_prefix("campaign/").map(str::to_string));
        let model = cx
            .val("llm_model")
            .or(current)
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let base = cx
            .val("llm_base_url")
            .map(|b| b.trim_end_matches('/').to_string())
            .or_else(|| json.get_str(&["provider", "campaign", "options", "baseURL"]))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        json.set(&["model"], format!("campaign/{model}"))?;
        let p = ["provider", "campaign"];
        json.set(&[p[0], p[1], "npm"], "@ai-sdk/openai")?;
        json.set(&[p[0], p[1], "name"], "Autonomous campaign-api")?;
        json.set(&[p[0], p[1], "options", "baseURL"], base)?;
        // The key stays in .env; opencode substitutes it at load.
        json.set(&[p[0], p[1], "options", "apiKey"], "{env:LLM_API_KEY}")?;
        json.set(
            &[p[0], p[1], "models"],
            serde_json::json!({ model.as_str(): { "name": model } }),
        )?;
    }
    cx.save_doc(json, None, "opencode provider and model (config.json)")?;

    let mut env = cx.dotenv(&home.join(".env"))?;
    if cx.full() {
        env.set("OPENCODE_WS_TOKEN", WS_TOKEN)?;
        env.set("OPENCODE_PORT", PORT)?;
        env.set("OPENCODE_WORKSPACE", &ws.to_string())?;
    }
    if cx.owns_llm() {
        env.set_some("LLM_API_KEY", cx.val("llm_api_key").as_deref())?;
    }
    cx.save_env(env, "opencode bridge environment (config.json)")?;

    if !cx.full() {
        return Ok(());
    }
    crate::runtime::kit::profile_snippet(cx)?;
    // opencode loads ~/.config/opencode/AGENTS.md in every session, whatever the folder.
    let bridge = blocks::Bridge {
        cli: "opencode",
        brand: "OpenCode",
        mcp_list: "The `mcp` block in `opencode.json`",
        schedule: SCHEDULE,
        honorifics: true,
        user_agents: &xdg.join("AGENTS.md"),
    };
    blocks::bridge_onboarding(cx, &ws, &skills, &bridge)
}
