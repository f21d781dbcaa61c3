//! The factory reset of the agent side of a device (docs/device-contract.md §6, §10 item 9),
//! as a plan.
//!
//! In order:
//! 1. the active runtime's own reset, from its [`ResetSpec`](crate::runtime::ResetSpec): service
//!    stop/disable (never the disable of the runtime the device resolves to after the reset,
//!    whose unit the next boot must start) and its own reset commands (the `runtime` part of [`ResetPlan`], carried out
//!    first), then its file removals exactly as §6 lists them, keeping what it keeps;
//! 2. the device paths: config.json and agent_state.json together (the switch history must not
//!    outlive the runtime it describes), users, strangers, snapshots, the Wi-Fi config, the log
//!    spool;
//! 3. the union of every runtime's persona paths (a profile copied into an inactive runtime's
//!    tree by an earlier switch goes too), every `<persona file>.bak-<digits>` backup that
//!    migration left in any tree, and the persona-inline blocks of codex and opencode `AGENTS.md`:
//!    upstream leaves those, so a retired owner's profile would survive its reset;
//! 4. the previous owner's values in every runtime's own files, active or not ([`owner`]):
//!    channels, MCP servers, every config.json value presync copied anywhere, the owner's
//!    credential files and the backups of native files. Upstream leaves them, so the next
//!    owner's agent would still answer the old owner's bots.
//!
//! **Idempotent.** Step 1 runs only when something of an owner is on the device (`has_owner`):
//! on a device as a reset left it, the active runtime resolves from the image default, and
//! resetting *that* runtime would wipe the image's own state of it. So a retried reset deletes
//! nothing, and steps 2 to 4 find nothing left to remove.
//!
//! Every configured path was checked before the plan ([`crate::device::Device::load_for_reset`]):
//! a runtime folder pointed out of its own tree by a setting refuses the reset. A symbolic link
//! inside a runtime's tree that leads out of it (a persona file or memory folder linked to
//! another disk) does not: a device that cannot be reset is a return to the factory. The reset
//! removes such a link itself, as a link, first (the runtime part), and plans the rest on a
//! [`Draft`] that has the link severed ([`Draft::sever`]), so nothing reads, lists or deletes
//! what it points at. Upstream's `rm -rf` follows such a link; osctl does not.
//!
//! Nothing here is deleted by hand: every removal is a [`Draft::remove`], so the reset is one
//! journaled plan (folders are moved aside by rename and can be rolled back), `--dry-run` shows
//! it, and a run killed halfway is restored by the next run before it plans again.
//!
//! Safety (see [`guard`]): each path is resolved under the device root (chroot-style, so no link
//! leads out of it) and deleted where it really is, a symlink in the way is removed as a link, a
//! mount point at or below a path refuses the whole reset before anything is deleted, and
//! nothing a reset keeps (bootstrap.json, f_r_default_agent, the other runtimes' homes, skills
//! and configs, osctl's own journal) can be removed, nor a folder above it. Rules that clear a
//! whole folder by listing it do not list through a symlinked folder.

pub(crate) mod guard;
pub(crate) mod owner;
pub(crate) mod render;

use std::path::PathBuf;

use crate::apply::lock::STATE_DIR;
use crate::device::Device;
use crate::device::config::DeviceConfig;
use crate::device::paths::{DeviceEnv, Layout};
use crate::error::Result;
use crate::format::mdblock::{
    PERSONA_INLINE_END, PERSONA_INLINE_START, find_delimited, strip_delimited,
};
use crate::path::DevPath;
use crate::plan::{CommandAction, Draft, Plan, ServiceAction};
use crate::runtime::{REGISTRY, ResetCommand, ResetStep, Runtime, RuntimeId, install};
use crate::system::fs::{Kind, RootFs};

use guard::Guard;

/// Device paths a reset removes besides config.json, agent_state.json and the log spool, whose
/// places follow the device's overrides ([`DeviceEnv`]).
pub(crate) const DEVICE_PATHS: &[&str] = &[
    "/root/local/users",
    "/root/local/strangers",
    "/var/lib/hal/snapshots",
    "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
];

const WIFI_CONFIG: &str = "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf";

/// wpa_supplicant keys whose values are passphrases or keys.
const WIFI_SECRET_KEYS: &[&str] = &[
    "psk",
    "password",
    "sae_password",
    "wep_key0",
    "wep_key1",
    "wep_key2",
    "wep_key3",
    "private_key_passwd",
];

