//! hermes: NousResearch Hermes Agent (docs/device-contract.md §2.2).
//!
//! The one runtime without the openclaw persona layout: SOUL.md at its home carries the identity
//! as an inline card, and knowledge and daily notes fold into `memories/MEMORY.md`.

mod channel;
mod llm;
mod persona;
mod presync;

use super::{
    Brand, Channel, Embedded, EntryFormat, Format, Loc, McpContainer, McpStyle, NativeFile, Owner,
    Persona, PruneRule, RebrandFrom, ResetCommand, ResetSpec, ResetStep, Runtime, RuntimeId,
    Skills, Verify,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Hermes,
    name: "hermes",
    aliases: &[],
    brand: "Hermes",
    brands: &[Brand::Hermes],
    rebrand_from: RebrandFrom::Others,
    persona_adapter: Some(persona::ADAPTER),
    presync: presync::plan,
    llm_source: llm::source,
    mcp_refuses: None,
    channel_owner: Owner::Runtime,
    channel_plugins: None,
    slack_signing_secret: false,
    remove_channel: Some(channel::remove_channel),
    unit: "hermes-gateway",
    home: Loc::home(".hermes"),
    workspace: Loc::home(".hermes"),
    persona: Persona {
        soul: Loc::home(".hermes/SOUL.md"),
        identity: None,
        memory: Loc::home(".hermes/memories/MEMORY.md"),
        user: Loc::home(".hermes/memories/USER.md"),
        knowledge: None,
        daily_dir: None,
        format: EntryFormat::Sections,
        wipe: &[Loc::home(".hermes/SOUL.md"), Loc::home(".hermes/memories")],
    },
    skills: Skills {
        dir: Loc::home(".hermes/skills/openclaw-imports"),
        prompt_prefix: Some("skills/openclaw-imports"),
        builtins: &[],
        prune: PruneRule::CatalogOnly,
        hooks: false,
    },
    native: &[
        NativeFile {
            role: "config",
            loc: Loc::home(".hermes/config.yaml"),
            format: Format::Yaml,
            secret: false,
        },
        NativeFile {
            role: "env",
            loc: Loc::home(".hermes/.env"),
            format: Format::DotEnv,
            secret: true,
        },
    ],
    mcp: McpContainer {
        file: Loc::home(".hermes/config.yaml"),
        format: Format::Yaml,
        path: &["mcp_servers"],
        style: McpStyle::DropTypeEnabled,
        holds_disabled: true,
    },
    channels: &[
        Channel::Telegram,
        Channel::Slack,
        Channel::Discord,
        Channel::Imessage,
    ],
    verify: Verify {
        on_path: &["hermes"],
        executables: &[],
    },
    install_log: Some(Loc::home(".hermes/install.log")),
    migrate_marker: None,
    embedded: Embedded {
        installer: Some(include_str!("../../../embedded/hermes/install.sh")),
        verify: Some(include_str!("../../../embedded/hermes/verify")),
        ready: Some(include_str!("../../../embedded/hermes/ready")),
        unit_file: None,
        installer_env: &["HERMES_INSTALLER_URL", "STEP_TIMEOUT"],
    },
    // Upstream's step 6 rewrites SOUL.md with the device soul, and the persona sweep that follows
    // removes it again; osctl plans only the net effect (SOUL.md gone; onboarding re-seeds it).
    reset: ResetSpec {
        steps: &[
            ResetStep::Run(ResetCommand {
                program: "hermes",
                args: &["gateway", "stop"],
                env: &[("HOME", "/root")],
                timeout_secs: 30,
                optional: true,
                label: "hermes stops its gateway",
            }),
            ResetStep::StopUnit,
            ResetStep::Run(ResetCommand {
                program: "hermes",
                args: &["setup", "--reset", "--non-interactive"],
                env: &[("HOME", "/root")],
                timeout_secs: 120,
                optional: true,
                label: "hermes's own reset of its setup",
            }),
            ResetStep::DisableUnit,
            ResetStep::Remove(Loc::home(".hermes/sessions")),
            ResetStep::Remove(Loc::home(".hermes/memories")),
            ResetStep::Remove(Loc::home(".hermes/tasks")),
            ResetStep::Remove(Loc::home(".hermes/subagents")),
            ResetStep::Remove(Loc::home(".hermes/checkpoints")),
            ResetStep::Remove(Loc::home(".hermes/logs")),
            ResetStep::Remove(Loc::home(".hermes/.cache")),
            ResetStep::Remove(Loc::home(".hermes/cron")),
            ResetStep::Remove(Loc::home(".hermes/cache")),
            ResetStep::Remove(Loc::home(".hermes/gateway")),
            ResetStep::Remove(Loc::home(".hermes/migration")),
            ResetStep::Remove(Loc::home(".hermes/skills/openclaw-imports")),
            ResetStep::Remove(Loc::home(".hermes/skills/audio_cache")),
            ResetStep::Remove(Loc::home(".hermes/skills/image_cache")),
            ResetStep::RemoveFilesExcept {
                dir: Loc::home(".hermes"),
                keep: &[".env", "config.yaml", "auth.lock", "SOUL.md"],
            },
        ],
        keep: &[
            Loc::home(".hermes/.env"),
            Loc::home(".hermes/config.yaml"),
            Loc::home(".hermes/auth.lock"),
            Loc::home(".hermes/skills/authored"),
        ],
        inline_persona: &[],
        owner: &[Loc::home(".hermes/bluebubbles_caller_context.txt")],
    },
};

/// The patterns that name hermes in persona text, named as the brand is written (the way
/// upstream names its `rebrandTo` patterns).
#[allow(non_upper_case_globals)]
impl Brand {
    pub const Hermes: Brand = Brand::word("hermes");
}
