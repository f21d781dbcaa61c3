//! The command line, as clap types. Doc comments here are the help text (and the man page).

pub mod channel;
pub mod complete;
pub mod man;
pub mod mcp;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::output::ColorChoice;

/// Operator toolkit for a device OS that runs one of six swappable AI-agent runtimes
/// (openclaw, hermes, picoclaw, codex, claudecode, opencode) under systemd.
///
/// Every command works on the live device (`--root /`) or on a device tree elsewhere: a mounted
/// SD-card image or a test fixture. Commands that change the device compute their whole change
/// first: `--dry-run` prints it as a diff (secrets masked), `--check` exits 3 when anything would
/// change, and otherwise it is applied atomically under a device-wide lock, with a journal that
/// rolls everything back on failure.
#[derive(Debug, Parser)]
#[command(
    name = "osctl",
    version,
    long_version = LONG_VERSION,
    propagate_version = true,
    max_term_width = 100,
    after_long_help = EXIT_CODES
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// `osctl --version`: the version, then what built it (`-V` prints the version alone).
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit:   ",
    env!("OSCTL_COMMIT"),
    "\ntarget:   ",
    env!("OSCTL_TARGET"),
    "\ncompiler: ",
    env!("OSCTL_RUSTC"),
    "\nprofile:  ",
    env!("OSCTL_PROFILE")
);

/// Shown after `--help` and in the man page.
const EXIT_CODES: &str = "\
Exit status:
  0    success, including nothing to do and a dry run
  1    failed before any write: bad input, a parse error, a runtime or channel refused in a file
  2    usage error, including a runtime or channel name on the command line that osctl refuses
  3    --check: changes are pending
  4    failed while applying; everything was rolled back
  5    partly applied: some steps landed and some did not, or a rollback could not finish; the
       message and the JSON list which
  6    busy: another osctl run holds the device lock
  101  internal error (a bug)
  130  interrupted (SIGINT, SIGTERM, SIGHUP) during a change; what it had changed was rolled
       back (a change past its commit point is finished first)

Environment:
  OSCTL_ROOT       default for --root
  OSCTL_YES        default for --yes
  NO_COLOR         no colour with --color auto
  CLICOLOR_FORCE   colour with --color auto, even when not a terminal
  OSCTL_SYSTEMCTL  the systemctl to call (a test double); also lets service actions run under a
                   root other than /
  OSCTL_COMPLETE   set by the completion scripts (bash, zsh, fish): print the candidates for the
                   command line after `--` and exit, reading the device only";

