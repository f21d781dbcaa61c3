//! The agent runtimes: everything that makes one runtime different from another.
//!
//! Each runtime is one folder, `src/runtime/<rt>/`, plus its embedded files in `embedded/<rt>/`.
//! Its `mod.rs` declares its facts as a [`Runtime`] (`SPEC`): its systemd unit, home and
//! workspace, persona slots and the persona paths a factory reset wipes, its brand patterns, its
//! skills folder, its native config files and their formats, its MCP container, the channels it
//! can run and who runs them, what its verify hook checks and what its reset does. The files
//! beside it hold its behaviour, reached through fn pointers on the spec: `presync.rs` (its
//! presync), `persona.rs` (its persona adapter), `llm.rs` (its own LLM key and base URL, for the
//! carry-over), and where it has them `channel.rs` (its channel plugins and the credentials a
//! `channel remove` takes out of its files) and `mcp.rs` (what it refuses in an MCP server).
//! [`REGISTRY`] lists the runtimes in one place and every other list is derived from it; adding a
//! runtime is one folder, one [`RuntimeId`] variant and one line there.
//!
//! How the layers point: the feature orchestrators (presync, persona, channel, mcp, skills,
//! reconcile, switch, reset, status) take a runtime and use its facts and call its hooks. The
//! hooks are written with [`kit`] (the presync context, the OS blocks of the prompt files, the
//! LLM defaults), with [`native`] (reading a runtime's own files), and with the persona types,
//! `persona::workspace`, the MCP entry and the format editors in `format/`. The types a hook's
//! signature names live here where no feature needs to own them ([`Owner`], [`kit::cx::Cx`],
//! [`native::NativeFiles`]), so presync, channel and reconcile only call runtimes and stay out of
//! the import circle of `tests/it/layers.rs`. No feature matches on a runtime's id or names its
//! files (`tests/it/runtime_names.rs` counts what is left and lets it only shrink).
//! Paths are [`Loc`]s (an anchor plus a relative path), resolved by
//! [`crate::device::paths::Layout`] so the device's path overrides apply to every runtime alike.

mod claudecode;
mod codex;
mod hermes;
mod openclaw;
mod opencode;
mod picoclaw;
#[cfg(feature = "test-runtime")]
mod testclaw;

pub(crate) mod install;
pub(crate) mod kit;
pub(crate) mod mcp;
pub(crate) mod native;

use std::fmt;

use self::kit::cx::Cx;
use self::mcp::Entry as McpEntry;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::persona::Adapter;
use crate::persona::rebrand::Brand;
use crate::plan::Draft;

/// The runtimes osctl manages.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeId {
    Openclaw,
    Hermes,
    Picoclaw,
    Codex,
    Claudecode,
    Opencode,
    /// A seventh runtime defined only for tests (`--features test-runtime`).
    #[cfg(feature = "test-runtime")]
    Testclaw,
}

/// Every runtime, in the upstream order (`AgentRuntimes`): the one list every other list of
/// runtimes is derived from ([`RuntimeId::ALL`], the rebrand tables, the clap values). Each
/// runtime sits at the position of its [`RuntimeId`] variant (checked when this compiles).
pub const REGISTRY: [&Runtime; RUNTIMES] = [
    &openclaw::SPEC,
    &hermes::SPEC,
    &picoclaw::SPEC,
    &codex::SPEC,
    &claudecode::SPEC,
    &opencode::SPEC,
    #[cfg(feature = "test-runtime")]
    &testclaw::SPEC,
];

/// How many runtimes [`REGISTRY`] lists: the six the package ships, and the test-only seventh
/// with `test-runtime`.
const RUNTIMES: usize = PACKAGED + if cfg!(feature = "test-runtime") { 1 } else { 0 };

/// How many runtimes the Debian package ships (a presync drop-in each, the boot unit's
/// `Before=`): the first of [`REGISTRY`], the test-only runtime never among them.
const PACKAGED: usize = 6;

/// The runtimes the Debian package ships (see [`PACKAGED`]).
pub fn packaged() -> &'static [&'static Runtime] {
    &REGISTRY[..PACKAGED]
}

