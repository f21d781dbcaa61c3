//! `osctl switch RUNTIME`: change the active runtime through systemd, as one transaction. Logic
//! in `switch/`; this file maps the command line onto it and prints the result. `--json`
//! streams one line per phase (`starting`, then `success` or `failure`), like the device's MQTT
//! acks; a preview prints one `plan` line.

use serde_json::{Value, json};

use super::Ctx;
use crate::apply::Target;
use crate::cli::SwitchArgs;
use crate::error::{Exit, Result};
use crate::reconcile::{Outcome, Ran};
use crate::runtime::RuntimeId;
use crate::switch::installer::{Choice, MAX_INSTALLER_BYTES, Source};
use crate::switch::run::Failure;
use crate::switch::{Done, Options, perform, record, render};
use crate::system::http::{Http, HttpOptions};

pub fn run(ctx: &Ctx, args: &SwitchArgs) -> Result<Exit> {
    if ctx.json && !ctx.previewing() {
        let line = json!({"phase": "starting", "runtime": args.runtime.trim()});
        ctx.out.json_line("switch", line);
    }
    let f = match switch(ctx, args) {
        Ok(exit) => return Ok(exit),
        Err(f) if !ctx.json => return Err(f.error),
        Err(f) => f,
    };
    let mut text = ctx.out.clone();
    text.json = false;
    text.error("switch", &f.error);
    let e = &f.error;
    let error = json!({"code": e.code, "exit": e.exit.code(), "message": e.message,
                       "causes": e.causes, "hint": e.hint});
    let line = json!({"phase": "failure", "ok": false, "error": error,
                      "rolled_back": f.rolled_back, "actions": f.actions});
    ctx.out.json_line("switch", line);
    Ok(f.error.exit)
}

fn switch(ctx: &Ctx, args: &SwitchArgs) -> std::result::Result<Exit, Failure> {
    let opts = options(args)?;
    if !ctx.previewing() {
        record::refuse_if_running(&ctx.fs)?;
    }
    let _lock = ctx.lock()?;
    let t = Target {
        fs: &ctx.fs,
        services: &ctx.services,
        out: &ctx.out,
        command: &ctx.command_line,
    };
    let fetch = |url: &str| fetch(args, url);
    let (phase, body, exit) = match perform(&t, &ctx.device()?, &opts, ctx.previewing(), &fetch)? {
        Done::AlreadyActive(rt) => {
            ctx.out.status(&format!(
                "{rt} is already the active runtime: nothing to do"
            ));
            let phase = if ctx.previewing() { "plan" } else { "success" };
            let body = json!({"from": rt, "to": rt, "changed": false, "pending": false});
            (phase, body, Exit::Success)
        }
        Done::Planned(p) => {
            if !ctx.json {
                ctx.out.product(&render::text(&p, &opts));
            }
            let mode = if ctx.check { "check" } else { "dry-run" };
            if p.finishes() {
                ctx.out
                    .status(&format!("{mode}: would finish the switch to {}", p.to));
            } else {
                ctx.out
                    .status(&format!("{mode}: would switch {} -> {}", p.from, p.to));
            }
            let exit = if ctx.check {
                Exit::Pending
            } else {
                Exit::Success
            };
            (
                "plan",
                merge(json!({"pending": true}), render::json(&p, &opts)),
                exit,
            )
        }
        Done::Switched(outcome, ran, failure) => {
            let body = merge(json!({"changed": true}), json!(outcome));
            let body = merge(body, json!({"reconcile": reports(&ran)}));
            return finished(ctx, body, failure);
        }
        Done::Finished(rt, ran, failure) => {
            let body = json!({"from": rt, "to": rt, "changed": ran.iter().any(landed),
                              "finished": true, "reconcile": reports(&ran)});
            return finished(ctx, body, failure);
        }
    };
    if ctx.json {
        ctx.out
            .json_line("switch", merge(json!({"phase": phase, "ok": true}), body));
    }
    Ok(exit)
}

fn landed(r: &Ran) -> bool {
    r.outcome == Outcome::Applied
}

/// The reconcile steps of a run for its `success` line: each report with what became of it.
fn reports(ran: &[Ran]) -> Vec<Value> {
    ran.iter()
        .map(|r| merge(json!(r.report), json!({"outcome": r.outcome})))
        .collect()
}

/// The end of a switch that reached its commit point (or found the runtime active): its
/// `success` line, and exit 5 naming the reconcile step when one failed (the switch stands).
fn finished(
    ctx: &Ctx,
    body: Value,
    failure: Option<crate::error::Error>,
) -> std::result::Result<Exit, Failure> {
    let ok = failure.is_none();
    let mut head = json!({"phase": "success", "ok": ok});
    if let Some(e) = &failure {
        let mut text = ctx.out.clone();
        text.json = false;
        text.error("switch", e);
        head = merge(
            head,
            json!({"exit_code": e.exit.code(), "error": {"code": e.code, "exit": e.exit.code(),
                   "message": e.message, "causes": e.causes, "hint": e.hint}}),
        );
    }
    if ctx.json {
        ctx.out.json_line("switch", merge(head, body));
    }
    Ok(failure.map_or(Exit::Success, |e| e.exit))
}

/// `a` with `b`'s fields added after its own.
fn merge(mut a: Value, b: Value) -> Value {
    if let (Value::Object(a), Value::Object(b)) = (&mut a, b) {
        a.extend(b);
    }
    a
}

/// The command line as [`Options`] (bad input: exit 1, before anything).
fn options(args: &SwitchArgs) -> Result<Options> {
    let to = RuntimeId::parse(&args.runtime)?;
    let source = match (&args.installer, &args.installer_url, args.from_cdn) {
        (Some(file), _, _) => Source::File(file.clone()),
        (None, Some(url), _) => Source::Url(url.clone()),
        (None, None, true) => Source::Url(Choice::cdn_url(&args.runtimes_base_url, to.spec())),
        (None, None, false) => Source::Embedded,
    };
    let timeout = std::time::Duration::from_secs(args.install_timeout);
    Ok(Options {
        to,
        wait_ready: args.wait_ready,
        ready_tries: args.ready_tries,
        ready_interval: args.ready_interval,
        settle: args.settle,
        reconcile: !args.no_reconcile,
        installer: Choice::new(
            source,
            args.installer_sha256.as_deref(),
            &args.installer_env,
            timeout,
        )?,
    })
}

/// Downloads an installer through the HTTP door (`https://` was checked with the options;
/// `--ca-file` replaces the trusted roots). A failure is an error that names the URL.
fn fetch(args: &SwitchArgs, url: &str) -> Result<Vec<u8>> {
    let http = Http::new(HttpOptions {
        ca_file: args.ca_file.clone(),
        ..HttpOptions::default()
    })?;
    http.get(url, MAX_INSTALLER_BYTES, &mut |_, _| {})
        .map_err(|e| {
            e.into_error().hint(
                "nothing ran; check the URL (RUNTIMES_BASE_URL, --installer-url) and the network",
            )
        })
}