/// The options every command accepts on its command line; [`applicable_globals`] says which of
/// them mean something to which command (the others are refused as usage errors).
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// The device root: every device path is resolved under it, and nothing outside it is read
    /// or written. Service actions run only when it is `/`.
    #[arg(
        long,
        global = true,
        env = "OSCTL_ROOT",
        default_value = "/",
        value_name = "DIR"
    )]
    pub root: PathBuf,

    /// Print what would change (a unified diff, secrets masked) and change nothing.
    #[arg(short = 'n', long, global = true)]
    pub dry_run: bool,

    /// Change nothing; exit 3 when something would change, 0 when all is in place.
    #[arg(long, global = true)]
    pub check: bool,

    /// Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    /// Also write progress events as JSON lines: to this open file descriptor, or `-` for
    /// stderr (stdout stays the document's).
    #[arg(long, global = true, value_name = "FD|-")]
    pub events: Option<String>,

    /// Previews: per file its path and +/- line counts, then the summary, instead of the diff.
    #[arg(long, global = true, conflicts_with = "no_diff")]
    pub stat: bool,

    /// Previews: the summary only, no diff.
    #[arg(long, global = true)]
    pub no_diff: bool,

    /// Print only errors and warnings on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Say more: each file and action as it is applied, the plan's diff after an apply.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Answer yes to confirmations (needed without a terminal for commands that ask).
    #[arg(
        short = 'y',
        long,
        global = true,
        env = "OSCTL_YES",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub yes: bool,

    /// Seconds to wait for the device lock held by another osctl run before giving up (exit 6).
    #[arg(long, global = true, default_value_t = 30, value_name = "SECS")]
    pub lock_timeout: u64,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show which runtime is active and why, and the state of every runtime.
    Status(StatusArgs),

    /// Switch the active runtime: install it when needed, start its unit and require it to stay
    /// up, stop the old one, then record it in config.json (the commit point) and reconcile. Any
    /// failure before the commit point rolls back (exit 4; 5 when the rollback is incomplete).
    Switch(Box<SwitchArgs>),

    /// Carry persona, LLM config, channels and MCP servers over to the active runtime after a
    /// switch (at first boot, first seed an empty agent_runtime); each step is its own
    /// transaction guarded by its marker, so a failed step is retried by the next run.
    Reconcile(ReconcileArgs),

    /// Heal a runtime's native configuration before it starts (systemd `ExecStartPre=`, the
    /// switch, the `runtime-<rt>-presync` hook): LLM wiring per `llm_config_mode`, gateway and
    /// local tokens, channel credentials, the OS blocks of its prompt files, one-time steps.
    /// Keys osctl does not own are kept; a second run changes nothing.
    Presync(PresyncArgs),
    /// Carry the owner's persona and memory (SOUL.md, identity, MEMORY.md with the daily notes,
    /// KNOWLEDGE.md, USER.md) from one runtime's files into another's, backing up every file it
    /// replaces. Runtime-only files (AGENTS.md, TOOLS.md, HEARTBEAT.md, CLAUDE.md, hooks/) stay.
    Migrate(MigrateArgs),
    /// Factory-reset the agent side of the device: the active runtime's own state, the device's
    /// config, users and Wi-Fi, and every copy of the owner's persona in every runtime's tree
    /// (backups and AGENTS.md inline blocks included). It shows the plan and asks first; without
    /// a terminal it needs --yes.
    Reset(ResetArgs),

    /// Install osctl's own systemd units: the boot pass (`osctl reconcile` before the runtime
    /// starts), the skills timer (`osctl skills sync` every 5 minutes) and a presync drop-in
    /// (`ExecStartPre=-osctl presync <rt>`) for each runtime whose unit exists, enabled as
    /// `systemctl enable` does. Works on a mounted image with `--root IMAGE`; on the live device
    /// it also reloads systemd and starts the timer. A second run changes nothing.
    Setup(SetupArgs),

    /// MCP servers of a runtime, in its own file: add, remove, list.
    #[command(subcommand)]
    Mcp(mcp::McpCommand),

    /// Messaging channels: add, remove, list.
    #[command(subcommand)]
    Channel(channel::ChannelCommand),

    /// Restore what interrupted runs left behind, from their journals (every run that changes
    /// the device also does this first), and bring the services of an interrupted switch in
    /// line with config.json.
    Recover,

    /// Check the device and say what to run next: files that do not parse, presync out of sync,
    /// reconcile markers behind, leftover journals, the lock holder, skills drift, and on the
    /// device unit states with a failed unit's journal. Read-only; exit 3 when it finds anything.
    Doctor,

    /// Keep the runtime's skills in step with the skills CDN: download, verify, install and prune
    /// capability-gated skills (and openclaw's OS hooks).
    #[command(subcommand)]
    Skills(SkillsCommand),

    /// Print a shell completion script: `source <(osctl completions bash)`, or install it where
    /// the shell looks (the package does). At each TAB the script asks the installed osctl, so
    /// `mcp remove <TAB>` offers the servers in the runtime's file and `channel remove <TAB>`
    /// the configured channels, under the `--root` and `--runtime` typed before.
    Completions(CompletionsArgs),

    /// Print a man page (roff): osctl(1), or a command's own page (`osctl man mcp add` prints
    /// osctl-mcp-add(1)). View one with `osctl man switch | man -l -`.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct StatusArgs {}

#[derive(Debug, Args)]
pub struct SetupArgs {}

#[derive(Debug, Args)]
pub struct SwitchArgs {
    /// The runtime to switch to (trimmed, case-insensitive; `pi` is openclaw, `codex-app-server`
    /// is codex).
    #[arg(value_name = "RUNTIME", value_parser = crate::switch::RuntimeNameParser)]
    pub runtime: String,

    /// Once the unit is up, run the runtime's ready hook until it passes; not ready → roll back.
    #[arg(long)]
    pub wait_ready: bool,

    /// How many times the ready hook runs before the switch gives up (with --wait-ready).
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub ready_tries: u32,

