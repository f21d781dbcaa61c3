//! `osctl switch RUNTIME`: change the active runtime through systemd, as one transaction. Logic
//! in `switch/`; this file maps the command line onto it and reports the result: one `--json`
//! document at the end (its `phase` is `plan`, `success` or `failure`). The phases as they
//! happen (`starting`, then `success` or `failure`), like the device's MQTT acks, go to the
//! opt-in `--events` stream as JSON lines, never to stdout.

use serde::Serialize;
use serde_json::{Value, json};

use super::Ctx;
use crate::cli::SwitchArgs;
use crate::error::{Exit, Result};
use crate::reconcile::{StepLine, StepOutcome, StepRun};
use crate::runtime::RuntimeId;
use crate::switch::installer::{Choice, MAX_INSTALLER_BYTES, Source};
use crate::switch::run::{Failure, Landed, UnitJournal};
use crate::switch::{Done, Options, perform, record, render};
use crate::system::http::{Http, HttpOptions};
use crate::system::services::SwitchLog;

pub(super) fn run(ctx: &Ctx, args: &SwitchArgs) -> Result<Exit> {
    if !ctx.previewing() {
        let fields = json!({"phase": "starting", "runtime": args.runtime.trim()});
        ctx.out.event("switch", "phase", fields);
    }
    let f = match switch(ctx, args) {
        Ok(exit) => return Ok(exit),
        Err(f) => f,
    };
    if let Some(j) = &f.journal {
        ctx.out.excerpt(
            &format!("the last journal lines of {} ({}):", j.unit, j.command),
            &j.lines,
        );
    }
    ctx.out.report_of(&Report::Failure {
        phase: "failure",
        rolled_back: f.rolled_back,
        actions: &f.actions,
        journal: f.journal.as_ref(),
    })?;
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
    let t = ctx.target();
    let fetch = |url: &str| fetch(args, url);
    let device = ctx.device()?;
    let done = match perform(&t, &device, &opts, ctx.previewing(), &fetch) {
        Err(f) => {
            note_failure(ctx, &device, &opts, &f);
            return Err(f);
        }
        Ok(done) => done,
    };
    match &done {
        Done::Switched(landed, ..) => ctx
            .services
            .log_switch(&SwitchLog::landed(landed.from, landed.to)),
        Done::Finished(rt, ..) => ctx.services.log_switch(&SwitchLog::landed(rt, rt)),
        _ => {}
    }
    let (report, exit) = match done {
        Done::AlreadyActive(rt) => {
            ctx.out.status(&format!(
                "{rt} is already the active runtime: nothing to do"
            ));
            let phase = if ctx.previewing() { "plan" } else { "success" };
            let report = Report::AlreadyActive {
                phase,
                from: rt,
                to: rt,
                changed: false,
                pending: false,
            };
            (report, Exit::Success)
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
            let report = Report::Planned {
                phase: "plan",
                pending: true,
                plan: render::json(&p, &opts),
            };
            (report, exit)
        }
        Done::Switched(landed, ran, failure) => {
            let report = Report::Switched {
                phase: "success",
                changed: true,
                landed: &landed,
                reconcile: lines(&ran),
            };
            return finished(ctx, &report, failure);
        }
        Done::Finished(rt, ran, failure) => {
            let report = Report::Finished {
                phase: "success",
                from: rt,
                to: rt,
                changed: ran.iter().any(applied),
                finished: true,
                reconcile: lines(&ran),
            };
            return finished(ctx, &report, failure);
        }
    };
    ctx.out.report_of(&report)?;
    if matches!(
        report,
        Report::AlreadyActive {
            phase: "success",
            ..
        }
    ) {
        let fields = json!({"phase": "success", "ok": true, "exit_code": exit.code()});
        ctx.out.event("switch", "phase", fields);
    }
    Ok(exit)
}

/// Logs a switch that was rolled back to the system journal, where `osctl doctor` finds it:
/// the rollback left every file and unit as it was, so nothing else on the device keeps it.
fn note_failure(ctx: &Ctx, device: &crate::device::Device, opts: &Options, f: &Failure) {
    if ctx.previewing() || !f.rolled_back {
        return;
    }
    let unit = crate::runtime::install::unit_name(&ctx.fs, opts.to.spec())
        .unwrap_or_else(|_| opts.to.spec().unit.to_string());
    ctx.services.log_switch(&SwitchLog {
        outcome: "failed".into(),
        from: device.active().map(|r| r.to_string()).unwrap_or_default(),
        to: opts.to.to_string(),
        unit: crate::system::services::unit_file_name(&unit),
        message: crate::redact::redact(&f.error.message).into_owned(),
    });
}

/// `osctl switch`'s `--json` fields, one shape per end (`phase`: `plan`, `success`, `failure`).
#[derive(Serialize)]
#[serde(untagged)]
enum Report<'a> {
    /// The runtime is already the active one.
    AlreadyActive {
        phase: &'static str,
        from: RuntimeId,
        to: RuntimeId,
        changed: bool,
        pending: bool,
    },
    /// `--dry-run` / `--check`: what the switch would do.
    Planned {
        phase: &'static str,
        pending: bool,
        #[serde(flatten)]
        plan: Value,
    },
    /// The switch reached its commit point.
    Switched {
        phase: &'static str,
        changed: bool,
        #[serde(flatten)]
        landed: &'a Landed,
        reconcile: Vec<StepLine<'a>>,
    },
    /// The runtime was active already; its lagging reconcile steps ran.
    Finished {
        phase: &'static str,
        from: RuntimeId,
        to: RuntimeId,
        changed: bool,
        finished: bool,
        reconcile: Vec<StepLine<'a>>,
    },
    /// The switch failed before its commit point.
    Failure {
        phase: &'static str,
        rolled_back: bool,
        actions: &'a [String],
        /// The new unit's last journal lines, when it did not stay active.
        #[serde(skip_serializing_if = "Option::is_none")]
        journal: Option<&'a UnitJournal>,
    },
}

fn applied(r: &StepRun) -> bool {
    r.outcome == StepOutcome::Applied
}

/// The reconcile steps of a run for its `success` report: each report with what became of it.
fn lines(ran: &[StepRun]) -> Vec<StepLine<'_>> {
    ran.iter()
        .map(|r| StepLine {
            report: &r.report,
            outcome: Some(r.outcome),
        })
        .collect()
}

/// The end of a switch that reached its commit point: its `success` report and event, and the
/// reconcile step's error (its exit) when one failed (the switch stands).
fn finished(
    ctx: &Ctx,
    report: &Report<'_>,
    failure: Option<crate::error::Error>,
) -> std::result::Result<Exit, Failure> {
    let exit = failure.as_ref().map_or(Exit::Success, |e| e.exit);
    ctx.out.report_of(report)?;
    if let Some(e) = &failure {
        ctx.out.error(e);
    }
    let fields = json!({"phase": "success", "ok": failure.is_none(), "exit_code": exit.code()});
    ctx.out.event("switch", "phase", fields);
    Ok(exit)
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