/// What the reset planner needs.
pub(crate) struct Input<'a> {
    pub device: &'a Device,
    pub active: RuntimeId,
    /// Keep the active runtime's own state: only stop its unit, then wipe the device paths and
    /// every persona copy.
    pub keep_runtime_state: bool,
    /// Host paths of every mount point (from the mount table).
    pub mounts: &'a [PathBuf],
}

/// A reset, in two parts carried out in order.
#[derive(Debug, Default)]
pub(crate) struct ResetPlan {
    /// Service actions and the active runtime's own commands that come before its files. They
    /// change files osctl cannot foresee (`hermes setup --reset`), so the command runs them
    /// first and plans the files again afterwards.
    pub runtime: Plan,
    /// Everything else, in order (with a runtime command that comes after its files, like
    /// picoclaw's `onboard`).
    pub files: Plan,
    /// Per native file, the previous owner's values the plan clears from it (masked).
    pub cleared: Vec<(DevPath, Vec<String>)>,
    /// The links out of a runtime's tree that the runtime part removes first, as links.
    pub links: Vec<LinkOut>,
}

impl ResetPlan {
    /// Both parts as one plan, for the preview and the confirmation.
    pub(crate) fn combined(&self) -> Plan {
        let mut plan = self.runtime.clone();
        plan.extend(self.files.clone());
        plan
    }
}

/// Reads the device for a reset. A device without config.json (reset once already) reads as
/// every command reads it: the active runtime then comes from the image default, ROBOT.md or
/// the built-in default, as it does on the device. A config.json that is there but unreadable
/// stops the reset: without it osctl cannot tell which runtime's state to wipe.
///
/// A symbolic link inside a runtime's tree that leads out of it does not stop the reset (a
/// device that cannot be reset goes back to the factory): [`plan`] removes the link itself.
pub(crate) fn load_device(fs: &RootFs, env: &DeviceEnv) -> Result<Device> {
    Device::load_for_reset(fs, env).map(|(device, _)| device)
}

/// A symbolic link inside a runtime's tree that leads out of it, which the reset removes as a
/// link.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct LinkOut {
    /// The link, where it really is.
    pub link: DevPath,
    /// What it points at, as the link says: never read, never deleted.
    pub target: String,
}

