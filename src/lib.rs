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
//! ```
//!
//! - [`cli`]: the command line (clap types only).
//! - [`commands`]: one thin file per subcommand.
//! - [`device`]: config.json, agent_state.json, ROBOT.md, bootstrap.json, runtime resolution.
//! - [`runtime`]: the six runtimes as data.
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

pub mod apply;
pub mod channel;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod device;
pub mod doctor;
pub mod error;
pub mod fault;
pub mod format;
pub mod mcp;
pub mod output;
pub mod persona;
pub mod plan;
pub mod presync;
pub mod reconcile;
pub mod redact;
pub mod reset;
pub mod runtime;
pub mod setup;
pub mod skills;
pub mod switch;
pub mod system;

use std::ffi::OsString;

/// `osctl --version --json`: what built this binary, as one document.
fn version_json() {
    let out = Printer::new(true, false, 0, output::ColorChoice::Never, true);
    out.json_doc(
        "version",
        serde_json::json!({
            "ok": true,
            "version": env!("CARGO_PKG_VERSION"),
            "commit": env!("OSCTL_COMMIT"),
            "target": env!("OSCTL_TARGET"),
            "compiler": env!("OSCTL_RUSTC"),
            "profile": env!("OSCTL_PROFILE"),
        }),
    );
}

use commands::Ctx;
use output::Printer;

/// Runs osctl with these arguments and returns the process exit code.
pub fn run(args: impl IntoIterator<Item = OsString>, env: &dyn Fn(&str) -> Option<String>) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    // Before parsing: a usage error may quote any argument.
    redact::register_args(&args);
    let cli = match cli::parse(&args) {
        Ok(cli) => cli,
        Err(e)
            if e.kind() == clap::error::ErrorKind::DisplayVersion
                && args.iter().any(|a| a == "--json") =>
        {
            version_json();
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
            if runtime::is_refused_runtime(&e) {
                return error::Exit::Failed.code();
            }
            return e.exit_code();
        }
    };
    fault::at_start();
    let g = &cli.global;
    let out = Printer::new(
        g.json,
        g.quiet,
        g.verbose,
        g.color,
        env("NO_COLOR").is_some_and(|v| !v.is_empty()),
    );
    let name = commands::name(&cli.command);
    let result = if commands::needs_device(&cli.command) {
        Ctx::new(g, name, out.clone(), env).and_then(|ctx| commands::dispatch(&cli, &ctx))
    } else {
        commands::dispatch_without_device(&cli)
    };
    match result {
        Ok(exit) => exit.code(),
        Err(err) => {
            out.error(name, &err);
            err.exit.code()
        }
    }
}
