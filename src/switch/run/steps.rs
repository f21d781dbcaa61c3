//! The switch's file and program steps: journaling what a phase touches, applying its plan,
//! the installer and presync.

use super::*;

impl Txn<'_> {
    /// Journals the originals of the paths `plan` (and `extra`) touches that no journal of this
    /// switch holds yet, so every original kept is from before the switch (or, for files an
    /// installer made, from before osctl changed them).
    pub(super) fn journal(&mut self, plan: &Plan, extra: &[DevPath]) -> Result<()> {
        let mut touches: Vec<Touch> = plan.file_changes().map(Touch::of).collect();
        touches.extend(extra.iter().cloned().map(Touch::later));
        self.txn.journal(touches, &[])
    }

    /// Applies a plan's steps in order into the switch's transaction (files through its
    /// journals, service actions through the unit driver), and makes its writes durable: what
    /// the switch starts next reads them.
    pub(super) fn apply(&mut self, plan: &Plan) -> Result<()> {
        if plan.file_changes().any(|c| is_unit_file(&c.path)) {
            self.need_reload = true;
            self.touched_units = true;
        }
        let (skipped, warned) = {
            let applied = self.txn.applied();
            (applied.skipped_offline.len(), applied.warnings.len())
        };
        self.txn.run(&plan.steps, self.units, Stage::BeforeCommit)?;
        self.txn.flush()?;
        let applied = self.txn.applied();
        for step in &applied.skipped_offline[skipped..] {
            self.t
                .out
                .status(&format!("not run (the root is not /): {step}"));
        }
        // Printed already, as each happened.
        self.warnings
            .extend(applied.warnings[warned..].iter().cloned());
        for w in &plan.warnings {
            self.warn(w.clone());
        }
        Ok(())
    }

    /// Re-reads the new runtime's unit name (an installer may declare another one).
    pub(super) fn refresh_unit(&mut self) -> Result<()> {
        let unit = install::unit_name(self.t.fs, self.to)?;
        if unit != self.record.to_unit {
            self.record.to_unit = unit;
            record::write(self.t.fs, &self.record)?;
        }
        Ok(())
    }

    pub(super) fn install(&mut self, why: &str) -> Result<()> {
        self.phase(Phase::Installing)?;
        self.note_old()?;
        if !self.t.services.is_offline() {
            // The installer may stop or restart the old unit.
            self.record_old()?;
        }
        let choice = &self.opts.installer;
        if !choice.available(self.to) {
            return Err(installer::Choice::unavailable(self.to, why).with_exit(Exit::RolledBack));
        }
        self.installed = true;
        self.need_reload = true;
        self.touched_units = true;
        if !self.t.fs.is_live() {
            self.status(&format!(
                "{} needs installing ({why}); not run (the root is not /): {}",
                self.to.name,
                choice.describe(self.to)
            ));
            return Ok(());
        }
        let prepared = match &self.prepared {
            Some(p) => p.clone(),
            None => installer::prepare(choice, self.to, self.fetch)?,
        };
        self.prepared = Some(prepared.clone());
        self.status(&format!("{} needs installing ({why})", self.to.name));
        let layout = &self.device.layout;
        let log = match self.to.install_log {
            Some(loc) => layout.path(loc),
            None => layout
                .path(Loc::abs("/var/log/osctl"))
                .join(format!("{}-install.log", self.to.name)),
        };
        let mut env = vec![
            ("OSCTL_RUNTIME".to_string(), self.to.name.to_string()),
            ("OSCTL_RUNTIME_DIR".to_string(), runtime_lib_dir(self.to.id)),
            (
                "OSCTL_RUNTIME_HOME".to_string(),
                layout.path(self.to.home).to_string(),
            ),
            ("OSCTL_UNIT".to_string(), self.to_unit()),
        ];
        env.extend(choice.env.iter().cloned());
        let ran = installer::run(
            self.t.fs,
            self.t.out,
            &prepared,
            self.to,
            env,
            choice.timeout,
            &log,
        )?;
        if !ran.output.success() {
            return Err(ran.failure(self.to));
        }
        self.status(&format!(
            "installed {} in {} s (log: {})",
            self.to.name,
            ran.output.elapsed.as_secs(),
            ran.log
        ));
        self.refresh_unit()
    }

    pub(super) fn presync(&mut self) -> Result<()> {
        self.phase(Phase::Presync)?;
        let mut draft = Draft::new(self.t.fs);
        if let Err(e) = crate::presync::plan(&mut draft, self.device, self.to.id) {
            // Upstream's switch treats a failing presync as a warning, and so does osctl: the
            // runtime may still start, and `osctl presync` can be run again on its own.
            self.warn(format!(
                "presync for {} failed: {}; starting it anyway",
                self.to.name, e.message
            ));
            return Ok(());
        }
        let plan = draft.finish();
        self.journal(&plan, &[])?;
        self.apply(&plan)
    }
}
