//! The kit a runtime's hooks are written with: the presync context ([`cx::Cx`]: the draft,
//! config.json read through it, the format-preserving edits), the OS blocks of the prompt files
//! ([`blocks`]), the OS's LLM defaults ([`llm`]) and the steps several runtimes share.
//!
//! It lives inside `runtime` because the hooks' signatures name it ([`super::Runtime::presync`]
//! takes a `Cx`): the presync orchestrator (`crate::presync`), which picks the runtime and calls
//! its hook, sits above the registry, and no runtime folder has to import a feature above it.

pub(crate) mod blocks;
pub(crate) mod cx;
pub(crate) mod llm;

use crate::error::Result;

use self::cx::Cx;

/// What a presync plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Everything: LLM wiring, gateway, channels, OS blocks, one-time steps.
    All,
    /// Only the LLM provider, model, base URL and key (the LLM carry-over, docs/device-contract.md
    /// §8.4).
    Llm,
}

/// The profile.d snippet that gives interactive shells the active bridge runtime's CLI
/// environment (written by the codex, claudecode and opencode presyncs).
pub(crate) fn profile_snippet(cx: &mut Cx<'_, '_>) -> Result<()> {
    let layout = &cx.device.layout;
    let text = include_str!("../../../embedded/presync/agent-cli-env.sh")
        .replace("@CONFIG_JSON@", &cx.device.env.config_json().to_string())
        .replace(
            "@CLAUDECODE_ENV@",
            &layout.agent_home.join(".claudecode/.env").to_string(),
        )
        .replace("@CODEX_ENV@", &layout.codex_home.join(".env").to_string())
        .replace("@CODEX_HOME@", &layout.codex_home.to_string())
        .replace(
            "@OPENCODE_ENV@",
            &layout.agent_home.join(".opencode/.env").to_string(),
        );
    let path = crate::path::DevPath::new("/etc/profile.d/agent-cli-env.sh");
    cx.write(
        &path,
        text,
        Some(0o644),
        "interactive shells load the runtime's CLI environment",
    )
}

/// codex's and opencode's one-time migrate from openclaw (docs/device-contract.md §2.4 step 2):
/// persona files are copied over, `memory/` and `skills/` only when the destination has none. The
/// copy is planned natively with the marker in the same plan, so the marker exists only once the
/// whole copy applied. (Upstream also stops openclaw first; osctl reads the files when it plans and
/// re-checks every destination when it writes.)
pub(crate) fn migrate_once(cx: &mut Cx<'_, '_>, skills_to: &crate::path::DevPath) -> Result<()> {
    let Some(marker) = cx.rt.migrate_marker.map(|m| cx.path(m)) else {
        return Ok(());
    };
    let from = cx.openclaw_dir().join("workspace");
    if cx.exists(&marker)? || !cx.is_dir(&from)? {
        return Ok(());
    }
    let ws = cx.workspace();
    let reason = "one-time migrate from openclaw";
    for name in [
        "IDENTITY.md",
        "SOUL.md",
        "KNOWLEDGE.md",
        "HEARTBEAT.md",
        "MEMORY.md",
        "USER.md",
        "AGENTS.md",
    ] {
        if let Some(bytes) = cx.draft.read(&from.join(name))? {
            let to = ws.join(name);
            // Upstream copies over whatever the workspace holds. A file there that the copy
            // would take lines from (the owner wrote a SOUL.md before this runtime's first
            // presync ran) is kept as a backup first: nothing a person wrote goes unsaved.
            if let Some(old) = cx.draft.read(&to)?
                && old != bytes
                && blocks::removes_owner_lines(
                    &String::from_utf8_lossy(&old),
                    &String::from_utf8_lossy(&bytes),
                    None,
                )
            {
                crate::persona::backup::plan_backup(
                    cx.draft,
                    &to,
                    &format!("back up {name}: the one-time migrate from openclaw replaces it"),
                )?;
            }
            cx.write(&to, bytes, None, reason)?;
        }
    }
    if cx.is_dir(&from.join("memory"))? && !cx.is_dir(&ws.join("memory"))? {
        cx.copy_tree(&from.join("memory"), &ws.join("memory"), reason)?;
    }
    if cx.is_dir(&from.join("skills"))? && !cx.is_dir(skills_to)? {
        cx.copy_tree(&from.join("skills"), skills_to, reason)?;
    }
    cx.write(&marker, "", None, "one-time migrate from openclaw done")
}
