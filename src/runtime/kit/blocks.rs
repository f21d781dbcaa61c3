//! The OS-managed Markdown blocks presync keeps at the top of a runtime's prompt files
//! (SOUL.md, AGENTS.md, HEARTBEAT.md, CLAUDE.md; docs/device-contract.md §5.6), and the device soul
//! from ROBOT.md `soul_ref` that the SOUL.md block carries.
//!
//! The block bodies are data files under `embedded/presync/blocks/` (their wording follows the
//! upstream device OS, so an agent reads the same rules whichever build wrote them). Blocks are
//! written with [`mdblock`]: exactly one block at the very top, the owner's text below kept. In
//! SOUL.md the text below the block is the owner's unless it is a stock default soul
//! ([`souls`]: the runtimes' own, shipped as data), and any edit that would still remove a line
//! the owner could have written backs the file up first ([`write_prompt`]).

use std::collections::HashMap;

use super::cx::{Cx, fill};
use crate::error::Result;
use crate::format::mdblock::{
    self, HERMES_SKILL_MARKER, OS_MARKER, PERSONA_INLINE_END, PERSONA_INLINE_START,
};
use crate::path::DevPath;
use crate::persona::{backup, souls};
use crate::runtime::RuntimeId;

/// Seeded below the soul block when SOUL.md has no owner text.
pub(crate) const PERSONAL_SEED: &str = "## Personal\n\n_Owner-editable. Add notes about yourself, family, routines, or personality tweaks here. The block above is managed by the OS and will be refreshed on each update — keep your edits in this section._\n";

/// Seeded below the block of claudecode's user-level CLAUDE.md when it has no owner text.
pub(crate) const CLAUDE_NOTES_SEED: &str = "## Notes\n\n_Owner-editable. Add device-specific notes or personality tweaks here. The block above is managed by the OS and refreshed on each update — keep your edits in this section._\n";

/// First words of the legacy hermes skill-priority block (which also used the generic marker).
pub(crate) const HERMES_SKILL_SENTINEL: &str = "**Skill priority (MANDATORY):**";

pub(crate) const OPENCLAW_AGENTS: &str =
    include_str!("../../../embedded/presync/blocks/openclaw-AGENTS.md");
pub(crate) const PICOCLAW_AGENTS: &str =
    include_str!("../../../embedded/presync/blocks/picoclaw-AGENTS.md");
pub(crate) const HERMES_AGENTS: &str =
    include_str!("../../../embedded/presync/blocks/hermes-AGENTS.md");
pub(crate) const BRIDGE_AGENTS: &str =
    include_str!("../../../embedded/presync/blocks/bridge-AGENTS.md");
pub(crate) const USER_AGENTS: &str =
    include_str!("../../../embedded/presync/blocks/USER-AGENTS.md");
pub(crate) const CLAUDE_MD: &str =
    include_str!("../../../embedded/presync/blocks/claudecode-CLAUDE.md");
pub(crate) const HEARTBEAT: &str = include_str!("../../../embedded/presync/blocks/HEARTBEAT.md");
pub(crate) const KNOWLEDGE_SEED: &str =
    include_str!("../../../embedded/presync/blocks/KNOWLEDGE.md");

/// The honorific rule some runtimes' people-sync carries (hermes, claudecode, opencode).
pub(crate) const HONORIFICS: &str = " A title or honorific heard in a voice turn (Mr, Ms, Miss, Mrs, anh, chị…) is not them telling you what to be called — speech recognition often invents one (\"…is Lee\" heard as \"Miss Lee\"): write the bare name, and never infer gender from a title, a name, a face or a voice. Keep a title only when they explicitly ask for it (\"call me Ms Lee\").";

/// openclaw's heartbeat must end with a reply, or it posts an error to the owner's chat.
pub(crate) const OPENCLAW_HEARTBEAT_ENDING: &str = "\n\n**Ending the heartbeat:** this pass is housekeeping, not a conversation. When it is done — including when there was nothing to do — reply with exactly `NO_REPLY` and nothing else. Never end with an empty reply: OpenClaw treats an empty heartbeat as a failure and posts \"Agent couldn't generate a response\" to the owner's chat.";

/// The HEARTBEAT.md block body: `skip` is what to do when nothing is missing.
pub(crate) fn heartbeat(skip: &str, honorifics: bool, ending: &str) -> String {
    fill(
        HEARTBEAT,
        &[
            ("SKIP", skip),
            ("HONORIFICS", if honorifics { HONORIFICS } else { "" }),
            ("ENDING", ending),
        ],
    )
}

