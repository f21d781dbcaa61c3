//! opencode: the opencode CLI behind the os-server bridge (docs/device-contract.md §2.6).
//!
//! Bridge state in `/root/.opencode`; the CLI's own state is XDG (`/root/.config/opencode`,
//! `/root/.local/share/opencode`).

mod llm;
mod persona;
mod presync;

use super::{
    Brand, Channel, Embedded, Format, Loc, McpContainer, McpStyle, NativeFile, Owner, PruneRule,
    RebrandFrom, ResetSpec, ResetStep, Runtime, RuntimeId, Skills, Verify, openclaw_layout,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Opencode,
    name: "opencode",
    aliases: &[],
    brand: "OpenCode",
    brands: &[Brand::OpenCode],
    rebrand_from: RebrandFrom::Only(&[RuntimeId::Openclaw, RuntimeId::Hermes, RuntimeId::Picoclaw]),
    persona_adapter: Some(persona::ADAPTER),
    presync: presync::plan,
    llm_source: llm::source,
    // It runs every channel through os-server's loops.
    mcp_refuses: None,
    channel_owner: Owner::Device,
    channel_plugins: None,
    slack_signing_secret: false,
    remove_channel: None,
    unit: "opencode",
    home: Loc::home(".opencode"),
    workspace: Loc::home(".opencode/workspace"),
    persona: openclaw_layout!(home, ".opencode/workspace"),
    skills: Skills {
        dir: Loc::home(".config/opencode/skills"),
        prompt_prefix: None,
        builtins: &[],
        prune: PruneRule::CatalogOnly,
        hooks: false,
    },
    native: &[
        NativeFile {
            role: "config",
            loc: Loc::home(".config/opencode/opencode.json"),
            format: Format::Jsonc,
            secret: false,
        },
        NativeFile {
            role: "env",
            loc: Loc::home(".opencode/.env"),
            format: Format::DotEnv,
            secret: true,
        },
    ],
    mcp: McpContainer {
        file: Loc::home(".config/opencode/opencode.json"),
        format: Format::Jsonc,
        path: &["mcp"],
        style: McpStyle::OpencodeLocalRemote,
        holds_disabled: true,
    },
    channels: &[Channel::Telegram, Channel::Slack, Channel::Discord],
    verify: Verify {
        on_path: &["opencode"],
        executables: &["/usr/local/bin/os-server"],
    },
    install_log: Some(Loc::home(".opencode/install.log")),
    migrate_marker: Some(Loc::home(".opencode/.openclaw-migrated")),
    embedded: Embedded {
        installer: Some(include_str!("../../../embedded/opencode/install.sh")),
        verify: Some(include_str!("../../../embedded/opencode/verify")),
        ready: Some(include_str!("../../../embedded/opencode/ready")),
        unit_file: Some(include_str!("../../../embedded/opencode/opencode.service")),
        installer_env: &["OPENCODE_VERSION", "OPENCODE_INSTALLER_URL", "STEP_TIMEOUT"],
    },
    reset: ResetSpec {
        steps: &[
            ResetStep::StopUnit,
            ResetStep::DisableUnit,
            ResetStep::EmptyExcept {
                dir: Loc::home(".opencode"),
                recreate: &["workspace", "attachments"],
            },
            ResetStep::Remove(Loc::home(".config/opencode")),
            ResetStep::Remove(Loc::home(".local/share/opencode")),
        ],
        keep: &[],
        inline_persona: &[Loc::home(".opencode/workspace/AGENTS.md")],
        owner: &[Loc::home(".local/share/opencode/auth.json")],
    },
};

/// The patterns that name opencode in persona text, named as the brand is written (the way
/// upstream names its `rebrandTo` patterns).
#[allow(non_upper_case_globals)]
impl Brand {
    pub const OpenCode: Brand = Brand::words("open", "code");
}
