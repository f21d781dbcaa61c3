//! One thin file per subcommand. A command reads the device, asks a planner for a [`Plan`], and
//! hands it to [`Ctx::finish`], which prints it (`--dry-run`), counts it (`--check`) or applies
//! it. A command that reports instead (status, doctor, the lists, a recover preview) builds one
//! typed report (`Serialize` for `--json`, `Display` for the text) and hands it to
//! [`Printer::render`]. The logic lives in `device/`, `runtime/`, `persona/` and `plan/`.

pub(crate) mod channel;
mod completions;
mod doctor;
pub(crate) mod mcp;
mod migrate;
mod presync;
mod reconcile;
mod recover;
mod reset;
mod setup;
mod skills;
mod status;
mod switch;

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::apply::lock::{DeviceLock, Holder};
use crate::apply::{self, Target, journal};
use crate::cli::{Cli, Command, GlobalArgs};
use crate::device::Device;
use crate::device::paths::DeviceEnv;
use crate::error::{Exit, Result};
use crate::output::Printer;
use crate::plan::{Plan, render};
use crate::system::fs::RootFs;
use crate::system::services::Services;

/// Everything a command needs, resolved once from the command line and the environment.
pub struct Ctx {
    pub fs: RootFs,
    pub out: Printer,
    pub services: Services,
    pub env: DeviceEnv,
    pub dry_run: bool,
    pub check: bool,
    pub json: bool,
    pub yes: bool,
    /// `--stat`: a preview shows per file counts instead of the diff.
    pub stat: bool,
    /// `--no-diff`: a preview shows its summary only.
    pub no_diff: bool,
    pub lock_timeout: Duration,
    /// The command line with every secret masked, for the journal and the lock holder's note.
    pub command_line: String,
    /// The subcommand (`presync`, `switch`...), for the lock holder's note.
    pub operation: &'static str,
}

impl Ctx {
    pub fn new(
        global: &GlobalArgs,
        operation: &'static str,
        out: Printer,
        env_lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Ctx> {
        let fs = RootFs::new(&global.root)?;
        let live = fs.is_live();
        Ok(Ctx {
            services: Services::new(
                live,
                env_lookup("OSCTL_SYSTEMCTL"),
                env_lookup("OSCTL_JOURNALCTL"),
            ),
            env: DeviceEnv::new(live, env_lookup),
            fs,
            out,
            dry_run: global.dry_run,
            check: global.check,
            json: global.json,
            yes: global.yes,
            stat: global.stat,
            no_diff: global.no_diff,
            lock_timeout: Duration::from_secs(global.lock_timeout),
            command_line: crate::redact::mask_command_line(
                &std::env::args_os()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect::<Vec<_>>(),
            ),
            operation,
        })
    }

    /// Reads the device's configuration.
    pub fn device(&self) -> Result<Device> {
        Device::load(&self.fs, &self.env)
    }

    /// Whether this run only previews (`--dry-run` or `--check`).
    pub fn previewing(&self) -> bool {
        self.dry_run || self.check
    }

    /// Takes the device lock for a run that changes the device, then restores any run that was
    /// interrupted before (so planning starts from a whole state). A preview takes no lock; it
    /// warns about an interrupted run instead. A second `osctl switch` is refused at once (busy)
    /// while one holds the lock, as upstream refuses it; everything else waits for the lock.
    pub fn lock(&self) -> Result<Option<DeviceLock>> {
        if self.previewing() {
            for p in journal::pending(&self.fs)? {
                self.out.warn(&match &p.refused {
                    Some(why) => format!("{why}; a run that changes the device refuses to start"),
                    None => format!(
                        "an interrupted run left the journal {} ({}); the next run that changes the device restores it first",
                        p.path, p.command
                    ),
                });
            }
            return Ok(None);
        }
        let me = self.holder();
        let exclusive = self.operation == "switch";
        let lock = DeviceLock::acquire_as(&self.fs, self.lock_timeout, &me, exclusive)?;
        self.recover()?;
        Ok(Some(lock))
    }

    /// Takes the device lock only if no other run holds it right now, restoring interrupted runs
    /// as [`Ctx::lock`] does; `None` when it is held (a journal on disk is then the holder's own).
    pub fn try_lock(&self) -> Result<Option<DeviceLock>> {
        match DeviceLock::try_acquire_as(&self.fs, &self.holder())? {
            Some(lock) => {
                self.recover()?;
                Ok(Some(lock))
            }
            None => Ok(None),
        }
    }

    /// Where this run applies its changes: the root, systemd, the printer, the command line.
    pub fn target(&self) -> Target<'_> {
        Target {
            fs: &self.fs,
            services: &self.services,
            out: &self.out,
            command: &self.command_line,
        }
    }