/// The names of [`packaged`], in registry order: the list tests and generators iterate over.
pub const PACKAGED_NAMES: [&str; PACKAGED] = first_names();

/// The names of every runtime of [`REGISTRY`], in registry order: [`PACKAGED_NAMES`] in the
/// package's build, and the test-only runtime too with `test-runtime`. The list tests iterate
/// over where a registered runtime needs nothing of its own (their other lists derive from its
/// [`Runtime`]), so `--features test-runtime` runs them on the seventh runtime unchanged.
pub const NAMES: [&str; RUNTIMES] = first_names();

/// The names of the first `N` runtimes of [`REGISTRY`] (a const array, for the lists above).
const fn first_names<const N: usize>() -> [&'static str; N] {
    let mut names = [""; N];
    let mut i = 0;
    while i < N {
        names[i] = REGISTRY[i].name;
        i += 1;
    }
    names
}

const _: () = {
    let mut i = 0;
    while i < REGISTRY.len() {
        assert!(
            REGISTRY[i].id as usize == i,
            "REGISTRY lists the runtimes in RuntimeId order"
        );
        i += 1;
    }
};

impl RuntimeId {
    /// Every runtime id, in registry order.
    pub const ALL: [RuntimeId; REGISTRY.len()] = {
        let mut ids = [REGISTRY[0].id; REGISTRY.len()];
        let mut i = 1;
        while i < ids.len() {
            ids[i] = REGISTRY[i].id;
            i += 1;
        }
        ids
    };

    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// The runtime's position in [`REGISTRY`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The runtime's facts.
    pub fn spec(self) -> &'static Runtime {
        REGISTRY[self.index()]
    }

    /// Parses a runtime name the way the device does: trimmed, case-insensitive, with the
    /// aliases `pi` (openclaw) and `codex-app-server` (codex). `remote` is recognised and
    /// refused: osctl does not manage it.
    pub fn parse(name: &str) -> Result<RuntimeId> {
        let key = name.trim().to_ascii_lowercase();
        if let Some(r) = REGISTRY
            .iter()
            .find(|r| r.name == key || r.aliases.contains(&key.as_str()))
        {
            return Ok(r.id);
        }
        if key == "remote" {
            return Err(Error::input(
                "runtime_not_managed",
                "the `remote` runtime is managed by the device's HTTP API, not by osctl",
            )
            .hint(format!("osctl manages: {}", names().join(", "))));
        }
        let shown = if key.is_empty() {
            "(empty)".to_string()
        } else {
            format!("`{}`", name.trim())
        };
        Err(Error::input(
            "unknown_runtime",
            format!("{shown} is not a runtime osctl knows"),
        )
        .hint(format!("valid runtimes: {}", names().join(", "))))
    }
}

impl fmt::Display for RuntimeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The valid runtime names, in registry order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.name).collect()
}

/// clap parser for runtime arguments: the device's name rules, the six names for completions.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuntimeParser;

impl clap::builder::TypedValueParser for RuntimeParser {
    type Value = RuntimeId;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<RuntimeId, clap::Error> {
        let text = value.to_string_lossy();
        RuntimeId::parse(&text).map_err(|e| {
            let msg = match &e.hint {
                Some(h) => format!("{}\n\n{h}\n", e.message),
                None => format!("{}\n", e.message),
            };
            // A name refused on the command line is a usage error (exit 2), as an unknown channel
            // is; the same name read from config.json is bad input (exit 1).
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, msg).with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            REGISTRY
                .iter()
                .map(|r| clap::builder::PossibleValue::new(r.name)),
        ))
    }
}

/// Where a path is anchored on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// `$OS_AGENT_HOME`, default `/root`.
    AgentHome,
    /// `$CODEX_HOME`, default `/root/.codex`.
    CodexHome,
    /// `config.openclaw_config_dir`, default `/root/.openclaw`.
    OpenclawDir,
    /// An absolute device path.
    Root,
}

