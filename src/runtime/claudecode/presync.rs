//! claudecode presync (docs/device-contract.md §2.5): the bridge `.env` (api-key or subscription
//! auth), Claude Code's headless flags and key pre-approval in `~/.claude.json`, MCP approval, the
//! channels folder Claude Code must not use, the profile.d snippet and the `claude-sessions`
//! picker, and the OS blocks of the user-level `~/.claude/CLAUDE.md` and the workspace SOUL.md.
//!
//! `llm_config_mode` (which upstream's claudecode presync ignores): `runtime` leaves every auth
//! and model variable alone; `os` always writes the OS key, base URL and model; legacy detects a
//! subscription (`claude_code_oauth_token`, or a non-empty `~/.claude/.credentials.json`).
//! docs/device-contract.md §10 item 11: Claude Code honours `enableAllProjectMcpServers` only at
//! user level, so it is written to `~/.claude/settings.json` (and, as upstream did, to the
//! workspace settings).

use crate::device::config::LlmMode;
use crate::error::Result;
use crate::format::Format;
use crate::format::mdblock::{self, OS_MARKER};
use crate::path::DevPath;
use crate::runtime::kit::blocks::{self, CLAUDE_MD, CLAUDE_NOTES_SEED};
use crate::runtime::kit::cx::{Cx, SECRET_MODE, fill};
use crate::runtime::kit::llm::{DEFAULT_BASE_URL_AI, DEFAULT_MODEL, without_v1};

/// API-key variables; they outrank an OAuth login, so subscription mode drops them.
const API_VARS: &[&str] = &[
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_AUTH_TOKEN",
];

const SESSIONS_PICKER: &str = include_str!("../../../embedded/presync/claude-sessions.sh");
/// Upstream's managed wrappers say so in their second line.
const MANAGED_MARK: &str = "Managed by os-server runtime presync";

enum Auth {
    /// `llm_config_mode = runtime`: the auth variables are the runtime's.
    Native,
    Subscription(Option<String>),
    ApiKey,
}

