//! openclaw: the built-in default runtime (docs/device-contract.md §2.1).
//!
//! Its unit is baked into the image; upstream ships no installer, presync or verify hook for it,
//! so "installed" means the unit exists. Its config dir follows `config.openclaw_config_dir`.

mod channel;
mod llm;
mod mcp;
mod persona;
mod presync;

use super::{
    Brand, Channel, Embedded, Format, Loc, McpContainer, McpStyle, NativeFile, Owner, PruneRule,
    RebrandFrom, ResetCommand, ResetSpec, ResetStep, Runtime, RuntimeId, Skills, Verify,
    openclaw_layout,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Openclaw,
    name: "openclaw",
    aliases: &["pi"],
    brand: "OpenClaw",
    brands: &[Brand::OpenClaw, Brand::ClawdBot, Brand::MoltBot],
    rebrand_from: RebrandFrom::Others,
    persona_adapter: Some(persona::ADAPTER),
    presync: presync::plan,
    llm_source: llm::source,
    mcp_refuses: Some(mcp::refuses),
    channel_owner: Owner::Runtime,
    channel_plugins: Some(channel::PLUGINS),
    slack_signing_secret: true,
    remove_channel: Some(channel::remove_channel),
    unit: "openclaw",
    home: Loc::openclaw(""),
    workspace: Loc::openclaw("workspace"),
    persona: openclaw_layout!(openclaw, "workspace"),
    skills: Skills {
        dir: Loc::openclaw("workspace/skills"),
        prompt_prefix: Some("skills"),
        builtins: &[],
        prune: PruneRule::CatalogOnly,
        hooks: true,
    },
    native: &[NativeFile {
        role: "config",
        loc: Loc::openclaw("openclaw.json"),
        format: Format::Json5,
        secret: true,
    }],
    mcp: McpContainer {
        file: Loc::openclaw("openclaw.json"),
        format: Format::Json5,
        path: &["mcp", "servers"],
        style: McpStyle::Canonical,
        holds_disabled: true,
    },
    channels: &[
        Channel::Telegram,
        Channel::Slack,
        Channel::Discord,
        Channel::Whatsapp,
    ],
    verify: Verify {
        on_path: &[],
        executables: &[],
    },
    install_log: None,
    migrate_marker: None,
    embedded: Embedded {
        // No installer, verify hook or unit file: openclaw's unit is baked into the image. When
        // it is missing, only an installer the operator names (`--installer`, `--from-cdn`) runs.
        installer: None,
        verify: None,
        ready: Some(include_str!("../../../embedded/openclaw/ready")),
        unit_file: None,
        installer_env: &[],
    },
    reset: ResetSpec {
        steps: &[
            ResetStep::Run(ResetCommand {
                program: "openclaw",
                args: &[
                    "reset",
                    "--scope",
                    "config+creds+sessions",
                    "--yes",
                    "--non-interactive",
                ],
                env: &[("HOME", "/root")],
                timeout_secs: 120,
                optional: true,
                label: "openclaw's own reset of its config, credentials and sessions",
            }),
            ResetStep::StopUnit,
            ResetStep::DisableUnit,
            ResetStep::RemovePrefixed {
                dir: Loc::openclaw(""),
                prefix: "openclaw.json.bak",
            },
            ResetStep::Remove(Loc::openclaw("agents")),
            ResetStep::Remove(Loc::openclaw("workspace")),
            ResetStep::Remove(Loc::openclaw("workspace-attestations")),
            ResetStep::Remove(Loc::openclaw("state")),
            ResetStep::Remove(Loc::openclaw("devices")),
            ResetStep::Remove(Loc::openclaw("tasks")),
            ResetStep::Remove(Loc::openclaw("logs")),
            ResetStep::Remove(Loc::openclaw("telegram")),
            ResetStep::Remove(Loc::openclaw("discord")),
            ResetStep::Remove(Loc::openclaw("plugin-state")),
            ResetStep::Remove(Loc::openclaw("memory")),
            ResetStep::Remove(Loc::openclaw("delivery-queue")),
            ResetStep::Remove(Loc::openclaw("subagents")),
            ResetStep::Remove(Loc::openclaw("cron")),
            ResetStep::Remove(Loc::openclaw("media")),
            ResetStep::Remove(Loc::openclaw("flows")),
            ResetStep::Remove(Loc::openclaw("openclaw.json.last-good")),
            ResetStep::Remove(Loc::openclaw("update-check.json")),
            ResetStep::Remove(Loc::openclaw(".openclaw")),
            ResetStep::Remove(Loc::openclaw(".cache")),
        ],
        keep: &[
            Loc::openclaw("npm"),
            Loc::openclaw("plugin-skills"),
            Loc::openclaw("canvas"),
            Loc::openclaw("plugins"),
            Loc::openclaw("identity"),
            Loc::openclaw("device-key.json"),
        ],
        inline_persona: &[],
        owner: &[Loc::openclaw("workspace/configs")],
    },
};

/// The patterns that name openclaw in persona text, named as the brand is written (the way
/// upstream names its `rebrandTo` patterns).
#[allow(non_upper_case_globals)]
impl Brand {
    pub const OpenClaw: Brand = Brand::words("open", "claw");
    pub const ClawdBot: Brand = Brand::word("clawdbot");
    pub const MoltBot: Brand = Brand::word("moltbot");
}