/// Where the OS writes connector credentials (`<openclaw workspace>/configs`).
pub(crate) fn connectors_dir(cx: &Cx<'_, '_>) -> String {
    cx.openclaw_dir().join("workspace/configs").to_string()
}

/// The device soul: the text `soul_ref` names, trimmed. `None` (with a warning when something
/// is wrong) leaves SOUL.md's soul as it is: no profile or no `soul_ref`; an http(s) URL (never
/// fetched on the boot path: the block SOUL.md already has stays); a missing or empty file.
pub(crate) fn device_soul(cx: &mut Cx<'_, '_>) -> Result<Option<String>> {
    let robot = &cx.device.robot;
    let Some(reference) = robot.soul_ref.clone().filter(|r| !r.trim().is_empty()) else {
        return Ok(None);
    };
    let reference = reference.trim().to_string();
    if reference.starts_with("http://") || reference.starts_with("https://") {
        cx.warn(format!(
            "soul_ref {reference} is a URL; presync does not fetch on the boot path, so SOUL.md keeps the soul block it has"
        ));
        return Ok(None);
    }
    if reference.contains("://") {
        cx.warn(format!(
            "soul_ref {reference} is neither a path nor an http(s) URL; SOUL.md is left as it is"
        ));
        return Ok(None);
    }
    let Some(dir) = robot.dir() else {
        return Ok(None);
    };
    let path: DevPath = dir.join(reference.trim_start_matches('/'));
    match cx.text(&path)? {
        Some(text) if !text.trim().is_empty() => Ok(Some(text.trim().to_string())),
        Some(_) => {
            cx.warn(format!(
                "soul_ref {path} is empty; SOUL.md is left as it is"
            ));
            Ok(None)
        }
        None => {
            cx.warn(format!(
                "soul_ref {path} does not exist; SOUL.md is left as it is"
            ));
            Ok(None)
        }
    }
}

/// SOUL.md with the soul block on top, and the text discarded from below it. What stood below
/// the old block stays, but for a managed default it opens with (a runtime's stock soul, or a
/// copy of the device soul: [`souls::managed_default`]), which goes; a rest left empty gets
/// the `## Personal` seed.
///
/// Upstream discarded any rest that opened with `# Soul` or `# SOUL.md` (hermes: a few more
/// openings), keeping only a `## Personal` section, so the owner's own `# Soul` went at the next
/// boot without a copy. A default is recognised by its content here, and nothing else is
/// discarded.
pub(crate) fn upsert_soul(text: &str, soul: &str, rt: RuntimeId) -> (String, Option<String>) {
    let stripped = mdblock::strip_block(text, OS_MARKER);
    let mut rest: &str = &stripped;
    let mut discarded: Option<String> = None;
    // Defaults stacked on one another (a migration of a default onto one) all go in this run, so
    // the next finds nothing more to discard.
    while let Some(default) = souls::managed_default(rest, rt, Some(soul)) {
        let all = discarded.get_or_insert_with(String::new);
        all.push_str(default.text);
        all.push('\n');
        rest = default.rest;
    }
    if rest.trim().is_empty() {
        rest = PERSONAL_SEED;
    }
    (mdblock::upsert_top_block(rest, OS_MARKER, soul), discarded)
}

/// `text` with `body` as its one OS block at the top (`seed` below it when nothing else is).
pub(crate) fn upsert(text: &str, body: &str, seed: Option<&str>) -> String {
    let stripped = mdblock::strip_block(text, OS_MARKER);
    match seed {
        Some(seed) if stripped.trim().is_empty() => {
            mdblock::upsert_top_block(seed, OS_MARKER, body)
        }
        _ => mdblock::upsert_top_block(&stripped, OS_MARKER, body),
    }
}

/// hermes SOUL.md without the legacy skill-priority rules (its own marker, or the generic marker
/// around a body that opens with the sentinel); the rules live in `~/.hermes/AGENTS.md` now.
pub(crate) fn strip_hermes_rules(text: &str) -> String {
    let text = mdblock::strip_block(text, HERMES_SKILL_MARKER);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let content = |l: &str| l.trim_end_matches(['\n', '\r']).to_string();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        if content(lines[i]) == OS_MARKER {
            let end = (i + 1..lines.len()).find(|&j| content(lines[j]) == "---");
            let body: String = lines[i + 1..end.unwrap_or(lines.len())].concat();
            if body.trim_start().starts_with(HERMES_SKILL_SENTINEL) {
                i = end.map_or(lines.len(), |e| e + 1);
                while i < lines.len() && content(lines[i]).trim().is_empty() {
                    i += 1;
                }
                continue;
            }
        }
        out.push_str(lines[i]);
        i += 1;
    }
    out
}