/// A device path relative to an [`Anchor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub anchor: Anchor,
    pub rel: &'static str,
}

impl Loc {
    pub const fn home(rel: &'static str) -> Loc {
        Loc {
            anchor: Anchor::AgentHome,
            rel,
        }
    }
    pub const fn codex(rel: &'static str) -> Loc {
        Loc {
            anchor: Anchor::CodexHome,
            rel,
        }
    }
    pub const fn openclaw(rel: &'static str) -> Loc {
        Loc {
            anchor: Anchor::OpenclawDir,
            rel,
        }
    }
    pub const fn abs(path: &'static str) -> Loc {
        Loc {
            anchor: Anchor::Root,
            rel: path,
        }
    }
}

/// The messaging channels a device can have.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Telegram,
    Slack,
    Discord,
    Whatsapp,
    Imessage,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Telegram => "telegram",
            Channel::Slack => "slack",
            Channel::Discord => "discord",
            Channel::Whatsapp => "whatsapp",
            Channel::Imessage => "imessage",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of a runtime's own configuration files.
#[derive(Clone, Copy, Debug)]
pub struct NativeFile {
    /// What the file is for: `config`, `env`, `secrets`, `state`, `settings`, `mcp`.
    pub role: &'static str,
    pub loc: Loc,
    pub format: Format,
    /// Holds secrets: written 0600, values masked in every output.
    pub secret: bool,
}

/// How a canonical MCP entry is written into the runtime's own file (docs/device-contract.md §8.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpStyle {
    /// The canonical entry as it is (openclaw, claudecode).
    Canonical,
    /// Drop `type`, add `enabled: true` (hermes).
    DropTypeEnabled,
    /// Keep `type`, add `enabled: true`, and assert the global `tools.mcp.enabled` (picoclaw).
    KeepTypeEnabled,
    /// Drop `type`, rename `headers` to `http_headers` (codex, TOML tables).
    CodexToml,
    /// `{type: remote, url, headers, enabled}` / `{type: local, command: [cmd, ...args],
    /// environment, enabled}` (opencode).
    OpencodeLocalRemote,
}

/// Where a runtime keeps its MCP servers.
#[derive(Clone, Copy, Debug)]
pub struct McpContainer {
    pub file: Loc,
    pub format: Format,
    /// Keys from the document root to the map of servers (`["mcp", "servers"]`).
    pub path: &'static [&'static str],
    pub style: McpStyle,
    /// Whether the file can hold a disabled server (Claude Code's `.mcp.json` cannot: a disabled
    /// server is not carried there).
    pub holds_disabled: bool,
}

/// How a runtime's memory and user files separate entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryFormat {
    /// One `- entry` bullet per line.
    Bullets,
    /// Entries joined by a line holding only `§` (hermes).
    Sections,
}

/// Where a runtime keeps the owner's persona (docs/device-contract.md §5.2).
#[derive(Clone, Copy, Debug)]
pub struct Persona {
    pub soul: Loc,
    /// `None`: the identity is an inline card in SOUL.md (hermes).
    pub identity: Option<Loc>,
    pub memory: Loc,
    pub user: Loc,
    /// `None`: knowledge folds into memory (hermes).
    pub knowledge: Option<Loc>,
    /// Folder of daily `YYYY-MM-DD.md` files; `None`: daily folds into memory (hermes).
    pub daily_dir: Option<Loc>,
    pub format: EntryFormat,
    /// The paths a factory reset wipes in this runtime's tree: files plus the memory folder,
    /// never a workspace or home root (they also hold skills, configs and installations).
    pub wipe: &'static [Loc],
}

/// Which skill folders a capability prune may remove (docs/device-contract.md §7.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PruneRule {
    /// Remove only catalog skills the device does not support; unknown folders stay.
    CatalogOnly,
    /// Remove everything neither supported nor a runtime built-in (picoclaw).
    AllButBuiltins,
}

