//! codex: the OpenAI Codex CLI behind the os-server bridge (docs/device-contract.md §2.4).
//!
//! Everything lives under `$CODEX_HOME` (default `/root/.codex`).

mod llm;
mod mcp;
mod persona;
mod presync;

use super::{
    Brand, Channel, Embedded, Format, Loc, McpContainer, McpStyle, NativeFile, Owner, PruneRule,
    RebrandFrom, ResetSpec, ResetStep, Runtime, RuntimeId, Skills, Verify, openclaw_layout,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Codex,
    name: "codex",
    aliases: &["codex-app-server"],
    brand: "Codex",
    brands: &[Brand::Codex],
    rebrand_from: RebrandFrom::Only(&[RuntimeId::Openclaw, RuntimeId::Hermes, RuntimeId::Picoclaw]),
    persona_adapter: Some(persona::ADAPTER),
    presync: presync::plan,
    llm_source: llm::source,
    // It runs every channel through os-server's loops.
    mcp_refuses: Some(mcp::refuses),
    channel_owner: Owner::Device,
    channel_plugins: None,
    slack_signing_secret: false,
    remove_channel: None,
    unit: "codex",
    home: Loc::codex(""),
    workspace: Loc::codex("workspace"),
    persona: openclaw_layout!(codex, "workspace"),
    skills: Skills {
        dir: Loc::codex("skills"),
        prompt_prefix: None,
        builtins: &[],
        prune: PruneRule::CatalogOnly,
        hooks: false,
    },
    native: &[
        NativeFile {
            role: "config",
            loc: Loc::codex("config.toml"),
            format: Format::Toml,
            secret: false,
        },
        NativeFile {
            role: "env",
            loc: Loc::codex(".env"),
            format: Format::DotEnv,
            secret: true,
        },
    ],
    mcp: McpContainer {
        file: Loc::codex("config.toml"),
        format: Format::Toml,
        path: &["mcp_servers"],
        style: McpStyle::CodexToml,
        holds_disabled: true,
    },
    channels: &[Channel::Telegram, Channel::Slack, Channel::Discord],
    verify: Verify {
        on_path: &["codex"],
        executables: &["/usr/local/bin/os-server"],
    },
    install_log: Some(Loc::codex("install.log")),
    migrate_marker: Some(Loc::codex(".openclaw-migrated")),
    embedded: Embedded {
        installer: Some(include_str!("../../../embedded/codex/install.sh")),
        verify: Some(include_str!("../../../embedded/codex/verify")),
        ready: Some(include_str!("../../../embedded/codex/ready")),
        unit_file: Some(include_str!("../../../embedded/codex/codex.service")),
        installer_env: &["CODEX_VERSION"],
    },
    reset: ResetSpec {
        steps: &[
            ResetStep::StopUnit,
            ResetStep::DisableUnit,
            ResetStep::EmptyExcept {
                dir: Loc::codex(""),
                recreate: &["workspace", "attachments"],
            },
        ],
        keep: &[],
        inline_persona: &[Loc::codex("workspace/AGENTS.md")],
        owner: &[Loc::codex("auth.json")],
    },
};

/// The patterns that name codex in persona text, named as the brand is written (the way
/// upstream names its `rebrandTo` patterns).
#[allow(non_upper_case_globals)]
impl Brand {
    pub const Codex: Brand = Brand::word("codex");
}