    /// Seconds between two runs of the ready hook.
    #[arg(long, default_value = "5", value_name = "SECS", value_parser = crate::switch::parse_secs)]
    pub ready_interval: std::time::Duration,

    /// Seconds the new unit must stay active, with no restart, before the old one is stopped.
    #[arg(long, default_value = "5", value_name = "SECS", value_parser = crate::switch::parse_secs)]
    pub settle: std::time::Duration,

    /// Do not run the reconcilers after the commit point (run `osctl reconcile` later).
    #[arg(long)]
    pub no_reconcile: bool,

    /// When the runtime needs installing, run this installer instead of the embedded one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["from_cdn", "installer_url"])]
    pub installer: Option<PathBuf>,

    /// When the runtime needs installing, download its installer from the runtime CDN:
    /// `$RUNTIMES_BASE_URL/<runtime>/install.sh` (HTTPS only).
    #[arg(long, conflicts_with = "installer_url")]
    pub from_cdn: bool,

    /// When the runtime needs installing, download its installer from this HTTPS URL.
    #[arg(long, value_name = "URL")]
    pub installer_url: Option<String>,

    /// The runtime CDN that --from-cdn downloads from.
    #[arg(
        long,
        env = "RUNTIMES_BASE_URL",
        default_value = crate::switch::installer::DEFAULT_CDN,
        value_name = "URL"
    )]
    pub runtimes_base_url: String,

    /// Run a named installer (--installer, --from-cdn, --installer-url) only if its SHA-256 is
    /// this (hexadecimal).
    #[arg(long, value_name = "HEX")]
    pub installer_sha256: Option<String>,

    /// Pass KEY=VALUE to the installer's environment (repeatable), e.g. PICO_VERSION=v0.3.2.
    #[arg(long, value_name = "KEY=VALUE")]
    pub installer_env: Vec<String>,

    /// Seconds the installer may run before it is killed.
    #[arg(long, default_value_t = 1800, value_name = "SECS")]
    pub install_timeout: u64,

    /// Trust only the certificates in this PEM file for the installer download.
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReconcileArgs {
    /// Run only this step.
    #[arg(long, value_enum, value_name = "STEP")]
    pub only: Option<crate::reconcile::StepName>,
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// One pass of the skill watcher: fetch the skills metadata (verified when bootstrap.json
    /// has a signing key), install every supported skill whose version changed, prune
    /// unsupported ones, refresh openclaw's OS hooks, and tell the agent what changed.
    ///
    /// Each skill's zip is checked against its version (a sha256 prefix) before it is opened,
    /// unpacked with every entry checked, refused if it ships secrets or developer-machine paths,
    /// and swapped in whole. One bad skill does not stop the others; the exit status is 1 when
    /// any failed. The installed versions are recorded in /var/lib/osctl/skills.json.
    Sync(SkillsSyncArgs),

    /// List the runtime's skills: version, whether the device supports it, folder hash.
    List(SkillsListArgs),

    /// Recompute the hashes of the skills osctl installed and report drift (exit 3 when a
    /// folder was changed or removed since).
    Verify(SkillsListArgs),
}

#[derive(Debug, Args)]
pub struct SkillsSyncArgs {
    /// The runtime whose skills folder to sync (default: the active runtime).
    #[arg(long, value_parser = crate::runtime::RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<crate::runtime::RuntimeId>,

    /// The OTA metadata that lists the skills (default: bootstrap.json `metadata_url`). Zips are
    /// fetched from `<base>/skills/<name>.zip`, where `<base>` is this URL without
    /// `/ota/metadata.json`.
    #[arg(long, value_name = "URL")]
    pub metadata_url: Option<String>,

    /// Run this shell command with the update prompt on its standard input when a skill's
    /// content changed (not run when nothing changed).
    #[arg(long, value_name = "CMD")]
    pub notify_cmd: Option<String>,

    /// Trust only the certificates in this PEM file (default: the system's CA store, or the
    /// roots built into osctl when the system has none).
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,