#[derive(Clone, Copy, Debug)]
pub struct Skills {
    pub dir: Loc,
    /// The skills path as the agent sees it in prompts (`skills`); `None`: the absolute device
    /// path of `dir`.
    pub prompt_prefix: Option<&'static str>,
    /// Skills the runtime ships itself, never pruned.
    pub builtins: &'static [&'static str],
    pub prune: PruneRule,
    /// Whether the catalog's hooks are installed for it too, into `<workspace>/hooks` (openclaw).
    pub hooks: bool,
}

/// What "installed and usable" means for a runtime: the checks its verify hook makes.
#[derive(Clone, Copy, Debug)]
pub struct Verify {
    /// Commands that must be on `PATH` (`command -v`).
    pub on_path: &'static [&'static str],
    /// Device paths that must be executable.
    pub executables: &'static [&'static str],
}

/// The files osctl embeds for a runtime (`embedded/<rt>/`, compiled in) and writes on every
/// switch to it, rewriting only files whose bytes differ (docs/device-contract.md §10 item 2).
/// `None`: osctl has no such file for the runtime.
#[derive(Clone, Copy, Debug)]
pub struct Embedded {
    /// `/usr/local/lib/os-runtimes/<rt>/install.sh`, run when the runtime is not installed.
    pub installer: Option<&'static str>,
    /// `/usr/local/lib/os-runtimes/<rt>/verify`: exit 0 = installed and usable.
    pub verify: Option<&'static str>,
    /// `/usr/local/lib/os-runtimes/<rt>/ready`: exit 0 = the runtime answers (`--wait-ready`).
    pub ready: Option<&'static str>,
    /// The unit file, where osctl owns it: `/etc/systemd/system/<unit>.service`.
    pub unit_file: Option<&'static str>,
    /// Environment variables the installer reads (`--installer-env KEY=VALUE` sets them).
    pub installer_env: &'static [&'static str],
}

/// A program a runtime's own reset runs (`hermes setup --reset`). It runs only on the live
/// device; under any other root it is printed and skipped. Arguments are fixed data: nothing
/// from the device is formatted into them.
#[derive(Clone, Copy, Debug)]
pub struct ResetCommand {
    /// Looked up on the device's `PATH`; when it is not installed the step is skipped with a
    /// warning (a missing CLI must not block a factory reset).
    pub program: &'static str,
    pub args: &'static [&'static str],
    pub env: &'static [(&'static str, &'static str)],
    pub timeout_secs: u64,
    /// A failure is a warning, not a failed reset (upstream logs and carries on).
    pub optional: bool,
    /// What it is for, shown in the plan.
    pub label: &'static str,
}

/// One step of a runtime's own factory reset (docs/device-contract.md §6, `ResetAgent`), in
/// upstream order.
#[derive(Clone, Copy, Debug)]
pub enum ResetStep {
    /// `systemctl stop <unit>`.
    StopUnit,
    /// `systemctl disable <unit>` (os-server enables it again when it sets the runtime up).
    DisableUnit,
    Run(ResetCommand),
    /// Remove a file, a symlink (as a link) or a folder with everything in it.
    Remove(Loc),
    /// Remove the entries of a folder whose names start with `prefix` (`openclaw.json.bak*`).
    RemovePrefixed {
        dir: Loc,
        prefix: &'static str,
    },
    /// Remove every top-level file of a folder (not its folders) except these names.
    RemoveFilesExcept {
        dir: Loc,
        keep: &'static [&'static str],
    },
    /// `rm -rf dir && mkdir dir/<recreate>...`: everything in the folder goes, and it is left
    /// holding only the named empty folders. osctl empties the folder rather than replacing it
    /// (same tree afterwards, and a second reset has nothing to do).
    EmptyExcept {
        dir: Loc,
        recreate: &'static [&'static str],
    },
}