    /// A switch killed before its commit point left its record. Holding the lock (which has
    /// restored the switch's files), brings its services in line with config.json and says
    /// whether it did, so the caller reads the device again; a preview, which holds no lock,
    /// only warns that `what` would do it first.
    pub fn converge_interrupted_switch(
        &self,
        lock: &Option<DeviceLock>,
        device: &Device,
        what: &str,
    ) -> Result<bool> {
        if lock.is_some() {
            return Ok(crate::switch::converge::if_interrupted(&self.target(), device)?.is_some());
        }
        if let Some(r) = crate::switch::record::read(&self.fs)? {
            self.out.warn(&format!(
                "a switch from {} to {} was interrupted; {what} first brings the services in line with config.json",
                r.from, r.to
            ));
        }
        Ok(false)
    }

    /// This run, as the lock holder's note names it.
    pub fn holder(&self) -> Holder {
        Holder::me(self.operation, &self.command_line)
    }

    /// Restores interrupted runs (the lock is held) and warns about what it did. A path that
    /// could not be put back is a warning that names it and where its original is kept: the run
    /// goes on, so one undeletable file cannot wedge the device (`osctl recover` itself exits 5).
    fn recover(&self) -> Result<()> {
        for r in journal::recover_all(&self.fs, &self.services)? {
            for line in recovered_lines(&r) {
                self.out.warn(&line);
            }
        }
        Ok(())
    }

    /// Prints, checks or applies a plan; the command's own `fields` join the run's report
    /// (the `--json` document, [`PlanReport`]). A preview prints the diff on stdout (`--stat`:
    /// per file counts, `--no-diff` and `-q`: none); its summary goes to stderr.
    pub fn finish(&self, plan: &Plan, fields: &impl Serialize) -> Result<Exit> {
        for w in &plan.warnings {
            self.out.warn(w);
        }
        let mut report = PlanReport {
            pending: !plan.is_empty() && self.previewing(),
            fields,
            plan: render::json(plan),
            changed: false,
            applied: None,
        };
        if plan.is_empty() {
            self.out.status("nothing to do");
            self.out.report_of(&report)?;
            return Ok(Exit::Success);
        }
        if self.previewing() {
            self.out.report_of(&report)?;
            self.preview(plan);
            let mode = if self.check { "check" } else { "dry-run" };
            self.out
                .status(&format!("{mode}: would change {}", render::summary(plan)));
            return Ok(if self.check {
                Exit::Pending
            } else {
                Exit::Success
            });
        }
        let applied = apply::apply(&self.target(), plan)?;
        for skipped in &applied.skipped_offline {
            self.out
                .status(&format!("not run (no systemd under this root): {skipped}"));
        }
        report.changed = true;
        report.applied = Some(&applied);
        self.out.report_of(&report)?;
        if self.out.verbose > 0 {
            self.preview(plan);
        }
        self.out
            .status(&format!("changed {}", render::summary(plan)));
        Ok(Exit::Success)
    }

    /// A plan's diff on stdout as the flags ask: the whole diff (coloured when stdout's colour is
    /// on), `--stat` per file counts, nothing with `--no-diff` or `-q`.
    pub fn preview(&self, plan: &Plan) {
        if self.out.quiet || self.no_diff {
            return;
        }
        if self.stat {
            self.out.product(&render::stat(plan));
        } else {
            let diff = render::diff(plan);
            if self.out.color_stdout() {
                self.out.product(&render::paint_diff(&diff));
            } else {
                self.out.product(&diff);
            }
        }
    }
}

/// The `--json` fields of a command that previews or applies one plan: whether it is pending,
/// the command's own fields, the plan, and what applying it did. (`changed` goes to the
/// envelope.)
#[derive(Serialize)]
struct PlanReport<'a, F: Serialize> {
    pending: bool,
    #[serde(flatten)]
    fields: &'a F,
    plan: Value,
    changed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    applied: Option<&'a apply::Applied>,
}

