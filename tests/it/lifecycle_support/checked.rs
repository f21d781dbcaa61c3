//! One osctl run of a step with the invariants around it: preview = run, a refused run
//! changes nothing, an independent reconcile step survives another's rollback, a repeat converges.

use super::*;

impl Life<'_> {
    /// One osctl run of a step, with the invariants around it: the preview before it changes
    /// nothing and equals the run; a refused or failed run leaves every file as it was; a
    /// successful one converges (the same again changes nothing, `--check` exits 0).
    pub(super) fn checked_run(&mut self, op: &Op, args: &[String]) -> Option<i32> {
        let writes = op.is_osctl_write();
        // A run restores an interrupted run's journal (and converges an interrupted switch)
        // first, which a preview (no lock) only warns about: preview = run is checked on whole
        // devices.
        let pending =
            self.dev.journals_pending() || self.dev.root.join("var/lib/osctl/switch.json").exists();
        let before = self.dev.snapshot();
        let units_before = self.dev.unit_states();
        let dry = if writes {
            let d = self.run(&Self::preview_args(args));
            let after_dry = self.dev.snapshot();
            if after_dry != before {
                self.violate(
                    "preview=run",
                    &format!("osctl {}", d.args.join(" ")),
                    format!(
                        "the preview changed the device\n  {}",
                        rs::describe_diff(&before, &after_dry)
                    ),
                );
            }
            Some(d)
        } else {
            None
        };
        let mark = self.dev.calls_mark();
        let failed_mark = self.dev.failed_mark();
        // The run itself under --json: its document is checked against the schemas.
        let out = self.run(&Self::json_args(args));
        let after = self.dev.snapshot();
        let calls = self.dev.calls_since(mark);
        let ctx = format!("osctl {}", args.join(" "));
        let failed = self.dev.failed_since(failed_mark);
        if let Some(d) = &dry
            && failed.iter().any(|c| c.contains("restart "))
        {
            self.independent_steps(&ctx, d, &out, &failed);
        }
        match out.code {
            Some(0) => {
                if let Some(d) = &dry {
                    if pending {
                        self.stats.previews_after_crash += 1;
                    } else {
                        self.preview_equals_run(&ctx, d, &out, &before, &after, &calls);
                    }
                }
                if writes {
                    self.converges(args, &after);
                }
            }
            // skills sync: one failed skill keeps its version, the others go on, exit 1.
            Some(1) if writes && *op != Op::SkillsSync => {
                if after != before {
                    self.violate(
                        "all-or-nothing",
                        &ctx,
                        format!(
                            "exit 1 (refused before any write) but the device changed\n  {}\n{}",
                            rs::describe_diff(&before, &after),
                            out.text()
                        ),
                    );
                }
                if let Some(bad) = unclear(&out.stderr) {
                    self.violate(
                        "operable",
                        &ctx,
                        format!("an unclear refusal ({bad})\n{}", out.text()),
                    );
                }
            }
            Some(1) => {}
            Some(4) => {
                if after != before {
                    self.violate(
                        "all-or-nothing",
                        &ctx,
                        format!(
                            "exit 4 (rolled back) but the device changed\n  {}\n{}",
                            rs::describe_diff(&before, &after),
                            out.text()
                        ),
                    );
                }
                if matches!(op, Op::Switch { .. }) {
                    let units = self.dev.unit_states();
                    if units != units_before {
                        self.violate(
                            "all-or-nothing",
                            &ctx,
                            format!(
                                "the switch rolled back but the units did not: before {units_before:?}, after {units:?}"
                            ),
                        );
                    }
                }
            }
            Some(5) => {}
            None if out.timed_out => {}
            Some(101) => {}
            code => self.violate(
                "exit-code",
                &ctx,
                format!(
                    "undocumented exit {code:?} for this command\n{}",
                    out.text()
                ),
            ),
        }
        out.code
    }

    /// A reconcile step that needs no service action (persona: its files and agent_state.json)
    /// is its own transaction: when the preview said it would reconcile (or record its
    /// baseline), a restart that fails in another step must not undo it.
    pub(super) fn independent_steps(
        &mut self,
        ctx: &str,
        dry: &Outcome,
        out: &Outcome,
        failed: &[String],
    ) {
        let said = dry.stdout.lines().chain(dry.stderr.lines()).any(|l| {
            let l = l.trim_start_matches([' ', '#']).trim_start();
            let l = l.strip_prefix("reconcile ").unwrap_or(l);
            l.starts_with("persona: reconciled") || l.starts_with("persona: baseline recorded")
        });
        if !said {
            return;
        }
        let Some(active) = self.dev.config_runtime() else {
            return;
        };
        let last = self
            .dev
            .read("root/config/agent_state.json")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| {
                v["history"].as_array()?.last()?["runtime"]
                    .as_str()
                    .map(str::to_string)
            });
        if last.as_deref() != Some(active.as_str()) {
            self.violate(
                "independent-steps",
                ctx,
                format!(
                    "the preview reconciles the persona (no service action), but after {failed:?} failed the run undid it too: agent_state.json's last runtime is {last:?}, config.json names {active}\n{}",
                    out.text()
                ),
            );
        }
    }

    pub(super) fn preview_equals_run(
        &mut self,
        ctx: &str,
        dry: &Outcome,
        out: &Outcome,
        before: &Tree,
        after: &Tree,
        calls: &[String],
    ) {
        if dry.code != Some(0) {
            self.violate(
                "preview=run",
                ctx,
                format!(
                    "the preview failed where the run succeeded\n{}\n{}",
                    dry.text(),
                    out.text()
                ),
            );
            return;
        }
        self.stats.previews_compared += 1;
        let p = match preview::Preview::parse(&dry.stdout) {
            Ok(p) => p,
            Err(e) => {
                self.violate("preview=run", ctx, format!("unreadable preview: {e}"));
                return;
            }
        };
        let ignore = |path: &str| -> bool {
            // The lock holder's note is the lock's bookkeeping (a killed holder's stays until the
            // next holder replaces it), not a change a preview shows.
            if path == "var/lib/osctl/lock.holder" {
                return true;
            }
            // osctl's state folder always holds the lock after a run that took it: a preview
            // that empties it (a reset removing the MCP tools record) leaves it, the lock and all.
            if path == "var/lib/osctl" || path == "var/lib/osctl/lock" {
                return true;
            }
            false
        };
        let mut tree = preview::from_snapshot(before);
        if let Err(e) = p.apply(&mut tree) {
            self.violate(
                "preview=run",
                ctx,
                format!("the preview does not apply to the device it previewed: {e}"),
            );
            return;
        }
        // A skills preview shows every file it would install, and the state file with the
        // hashes the run records: nothing of it is set aside.
        let diffs = preview::compare(&tree, after, &ignore);
        if !diffs.is_empty() {
            self.violate(
                "preview=run",
                ctx,
                format!(
                    "the preview, applied to the tree before, is not the tree after:\n  {}",
                    diffs.join("\n  ")
                ),
            );
        }
        let mut ran: Vec<String> = calls.to_vec();
        // The announced retry of a unit that did not settle: `stop U`, `reset-failed U`, the
        // reinstall's `daemon-reload`, `enable --now U` again, right after the first start.
        if let Some(unit) = &p.retry_unit {
            let start = format!("enable --now {unit}");
            let retry = [format!("stop {unit}"), format!("reset-failed {unit}")];
            if let Some(at) = ran.iter().position(|a| *a == start)
                && ran[at + 1..].starts_with(&retry)
            {
                let mut end = at + 3;
                while ran.get(end).is_some_and(|a| a == "daemon-reload") {
                    end += 1;
                }
                if ran.get(end) == Some(&start) {
                    ran.drain(at + 1..=end);
                }
            }
        }
        if ran != p.services {
            self.violate(
                "preview=run",
                ctx,
                format!(
                    "the service actions differ: previewed {:?}, run {:?}",
                    p.services, ran
                ),
            );
        }
    }

    /// The same step again changes nothing (no file, no service action), and `--check` exits 0.
    pub(super) fn converges(&mut self, args: &[String], after: &Tree) {
        self.stats.convergence_checked += 1;
        let ctx = format!("osctl {}", args.join(" "));
        let units = self.dev.unit_states();
        let mark = self.dev.calls_mark();
        let again = self.run(args);
        let twice = self.dev.snapshot();
        let calls = self.dev.calls_since(mark);
        if again.code != Some(0) {
            self.violate(
                "convergence",
                &ctx,
                format!("the same step again failed\n{}", again.text()),
            );
        } else if &twice != after || !calls.is_empty() || self.dev.unit_states() != units {
            self.violate(
                "convergence",
                &ctx,
                format!(
                    "the same step again changed the device\n  {}\n  service actions: {calls:?}\n{}",
                    rs::describe_diff(after, &twice),
                    again.text()
                ),
            );
        }
        let mut check_args = s(&["--check"]);
        check_args.extend(args.iter().cloned());
        let check = self.run(&check_args);
        // Programs (a runtime's own reset, `openclaw plugins install`) run on the live device
        // only, so under --root a check always finds them pending: not a change of the tree.
        let only_programs = check.code == Some(3)
            && check.stderr.contains("would change 0 paths")
            && !check.stderr.contains("service action")
            && !check
                .stdout
                .lines()
                .any(|l| l.starts_with("# systemctl ") || l.starts_with("diff --git"));
        if check.code != Some(0) && !only_programs {
            self.violate(
                "convergence",
                &format!("osctl {}", check_args.join(" ")),
                format!("--check after the step does not exit 0\n{}", check.text()),
            );
        }
    }
}
