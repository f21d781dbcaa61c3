//! osctl: operator toolkit for a device OS that runs one of six swappable AI-agent runtimes
//! (openclaw, hermes, picoclaw, codex, claudecode, opencode) under systemd.
//!
//! Every command follows one data flow:
//!
//! ```text
//! argv --clap--> Cli --resolve--> Ctx (root, flags, device env: read once, here)
//! Ctx + device files (read through system::fs::RootFs) --plan (pure)--> Plan
//! Plan --render--> unified diff / JSON on stdout      (--dry-run, --check: nothing written)
//! Plan --apply---> journal, atomic durable writes, service actions; roll back on failure
//! Report --render--> its text (Display) / its JSON fields on stdout   (status, doctor, lists)
//! ```
//!
//! - [`cli`]: the command line (clap types only).
//! - [`commands`]: one thin file per subcommand.
//! - [`device`]: config.json, agent_state.json, ROBOT.md, bootstrap.json, runtime resolution.
//! - [`runtime`]: one folder per runtime (its data and its hooks) and the registry.
//! - [`persona`]: persona and memory migration between runtimes (hub and spoke).
//! - [`switch`]: changing the active runtime through systemd, as one transaction.
//! - [`plan`] / [`apply`]: what a command will change, and carrying it out safely.
//! - [`presync`]: heal a runtime's native configuration before it starts, one file per runtime.
//! - [`reset`]: the factory reset planner.
//! - [`doctor`]: `osctl doctor`'s findings from the facts it gathers.
//! - [`setup`]: osctl's own systemd units and the runtimes' presync drop-ins.
//! - [`format`](mod@format): format-preserving editors (JSON/JSONC, YAML, TOML, .env, Markdown blocks).
//! - [`skills`]: the capability-gated skills from the CDN (`skills sync/list/verify`).
//! - [`channel`]: messaging channels: capability gate, credentials, apply.
//! - [`mcp`]: MCP servers: the canonical entry and each runtime's native form.
//! - [`system`]: the only door to the outside (rooted files, systemd, processes, HTTP).
//! - [`output`] / [`redact`]: the printer, and the secret masking everything passes through.
//! - [`path`] / [`error`]: device paths and errors, the leaves every layer uses.
//!
//! Imports point down the layers (`tests/it/layers.rs`): the command line, features, `apply`,
//! planning (`plan`, `format`), `system`, leaves.

// What tests and the binary use is `pub`; everything else is `pub(crate)`, so the compiler names
// dead code (a `pub` item nothing outside reaches is a warning, and CI denies warnings).
#![warn(unreachable_pub)]
// The crate docs are for its developers (`cargo doc --document-private-items`): they link to
// the crate-private modules too.
#![allow(rustdoc::private_intra_doc_links)]

// The two doors (clippy.toml's disallowed-methods and -types): only `system` reaches the outside
// world (files, processes, sockets, environment, clock), only `apply` writes. Every other module
// goes through them, and the compiler says so.
#[allow(clippy::disallowed_methods, clippy::disallowed_types)]
pub mod apply;
pub(crate) mod channel;
pub mod cli;
pub mod commands;
pub mod device;
pub(crate) mod doctor;
pub mod error;
// Fault injection (debug builds only) stands in for the outside world: a disk, a kill, a signal.
#[allow(clippy::disallowed_methods, clippy::disallowed_types)]
pub(crate) mod fault;
pub mod format;
pub(crate) mod mcp;
pub mod output;
/// Device paths (a leaf: every layer names files by them, none of them reaches the outside).
pub mod path;
pub mod persona;
pub mod plan;
pub(crate) mod presync;
pub(crate) mod reconcile;
pub mod redact;
pub(crate) mod reset;
pub mod runtime;
pub(crate) mod setup;
pub mod skills;
pub(crate) mod status;
pub mod switch;
#[allow(clippy::disallowed_methods, clippy::disallowed_types)]
pub mod system;
/// The clock lives behind the door; `crate::clock` is its short name.
pub use system::clock;

use std::ffi::OsString;
use std::path::Path;

use commands::Ctx;
use output::{Mode, Printer};

/// `osctl --version --json`: what built this binary, as the report of a `version` document.
fn version_json(out: &Printer) {
    out.report(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commit": env!("OSCTL_COMMIT"),
        "target": env!("OSCTL_TARGET"),
        "compiler": env!("OSCTL_RUSTC"),
        "profile": env!("OSCTL_PROFILE"),
    }));
}

/// Whether a flag is on the command line (before `--`), for runs clap refused to parse.
fn wants_flag(args: &[OsString], flag: &str) -> bool {
    args.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == flag)
}

fn wants_json(args: &[OsString]) -> bool {
    wants_flag(args, "--json")
}

/// The subcommand path a refused command line names (`mcp add`), as far as it names one:
/// the leading words that are subcommands of the one before.
fn command_words(args: &[OsString]) -> String {
    let mut cmd = <cli::Cli as clap::CommandFactory>::command();
    let mut words: Vec<String> = Vec::new();
    for arg in args.iter().skip(1) {
        let arg = arg.to_string_lossy();
        if arg == "--" {
            break;
        }
        if arg.starts_with('-') {
            continue;
        }
        match cmd.find_subcommand(&*arg) {
            Some(sub) => {
                words.push(sub.get_name().to_string());
                cmd = sub.clone();
            }
            None if words.is_empty() => continue,
            None => break,
        }
    }
    if words.is_empty() {
        "osctl".into()
    } else {
        words.join(" ")
    }
}

