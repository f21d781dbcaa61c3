//! picoclaw: the autonomous-ai fork of PicoClaw (docs/device-contract.md §2.3).
//!
//! openclaw persona layout, except that MEMORY.md lives in `memory/` beside the daily files.
//! Its own skills are never pruned; everything else unsupported is.

mod channel;
mod llm;
mod persona;
pub(super) mod presync;

use super::{
    Brand, Channel, Embedded, EntryFormat, Format, Loc, McpContainer, McpStyle, NativeFile, Owner,
    Persona, PruneRule, RebrandFrom, ResetCommand, ResetSpec, ResetStep, Runtime, RuntimeId,
    Skills, Verify,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Picoclaw,
    name: "picoclaw",
    aliases: &[],
    brand: "PicoClaw",
    brands: &[Brand::PicoClaw],
    rebrand_from: RebrandFrom::Others,
    persona_adapter: Some(persona::ADAPTER),
    presync: presync::plan,
    llm_source: llm::source,
    // It runs only telegram, through the device's loop (its AddChannel is a no-op).
    mcp_refuses: None,
    channel_owner: Owner::Device,
    channel_plugins: None,
    slack_signing_secret: false,
    remove_channel: Some(channel::remove_channel),
    unit: "picoclaw",
    home: Loc::home(".picoclaw"),
    workspace: Loc::home(".picoclaw/workspace"),
    persona: Persona {
        soul: Loc::home(".picoclaw/workspace/SOUL.md"),
        identity: Some(Loc::home(".picoclaw/workspace/IDENTITY.md")),
        memory: Loc::home(".picoclaw/workspace/memory/MEMORY.md"),
        user: Loc::home(".picoclaw/workspace/USER.md"),
        knowledge: Some(Loc::home(".picoclaw/workspace/KNOWLEDGE.md")),
        daily_dir: Some(Loc::home(".picoclaw/workspace/memory")),
        format: EntryFormat::Bullets,
        wipe: &[
            Loc::home(".picoclaw/workspace/SOUL.md"),
            Loc::home(".picoclaw/workspace/IDENTITY.md"),
            Loc::home(".picoclaw/workspace/USER.md"),
            Loc::home(".picoclaw/workspace/KNOWLEDGE.md"),
            Loc::home(".picoclaw/workspace/memory"),
        ],
    },
    skills: Skills {
        dir: Loc::home(".picoclaw/workspace/skills"),
        prompt_prefix: Some("skills"),
        builtins: &[
            "agent-browser",
            "github",
            "hardware",
            "skill-creator",
            "summarize",
            "tmux",
            "weather",
        ],
        prune: PruneRule::AllButBuiltins,
        hooks: false,
    },
    native: &[
        NativeFile {
            role: "config",
            loc: Loc::home(".picoclaw/config.json"),
            format: Format::Json,
            secret: false,
        },
        NativeFile {
            role: "secrets",
            loc: Loc::home(".picoclaw/.security.yml"),
            format: Format::Yaml,
            secret: true,
        },
    ],
    mcp: McpContainer {
        file: Loc::home(".picoclaw/config.json"),
        format: Format::Json,
        path: &["tools", "mcp", "servers"],
        style: McpStyle::KeepTypeEnabled,
        holds_disabled: true,
    },
    channels: &[Channel::Telegram],
    verify: Verify {
        on_path: &["picoclaw"],
        executables: &[],
    },
    install_log: Some(Loc::home(".picoclaw/install.log")),
    migrate_marker: Some(Loc::home(".picoclaw/.openclaw-migrated")),
    embedded: Embedded {
        installer: Some(include_str!("../../../embedded/picoclaw/install.sh")),
        verify: Some(include_str!("../../../embedded/picoclaw/verify")),
        ready: Some(include_str!("../../../embedded/picoclaw/ready")),
        unit_file: Some(include_str!("../../../embedded/picoclaw/picoclaw.service")),
        installer_env: &["PICO_REPO", "PICO_VERSION"],
    },
    // docs/device-contract.md §9 item 1: upstream's code (not the guide's "no-op") wipes the whole
    // tree, which also clears the migrate marker, and re-onboards.
    reset: ResetSpec {
        steps: &[
            ResetStep::StopUnit,
            ResetStep::DisableUnit,
            ResetStep::Remove(Loc::home(".picoclaw")),
            ResetStep::Run(ResetCommand {
                program: "picoclaw",
                args: &["onboard"],
                env: &[("HOME", "/root")],
                timeout_secs: 120,
                optional: true,
                label: "picoclaw writes a fresh config.json and workspace",
            }),
        ],
        keep: &[],
        inline_persona: &[],
        owner: &[],
    },
};

/// The patterns that name picoclaw in persona text, named as the brand is written (the way
/// upstream names its `rebrandTo` patterns).
#[allow(non_upper_case_globals)]
impl Brand {
    pub const PicoClaw: Brand = Brand::words("pico", "claw");
}