/// What recovery did with one journal, as lines for the operator.
pub fn recovered_lines(r: &journal::Recovered) -> Vec<String> {
    let o = &r.outcome;
    let mut lines = Vec::new();
    if r.rolled_forward {
        lines.push(format!(
            "an interrupted run ({}) had written all its files; kept them and finished its service actions, journal {}",
            r.command, r.id
        ));
    } else if !r.finished {
        lines.push(format!(
            "restored {} path(s) left by an interrupted run ({}), journal {}",
            o.restored, r.command, r.id
        ));
        lines.extend(o.left.iter().chain(&o.failed).cloned());
    }
    lines.extend(r.actions.iter().map(|a| format!("ran {a}")));
    lines.extend(r.not_run.iter().cloned());
    if let Some(kept) = &o.kept {
        lines.push(format!(
            "what could not be put back is kept in {kept} (its originals and manifest.json); osctl does not retry it"
        ));
    }
    lines.extend(o.cleanup.iter().cloned());
    lines
}

/// The name a command reports itself as in JSON and errors.
pub fn name(command: &Command) -> &'static str {
    match command {
        Command::Status(_) => "status",
        Command::Recover => "recover",
        Command::Doctor => "doctor",
        Command::Reconcile(_) => "reconcile",
        Command::Presync(_) => "presync",
        Command::Migrate(_) => "migrate",
        Command::Switch(_) => "switch",
        Command::Reset(_) => "reset",
        Command::Setup(_) => "setup",
        Command::Skills(cmd) => skills::name(cmd),
        Command::Mcp(cmd) => mcp::name(cmd),
        Command::Channel(cmd) => channel::name(cmd),
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
    }
}

/// Commands that only read the device (their document's `mode` is `read`).
const READ_ONLY: &[&str] = &[
    "status",
    "doctor",
    "skills list",
    "skills verify",
    "mcp list",
    "channel list",
    "completions",
    "man",
    "version",
    // A usage error that names no command.
    "osctl",
];

/// A run's `mode`: `read` for a command that never changes the device, else what the flags
/// ask (`check`, `dry-run`, `apply`).
pub fn mode_of(name: &str, check: bool, dry_run: bool) -> crate::output::Mode {
    use crate::output::Mode;
    if READ_ONLY.contains(&name) {
        Mode::Read
    } else if check {
        Mode::Check
    } else if dry_run {
        Mode::DryRun
    } else {
        Mode::Apply
    }
}

/// [`mode_of`] for a parsed command line.
pub fn mode(command: &Command, global: &GlobalArgs) -> crate::output::Mode {
    mode_of(name(command), global.check, global.dry_run)
}

/// Commands that need no device (no `--root` check).
pub fn needs_device(command: &Command) -> bool {
    !matches!(command, Command::Completions(_) | Command::Man(_))
}

/// Runs a command that works on a device.
pub fn dispatch(cli: &Cli, ctx: &Ctx) -> Result<Exit> {
    match &cli.command {
        Command::Status(args) => status::run(ctx, args),
        Command::Recover => recover::run(ctx),
        Command::Doctor => doctor::run(ctx, &cli.global.root),
        Command::Reconcile(args) => reconcile::run(ctx, args),
        Command::Presync(args) => presync::run(ctx, args),
        Command::Migrate(args) => migrate::run(ctx, args),
        Command::Switch(args) => switch::run(ctx, args),
        Command::Reset(args) => reset::run(ctx, args),
        Command::Setup(args) => setup::run(ctx, args),
        Command::Skills(cmd) => skills::run(ctx, cmd),
        Command::Mcp(cmd) => mcp::run(ctx, cmd),
        Command::Channel(cmd) => channel::run(ctx, cmd),
        Command::Completions(_) | Command::Man(_) => dispatch_without_device(cli),
    }
}

/// Runs a command that needs no device.
pub fn dispatch_without_device(cli: &Cli) -> Result<Exit> {
    match &cli.command {
        Command::Completions(args) => completions::completions(args.shell),
        Command::Man(args) => completions::man(&args.command),
        _ => Err(crate::error::Error::internal("this command needs a device")),
    }
}
