//! Crashes and FIFOs: osctl killed at a point of a run, then the next command (or the next
//! boot) must converge to the old or the new state; a FIFO where a file should be must not hang.

use super::*;

impl Life<'_> {
    // ---- crashes and FIFOs ----

    pub(super) fn crash(&mut self, kill: &Kill, cmd: &Op, next: &Op) {
        let key = match kill {
            Kill::AbortWrite(_) => "abort-write".to_string(),
            Kill::After(_) => "kill-after".to_string(),
            Kill::On(v) => format!("kill-on:{v}"),
        };
        *self
            .stats
            .crash_points
            .entry(format!("{key} {}", cmd.kind()))
            .or_default() += 1;
        let active_before = self.model.active.clone();
        self.dev.before_op(cmd, active_before.as_deref());
        let Some(args) = self.invocations(cmd).into_iter().next() else {
            return;
        };
        // References: the device before (B), and after the command ran uninterrupted (R).
        let b = self.dev.copy_to(&self.scratch.join("crash-before"));
        let r = self.dev.copy_to(&self.scratch.join("crash-ran"));
        let r_out = r.run(&args);
        self.stats.runs += 1;
        let before = b.snapshot();
        let ran = r.snapshot();
        let links_before = links_out::planted(&self.dev.root);
        let ctx = format!("osctl {} killed at {kill}", args.join(" "));
        // The kill.
        self.stats.runs += 1;
        let out = match kill {
            Kill::AbortWrite(n) => self.dev.run_with(
                &args,
                Some(&format!("abort-write:{n}")),
                None,
                device::RUN_TIMEOUT,
            ),
            Kill::After(us) => self.dev.run_with(
                &args,
                None,
                Some(Duration::from_micros(*us as u64)),
                device::RUN_TIMEOUT,
            ),
            Kill::On(verb) => {
                std::fs::write(self.dev.units.join("kill-on"), format!("{verb} *\n")).unwrap();
                let o = self.dev.run(&args);
                let _ = std::fs::remove_file(self.dev.units.join("kill-on"));
                o
            }
        };
        if out.code == Some(101) || out.timed_out {
            self.judge_run(&out);
        }
        self.dev.after_op(cmd);
        b.after_op(cmd);
        r.after_op(cmd);
        let killed = out.code.is_none();
        let after_kill = self.dev.snapshot();
        if killed {
            self.stats.crashes_mid_run += 1;
        } else {
            self.stats.crashes_after_run += 1;
        }
        // A switch is several plans (its files, presync, then after the commit point config.json
        // and the reconcile steps), each whole: killed between two, a file may hold the state one
        // phase left, which the next run restores from that phase's journal. A boot (`osctl
        // reconcile`) is one plan per step: killed in a later step, config.json holds the
        // markers the earlier steps advanced. Every other command is one plan: each file wholly
        // old or wholly new.
        let torn = if matches!(cmd, Op::Switch { .. } | Op::Boot) {
            Vec::new()
        } else {
            torn(&after_kill, &before, &ran)
        };
        if !torn.is_empty() {
            self.violate(
                "crash",
                &ctx,
                format!("after the kill, files neither wholly old nor wholly new: {torn:?}"),
            );
        }
        let completed = visible(&after_kill) == visible(&ran) && visible(&ran) != visible(&before);
        // The next command, on the killed device and on both references.
        let next_args = self.invocations(next);
        let active_now = self.resolved_runtime();
        // A reset removes the links out of a runtime's tree in a plan of its own, committed
        // first (the book, Reset): killed after it, the device is the old one without those
        // links, on which the next command may do more than on the old one (a writer no longer
        // refuses it). A third reference: the old device without the links.
        let unlinked = (*cmd == Op::Reset && !links_before.is_empty()).then(|| {
            let u = b.copy_to(&self.scratch.join("crash-unlinked"));
            for l in &links_before {
                std::fs::remove_file(u.root.join(l)).unwrap();
            }
            u
        });
        let refs: Vec<&Dev> = [&b, &r].into_iter().chain(unlinked.as_ref()).collect();
        for d in refs.iter().copied().chain([&self.dev]) {
            d.before_op(next, active_now.as_deref());
        }
        let mut next_ok = true;
        for a in &next_args {
            self.stats.runs += refs.len();
            for d in &refs {
                d.run(a);
            }
            next_ok &= self.run(a).code == Some(0);
        }
        for d in refs.iter().copied().chain([&self.dev]) {
            d.after_op(next);
        }
        // A read-only next command leaves an interrupted run's journal for the next command
        // that changes the device, which restores it first: do that now (`osctl recover`), so
        // what the restore does is judged here, at the kill that left the journal.
        if self.dev.journals_pending() && !next.is_osctl_write() {
            self.stats.runs += 1 + refs.len();
            for d in &refs {
                d.run(&s(&["recover"]));
            }
            self.run(&s(&["recover"]));
        }
        let (mut nb, mut nr, mut got) = (b.snapshot(), r.snapshot(), self.dev.snapshot());
        if *cmd == Op::SkillsSync {
            // A sync swaps each downloaded skill in whole, outside its plan (the book, Skills),
            // and records it last: a kill can leave some skills swapped in and unrecorded,
            // which the next sync installs again. Compared without the skill folders.
            let skill = |k: &String| {
                let parts: Vec<&str> = k.split('/').collect();
                parts.iter().enumerate().any(|(i, seg)| {
                    ["audio", "lamp-notes"].contains(seg)
                        && parts[..i]
                            .iter()
                            .any(|p| p.contains("skills") || *p == "openclaw-imports")
                })
            };
            for t in [&mut nb, &mut nr, &mut got] {
                t.retain(|k, _| !skill(k));
            }
        }
        // A switch killed after its commit point has committed, and a boot's reconcile steps are
        // each their own transaction: the steps a killed one left are run by the next boot
        // (`osctl reconcile`, then the gateway's presync hook), as the book promises. Judge the
        // device after that boot, on all three. A boot killed in its reconcile never ran its
        // presync, which the next boot runs.
        let multi_plan = matches!(cmd, Op::Switch { .. } | Op::Boot);
        if multi_plan
            && !completed
            && visible(&got) != visible(&nb)
            && visible(&got) != visible(&nr)
        {
            for a in self.invocations(&Op::Boot) {
                self.stats.runs += 3;
                for d in [&b, &r] {
                    d.run(&a);
                }
                self.run(&a);
            }
            (nb, nr, got) = (b.snapshot(), r.snapshot(), self.dev.snapshot());
        }
        if multi_plan {
            // Each of those plans appends the config.json keys it adds (its markers) when it
            // runs: killed between two, the device reaches the same keys and values in another
            // order. The keys config.json had before keep their order; only the new ones may
            // come in any.
            for t in [&mut nb, &mut nr, &mut got] {
                new_keys_in_any_order(t, &before, CONFIG_JSON);
            }
        }
        let (ub, ur, ug) = (b.unit_states(), r.unit_states(), self.dev.unit_states());
        let next_ctx = format!("{ctx}, then `{next}`");
        if completed && visible(&got) != visible(&nr) {
            let undone = visible(&got) == visible(&nb);
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "the killed command had completed its change{}; the next command {}\n  against the completed run: {}",
                    if r_out.code == Some(0) { "" } else { " (its uninterrupted run failed)" },
                    if undone { "reverted it" } else { "left neither state" },
                    rs::describe_diff(&visible(&nr), &visible(&got))
                ),
            );
        } else if !completed
            && visible(&got) != visible(&nb)
            && visible(&got) != visible(&nr)
            && !unlinked
                .as_ref()
                .is_some_and(|u| visible(&got) == visible(&u.snapshot()))
        {
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "after the kill, the next command did not converge to either the old or the new state\n  against old: {}\n  against new: {}",
                    rs::describe_diff(&visible(&nb), &visible(&got)),
                    rs::describe_diff(&visible(&nr), &visible(&got))
                ),
            );
        }
        let stray: Vec<String> = empty_folders(&got)
            .into_iter()
            .filter(|d| !empty_folders(&nb).contains(d) && !empty_folders(&nr).contains(d))
            .filter(|d| {
                !nb.keys()
                    .chain(nr.keys())
                    .any(|k| k.starts_with(&format!("{d}/")))
            })
            .collect();
        if !stray.is_empty() {
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "folders the killed run created are left empty after the restore: {stray:?}"
                ),
            );
        }
        if ug != ub && ug != ur {
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "the units converged to neither state: {ug:?}\n  old: {ub:?}\n  new: {ur:?}"
                ),
            );
        }
        if self.dev.journals_pending() && next.is_osctl_write() {
            self.violate(
                "crash",
                &next_ctx,
                "a journal is still pending after the next command".into(),
            );
        }
        // The model follows whichever state the device reached.
        if visible(&got) == visible(&nr) && r_out.code == Some(0) {
            self.model_after(cmd, active_before.as_deref());
        }
        if next_ok {
            // The runtime that was active when the next command ran (a reset resolves another
            // one after it: the model must forget the edits of the runtime it reset).
            self.model_after(next, active_now.as_deref());
        }
    }

    /// The runtime the next command resolves, as osctl resolves it (`status`): config.json's,
    /// else the image default, which is what a reset leaves. With a journal pending the next
    /// command restores it first, so config.json as the killed run left it says little: the
    /// model's runtime stands unless config.json names one.
    pub(super) fn resolved_runtime(&mut self) -> Option<String> {
        if self.dev.journals_pending() {
            return self.dev.config_runtime().or(self.model.active.clone());
        }
        self.stats.runs += 1;
        let out = self.dev.run(&s(&["--json", "status"]));
        serde_json::from_str::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|doc| doc["active"]["runtime"].as_str().map(str::to_string))
            .or(self.model.active.clone())
    }

    pub(super) fn fifo(&mut self, path: &str, cmd: &Op) {
        let full = self.dev.root.join(path);
        let Ok(original) = std::fs::read(&full) else {
            // Nothing to plant over: the command runs as usual.
            self.command_op(cmd);
            return;
        };
        self.stats.fifos += 1;
        let mode = std::fs::metadata(&full)
            .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
            .unwrap();
        std::fs::remove_file(&full).unwrap();
        let c = std::ffi::CString::new(full.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(
            unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
            0,
            "mkfifo {path}"
        );
        let active = self.model.active.clone();
        self.dev.before_op(cmd, active.as_deref());
        let mut ok = true;
        for args in self.invocations(cmd) {
            self.stats.runs += 1;
            let out = self
                .dev
                .run_watched(&args, None, None, device::RUN_TIMEOUT, true);
            ok &= out.code == Some(0);
            let ctx = format!("osctl {} with a FIFO at /{path}", args.join(" "));
            if out.timed_out {
                self.violate(
                    "no-hang",
                    &ctx,
                    format!(
                        "blocked opening the FIFO (or still running after {:?}): killed after {:?}\n{}",
                        device::RUN_TIMEOUT,
                        out.elapsed,
                        out.text()
                    ),
                );
            } else if out.code == Some(101) {
                self.violate("no-internal-error", &ctx, out.text());
            } else if out.code == Some(1) && unclear(&out.stderr).is_some() {
                self.violate(
                    "operable",
                    &ctx,
                    format!("an unclear refusal\n{}", out.text()),
                );
            }
        }
        self.dev.after_op(cmd);
        if ok {
            self.model_after(cmd, active.as_deref());
        }
        // The runtime puts its file back (whatever osctl left there).
        let _ = std::fs::remove_file(&full);
        let _ = std::fs::remove_dir_all(&full);
        rs::write(&self.dev.root, path, &original, mode);
        // A killed run's journal is restored by the next run: make it this one, so the FIFO
        // step ends on a whole device.
        if self.dev.journals_pending() {
            let out = self.run(&s(&["recover"]));
            if out.code != Some(0) {
                self.violate("operable", "osctl recover after a FIFO", out.text());
            }
        }
    }
}
