//! `osctl switch`: change the active runtime through systemd, as one transaction
//! (docs/device-contract.md §4 and §10 items 1 to 3 and 6).
//!
//! ```text
//! lock ─ converge an interrupted switch ─ old = config.json, else the resolution chain
//!   materialize the embedded files (installer, service, verify, ready, unit file, presync hook)
//!   install when the unit is missing or verify fails ─ presync
//!   enable --now the new unit; it must stay active for the settle window
//!     (not settled and nothing installed yet: stop + reset-failed, install once, presync, retry)
//!   --wait-ready: the ready hook, retried ─ disable --now the old unit, up to 3 tries
//!   COMMIT POINT: config.json agent_runtime = new ─ then reconcile (unless --no-reconcile),
//!     each step its own transaction
//! ```
//!
//! Before the commit point every failure rolls back ([`run`]): the new unit is stopped and
//! disabled, every file osctl wrote is restored from the switch's journals, and the old unit is
//! enabled and started again (exit 4; exit 5 when part of that failed). The transaction keeps a
//! journal per phase open until the commit point and records itself in
//! `/var/lib/osctl/switch.json` ([`record`]), so a switch killed at any step leaves config.json
//! naming the old runtime, and the next run restores the files and converges the services to
//! config.json ([`converge`]). What an installer itself installs stays installed.
//!
//! Planning is pure ([`plan`]): the preview plans the phases in the run's order, each on the
//! files the ones before it leave, and serves `--dry-run`, `--check` and the decisions of a real
//! run. After the commit point each reconcile step is its own transaction: a failed one is
//! rolled back alone and keeps its marker, the switch stands, and the exit is 5. A switch to the
//! runtime already active finishes the reconcile steps that lag behind it (a switch killed after
//! its commit point), and is otherwise a no-op. A switch needs systemd: under a `--root` other than `/` without
//! `OSCTL_SYSTEMCTL` it can only be previewed. With `OSCTL_SYSTEMCTL` (a test double) under
//! such a root, service actions go to the double and no program runs (installers and hooks would
//! act on this machine, not on the tree): installs are skipped and the ready hook counts as passed.

pub(crate) mod converge;
pub mod embedded;
pub(crate) mod installer;
pub(crate) mod plan;
pub(crate) mod record;
pub(crate) mod render;
pub(crate) mod run;
pub(crate) mod units;

use std::time::Duration;

use crate::apply::Target;
use crate::device::Device;
use crate::error::{Error, Exit, Result};
use crate::reconcile::{self, StepName, StepRun};
use crate::runtime::{REGISTRY, RuntimeId};
use installer::Source;
use plan::Preview;
use run::{Failure, Landed};

/// What the operator asked for.
#[derive(Clone, Debug)]
pub struct Options {
    pub to: RuntimeId,
    pub wait_ready: bool,
    pub ready_tries: u32,
    pub ready_interval: Duration,
    /// How long the new unit must stay active.
    pub settle: Duration,
    /// Run the reconcilers after the commit point.
    pub reconcile: bool,
    pub installer: installer::Choice,
}

/// How many times the old unit is asked to stop (upstream `stop_unit_retry`).
pub const STOP_TRIES: u32 = 3;

/// How a switch ended (a failure is a [`Failure`]).
#[derive(Debug)]
pub enum Done {
    /// The runtime is already the active one: nothing was touched.
    AlreadyActive(RuntimeId),
    /// `--dry-run` / `--check`: the plan, nothing changed.
    Planned(Box<Preview>),
    /// Switched; the reconcile steps (empty: not run), and why they did not all go through
    /// (exit 5: the switch stands).
    Switched(Landed, Vec<StepRun>, Option<Error>),
    /// The runtime was already active and its lagging reconcile steps were run.
    Finished(RuntimeId, Vec<StepRun>, Option<Error>),
}

