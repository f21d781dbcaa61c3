//! A planned switch as text (`--dry-run`: diffs and every action in order) and as JSON.

use serde_json::{Value, json};

use super::Options;
use super::STOP_TRIES;
use super::installer::Source;
use super::plan::Preview;
use crate::plan::{Plan, ServiceAction, render};
use crate::runtime::runtime_lib_dir;
use crate::system::services::unit_file_name;

/// One ordered step of a switch that is not a file change.
fn actions(p: &Preview, opts: &Options) -> Vec<(Value, String)> {
    let to = p.to.spec();
    let unit = unit_file_name(&p.to_unit);
    let mut out = Vec::new();
    let service = |a: ServiceAction, note: &str| {
        let mut v = serde_json::to_value(&a).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("type".into(), "service".into());
            m.insert("command".into(), a.describe().into());
        }
        (v, format!("# {}{note}\n", a.describe()))
    };
    if p.daemon_reload {
        out.push(service(ServiceAction::DaemonReload, ""));
    }
    out.push(service(ServiceAction::EnableNow(p.to_unit.clone()), ""));
    let secs = opts.settle.as_secs_f64();
    let retry = if p.install.is_some() {
        "roll back".to_string()
    } else if !opts.installer.available(to) {
        format!(
            "roll back (osctl embeds no installer for {} to reinstall it with)",
            to.name
        )
    } else {
        format!(
            "systemctl stop and reset-failed {unit}, install once with {}, presync, start again; if it still does not, roll back",
            opts.installer.describe(to)
        )
    };
    out.push((
        json!({"type": "settle", "unit": unit, "secs": secs, "otherwise": retry}),
        format!(
            "# wait until {unit} has stayed active for {secs} s with no restart\n#   if it does not: {retry}\n"
        ),
    ));
    if opts.wait_ready {
        let hook = format!("{}/ready", runtime_lib_dir(p.to));
        let interval = opts.ready_interval.as_secs_f64();
        out.push((
            json!({"type": "ready", "hook": hook, "tries": opts.ready_tries, "interval_secs": interval}),
            format!(
                "# run {hook} until it passes ({} tries, {interval} s apart; if absent, active is enough)\n",
                opts.ready_tries
            ),
        ));
    }
    if p.stops_from {
        out.push(service(
            ServiceAction::DisableNow(p.from_unit.clone()),
            &format!(" (up to {STOP_TRIES} tries)"),
        ));
    }
    out
}

/// The reconcile steps as text: a comment line each, then its diff (and its restart).
fn reconcile_text(p: &Preview) -> String {
    let mut s = String::new();
    for r in &p.reconcile {
        s.push_str(&format!("# reconcile {}\n", r.report.line()));
        s.push_str(&render::diff(&r.plan));
    }
    s
}

/// The text preview: a comment line per action, a git-style diff per file, in order.
pub(crate) fn text(p: &Preview, opts: &Options) -> String {
    let to = p.to.spec();
    if p.finishes() {
        let mut s = format!(
            "# {} is already the active runtime, but its switch did not finish: reconcile steps lag behind\n",
            p.to
        );
        s.push_str(&reconcile_text(p));
        return s;
    }
    let mut s = format!(
        "# switch {} -> {}: {} replaces {}\n",
        p.from,
        p.to,
        unit_file_name(&p.to_unit),
        unit_file_name(&p.from_unit)
    );
    s.push_str(&render::diff(&p.materialize));
    if let Some(why) = &p.install {
        s.push_str(&format!(
            "# run {} ({} needs installing: {why}; timeout {} s)\n",
            opts.installer.describe(to),
            to.name,
            opts.installer.timeout.as_secs()
        ));
    }
    s.push_str(&render::diff(&p.presync));
    if let Some(e) = &p.presync_error {
        s.push_str(&format!(
            "# presync for {}: {e} (a warning: the switch goes on)\n",
            to.name
        ));
    }
    for (_, line) in actions(p, opts) {
        s.push_str(&line);
    }
    s.push_str(&format!(
        "# commit point: config.json agent_runtime = {}\n",
        to.name
    ));
    s.push_str(&render::diff(&p.commit));
    s.push_str(&reconcile_text(p));
    if !opts.reconcile {
        s.push_str("# no reconcile (--no-reconcile): run `osctl reconcile` later\n");
    }
    s
}

fn steps(plan: &Plan) -> Vec<Value> {
    match render::json(plan).get("steps") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    }
}

/// The reconcile steps as JSON plan steps: one `reconcile` entry each, then its own steps.
fn reconcile_steps(p: &Preview) -> Vec<Value> {
    let mut all = Vec::new();
    for r in &p.reconcile {
        let mut v = json!(r.report);
        if let Value::Object(m) = &mut v {
            m.insert("type".into(), "reconcile".into());
        }
        all.push(v);
        all.extend(steps(&r.plan));
    }
    all
}

/// The reports of the reconcile steps.
fn reports(p: &Preview) -> Vec<&crate::reconcile::StepReport> {
    p.reconcile.iter().map(|r| &r.report).collect()
}

/// The JSON preview (the body of the `plan` line of `switch --json --dry-run`).
pub(crate) fn json(p: &Preview, opts: &Options) -> Value {
    let to = p.to.spec();
    if p.finishes() {
        return json!({
            "from": p.from,
            "to": p.to,
            "finishes": true,
            "steps": reconcile_steps(p),
            "reconcile": reports(p),
        });
    }
    let mut all = steps(&p.materialize);
    if let Some(why) = &p.install {
        let source = match &opts.installer.source {
            Source::Embedded => "embedded",
            Source::File(_) => "file",
            Source::Url(_) => "url",
        };
        all.push(json!({
            "type": "install",
            "installer": opts.installer.describe(to),
            "source": source,
            "reason": why,
            "timeout_secs": opts.installer.timeout.as_secs(),
        }));
    }
    all.extend(steps(&p.presync));
    all.extend(actions(p, opts).into_iter().map(|(v, _)| v));
    all.push(json!({"type": "commit", "agent_runtime": to.name}));
    all.extend(steps(&p.commit));
    all.extend(reconcile_steps(p));
    json!({
        "from": p.from,
        "to": p.to,
        "from_unit": unit_file_name(&p.from_unit),
        "to_unit": unit_file_name(&p.to_unit),
        "install": p.install,
        "presync_error": p.presync_error,
        "steps": all,
        "reconcile": reports(p),
    })
}