/// What a factory reset does to a runtime (docs/device-contract.md §6). `steps` run only when the
/// runtime is the active one; `inline_persona` is swept on every reset, active or not
/// (docs/device-contract.md §10 item 9).
#[derive(Clone, Copy, Debug)]
pub struct ResetSpec {
    pub steps: &'static [ResetStep],
    /// What upstream's reset of this runtime keeps. No step may remove these or a folder above
    /// them (a test checks it); the golden reset cases show them byte-identical.
    pub keep: &'static [Loc],
    /// Files that carry the owner's persona inline, between the persona-inline delimiters
    /// (codex and opencode `AGENTS.md`, docs/device-contract.md §5.6): the block is stripped, the
    /// rest is kept.
    pub inline_persona: &'static [Loc],
    /// The owner's credentials that live in files of their own rather than in the runtime's
    /// config (connector tokens, a subscription login, the BlueBubbles caller context): removed
    /// on every reset, active runtime or not, like the persona copies.
    pub owner: &'static [Loc],
}

/// Whose names persona text arriving in a runtime has rewritten to its brand (upstream
/// `rebrandTo<RT>`).
#[derive(Clone, Copy, Debug)]
pub enum RebrandFrom {
    /// Every other runtime's.
    Others,
    /// Only these runtimes'.
    Only(&'static [RuntimeId]),
}

impl RebrandFrom {
    pub fn includes(self, id: RuntimeId) -> bool {
        match self {
            RebrandFrom::Others => true,
            RebrandFrom::Only(ids) => ids.contains(&id),
        }
    }
}

/// A runtime's own LLM key and base URL, read through the draft (see `Runtime::llm_source`).
pub(crate) type LlmSource =
    fn(&native::NativeFiles<'_, '_>) -> Result<(Option<String>, Option<String>)>;

/// Plans the removal of a channel from a runtime's own files (see `Runtime::remove_channel`).
pub(crate) type RemoveChannel = fn(&mut Draft<'_>, &Device, Channel) -> Result<bool>;

/// Who runs a channel on a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Owner {
    /// The runtime, from its own config (written by presync).
    Runtime,
    /// The device's own loop, which reads config.json: nothing to write in the runtime.
    Device,
}

/// The channels a runtime runs as plugins of its own, and how they are set up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChannelPlugins {
    pub channels: &'static [Channel],
    /// Plans the install of a channel's plugin when it is missing.
    pub install: fn(&mut Draft<'_>, &Device, Channel) -> Result<()>,
    /// Plans the runtime's own switch that enables an installed plugin.
    pub enable: fn(&mut Draft<'_>, &Device, Channel) -> Result<()>,
}

/// A runtime's facts.
#[derive(Debug)]
pub struct Runtime {
    pub id: RuntimeId,
    /// The name used in config.json, on the command line and in paths.
    pub name: &'static str,
    /// Other names accepted for it.
    pub aliases: &'static [&'static str],
    /// The product name, used when persona text is rebranded (`OpenClaw`, `Claude Code`).
    pub brand: &'static str,
    /// The patterns that find this runtime's names in persona text (docs/device-contract.md §5.4):
    /// its brand, and former names it is still known by.
    pub brands: &'static [Brand],
    /// Whose names are rewritten to this runtime's brand in persona text that arrives here.
    pub rebrand_from: RebrandFrom,
    /// Its persona reader and writer; `None`: its persona cannot be migrated (upstream
    /// `CanMigrate`).
    pub persona_adapter: Option<Adapter>,
    /// Its presync: heals its native files before it starts (`src/runtime/<rt>/presync.rs`, on
    /// the shared core in `src/presync/`).
    pub(crate) presync: fn(&mut Cx<'_, '_>) -> Result<()>,
    /// Reads its own LLM key and base URL, for the carry-over when the device leaves it
    /// (docs/device-contract.md §8.4).
    pub(crate) llm_source: LlmSource,
    /// What it refuses in an MCP server whatever the style (an error naming the server), checked
    /// before anything is planned; `None`: nothing beyond the style.
    pub(crate) mcp_refuses: Option<fn(&str, &McpEntry) -> Result<()>>,
    /// Who runs its channels (docs/device-contract.md §8.1 "Per-runtime apply").
    pub channel_owner: Owner,
    /// Channels it runs as plugins of its own, installed on demand; `None`: no plugins.
    pub(crate) channel_plugins: Option<ChannelPlugins>,
    /// Whether its slack channel takes a signing secret (Slack's HTTP mode); `channel add slack
    /// --signing-secret` is refused on a runtime that takes none, rather than dropping it.
    pub slack_signing_secret: bool,
    /// Takes a removed channel's credentials out of its own files (`channel remove`); returns
    /// whether it changed a file. `None`: it keeps no channel credentials of its own.
    pub(crate) remove_channel: Option<RemoveChannel>,
    /// The systemd unit (without `.service`).
    pub unit: &'static str,
    pub home: Loc,
    pub workspace: Loc,
    pub persona: Persona,
    pub skills: Skills,
    pub native: &'static [NativeFile],
    pub mcp: McpContainer,
    /// Channels the runtime can run (`SupportedChannels`).
    pub channels: &'static [Channel],
    pub verify: Verify,
    pub install_log: Option<Loc>,
    /// Marker of the one-time migrate from openclaw (picoclaw, codex, opencode).
    pub migrate_marker: Option<Loc>,
    /// What osctl embeds for it (installer, hooks, unit file).
    pub embedded: Embedded,
    /// What a factory reset does to this runtime when it is the active one.
    pub reset: ResetSpec,
}

impl Runtime {
    /// Whether the unit name differs from the runtime name, so a `service` file declares it.
    pub fn declares_unit(&self) -> bool {
        self.unit != self.name
    }

