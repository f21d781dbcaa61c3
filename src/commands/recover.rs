//! `osctl recover`: restore what interrupted runs left behind (a power cut, a SIGKILL), from
//! their journals. Every run that changes the device does this first on its own; this command
//! does only that, for a field engineer who wants to see it happen. A path that could not be put
//! back is named with where its original is kept (exit 5); the journal does not stay in the way
//! of later runs. A switch killed before its commit point also leaves its record: once its files
//! are restored, its services are brought in line with config.json, as `osctl reconcile` and the
//! next `osctl switch` do, so a recovered device is never left with no runtime running.
//! A preview's report (`--dry-run`, `--check`) is one typed [`Preview`], rendered by the printer.

use std::fmt;

use super::{Ctx, recovered_lines};
use crate::apply::journal;
use crate::apply::lock::DeviceLock;
use crate::device::config::DeviceConfig;
use crate::error::{Error, Exit, Result};
use crate::plan::{Draft, render};
use crate::switch::{converge, record};

pub(super) fn run(ctx: &Ctx) -> Result<Exit> {
    let interrupted_switch = match record::read(&ctx.fs)? {
        Some(r) if !crate::apply::lock::held(&ctx.fs)? => Some(r),
        _ => None,
    };
    if ctx.previewing() {
        return preview(ctx, interrupted_switch.as_ref());
    }
    let _lock = DeviceLock::acquire_as(&ctx.fs, ctx.lock_timeout, &ctx.holder(), false)?;
    let recovered = journal::recover_all(&ctx.fs, &ctx.services)?;
    let failed: Vec<&journal::Recovered> = recovered
        .iter()
        .filter(|r| !r.outcome.failed.is_empty())
        .collect();
    if let Some(first) = failed.first() {
        let mut err = Error::new(
            Exit::PartlyApplied,
            "rollback_incomplete",
            format!(
                "could not restore every original of the journal {}",
                journal::journal_root().join(&first.id)
            ),
        );
        for r in &failed {
            for line in r.outcome.failed.iter().chain(&r.outcome.left) {
                err = err.cause(line.clone());
            }
        }
        let kept: Vec<String> = failed
            .iter()
            .filter_map(|r| r.outcome.kept.as_ref().map(|k| k.to_string()))
            .collect();
        return Err(if kept.is_empty() {
            err.hint("fix the cause, then run `osctl recover` again")
        } else {
            err.hint(format!(
                "the originals are kept in {} (see its manifest.json); put back what is needed by hand: later osctl runs do not retry them",
                kept.join(", ")
            ))
        });
    }
    for r in &recovered {
        for line in recovered_lines(r) {
            ctx.out.status(&line);
        }
    }
    // The files are back; now the services of a switch killed before its commit point.
    let converged = match record::read(&ctx.fs)? {
        Some(_) => {
            let t = ctx.target();
            converge::if_interrupted(&t, &ctx.device()?)?
        }
        None => None,
    };
    if ctx.json {
        ctx.out.report_of(&Run {
            changed: !recovered.is_empty()
                || converged.as_ref().is_some_and(|c| !c.actions.is_empty()),
            recovered: &recovered,
            switch: converged.as_ref(),
        })?;
    }
    if recovered.is_empty() && converged.is_none() {
        ctx.out.status("nothing to do");
    }
    Ok(Exit::Success)
}