    /// Seconds one request may take as a whole (connecting, the answer and the whole body) before
    /// giving up.
    #[arg(long, default_value_t = 30, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

#[derive(Debug, Args)]
pub struct SkillsListArgs {
    /// The runtime whose skills folder to read (default: the active runtime).
    #[arg(long, value_parser = crate::runtime::RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<crate::runtime::RuntimeId>,
}

#[derive(Debug, Args)]
pub struct ResetArgs {
    /// Reboot once the reset is done (the device sets its runtime up again on boot).
    #[arg(long)]
    pub reboot: bool,

    /// Keep the active runtime's own state (sessions, credentials, config): only stop its unit,
    /// then wipe the device paths and every persona copy.
    #[arg(long)]
    pub keep_runtime_state: bool,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The runtime whose persona is read.
    #[arg(long, value_name = "RUNTIME", value_parser = crate::runtime::RuntimeParser)]
    pub from: crate::runtime::RuntimeId,

    /// The runtime whose persona files are written.
    #[arg(long, value_name = "RUNTIME", value_parser = crate::runtime::RuntimeParser)]
    pub to: crate::runtime::RuntimeId,

    /// Leave the daily memory files (`memory/YYYY-MM-DD.md`) out of the destination's MEMORY.md.
    #[arg(long)]
    pub no_daily: bool,

    /// Keep a destination SOUL.md that differs (reported as a conflict) instead of backing it up
    /// and replacing it.
    #[arg(long)]
    pub no_overwrite: bool,
}

#[derive(Debug, Args)]
pub struct PresyncArgs {
    /// The runtime to presync (default: the active runtime).
    #[arg(value_parser = crate::runtime::RuntimeParser, value_name = "RUNTIME")]
    pub runtime: Option<crate::runtime::RuntimeId>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`mcp add`); none prints osctl(1).
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Global options that mean something to every command working on a device: where it is, and
/// how the report is printed.
const READ_GLOBALS: &[&str] = &["root", "json", "quiet", "verbose", "color"];

/// ... and to every command that may change it: the preview modes and the lock it takes.
const CHANGE_GLOBALS: &[&str] = &[
    "root",
    "json",
    "quiet",
    "verbose",
    "color",
    "dry_run",
    "check",
    "stat",
    "no_diff",
    "lock_timeout",
];

/// `switch` alone reports progress as it goes (its phases), so `--events` means something to
/// it alone.
const SWITCH_GLOBALS: &[&str] = &[
    "root",
    "json",
    "quiet",
    "verbose",
    "color",
    "dry_run",
    "check",
    "stat",
    "no_diff",
    "lock_timeout",
    "events",
];

/// `reset` alone asks for a confirmation, so `--yes` means something to it alone.
const ASKING_GLOBALS: &[&str] = &[
    "root",
    "json",
    "quiet",
    "verbose",
    "color",
    "dry_run",
    "check",
    "stat",
    "no_diff",
    "lock_timeout",
    "yes",
];

/// Which global options (by argument id) apply to a command, named by its path (`["mcp",
/// "add"]`). The one table of it: a global given on the command line that is not in a command's
/// set is a usage error ([`parse`]), so `status --check` or `completions bash --json` cannot
/// look accepted while meaning nothing. `None` for a path that is not a command.
pub fn applicable_globals(path: &[&str]) -> Option<&'static [&'static str]> {
    Some(match path {
        ["status"]
        | ["doctor"]
        | ["mcp", "list"]
        | ["channel", "list"]
        | ["skills", "list" | "verify"] => READ_GLOBALS,
        ["switch"] => SWITCH_GLOBALS,
        ["reconcile"]
        | ["presync"]
        | ["migrate"]
        | ["setup"]
        | ["recover"]
        | ["skills", "sync"]
        | ["mcp", "add" | "remove"]
        | ["channel", "add" | "remove"] => CHANGE_GLOBALS,
        ["reset"] => ASKING_GLOBALS,
        // They print what the binary holds and read no device.
        ["completions"] | ["man"] => &[],
        _ => return None,
    })
}

/// The ids of the global options (`--help` and `--version` aside).
pub fn global_ids() -> Vec<String> {
    use clap::CommandFactory;
    Cli::command()
        .get_arguments()
        .filter(|a| a.is_global_set() && !matches!(a.get_id().as_str(), "help" | "version"))
        .map(|a| a.get_id().to_string())
        .collect()
}