    pub fn supports(&self, channel: Channel) -> bool {
        self.channels.contains(&channel)
    }

    /// The native file with this role.
    pub fn native_file(&self, role: &str) -> Option<&NativeFile> {
        self.native.iter().find(|f| f.role == role)
    }
}

/// The runtime a device runs when nothing names one (docs/device-contract.md §3.2).
pub const BUILT_IN_DEFAULT: RuntimeId = RuntimeId::Openclaw;

/// The per-runtime install folder (`/usr/local/lib/os-runtimes/<rt>`).
pub fn runtime_lib_dir(id: RuntimeId) -> String {
    format!("/usr/local/lib/os-runtimes/{id}")
}

/// The presync hook path (`/usr/local/bin/runtime-<rt>-presync`).
pub fn presync_hook(id: RuntimeId) -> String {
    format!("/usr/local/bin/runtime-{id}-presync")
}

/// The openclaw-layout persona slots of a workspace (openclaw, codex, claudecode, opencode).
macro_rules! openclaw_layout {
    ($anchor:ident, $ws:literal) => {
        $crate::runtime::Persona {
            soul: $crate::runtime::Loc::$anchor(concat!($ws, "/SOUL.md")),
            identity: Some($crate::runtime::Loc::$anchor(concat!($ws, "/IDENTITY.md"))),
            memory: $crate::runtime::Loc::$anchor(concat!($ws, "/MEMORY.md")),
            user: $crate::runtime::Loc::$anchor(concat!($ws, "/USER.md")),
            knowledge: Some($crate::runtime::Loc::$anchor(concat!($ws, "/KNOWLEDGE.md"))),
            daily_dir: Some($crate::runtime::Loc::$anchor(concat!($ws, "/memory"))),
            format: $crate::runtime::EntryFormat::Bullets,
            wipe: &[
                $crate::runtime::Loc::$anchor(concat!($ws, "/SOUL.md")),
                $crate::runtime::Loc::$anchor(concat!($ws, "/IDENTITY.md")),
                $crate::runtime::Loc::$anchor(concat!($ws, "/MEMORY.md")),
                $crate::runtime::Loc::$anchor(concat!($ws, "/USER.md")),
                $crate::runtime::Loc::$anchor(concat!($ws, "/KNOWLEDGE.md")),
                $crate::runtime::Loc::$anchor(concat!($ws, "/memory")),
            ],
        }
    };
}
pub(crate) use openclaw_layout;

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_case_insensitive_with_aliases() {
        assert_eq!(RuntimeId::parse(" Hermes\n").unwrap(), RuntimeId::Hermes);
        assert_eq!(RuntimeId::parse("PI").unwrap(), RuntimeId::Openclaw);
        assert_eq!(
            RuntimeId::parse("codex-app-server").unwrap(),
            RuntimeId::Codex
        );
        assert_eq!(
            RuntimeId::parse("remote").unwrap_err().code,
            "runtime_not_managed"
        );
        assert_eq!(
            RuntimeId::parse("nanoclaw").unwrap_err().code,
            "unknown_runtime"
        );
        assert_eq!(RuntimeId::parse("").unwrap_err().code, "unknown_runtime");
    }

