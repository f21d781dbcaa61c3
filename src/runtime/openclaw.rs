//! openclaw: the built-in default runtime (spec section 2.1).
//!
//! Its unit is baked into the image; upstream ships no installer, presync or verify hook for it,
//! so "installed" means the unit exists. Its config dir follows `config.openclaw_config_dir`.

use super::{
    Channel, Embedded, Format, Loc, McpContainer, McpStyle, NativeFile, PruneRule, Runtime,
    RuntimeId, Skills, Verify, openclaw_layout,
};

pub const SPEC: Runtime = Runtime {
    id: RuntimeId::Openclaw,
    name: "openclaw",
    aliases: &["pi"],
    brand: "OpenClaw",
    unit: "openclaw",
    home: Loc::openclaw(""),
    workspace: Loc::openclaw("workspace"),
    persona: openclaw_layout!(openclaw, "workspace"),
    skills: Skills {
        dir: Loc::openclaw("workspace/skills"),
        prompt_prefix: Some("skills"),
        builtins: &[],
        prune: PruneRule::CatalogOnly,
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
        ready: Some(include_str!("../../embedded/openclaw/ready")),
        unit_file: None,
        installer_env: &[],
    },
};