/// A clap error as osctl's usage error (exit 2): its first line, and its tip as the hint.
fn usage_error(e: &clap::Error) -> error::Error {
    let text = redact::redact(&e.render().to_string()).into_owned();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let message = lines
        .next()
        .unwrap_or("usage error")
        .trim_start_matches("error:")
        .trim()
        .to_string();
    let mut err = error::Error::new(error::Exit::Usage, "usage", message);
    if let Some(tip) = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("tip:"))
    {
        err = err.hint(tip.trim());
    }
    err
}

/// Where `--events` writes: `-` is stderr, a number is that open file descriptor.
fn events_sink(spec: &str) -> error::Result<Box<dyn std::io::Write + Send>> {
    if spec == "-" {
        return Ok(Box::new(std::io::stderr()));
    }
    let bad = || {
        error::Error::new(
            error::Exit::Usage,
            "usage",
            format!("--events {spec}: not an open file descriptor"),
        )
        .hint("give a file descriptor the caller opened for writing (`--events 3` with `3>file`), or `-` for stderr")
    };
    let fd: u32 = spec.parse().map_err(|_| bad())?;
    // A descriptor that is not open fails here, before the command runs.
    system::process::inherited_writer(fd)
        .map(|f| Box::new(f) as Box<dyn std::io::Write + Send>)
        .map_err(|e| bad().cause(e.to_string()))
}

/// For the panic hook: under `--json`, the document of a run that panicked (exit 101), since one
/// document is promised whatever happens. (`--json` output is written only at the end of a
/// run, so nothing else is on stdout yet.)
pub fn panic_document(args: &[OsString], message: &str) {
    if !wants_json(args) {
        return;
    }
    let out = Printer::new(true, false, 0, output::ColorChoice::Never, true);
    out.record_error(
        error::Error::internal(format!("internal error (a bug in osctl): {message}"))
            .hint("please report it with the command line and `osctl --version`"),
    );
    let name = command_words(args);
    let flag = |f: &str| wants_flag(args, f);
    let mode = commands::mode_of(&name, flag("--check"), flag("--dry-run") || flag("-n"));
    out.write_document(&name, mode, error::Exit::Internal.code(), Path::new("/"));
}

/// Runs osctl with these arguments and returns the process exit code. With `--json` the run's
/// one document (`output::Report` in its envelope) is written here, once, at the end.
pub fn run(args: impl IntoIterator<Item = OsString>, env: &dyn Fn(&str) -> Option<String>) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    // A shell asking for completions (the scripts of `osctl completions`): answered before
    // anything else, with nothing written.
    if env(cli::complete::COMPLETE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
        && cli::complete::complete(&args, env)
    {
        return 0;
    }
    // Before parsing: a usage error may quote any argument.
    redact::register_args(&args);
    let no_color_env = env("NO_COLOR").is_some_and(|v| !v.is_empty());
    let cli = match cli::parse(&args) {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion && wants_json(&args) => {
            let out = Printer::new(true, false, 0, output::ColorChoice::Never, true);
            version_json(&out);
            out.write_document("version", Mode::Read, 0, Path::new("/"));
            return 0;
        }
        Err(e) => {
            let plain = e.render().to_string();
            let masked = redact::redact(&plain);
            if masked != plain {
                eprint!("{masked}");
            } else {
                let _ = e.print();
            }
            let code = e.exit_code();
            if code != 0 && wants_json(&args) {
                let out = Printer::new(true, false, 0, output::ColorChoice::Never, no_color_env);
                // Recorded without printing: clap has already said it on stderr.
                out.record_error(usage_error(&e));
                let name = command_words(&args);
                let flag = |f: &str| wants_flag(&args, f);
                let mode =
                    commands::mode_of(&name, flag("--check"), flag("--dry-run") || flag("-n"));
                out.write_document(&name, mode, code, Path::new("/"));
            }
            return code;
        }
    };
    fault::at_start();
    system::interrupt::install();
    let g = &cli.global;
    let mut out =
        Printer::new(g.json, g.quiet, g.verbose, g.color, no_color_env).with_root(&g.root);
    let name = commands::name(&cli.command);
    let mode = commands::mode(&cli.command, g);
    let result = match system::clock::check(env)
        .and_then(|()| g.events.as_deref().map(events_sink).transpose())
    {
        Err(e) => Err(e),
        Ok(sink) => {
            if let Some(sink) = sink {
                out = out.with_events(sink);
            }
            if commands::needs_device(&cli.command) {
                Ctx::new(g, name, out.clone(), env).and_then(|ctx| commands::dispatch(&cli, &ctx))
            } else {
                commands::dispatch_without_device(&cli)
            }
        }
    };
    let code = match result {
        Ok(exit) => exit.code(),
        Err(err) => {
            out.error(&err);
            err.exit.code()
        }
    };
    out.write_document(name, mode, code, &g.root);
    code
}
