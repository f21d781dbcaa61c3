//! testclaw: a seventh runtime defined only for tests (`--features test-runtime`), the proof that
//! a runtime is one folder and one registry line. It reuses what exists: the openclaw persona
//! layout, a strict JSON config holding its LLM settings and its MCP servers in the canonical
//! style, and channels run by the device's own loop (as claudecode's are).

mod llm;
mod persona;
mod presync;

use super::{
    Brand, Channel, Embedded, Format, Loc, McpContainer, McpStyle, NativeFile, Owner, PruneRule,
    RebrandFrom, ResetSpec, ResetStep, Runtime, RuntimeId, Skills, Verify, openclaw_layout,
};

pub(super) const SPEC: Runtime = Runtime {
    id: RuntimeId::Testclaw,
    name: "testclaw",
    aliases: &[],
    brand: "TestClaw",
    brands: &[Brand::TestClaw],
    rebrand_from: RebrandFrom::Others,
    persona_adapter: Some(persona::ADAPTER),
    presync: presync::plan,
    llm_source: llm::source,
    mcp_refuses: None,
    // Every channel it runs goes through the device's loop: nothing to write in its files.
    channel_owner: Owner::Device,
    channel_plugins: None,
    slack_signing_secret: false,
    remove_channel: None,
    unit: "testclaw",
    home: Loc::home(".testclaw"),
    workspace: Loc::home(".testclaw/workspace"),
    persona: openclaw_layout!(home, ".testclaw/workspace"),
    skills: Skills {
        dir: Loc::home(".testclaw/workspace/skills"),
        prompt_prefix: None,
        builtins: &[],
        prune: PruneRule::CatalogOnly,
        hooks: false,
    },
    native: &[NativeFile {
        role: "config",
        loc: Loc::home(".testclaw/config.json"),
        format: Format::Json,
        secret: true,
    }],
    mcp: McpContainer {
        file: Loc::home(".testclaw/config.json"),
        format: Format::Json,
        path: &["mcpServers"],
        style: McpStyle::Canonical,
        holds_disabled: true,
    },
    channels: &[Channel::Telegram, Channel::Slack],
    verify: Verify {
        on_path: &["testclaw"],
        executables: &[],
    },
    install_log: Some(Loc::home(".testclaw/install.log")),
    migrate_marker: None,
    embedded: Embedded {
        installer: Some(include_str!("../../../embedded/testclaw/install.sh")),
        verify: Some(include_str!("../../../embedded/testclaw/verify")),
        ready: Some(include_str!("../../../embedded/testclaw/ready")),
        unit_file: Some(include_str!("../../../embedded/testclaw/testclaw.service")),
        installer_env: &[],
    },
    reset: ResetSpec {
        steps: &[
            ResetStep::StopUnit,
            ResetStep::DisableUnit,
            ResetStep::Remove(Loc::home(".testclaw/config.json")),
            ResetStep::Remove(Loc::home(".testclaw/workspace")),
        ],
        keep: &[Loc::home(".testclaw/install.log")],
        inline_persona: &[],
        owner: &[Loc::home(".testclaw/credentials.json")],
    },
};

/// The patterns that name testclaw in persona text.
#[allow(non_upper_case_globals)]
impl Brand {
    pub const TestClaw: Brand = Brand::words("test", "claw");
}
