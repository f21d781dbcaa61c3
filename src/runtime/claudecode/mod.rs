//! claudecode: the Claude Code CLI behind the os-server bridge (docs/device-contract.md §2.5).
//!
//! Bridge state in `/root/.claudecode`; the CLI's own user-level state in `/root/.claude` and
//! `/root/.claude.json` (docs/device-contract.md §10 item 11: MCP approval only takes effect at
//! user level).

mod llm;
mod persona;
mod presync;

use super::{
    Brand, Channel, Embedded, Format, Loc, McpContainer, McpStyle, NativeFile, Owner, PruneRule,
    RebrandFrom, ResetSpec, ResetStep, Runtime, RuntimeId, Skills, Verify, openclaw_layout,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Claudecode,
    name: "claudecode",
    aliases: &[],
    brand: "Claude Code",
    brands: &[Brand::ClaudeCode],
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
    unit: "claudecode",
    home: Loc::home(".claudecode"),
    workspace: Loc::home(".claudecode/workspace"),
    persona: openclaw_layout!(home, ".claudecode/workspace"),
    skills: Skills {
        dir: Loc::home(".claude/skills"),
        prompt_prefix: None,
        builtins: &[],
        prune: PruneRule::CatalogOnly,
        hooks: false,
    },
    native: &[
        NativeFile {
            role: "env",
            loc: Loc::home(".claudecode/.env"),
            format: Format::DotEnv,
            secret: true,
        },
        NativeFile {
            role: "state",
            loc: Loc::home(".claude.json"),
            format: Format::Json,
            secret: true,
        },
        NativeFile {
            role: "settings",
            loc: Loc::home(".claude/settings.json"),
            format: Format::Json,
            secret: false,
        },
        NativeFile {
            role: "project-settings",
            loc: Loc::home(".claudecode/workspace/.claude/settings.json"),
            format: Format::Json,
            secret: false,
        },
        NativeFile {
            role: "mcp",
            loc: Loc::home(".claudecode/workspace/.mcp.json"),
            format: Format::Json,
            secret: true,
        },
    ],
    mcp: McpContainer {
        file: Loc::home(".claudecode/workspace/.mcp.json"),
        format: Format::Json,
        path: &["mcpServers"],
        style: McpStyle::Canonical,
        holds_disabled: false,
    },
    channels: &[Channel::Telegram, Channel::Slack, Channel::Discord],
    verify: Verify {
        on_path: &["claude"],
        executables: &["/usr/local/bin/os-server"],
    },
    install_log: Some(Loc::home(".claudecode/install.log")),
    migrate_marker: None,
    embedded: Embedded {
        installer: Some(include_str!("../../../embedded/claudecode/install.sh")),
        verify: Some(include_str!("../../../embedded/claudecode/verify")),
        ready: Some(include_str!("../../../embedded/claudecode/ready")),
        unit_file: Some(include_str!(
            "../../../embedded/claudecode/claudecode.service"
        )),
        installer_env: &["CLAUDE_INSTALLER_URL", "STEP_TIMEOUT"],
    },
    reset: ResetSpec {
        steps: &[
            ResetStep::StopUnit,
            ResetStep::DisableUnit,
            ResetStep::Remove(Loc::home(".claudecode/workspace")),
            ResetStep::Remove(Loc::home(".claudecode/.env")),
            ResetStep::Remove(Loc::home(".claudecode/session.json")),
            ResetStep::Remove(Loc::home(".claude/skills")),
            ResetStep::Remove(Loc::home(".claude/CLAUDE.md")),
            ResetStep::Remove(Loc::home(".claude/projects")),
            ResetStep::Remove(Loc::home(".claude/channels")),
            ResetStep::Remove(Loc::home(".claude/todos")),
            ResetStep::Remove(Loc::home(".claude/history.jsonl")),
            ResetStep::Remove(Loc::home(".claude/.credentials.json")),
        ],
        keep: &[
            Loc::home(".claude.json"),
            Loc::home(".local/bin/claude"),
            Loc::abs("/usr/local/bin/claude"),
        ],
        inline_persona: &[],
        owner: &[Loc::home(".claude/.credentials.json")],
    },
};

/// The patterns that name claudecode in persona text, named as the brand is written (the way
/// upstream names its `rebrandTo` patterns).
#[allow(non_upper_case_globals)]
impl Brand {
    pub const ClaudeCode: Brand = Brand::words("claude", "code");
}