pub(super) fn plan(cx: &mut Cx<'_, '_>) -> Result<()> {
    let home = cx.path(cx.rt.home);
    let ws = cx.workspace();
    let claude = cx.home(".claude");
    let claude_json = cx.home(".claude.json");
    let skills = cx.path(cx.rt.skills.dir);
    let oauth = cx.val("claude_code_oauth_token");
    let auth = match cx.mode {
        LlmMode::Runtime => Auth::Native,
        LlmMode::Os => Auth::ApiKey,
        LlmMode::Legacy => {
            let credentials = cx
                .draft
                .read(&claude.join(".credentials.json"))?
                .is_some_and(|b| !b.is_empty());
            if oauth.is_some() || credentials {
                Auth::Subscription(oauth)
            } else {
                Auth::ApiKey
            }
        }
    };
    let key = cx.val("llm_api_key");

    if cx.full() {
        cx.mkdir(&skills, "Claude Code user skills")?;
        cx.mkdir(&ws.join(".claude"), "workspace settings folder")?;
        cx.mkdir(&ws.join("memory"), "daily memory folder")?;
    }

    // ~/.claude.json: headless first run, and the API key pre-approved for interactive claude.
    let mut state = cx.doc(&claude_json, Format::Json)?;
    // The approved and rejected entries are the last 20 characters of API keys: secrets too.
    for list in ["approved", "rejected"] {
        if let Some(serde_json::Value::Array(ids)) = state.get(&["customApiKeyResponses", list]) {
            ids.iter()
                .filter_map(serde_json::Value::as_str)
                .for_each(crate::redact::register);
        }
    }
    if cx.full() {
        state.set(&["hasCompletedOnboarding"], true)?;
        state.set(&["bypassPermissionsModeAccepted"], true)?;
    }
    if let (Auth::ApiKey, Some(key)) = (&auth, &key) {
        let id: String = {
            let chars: Vec<char> = key.chars().collect();
            chars[chars.len().saturating_sub(20)..].iter().collect()
        };
        crate::redact::register(&id);
        state.add_to_list(&["customApiKeyResponses", "approved"], &id)?;
        if let Some(serde_json::Value::Array(rejected)) =
            state.get(&["customApiKeyResponses", "rejected"])
            && rejected.iter().any(|v| v.as_str() == Some(&id))
        {
            let kept: Vec<_> = rejected
                .into_iter()
                .filter(|v| v.as_str() != Some(&id))
                .collect();
            state.set(&["customApiKeyResponses", "rejected"], kept)?;
        }
    }
    cx.save_doc(
        state,
        Some(SECRET_MODE),
        "Claude Code headless flags and key approval",
    )?;

    let mut env = cx.dotenv(&home.join(".env"))?;
    match &auth {
        Auth::Native => {}
        Auth::Subscription(token) => {
            for var in API_VARS {
                env.remove(var);
            }
            env.set_some("CLAUDE_CODE_OAUTH_TOKEN", token.as_deref())?;
        }
        Auth::ApiKey => {
            // x-api-key only: campaign-api refuses the bearer form, and claude prefers
            // ANTHROPIC_AUTH_TOKEN when both are set, so that one must stay unset.
            env.remove("ANTHROPIC_AUTH_TOKEN");
            env.remove("CLAUDE_CODE_OAUTH_TOKEN");
            let base = cx
                .val("llm_base_url")
                .map(|b| without_v1(&b))
                .or_else(|| env.get("ANTHROPIC_BASE_URL").filter(|v| !v.is_empty()))
                .unwrap_or_else(|| DEFAULT_BASE_URL_AI.to_string());
            let model = cx
                .val("llm_model")
                .or_else(|| env.get("ANTHROPIC_MODEL").filter(|v| !v.is_empty()))
                .unwrap_or_else(|| DEFAULT_MODEL.to_string());
            env.set("ANTHROPIC_BASE_URL", &base)?;
            env.set_some("ANTHROPIC_API_KEY", key.as_deref())?;
            env.set("ANTHROPIC_MODEL", &model)?;
            env.set("ANTHROPIC_SMALL_FAST_MODEL", &model)?;
        }
    }
    if cx.full() {
        env.set("DISABLE_AUTOUPDATER", "1")?;
        env.set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")?;
    }
    cx.save_env(env, "Claude Code bridge environment (config.json)")?;

    if !cx.full() {
        return Ok(());
    }
    for path in [
        claude.join("settings.json"),
        ws.join(".claude/settings.json"),
    ] {
        let mut settings = cx.doc(&path, Format::Json)?;
        settings.set(&["enableAllProjectMcpServers"], true)?;
        cx.save_doc(settings, None, "approve the workspace MCP servers")?;
    }
    // Channels are device-owned; Claude Code's own channel plugins must not run.
    let channels = claude.join("channels");
    if cx.exists(&channels)? {
        cx.remove(&channels, "channels are device-owned")?;
    }
    crate::runtime::kit::profile_snippet(cx)?;
    picker(cx)?;

    cx.seed(
        &ws.join("KNOWLEDGE.md"),
        blocks::KNOWLEDGE_SEED,
        "seed KNOWLEDGE.md",
    )?;
    // Every CLAUDE.md import must exist, or a fresh workspace has dangling imports.
    for name in ["IDENTITY.md", "USER.md", "MEMORY.md"] {
        cx.seed(
            &ws.join(name),
            "",
            "persona file the CLAUDE.md block imports",
        )?;
    }
    let soul = blocks::device_soul(cx)?;
    blocks::ensure_soul(cx, &ws.join("SOUL.md"), soul.as_deref())?;
    let connectors = blocks::connectors_dir(cx);
    let body = fill(
        CLAUDE_MD,
        &[
            ("WORKSPACE", ws.to_string().as_str()),
            ("SKILLS_DIR", skills.to_string().as_str()),
            ("CONNECTORS_DIR", connectors.as_str()),
        ],
    );
    // User level: Claude Code loads it in every session, whatever the folder.
    blocks::ensure_block(
        cx,
        &claude.join("CLAUDE.md"),
        &body,
        Some(CLAUDE_NOTES_SEED),
        true,
        "OS block (persona imports and rules)",
    )?;
    drop_workspace_block(cx, &ws.join("CLAUDE.md"))
}

/// `/usr/local/bin/claude-sessions`, and the legacy `cc` name removed when it is the managed
/// wrapper (never a real C compiler).
fn picker(cx: &mut Cx<'_, '_>) -> Result<()> {
    let bin = DevPath::new("/usr/local/bin");
    cx.write(
        &bin.join("claude-sessions"),
        SESSIONS_PICKER,
        Some(0o755),
        "claude coding-session picker",
    )?;
    let legacy = bin.join("cc");
    // A real `cc` is a large binary: only a small script can be the wrapper.
    let small = cx.draft.fs().stat(&legacy)?.is_some_and(|m| m.len < 4096);
    let managed = small
        && cx.draft.read(&legacy)?.is_some_and(|b| {
            let t = String::from_utf8_lossy(&b);
            t.contains(MANAGED_MARK) || t.contains("Managed by osctl presync")
        });
    if managed {
        cx.remove(&legacy, "legacy name of the session picker")?;
    }
    Ok(())
}

/// The OS block moved to user level: strip it from the workspace CLAUDE.md (remove the file
/// when nothing else is in it).
fn drop_workspace_block(cx: &mut Cx<'_, '_>, path: &DevPath) -> Result<()> {
    let Some(text) = cx.text(path)? else {
        return Ok(());
    };
    if mdblock::find_block(&text, OS_MARKER).is_none() {
        return Ok(());
    }
    let rest = mdblock::strip_block(&text, OS_MARKER);
    if rest.trim().is_empty() {
        cx.remove(path, "the OS block lives in ~/.claude/CLAUDE.md")
    } else {
        cx.write(
            path,
            format!("{}\n", rest.trim()),
            None,
            "the OS block lives in ~/.claude/CLAUDE.md",
        )
    }
}