/// Plans `path` to hold `new` when it differs from what it holds (`None`: absent).
pub(crate) fn write_md(
    cx: &mut Cx<'_, '_>,
    path: &DevPath,
    old: Option<&str>,
    new: &str,
    reason: &str,
) -> Result<()> {
    write_prompt(cx, path, old, new, reason, None)
}

/// [`write_md`], first backing the file up (`<file>.bak-<nanoseconds>`, its own mode) when the
/// edit removes a line a person could have written: any line outside the OS's own blocks that
/// the new text no longer holds, but for the lines of `discarded` (a managed default presync
/// recognised). A block whose `---` end line is missing runs to the end of the file and is
/// stripped whole (the marker promised osctl that text), so this is what keeps the owner's text
/// below a damaged block.
pub(crate) fn write_prompt(
    cx: &mut Cx<'_, '_>,
    path: &DevPath,
    old: Option<&str>,
    new: &str,
    reason: &str,
    discarded: Option<&str>,
) -> Result<()> {
    if old == Some(new) {
        return Ok(());
    }
    if let Some(old) = old
        && removes_owner_lines(old, new, discarded)
    {
        let name = path.file_name().unwrap_or_default();
        backup::plan_backup(
            cx.draft,
            path,
            &format!("back up {name}: presync removes text from it that is not the OS's"),
        )?;
    }
    cx.write(path, new.to_string(), None, reason)
}

/// A line as compared for [`removes_owner_lines`]: trimmed, runs of whitespace made one space.
fn norm(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The non-blank lines of `text` (normalised) with their counts; with `skip_os`, the lines of the
/// OS's complete blocks (marker through end line: the generic and hermes' legacy blocks, the
/// persona inline block) are left out.
fn line_counts(text: &str, skip_os: bool) -> HashMap<String, usize> {
    let lines: Vec<&str> = text.lines().collect();
    let mut counts = HashMap::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if skip_os {
            let end = match line {
                OS_MARKER | HERMES_SKILL_MARKER => Some("---"),
                PERSONA_INLINE_START => Some(PERSONA_INLINE_END),
                _ => None,
            };
            if let Some(end) = end
                && let Some(j) = (i + 1..lines.len()).find(|&j| lines[j] == end)
            {
                i = j + 1;
                continue;
            }
        }
        let n = norm(line);
        if !n.is_empty() {
            *counts.entry(n).or_insert(0) += 1;
        }
        i += 1;
    }
    counts
}

/// Whether going from `old` to `new` removes a line a person could have written (see
/// [`write_prompt`]).
pub(crate) fn removes_owner_lines(old: &str, new: &str, discarded: Option<&str>) -> bool {
    let mut owner = line_counts(old, true);
    for (line, n) in line_counts(discarded.unwrap_or(""), false) {
        if let Some(have) = owner.get_mut(&line) {
            *have = have.saturating_sub(n);
        }
    }
    let kept = line_counts(new, false);
    owner
        .iter()
        .any(|(line, &n)| n > kept.get(line).copied().unwrap_or(0))
}

/// Upserts the OS block of a prompt file. `create`: write the file when it does not exist.
pub(crate) fn ensure_block(
    cx: &mut Cx<'_, '_>,
    path: &DevPath,
    body: &str,
    seed: Option<&str>,
    create: bool,
    reason: &str,
) -> Result<()> {
    let old = cx.text(path)?;
    if old.is_none() && !create {
        return Ok(());
    }
    let new = upsert(old.as_deref().unwrap_or(""), body, seed);
    write_md(cx, path, old.as_deref(), &new, reason)
}

/// The soul block of a workspace SOUL.md (nothing when the device has no soul).
pub(crate) fn ensure_soul(cx: &mut Cx<'_, '_>, path: &DevPath, soul: Option<&str>) -> Result<()> {
    let Some(soul) = soul else {
        return Ok(());
    };
    let old = cx.text(path)?;
    let (new, discarded) = upsert_soul(old.as_deref().unwrap_or(""), soul, cx.rt.id);
    write_prompt(
        cx,
        path,
        old.as_deref(),
        &new,
        "device soul block (ROBOT.md soul_ref)",
        discarded.as_deref(),
    )
}

