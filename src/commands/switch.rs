//! `osctl switch RUNTIME`: change the active runtime through systemd, as one transaction. Logic
//! in `switch/`; this file maps the command line onto it and reports the result: one `--json`
//! document at the end (its `phase` is `plan`, `success` or `failure`). The phases as they
//! happen (`starting`, then `success` or `failure`), like the device's MQTT acks, go to the
//! opt-in `--events` stream as JSON lines, never to stdout.

use serde_json::{Value, json};

use super::Ctx;
use crate::apply::Target;
use crate::cli::SwitchArgs;
use crate::error::{Exit, Result};
use crate::reconcile::{StepOutcome, StepRun};
use crate::runtime::RuntimeId;
use crate::switch::installer::{Choice, MAX_INSTALLER_BYTES, Source};
use crate::switch::run::Failure;
use crate::switch::{Done, Options, perform, record, render};
use crate::system::http::{Http, HttpOptions};

pub(super) fn run(ctx: &Ctx, args: &SwitchArgs) -> Result<Exit> {
    if !ctx.previewing() {
        let fields = json!({"phase": "starting", "runtime": args.runtime.trim()});
        ctx.out.event("switch", "phase", fields);
    }
    let f = match switch(ctx, args) {
        Ok(exit) => return Ok(exit),
        Err(f) => f,
    };
    ctx.out
        .report(json!({"phase": "failure", "rolled_back": f.rolled_back, "actions": f.actions}));
    if !ctx.previewing() {
        let e = &f.error;
        let fields = json!({"phase": "failure", "ok": false, "exit_code": e.exit.code(),
                            "code": e.code, "rolled_back": f.rolled_back});
        ctx.out.event("switch", "phase", fields);
    }
    Err(f.error)
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
            if !ctx.out.quiet && !ctx.no_diff {
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
    ctx.out.report(merge(json!({"phase": phase}), body));
    if phase == "success" {
        let fields = json!({"phase": "success", "ok": true, "exit_code": exit.code()});
        ctx.out.event("switch", "phase", fields);
    }
    Ok(exit)
}

fn landed(r: &StepRun) -> bool {
    r.outcome == StepOutcome::Applied
}

/// The reconcile steps of a run for its `success` report: each report with what became of it.
fn reports(ran: &[StepRun]) -> Vec<Value> {
    ran.iter()
        .map(|r| merge(json!(r.report), json!({"outcome": r.outcome})))
        .collect()
}

/// The end of a switch that reached its commit point: its `success` report and event, and the
/// reconcile step's error (its exit) when one failed (the switch stands).
fn finished(
    ctx: &Ctx,
    body: Value,
    failure: Option<crate::error::Error>,
) -> std::result::Result<Exit, Failure> {
    let exit = failure.as_ref().map_or(Exit::Success, |e| e.exit);
    ctx.out.report(merge(json!({"phase": "success"}), body));
    if let Some(e) = &failure {
        ctx.out.error(e);
    }
    let fields = json!({"phase": "success", "ok": failure.is_none(), "exit_code": exit.code()});
    ctx.out.event("switch", "phase", fields);
    Ok(exit)
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
    // The runtime is given on the command line: a name osctl refuses is a usage error (exit 2),
    // as for every runtime or channel value the parser refuses.
    let to = RuntimeId::parse(&args.runtime).map_err(|e| e.with_exit(Exit::Usage))?;
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