    #[test]
    fn registry_is_complete_and_in_order() {
        for (i, id) in RuntimeId::ALL.iter().enumerate() {
            assert_eq!(REGISTRY[i].id, *id);
            assert_eq!(id.spec().name, format!("{id:?}").to_lowercase());
        }
    }

    #[test]
    fn rebrand_tables_are_upstreams() {
        let open_claw = [Brand::OpenClaw, Brand::ClawdBot, Brand::MoltBot];
        let (hermes, pico_claw, codex) = (Brand::Hermes, Brand::PicoClaw, Brand::Codex);
        let (claude_code, open_code) = (Brand::ClaudeCode, Brand::OpenCode);
        let claw_family_and_hermes: Vec<Brand> = open_claw
            .iter()
            .copied()
            .chain([hermes, pico_claw])
            .collect();
        let want: [(RuntimeId, Vec<Brand>); 6] = [
            (
                RuntimeId::Openclaw,
                vec![hermes, pico_claw, codex, claude_code, open_code],
            ),
            (
                RuntimeId::Hermes,
                open_claw
                    .iter()
                    .copied()
                    .chain([pico_claw, codex, claude_code, open_code])
                    .collect(),
            ),
            (
                RuntimeId::Picoclaw,
                open_claw
                    .iter()
                    .copied()
                    .chain([hermes, codex, claude_code, open_code])
                    .collect(),
            ),
            (RuntimeId::Codex, claw_family_and_hermes.clone()),
            (RuntimeId::Claudecode, claw_family_and_hermes.clone()),
            (RuntimeId::Opencode, claw_family_and_hermes),
        ];
        for (id, want) in want {
            // Only the shipped runtimes' brands: the test-only runtime's are derived too.
            let shipped: Vec<Brand> = packaged().iter().flat_map(|r| r.brands).copied().collect();
            let got: Vec<Brand> = crate::persona::rebrand::patterns_to(id.spec())
                .iter()
                .filter(|b| shipped.contains(b))
                .copied()
                .collect();
            assert_eq!(got.len(), want.len(), "{id}");
            assert!(want.iter().all(|b| got.contains(b)), "{id}: {got:?}");
        }
    }

    #[test]
    fn persona_wipe_lists_never_name_a_root() {
        for rt in REGISTRY {
            assert!(
                !rt.persona.wipe.is_empty(),
                "{} lists no persona paths",
                rt.name
            );
            for loc in rt.persona.wipe {
                assert_ne!(*loc, rt.home, "{} wipes its home", rt.name);
                assert_ne!(*loc, rt.workspace, "{} wipes its workspace", rt.name);
                assert!(
                    !loc.rel.trim_matches('/').is_empty(),
                    "{} wipes an anchor",
                    rt.name
                );
                assert!(!loc.rel.ends_with("skills"), "{} wipes skills", rt.name);
            }
        }
    }

    #[test]
    fn channel_support_matches_the_spec() {
        use Channel::*;
        let got: Vec<(&str, Vec<Channel>)> = packaged()
            .iter()
            .map(|r| (r.name, r.channels.to_vec()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("openclaw", vec![Telegram, Slack, Discord, Whatsapp]),
                ("hermes", vec![Telegram, Slack, Discord, Imessage]),
                ("picoclaw", vec![Telegram]),
                ("codex", vec![Telegram, Slack, Discord]),
                ("claudecode", vec![Telegram, Slack, Discord]),
                ("opencode", vec![Telegram, Slack, Discord]),
            ]
        );
    }
}