/// codex's and opencode's workspace AGENTS.md: the OS rules block, and above it the persona
/// inline block (docs/device-contract.md §5.6): they load only AGENTS.md, so the persona (SOUL.md
/// and the IDENTITY.md name, capped at 20,000 bytes) lives there between its own markers. Both
/// blocks are taken out of the owner's text and put back together, so a second run gives the same
/// text. The soul's own OS block is inlined as its body (without its marker lines), so the file
/// holds one generic marker only.
pub(crate) fn ensure_agents_with_persona(
    cx: &mut Cx<'_, '_>,
    ws: &DevPath,
    rules: &str,
    brand: &str,
) -> Result<()> {
    let path = ws.join("AGENTS.md");
    let old = cx.text(&path)?;
    let rest = mdblock::strip_delimited(
        &mdblock::strip_block(old.as_deref().unwrap_or(""), OS_MARKER),
        PERSONA_INLINE_START,
        PERSONA_INLINE_END,
    );
    let mut new = mdblock::upsert_top_block(&rest, OS_MARKER, rules);
    if let Some(soul) = cx.text(&ws.join("SOUL.md"))? {
        let name = cx
            .text(&ws.join("IDENTITY.md"))?
            .and_then(|t| identity_name(&t));
        let body = persona_inline_body(&soul, name.as_deref(), brand);
        new = mdblock::upsert_top_delimited(&new, PERSONA_INLINE_START, PERSONA_INLINE_END, &body);
    }
    write_md(
        cx,
        &path,
        old.as_deref(),
        &new,
        "OS rules and persona inline blocks",
    )
}

/// The persona inline block's body.
pub(crate) fn persona_inline_body(soul: &str, name: Option<&str>, brand: &str) -> String {
    const CAP: usize = 20_000;
    let soul = unwrap_os_block(soul);
    let mut soul = soul.trim().to_string();
    if soul.len() > CAP {
        let mut cut = CAP;
        while !soul.is_char_boundary(cut) {
            cut -= 1;
        }
        soul.truncate(cut);
        soul.push_str("\n\n_(persona truncated at 20000 bytes — the full text lives in SOUL.md)_");
    }
    let mut body = format!(
        "# Who you are (MANDATORY)\n\nEmbody this persona in EVERY reply, on every channel. This is your identity — never introduce yourself as \"{brand}\".\n"
    );
    if let Some(name) = name {
        body.push_str(&format!("\nYour name is **{name}**.\n"));
    }
    body.push('\n');
    body.push_str(&soul);
    body
}

/// SOUL.md with its OS block's marker and end lines dropped (the body kept in place).
fn unwrap_os_block(soul: &str) -> String {
    let Some(range) = mdblock::find_block(soul, OS_MARKER) else {
        return soul.to_string();
    };
    let block = &soul[range.clone()];
    let body: Vec<&str> = block
        .lines()
        .skip(1)
        .take_while(|l| l.trim_end() != "---")
        .collect();
    format!(
        "{}{}\n{}",
        &soul[..range.start],
        body.join("\n"),
        &soul[range.end..]
    )
}

/// The `**Name:**` of an IDENTITY.md (an unfilled `_(…)_` placeholder is no name).
pub(crate) fn identity_name(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let lower = line.to_ascii_lowercase();
        let at = lower.find("**name:**")?;
        let value = line[at + "**name:**".len()..].trim();
        (!value.is_empty() && !value.starts_with("_(") && !value.starts_with("*("))
            .then(|| value.to_string())
    })
}

/// What differs between the bridge runtimes' OS blocks (codex, opencode): the rest of their boot
/// onboarding is one piece, [`bridge_onboarding`].
pub(crate) struct Bridge<'a> {
    /// The CLI's command name and product name, as the blocks tell the agent.
    pub cli: &'a str,
    pub brand: &'a str,
    /// Where the runtime lists its MCP servers, for the AGENTS.md block.
    pub mcp_list: &'a str,
    /// The scheduled-tasks rule (a template with `${SKILLS_DIR}`), empty when the runtime has none.
    pub schedule: &'a str,
    /// Whether the heartbeat block carries the honorifics rule.
    pub honorifics: bool,
    /// The AGENTS.md the CLI loads in every session, whatever the folder.
    pub user_agents: &'a DevPath,
}