/// `osctl recover --dry-run` / `--check`: the recovery planned from the decisions the run acts
/// on (`apply::journal::preview`), shown as one line per journal and as the diff of every path
/// it would put back (the journal's removal included), so the preview is the run's change.
fn preview(ctx: &Ctx, interrupted_switch: Option<&record::Record>) -> Result<Exit> {
    let mut draft = Draft::new(&ctx.fs);
    let journals = journal::preview(&ctx.fs, &mut draft)?;
    let offline = ctx.services.is_offline();
    if interrupted_switch.is_some() && !offline {
        // The convergence removes the record once its service actions have run (one that
        // fails keeps it, for the next run to retry: a preview cannot foresee that).
        draft.remove(
            &record::path(),
            "recover: the interrupted switch is brought in line",
        )?;
    }
    // config.json holds secrets whose names do not say so (bluebubbles_caller_context): read
    // it as it is and as it would be put back, which registers them with the redactor before
    // anything is shown. A config.json that does not parse (an interrupted write) is left to
    // the key-name rules.
    let config = ctx.env.config_json();
    let _ = DeviceConfig::load_optional(&ctx.fs, &config);
    let _ = DeviceConfig::planned(&draft, &config);
    let plan = draft.finish();
    let anything = !journals.is_empty() || interrupted_switch.is_some() || !plan.is_empty();
    ctx.out.render(&Preview {
        pending: anything,
        journals: &journals,
        interrupted_switch,
        offline,
        plan: render::json(&plan),
    })?;
    if !anything {
        ctx.out.status("nothing to do");
        return Ok(Exit::Success);
    }
    ctx.preview(&plan);
    Ok(if ctx.check {
        Exit::Pending
    } else {
        Exit::Success
    })
}

/// What `osctl recover --dry-run` reports: what a run would restore (the `--json` fields), and
/// in text one line per journal and for the interrupted switch.
#[derive(serde::Serialize)]
struct Preview<'a> {
    pending: bool,
    journals: &'a [journal::Planned],
    interrupted_switch: Option<&'a record::Record>,
    /// No systemd under this root: an interrupted switch's record stays until one is.
    #[serde(skip)]
    offline: bool,
    plan: serde_json::Value,
}

impl fmt::Display for Preview<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in self.journals {
            match &p.refused {
                Some(why) => writeln!(f, "would refuse {}: {why}", p.path)?,
                None if p.finished && p.command.is_empty() => {
                    writeln!(f, "would remove the finished journal {}", p.path)?
                }
                None if p.finished => writeln!(
                    f,
                    "would remove the journal {} (interrupted run: {}; nothing in it to restore)",
                    p.path, p.command
                )?,
                None if p.rolls_forward => writeln!(
                    f,
                    "would keep the files of {} and finish its service actions (interrupted run: {})",
                    p.path, p.command
                )?,
                None => {
                    let paths: Vec<String> = p.restores.iter().map(|d| d.to_string()).collect();
                    writeln!(
                        f,
                        "would restore {} path(s) from {} (interrupted run: {}){}{}",
                        p.restores.len(),
                        p.path,
                        p.command,
                        if paths.is_empty() { "" } else { ": " },
                        paths.join(", ")
                    )?;
                    for l in &p.left {
                        writeln!(f, "would leave {l}")?;
                    }
                    if let Some(kept) = &p.kept {
                        writeln!(
                            f,
                            "would move the journal to {kept} (its originals and manifest.json)"
                        )?;
                    }
                }
            }
            for a in &p.actions {
                writeln!(f, "would run {a}")?;
            }
        }
        if let Some(r) = self.interrupted_switch {
            if self.offline {
                writeln!(
                    f,
                    "would keep the record of the interrupted switch from {} to {}: there is no systemd under this root to bring the services in line",
                    r.from, r.to
                )?;
            } else if converge::untouched(r) {
                writeln!(
                    f,
                    "would drop the record of a switch from {} to {} stopped before it touched a unit; the services stay as they are",
                    r.from, r.to
                )?;
            } else {
                writeln!(
                    f,
                    "would bring the services in line with config.json (a switch from {} to {} was interrupted)",
                    r.from, r.to
                )?;
            }
        }
        Ok(())
    }
}

/// `osctl recover`'s `--json` fields: what it restored, and the switch it converged.
#[derive(serde::Serialize)]
struct Run<'a> {
    changed: bool,
    recovered: &'a [journal::Recovered],
    switch: Option<&'a converge::Converged>,
}