/// A switch from start to end, under the device lock the caller holds (none for a preview):
/// converge an interrupted switch, plan, and unless `previewing` run the transaction and the
/// reconcilers. `fetch` is the HTTP door for a downloaded installer.
pub fn perform(
    t: &Target<'_>,
    device: &Device,
    opts: &Options,
    previewing: bool,
    fetch: &dyn Fn(&str) -> Result<Vec<u8>>,
) -> std::result::Result<Done, Failure> {
    let mut device = device.clone();
    if previewing {
        if let Some(r) = record::read(t.fs)? {
            t.out.warn(&format!(
                "a switch from {} to {} was interrupted; the next switch or reconcile first brings the services in line with config.json",
                r.from, r.to
            ));
        }
    } else if converge::if_interrupted(t, &device)?.is_some() {
        device = Device::load(t.fs, &device.env)?;
    }
    let from = device.active()?;
    if from == opts.to {
        // A switch killed after its commit point leaves the runtime active and its reconcile
        // steps behind: asking for it again finishes them.
        let lagging = if opts.reconcile {
            plan::reconcile_now(t.fs, &device)?
        } else {
            Vec::new()
        };
        if !lagging.iter().any(|p| p.report.lagging()) {
            return Ok(Done::AlreadyActive(from));
        }
        if previewing {
            for w in lagging.iter().flat_map(|p| &p.plan.warnings) {
                t.out.warn(w);
            }
            return Ok(Done::Planned(Box::new(Preview::finishing(
                t.fs, from, lagging,
            )?)));
        }
        t.out.status(&format!(
            "{from} is already the active runtime, but its switch did not finish: running the reconcile steps that lag behind"
        ));
        let (ran, failure) = reconcile_after(t, &device)?;
        if failure.is_none() {
            t.out.status(&format!("the switch to {from} is finished"));
        }
        return Ok(Done::Finished(from, ran, failure));
    }
    let depth = if previewing {
        plan::Depth::Full
    } else {
        plan::Depth::Decisions
    };
    let p = plan::preview(t.fs, &device, from, opts, depth)?;
    if !previewing && t.services.is_offline() {
        return Err(Error::input(
            "switch_needs_systemd",
            format!(
                "a switch needs systemd, and there is none under --root {}",
                t.fs.root().display()
            ),
        )
        .hint("preview it with --dry-run, or run osctl switch on the device itself")
        .into());
    }
    if let Some(why) = &p.install
        && !opts.installer.available(opts.to.spec())
    {
        return Err(installer::Choice::unavailable(opts.to.spec(), why).into());
    }
    if previewing {
        // (A real run reports these itself, from the files as they are by then.)
        for w in [&p.materialize, &p.presync, &p.commit]
            .into_iter()
            .chain(p.reconcile.iter().map(|r| &r.plan))
            .flat_map(|plan| &plan.warnings)
        {
            t.out.warn(w);
        }
        return Ok(Done::Planned(Box::new(p)));
    }
    // A named installer that is due is fetched and checked before anything changes.
    let prepared = match (&p.install, &opts.installer.source) {
        (Some(_), Source::File(_) | Source::Url(_)) if t.fs.is_live() => {
            Some(installer::prepare(&opts.installer, opts.to.spec(), fetch)?)
        }
        _ => None,
    };
    t.out.status(&format!("switching {} -> {}", p.from, p.to));
    let outcome = run::run(t, &device, from, opts, prepared, fetch)?;
    let (ran, failure) = if opts.reconcile {
        match Device::load(t.fs, &device.env) {
            Ok(d) => reconcile_after(t, &d)?,
            Err(e) => (Vec::new(), Some(unreconciled(e))),
        }
    } else {
        (Vec::new(), None)
    };
    t.out.status(&format!("switched to {}", outcome.to));
    Ok(Done::Switched(outcome, ran, failure))
}

/// After the commit point: the reconcile steps, in process, each its own transaction on the
/// device as the one before left it. A failed step keeps its marker and the next `osctl
/// reconcile` retries it; the switch stands, and the failure (exit 5) names the step.
fn reconcile_after(
    t: &Target<'_>,
    device: &Device,
) -> std::result::Result<(Vec<StepRun>, Option<Error>), Failure> {
    let steps = StepName::after_switch();
    let ran = match reconcile::run(t, device, &steps, crate::clock::now_secs()) {
        Ok(ran) => ran,
        Err(e) => return Ok((Vec::new(), Some(unreconciled(e)))),
    };
    for r in &ran {
        for w in &r.plan.warnings {
            t.out.warn(w);
        }
        let line = format!("reconcile {}", r.report.line());
        if r.report.failed() {
            t.out.warn(&line);
        } else {
            t.out.status(&line);
        }
    }
    let failure = reconcile::verdict(&steps, &ran).map(|e| {
        if e.exit == Exit::Interrupted {
            // The signal came after the commit point: the switch was finished, and the steps
            // it stopped wait for the next reconcile.
            let mut e = e;
            e.message = format!("the switch stands, but it was {}", e.message);
            return e;
        }
        let mut e = e.with_exit(Exit::PartlyApplied);
        e.code = "reconcile_step_failed";
        let failed: Vec<&str> = ran
            .iter()
            .filter(|r| r.report.failed())
            .map(|r| r.report.step.as_str())
            .collect();
        e.message = format!(
            "the switch stands, but reconcile step {} failed and kept its marker",
            failed.join(", ")
        );
        e.hint("the next `osctl reconcile` (at boot, or run by hand) retries it; fix the cause named above first")
    });
    Ok((ran, failure))
}

/// The reconcile could not start at all (the device cannot be read after the commit point).
fn unreconciled(e: Error) -> Error {
    let mut out = Error::new(
        Exit::PartlyApplied,
        "reconcile_failed",
        format!(
            "the switch stands, but reconcile could not run: {}",
            e.message
        ),
    );
    out.causes = e.causes.clone();
    out.hint("fix the cause named above and run `osctl reconcile`")
}

/// Seconds as the command line gives them (`5`, `0.5`), as a [`Duration`].
pub fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
        return Err(format!("`{text}` is not between 0 and 86400 seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// clap parser for the runtime to switch to: takes any text (the switch validates it as its
/// first step, so a bad name is an ordinary failure with `error.code`, exit 1), and offers the
/// six names to help and completions.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuntimeNameParser;

impl clap::builder::TypedValueParser for RuntimeNameParser {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
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

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(parse_secs("5").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_secs("0.25").unwrap(), Duration::from_millis(250));
        assert!(parse_secs("-1").is_err());
        assert!(parse_secs("soon").is_err());
    }
}