/// The bridge runtimes' boot onboarding: KNOWLEDGE.md seed, SOUL.md block, workspace AGENTS.md
/// (device block and persona inline), HEARTBEAT.md block and the CLI's session-wide AGENTS.md.
pub(crate) fn bridge_onboarding(
    cx: &mut Cx<'_, '_>,
    ws: &DevPath,
    skills: &DevPath,
    b: &Bridge<'_>,
) -> Result<()> {
    let skills_dir = skills.to_string();
    let connectors = connectors_dir(cx);
    let schedule = fill(b.schedule, &[("SKILLS_DIR", skills_dir.as_str())]);
    let vars = [
        ("SKILLS_DIR", skills_dir.as_str()),
        ("CONNECTORS_DIR", connectors.as_str()),
        ("CLI", b.cli),
        ("BRAND", b.brand),
        ("SCHEDULE", schedule.as_str()),
        ("MCP_LIST", b.mcp_list),
    ];
    cx.seed(
        &ws.join("KNOWLEDGE.md"),
        KNOWLEDGE_SEED,
        "seed KNOWLEDGE.md",
    )?;
    let soul = device_soul(cx)?;
    ensure_soul(cx, &ws.join("SOUL.md"), soul.as_deref())?;
    let agents = fill(BRIDGE_AGENTS, &vars);
    ensure_agents_with_persona(cx, ws, &agents, b.brand)?;
    let heartbeat = heartbeat("skip silently", b.honorifics, "");
    ensure_block(
        cx,
        &ws.join("HEARTBEAT.md"),
        &heartbeat,
        None,
        true,
        "OS heartbeat block",
    )?;
    let user = fill(USER_AGENTS, &vars);
    ensure_block(cx, b.user_agents, &user, None, true, "OS device block")
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    const SOUL: &str = "You are a lamp.";

    fn upsert(text: &str, rt: RuntimeId) -> String {
        upsert_soul(text, SOUL, rt).0
    }

    #[test]
    fn a_stock_default_is_discarded_and_the_owners_text_below_it_kept() {
        let openclaw = include_str!("../../../embedded/souls/openclaw-2026.9.6.md");
        let with_personal = format!("{openclaw}\n## Personal\n\nI like tea.\n");
        let (out, discarded) = upsert_soul(&with_personal, SOUL, RuntimeId::Openclaw);
        assert_eq!(
            out,
            "<!-- OS DO NOT REMOVE -->\nYou are a lamp.\n---\n\n## Personal\n\nI like tea.\n"
        );
        assert_eq!(discarded.as_deref().map(str::trim), Some(openclaw.trim()));
        assert!(!removes_owner_lines(
            &with_personal,
            &out,
            discarded.as_deref()
        ));
        // hermes' own default, and openclaw's carried into hermes, alike
        let hermes = include_str!("../../../embedded/souls/hermes-0.19.0.md");
        for (text, rt) in [(hermes, RuntimeId::Hermes), (openclaw, RuntimeId::Hermes)] {
            assert_eq!(
                upsert(text, rt),
                format!("<!-- OS DO NOT REMOVE -->\nYou are a lamp.\n---\n\n{PERSONAL_SEED}")
            );
        }
        // defaults stacked on one another all go at once
        let stacked = format!("{hermes}\n\n{openclaw}\n## Personal\n\nTea.\n");
        let once = upsert(&stacked, RuntimeId::Hermes);
        assert!(once.ends_with("---\n\n## Personal\n\nTea.\n"), "{once}");
        assert_eq!(upsert(&once, RuntimeId::Hermes), once);
        // a copy of the device soul below its own block is the legacy self-seed
        assert_eq!(
            upsert("You are a lamp.\n", RuntimeId::Picoclaw),
            format!("<!-- OS DO NOT REMOVE -->\nYou are a lamp.\n---\n\n{PERSONAL_SEED}")
        );
    }

    #[test]
    fn regression_presync_discarded_owner_soul() {
        // upstream's heading test took these for defaults: every one is the owner's
        for (owner, rt) in [
            (
                "# Soul\n\nYou are Lumi, a friendly lamp.\n",
                RuntimeId::Openclaw,
            ),
            (
                "# Soul\n\nYou are Lumi, a friendly lamp.\n",
                RuntimeId::Hermes,
            ),
            (
                "# SOUL.md - Who You Are\n\nYou are Lumi.\n",
                RuntimeId::Codex,
            ),
            (
                "You are Hermes Agent, built by Nous Research. Call me Lumi.\n",
                RuntimeId::Hermes,
            ),
            (
                "# Hermes Agent Persona\n\nYou are Lumi.\n",
                RuntimeId::Hermes,
            ),
        ] {
            let (out, discarded) = upsert_soul(owner, SOUL, rt);
            assert_eq!(discarded, None, "{owner:?}");
            assert!(out.ends_with(owner), "{owner:?} in {rt}: {out}");
            assert_eq!(upsert(&out, rt), out);
        }
    }

    #[test]
    fn owner_lines_outside_the_os_blocks_count() {
        let block = "<!-- OS DO NOT REMOVE -->\nold soul\n---\n\nMine.\n";
        // refreshing the OS's block removes nothing of the owner's
        assert!(!removes_owner_lines(
            block,
            "<!-- OS DO NOT REMOVE -->\nnew\n---\n\nMine.\n",
            None
        ));
        // a block without its end line runs to the end: stripping it drops the owner's text
        let broken = "<!-- OS DO NOT REMOVE -->\nold soul\n\nMine.\n";
        assert!(removes_owner_lines(
            broken,
            "<!-- OS DO NOT REMOVE -->\nnew\n---\n",
            None
        ));
        assert!(!removes_owner_lines("  Mine.  \n", "Mine.\n", None));
        assert!(removes_owner_lines("Mine.\nMine.\n", "Mine.\n", None));
    }

    #[test]
    fn owner_text_stays_and_the_block_moves_to_the_top() {
        let text = "My notes.\n\n<!-- OS DO NOT REMOVE -->\nold soul\n---\n\nMore notes.\n";
        let out = upsert(text, RuntimeId::Openclaw);
        assert_eq!(
            out,
            "<!-- OS DO NOT REMOVE -->\nYou are a lamp.\n---\n\nMy notes.\n\nMore notes.\n"
        );
        assert_eq!(upsert(&out, RuntimeId::Openclaw), out);
    }

    #[test]
    fn hermes_rule_blocks_are_stripped_and_the_persona_kept() {
        let text = "<!-- OS DO NOT REMOVE -->\npersona\n---\n\n<!-- OS DO NOT REMOVE -->\n**Skill priority (MANDATORY):** rules\n---\n\n<!-- OS HERMES SKILL PRIORITY -->\nold rules\n---\nOwner.\n";
        assert_eq!(
            strip_hermes_rules(text),
            "<!-- OS DO NOT REMOVE -->\npersona\n---\n\nOwner.\n"
        );
        assert_eq!(strip_hermes_rules("plain\n"), "plain\n");
    }

    #[test]
    fn the_persona_inline_body_carries_soul_and_name() {
        let soul = "<!-- OS DO NOT REMOVE -->\nYou are a lamp.\n---\n\n## Personal\n\nTea.\n";
        let body = persona_inline_body(soul, Some("Lumi"), "Codex");
        assert_eq!(
            body,
            "# Who you are (MANDATORY)\n\nEmbody this persona in EVERY reply, on every channel. This is your identity — never introduce yourself as \"Codex\".\n\nYour name is **Lumi**.\n\nYou are a lamp.\n\n## Personal\n\nTea."
        );
        assert!(!body.contains(OS_MARKER));
        let long = "é".repeat(15_000);
        assert!(persona_inline_body(&long, None, "OpenCode").contains("truncated at 20000 bytes"));
        assert_eq!(identity_name("- **Name:** Lumi\n"), Some("Lumi".into()));
        assert_eq!(identity_name("- **Name:** _(pick one)_\n"), None);
        assert_eq!(identity_name("- **Vibe:** warm\n"), None);
    }

    #[test]
    fn blocks_fill_their_placeholders() {
        let hb = heartbeat("skip this step", false, OPENCLAW_HEARTBEAT_ENDING);
        assert!(hb.contains("Nothing missing → skip this step."));
        assert!(hb.trim_end().ends_with("to the owner's chat."));
        assert!(!hb.contains("${"));
        let hb = heartbeat("skip silently", true, "");
        assert!(hb.contains("(\"call me Ms Lee\"). If they have not said"));
        for body in [
            OPENCLAW_AGENTS,
            PICOCLAW_AGENTS,
            HERMES_AGENTS,
            BRIDGE_AGENTS,
            CLAUDE_MD,
        ] {
            assert!(
                !body.lines().any(|l| l.trim() == "---"),
                "a block body must not hold its end line"
            );
        }
    }
}