/// The links out of their runtimes' trees on this device (see [`LinkOut`]).
fn links_out(fs: &RootFs, device: &Device) -> Result<Vec<LinkOut>> {
    let mut out = Vec::new();
    for escape in device.containment(fs)? {
        let Some(link) = escape.link else { continue };
        if out.iter().any(|l: &LinkOut| l.link == link) {
            continue;
        }
        let target = fs
            .read_link(&link)?
            .map(|t| t.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(LinkOut { link, target });
    }
    out.sort_by(|a, b| a.link.cmp(&b.link));
    Ok(out)
}

/// Plans a reset. Refusals (a mount point in the way, a kept path that a rule would remove)
/// stop it with exit 1 before anything is written.
pub(crate) fn plan(fs: &RootFs, input: &Input<'_>) -> Result<ResetPlan> {
    // Links out of a runtime's tree go first, as links, before any runtime command or file
    // rule could reach through them; the rest is planned as if they were gone already.
    let links = links_out(fs, input.device)?;
    let severed: Vec<DevPath> = links.iter().map(|l| l.link.clone()).collect();
    let mut cut = Draft::new(fs);
    for l in &links {
        cut.remove(
            &l.link,
            &format!(
                "a symbolic link out of its runtime's tree (to {}, left untouched)",
                l.target
            ),
        )?;
        cut.warn(format!(
            "{} is a symbolic link to {}, out of its runtime's tree: the reset removes the link itself and never reads or deletes what it points at",
            l.link, l.target
        ));
    }
    let severed_draft = || {
        let mut d = Draft::new(fs);
        d.sever(&severed);
        d
    };
    // The diff of a removed MCP container (a codex home emptied whole) shows its servers'
    // headers and env: register them as every MCP command does. A file that cannot be read is
    // the owner scrub's to report, if it is still there by then.
    for rt in REGISTRY {
        let _ = crate::mcp::reader::read(&severed_draft(), &input.device.layout, rt);
    }
    let mut p = Planner {
        draft: severed_draft(),
        fs,
        layout: &input.device.layout,
        guard: Guard::new(fs, protected_paths(input), input.mounts.to_vec())?,
        removed: severed,
        runtime: cut.finish(),
        files_started: false,
        keep_enabled: None,
    };
    let active = input.active.spec();
    // The runtime the device comes up with after the reset keeps its unit enabled, so the next
    // boot starts it: upstream disables the reset runtime's unit and its daemon enables the
    // resolved one at boot, which osctl's boot pass does not do.
    let next = input.device.resolve_without_config()?.runtime.spec();
    p.keep_enabled = p.unit_if_present(next)?;
    if input.keep_runtime_state {
        if let Some(unit) = p.unit(active)? {
            p.service(ServiceAction::Stop(unit));
        }
    } else if has_owner(fs, input.device)? {
        p.runtime_steps(active)?;
    } else {
        p.warn(format!(
            "nothing of an owner is on this device (no settings in {}, no switch in {}): nobody has set it up since it was reset (or ever), so {}'s own reset is skipped; its state is the image's",
            input.device.env.config_json(),
            input.device.env.agent_state(),
            active.name
        ));
    }
    p.files_started = true;
    p.device_paths(&input.device.env)?;
    p.personas()?;
    p.backups()?;
    p.inline_blocks()?;
    p.owner_values(input.device)?;
    p.guard.finish()?;
    let mut files = p.draft.finish();
    files.warnings.splice(0..0, p.runtime.warnings.drain(..));
    let cleared = owner::cleared(&files, &input.device.layout);
    Ok(ResetPlan {
        runtime: p.runtime,
        files,
        cleared,
        links,
    })
}

/// config.json keys that osctl itself writes on a device nobody has set up: the reconcile
/// markers of the first boot's baseline.
const BOOKKEEPING_KEYS: &[&str] = &[
    "channels_applied_runtime",
    "channels_unsupported",
    "mcp_applied_runtime",
    "llm_config_applied_runtime",
];

/// Whether the device holds anything of an owner since it was last reset (or ever). A reset
/// removes config.json and agent_state.json together; a device without either, or with only
/// what osctl writes there by itself on the next boot (the reconcile baselines, an
/// `agent_runtime` seeded with the runtime the chain resolves anyway, a one-entry history), has
/// no owner. Its active runtime then resolves from the image default, which need not be the
/// runtime the last reset reset: resetting *that* runtime would delete the image's own state of
/// it (its workspace and skills) on a device that holds nothing of an owner, which a retried
/// `reset --yes` must not do. Anything else in config.json (setup's settings, credentials) or a
/// switch in the history counts as an owner, so a device someone uses is reset whole. The rule
/// reads only the device, so every retry gives the same answer, and it needs no record of
/// earlier resets (it also holds on a device reset by upstream's os-server or an older osctl).
fn has_owner(fs: &RootFs, device: &Device) -> Result<bool> {
    let history = match crate::device::state::AgentState::load(fs, &device.env.agent_state()) {
        Ok(state) => state.history.len(),
        // Unreadable: someone wrote it; reset whole rather than guess.
        Err(_) => return Ok(true),
    };
    if history > 1 {
        return Ok(true);
    }
    if !device.config.exists {
        return Ok(false);
    }
    let mut unset = device.clone();
    unset.config = DeviceConfig::empty(device.config.path.clone());
    let chain = unset.resolve()?.runtime;
    Ok(device.config.fields.iter().any(|(key, value)| {
        let seeded =
            key == "agent_runtime" && device.config.agent_runtime().ok().flatten() == Some(chain);
        !(BOOKKEEPING_KEYS.contains(&key.as_str()) || seeded || value.is_null())
    }))
}

/// What a reset may never remove, nor a folder above: with a reason for the refusal.
fn protected_paths(input: &Input<'_>) -> Vec<(DevPath, String)> {
    let device = input.device;
    let layout = &device.layout;
    let env = &device.env;
    let mut out: Vec<(DevPath, String)> = vec![
        (layout.agent_home.clone(), "the agent home".into()),
        (env.bootstrap(), "the OTA worker's config".into()),
        (
            env.default_agent_file(),
            "the image's default runtime".into(),
        ),
        (
            env.config_json()
                .parent()
                .unwrap_or_else(|| DevPath::new("/")),
            "the device config folder".into(),
        ),
        (env.devices_dir(), "the robot profiles".into()),
        (DevPath::new(STATE_DIR), "osctl's journal and lock".into()),
        (DevPath::new("/etc/systemd"), "the unit files".into()),
        (DevPath::new("/usr/local/bin"), "the binaries".into()),
        (
            DevPath::new("/usr/local/lib/os-runtimes"),
            "the runtime hooks".into(),
        ),
    ];
    for rt in REGISTRY {
        let kept_whole = rt.id != input.active || input.keep_runtime_state;
        let what = |s: &str| format!("{}'s {s}", rt.name);
        if kept_whole {
            out.push((layout.path(rt.workspace), what("workspace")));
            out.push((layout.path(rt.home), what("home")));
            out.push((layout.path(rt.skills.dir), what("skills")));
            for f in rt.native {
                out.push((layout.path(f.loc), what(f.role)));
            }
        }
        if rt.id == input.active {
            for loc in rt.reset.keep {
                out.push((layout.path(*loc), what("kept state")));
            }
        }
    }
    out
}

struct Planner<'a, 'd> {
    draft: Draft<'d>,
    fs: &'d RootFs,
    layout: &'a Layout,
    guard: Guard,
    /// Real paths planned to go (a path under one is gone already).
    removed: Vec<DevPath>,
    runtime: Plan,
    /// Once the first file step is planned, actions join the file plan in order.
    files_started: bool,
    /// The unit of the runtime the device resolves to after the reset: never disabled.
    keep_enabled: Option<String>,
}

impl Planner<'_, '_> {
    /// The active runtime's unit, when a unit file exists (a `systemctl stop` of a unit that is
    /// not there fails, and would fail the reset).
    fn unit(&mut self, rt: &Runtime) -> Result<Option<String>> {
        let unit = install::unit_name(self.fs, rt)?;
        if install::find_unit_file(self.fs, &unit)?.is_some() {
            return Ok(Some(unit));
        }
        self.warn(format!(
            "{unit}.service has no unit file: there is no service to stop or disable"
        ));
        Ok(None)
    }

    /// A runtime's unit when its unit file exists, without a warning when it does not.
    fn unit_if_present(&self, rt: &Runtime) -> Result<Option<String>> {
        let unit = install::unit_name(self.fs, rt)?;
        Ok(install::find_unit_file(self.fs, &unit)?.map(|_| unit))
    }

    fn warn(&mut self, w: String) {
        if self.files_started {
            self.draft.warn(w);
        } else {
            self.runtime.warn(w);
        }
    }

    fn service(&mut self, action: ServiceAction) {
        if self.files_started {
            self.draft.service(action);
        } else {
            self.runtime.service(action);
        }
    }

    fn runtime_steps(&mut self, rt: &Runtime) -> Result<()> {
        let unit = self.unit(rt)?;
        let why = format!("{} reset", rt.name);
        for step in rt.reset.steps {
            match *step {
                ResetStep::StopUnit => {
                    if let Some(u) = &unit {
                        self.service(ServiceAction::Stop(u.clone()));
                    }
                }
                ResetStep::DisableUnit => {
                    if let Some(u) = unit
                        .as_ref()
                        .filter(|u| self.keep_enabled.as_ref() != Some(u))
                    {
                        self.service(ServiceAction::Disable(u.clone()));
                    }
                }
                ResetStep::Run(cmd) => self.command(cmd)?,
                ResetStep::Remove(loc) => {
                    self.files_started = true;
                    self.remove(&self.layout.path(loc), &why)?;
                }
                ResetStep::RemovePrefixed { dir, prefix } => {
                    self.files_started = true;
                    let dir = self.layout.path(dir);
                    for name in self.list_real_dir(&dir)? {
                        if name.starts_with(prefix) {
                            self.remove(&dir.join(&name), &why)?;
                        }
                    }
                }
                ResetStep::RemoveFilesExcept { dir, keep } => {
                    self.files_started = true;
                    let dir = self.layout.path(dir);
                    for name in self.list_real_dir(&dir)? {
                        let path = self.real(&dir)?.join(&name);
                        let is_dir =
                            matches!(self.fs.lstat(&path)?, Some(m) if m.kind == Kind::Dir);
                        if !keep.contains(&name.as_str()) && !is_dir {
                            self.remove(&path, &why)?;
                        }
                    }
                }
                ResetStep::EmptyExcept { dir, recreate } => {
                    self.files_started = true;
                    self.empty_except(&self.layout.path(dir), recreate, &why)?;
                }
            }
        }
        Ok(())
    }

    /// A runtime command, when its program is installed.
    fn command(&mut self, cmd: ResetCommand) -> Result<()> {
        let Some(program) = install::on_path(self.fs, cmd.program)? else {
            self.warn(format!(
                "{} is not installed: skipped `{} {}` ({})",
                cmd.program,
                cmd.program,
                cmd.args.join(" "),
                cmd.label
            ));
            return Ok(());
        };
        let mut argv = vec![program.to_string()];
        argv.extend(cmd.args.iter().map(|a| a.to_string()));
        let action = CommandAction {
            argv,
            env: cmd
                .env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            timeout_secs: cmd.timeout_secs,
            optional: cmd.optional,
            label: cmd.label.to_string(),
        };
        if self.files_started {
            self.draft.command(action);
        } else {
            self.runtime.command(action);
        }
        Ok(())
    }

    /// `rm -rf dir; mkdir dir/<recreate>`, as an emptying of `dir` (see [`ResetStep::EmptyExcept`]).
    fn empty_except(&mut self, dir: &DevPath, recreate: &[&str], why: &str) -> Result<()> {
        let real = self.real(dir)?;
        if self.is_removed(&real) {
            return Ok(());
        }
        match self.fs.lstat(&real)?.map(|m| m.kind) {
            Some(Kind::Dir) => {}
            None => {
                for name in recreate {
                    self.draft.mkdir(&real.join(name), why)?;
                }
                return Ok(());
            }
            Some(_) => {
                // A link (or a file) where the folder should be: removed as it is; the runtime's
                // presync creates the folders again.
                self.remove(dir, why)?;
                self.draft.warn(format!(
                    "{dir} was not a folder: removed it as it was; {} are created again by the runtime's presync",
                    recreate.join(", ")
                ));
                return Ok(());
            }
        }
        for name in self.draft.list_dir(&real)? {
            let child = real.join(&name);
            if !recreate.contains(&name.as_str()) {
                self.remove(&child, why)?;
                continue;
            }
            match self.fs.lstat(&child)?.map(|m| m.kind) {
                Some(Kind::Dir) => {
                    for inner in self.draft.list_dir(&child)? {
                        self.remove(&child.join(inner), why)?;
                    }
                }
                _ => {
                    self.remove(&child, why)?;
                    self.draft.warn(format!(
                        "{child} was not a folder: removed it; the runtime's presync creates it again"
                    ));
                }
            }
        }
        for name in recreate {
            let child = real.join(name);
            if self.fs.lstat(&child)?.is_none() {
                self.draft.mkdir(&child, why)?;
            }
        }
        Ok(())
    }

    fn device_paths(&mut self, env: &DeviceEnv) -> Result<()> {
        // config.json and agent_state.json go together, in one journaled plan: a history that
        // outlives its config makes the next boot migrate a stale persona back in.
        let pair = "device config (config.json and agent_state.json go together)";
        self.remove(&env.config_json(), pair)?;
        self.remove(&env.agent_state(), pair)?;
        for p in DEVICE_PATHS {
            let path = DevPath::new(p);
            if *p == WIFI_CONFIG {
                self.register_wifi_secrets(&path)?;
            }
            self.remove(&path, "device data")?;
        }
        self.remove(&env.gelf_spool(), "device log spool")?;
        // osctl's record of the MCP tools it synced from config.json's mcp_tools: the tools were
        // the owner's and the reset removes every MCP server, so a record left behind would say a
        // new owner's identical tool is in place when it is not.
        self.remove(
            &crate::reconcile::mcp_tools::record_path(),
            "osctl's record of the owner's MCP tools",
        )
    }

    /// The Wi-Fi passphrases of the config a reset deletes are secrets: the diff of its
    /// removal (`-v`, `--json`) must not show them.
    fn register_wifi_secrets(&self, path: &DevPath) -> Result<()> {
        let real = self.real(path)?;
        if !matches!(self.fs.lstat(&real)?, Some(m) if m.kind == Kind::File) {
            return Ok(());
        }
        let Some(bytes) = self.fs.read(&real)? else {
            return Ok(());
        };
        for line in String::from_utf8_lossy(&bytes).lines() {
            let Some((key, value)) = line.trim().split_once('=') else {
                continue;
            };
            if WIFI_SECRET_KEYS.contains(&key.trim()) {
                let value = value.trim().trim_matches('"');
                if !value.is_empty() {
                    crate::redact::register(value);
                }
            }
        }
        Ok(())
    }

    fn personas(&mut self) -> Result<()> {
        for rt in REGISTRY {
            for loc in rt.persona.wipe {
                let why = format!("{} persona", rt.name);
                self.remove(&self.layout.path(*loc), &why)?;
            }
        }
        Ok(())
    }

    /// `<persona file>.bak-<digits>` next to every persona file of every runtime.
    fn backups(&mut self) -> Result<()> {
        for rt in REGISTRY {
            for slot in persona_files(rt) {
                let path = self.layout.path(slot);
                let (Some(dir), Some(base)) = (path.parent(), path.file_name()) else {
                    continue;
                };
                for name in self.list_real_dir(&dir)? {
                    if is_backup_of(&name, base) {
                        let why = format!("{} persona backup", rt.name);
                        self.remove(&dir.join(&name), &why)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Strips the persona-inline block from codex and opencode `AGENTS.md`, keeping the rest.
    fn inline_blocks(&mut self) -> Result<()> {
        for rt in REGISTRY {
            for loc in rt.reset.inline_persona {
                let path = self.real(&self.layout.path(*loc))?;
                if self.is_removed(&path) {
                    continue;
                }
                let Some(text) = self.draft.read_text(&path)? else {
                    continue;
                };
                if find_delimited(&text, PERSONA_INLINE_START, PERSONA_INLINE_END).is_none() {
                    continue;
                }
                self.guard.check_edit(self.fs, &path)?;
                let stripped = strip_delimited(&text, PERSONA_INLINE_START, PERSONA_INLINE_END);
                let why = format!("{} persona inline block", rt.name);
                self.draft.write(&path, stripped, None, &why)?;
            }
        }
        Ok(())
    }

    /// Where `path` really is: every folder above it resolved under the root, the last
    /// component not followed. Always inside the root ([`Guard::inside`] checks it again).
    fn real(&self, path: &DevPath) -> Result<DevPath> {
        // At or below a link out of its tree: the link, which is planned to go already.
        if let Some(link) = self.draft.severed_above(path) {
            return Ok(link);
        }
        self.guard.inside(self.fs, path)
    }

    fn is_removed(&self, real: &DevPath) -> bool {
        self.removed.iter().any(|r| real.starts_with(r))
    }

    /// The names in a folder that a rule clears by listing it: none when the folder is missing,
    /// already removed, or a symlink (a listing rule never clears a folder through a link).
    fn list_real_dir(&mut self, dir: &DevPath) -> Result<Vec<String>> {
        let real = self.real(dir)?;
        if self.is_removed(&real) {
            return Ok(Vec::new());
        }
        match self.fs.lstat(&real)?.map(|m| m.kind) {
            Some(Kind::Dir) => self.draft.list_dir(&real),
            Some(Kind::Symlink) => {
                self.warn(format!(
                    "{dir} is a symbolic link: osctl does not clear a folder through a link; left as it is"
                ));
                Ok(Vec::new())
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Plans `path` to go, where it really is. Missing paths and paths inside a folder already
    /// planned to go are skipped; refusals are collected by the guard.
    fn remove(&mut self, path: &DevPath, why: &str) -> Result<()> {
        let real = self.real(path)?;
        if self.is_removed(&real) || self.fs.lstat(&real)?.is_none() {
            return Ok(());
        }
        if !self.guard.check_removal(self.fs, path, &real)? {
            return Ok(());
        }
        let reason = if real == *path {
            why.to_string()
        } else {
            format!("{why} ({path}, reached through a link)")
        };
        if self.draft.remove(&real, &reason)? {
            self.removed.push(real);
        }
        Ok(())
    }
}

/// A runtime's persona files (the slots migration backs up), without the memory folder.
fn persona_files(rt: &Runtime) -> Vec<crate::runtime::Loc> {
    let p = &rt.persona;
    [
        Some(p.soul),
        p.identity,
        Some(p.memory),
        Some(p.user),
        p.knowledge,
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// `SOUL.md.bak-1751846400123456789` is a backup of `SOUL.md` (migration's `<dest>.bak-<nanos>`).
pub(crate) fn is_backup_of(name: &str, base: &str) -> bool {
    name.strip_prefix(base)
        .and_then(|rest| rest.strip_prefix(".bak-"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests;