/// The clap command of osctl, built, with each command's inapplicable global options hidden
/// from its `--help`, its man page and the completions (they still parse, so [`parse`] can name
/// them in its usage error).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    fn hide(cmd: clap::Command, path: &[String]) -> clap::Command {
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        let cmd = match applicable_globals(&words) {
            Some(applicable) => cmd.mut_args(|a| {
                if a.is_global_set() && !applicable.contains(&a.get_id().as_str()) {
                    a.hide(true)
                } else {
                    a
                }
            }),
            None => cmd,
        };
        cmd.mut_subcommands(|sub| {
            let mut p = path.to_vec();
            p.push(sub.get_name().to_string());
            hide(sub, &p)
        })
    }
    let mut cmd = Cli::command();
    // Globals are copied into each subcommand when it is built; hide the copies after.
    cmd.build();
    with_manual(hide(cmd, &[]), &[])
}

/// Where the package installs the book (`docs/book/src/` in the source tree).
pub const BOOK_DIR: &str = "/usr/share/doc/osctl/book";

/// The book's chapter of a command (by its first word), as (file, title): what `--help`'s last
/// line and the man page's SEE ALSO point at.
pub fn chapter(path: &[&str]) -> Option<(&'static str, &'static str)> {
    Some(match path.first()? {
        &"status" => ("status.md", "osctl status"),
        &"doctor" => ("doctor.md", "osctl doctor"),
        &"presync" => ("presync.md", "osctl presync"),
        &"migrate" => ("migrate.md", "osctl migrate"),
        &"switch" => ("switch.md", "osctl switch"),
        &"reconcile" => ("reconcile.md", "osctl reconcile"),
        &"reset" => ("reset.md", "osctl reset"),
        &"recover" => ("recover.md", "osctl recover"),
        &"skills" => ("skills.md", "osctl skills"),
        &"mcp" => ("mcp.md", "osctl mcp"),
        &"channel" => ("channels.md", "osctl channel"),
        &"setup" => ("setup.md", "osctl setup"),
        &"completions" | &"man" => ("completions.md", "Completions and man pages"),
        _ => return None,
    })
}

/// The line `--help` ends with: the chapter of the book that is the command's manual.
pub fn manual_line(path: &[&str]) -> Option<String> {
    let (file, title) = chapter(path)?;
    Some(format!(
        "Manual: the book's chapter \"{title}\", {BOOK_DIR}/{file} (docs/book/src/{file} in the source)"
    ))
}

fn with_manual(cmd: clap::Command, path: &[String]) -> clap::Command {
    let words: Vec<&str> = path.iter().map(String::as_str).collect();
    let cmd = match manual_line(&words) {
        Some(line) => cmd.after_help(line),
        None => cmd,
    };
    cmd.mut_subcommands(|sub| {
        let mut p = path.to_vec();
        p.push(sub.get_name().to_string());
        with_manual(sub, &p)
    })
}

/// Parses the command line as [`Cli`], then refuses a global option given on it that does not
/// apply to the command (a clap usage error, exit 2, naming the option). Only what is written on
/// the command line counts: `OSCTL_ROOT` or `OSCTL_YES` in the environment are defaults, not
/// requests, so they never make a command fail.
pub fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::FromArgMatches;
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(args)?;
    let cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))?;
    let mut path = Vec::new();
    let mut leaf = &matches;
    while let Some((name, sub)) = leaf.subcommand() {
        path.push(name);
        leaf = sub;
    }
    let applicable = applicable_globals(&path).unwrap_or(&[]);
    for id in global_ids() {
        if applicable.contains(&id.as_str())
            || leaf.value_source(&id) != Some(clap::parser::ValueSource::CommandLine)
        {
            continue;
        }
        let sub = path
            .iter()
            .try_fold(&mut cmd, |c, name| c.find_subcommand_mut(name));
        let flag = flag_name(&id);
        let msg = format!("{flag} does not apply to `osctl {}`", path.join(" "));
        let err = clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, msg);
        return Err(match sub {
            Some(sub) => err.format(sub),
            None => err.format(&mut command()),
        });
    }
    Ok(cli)
}

/// How a global option is written on the command line (`--dry-run` for `dry_run`).
fn flag_name(id: &str) -> String {
    format!("--{}", id.replace('_', "-"))
}
