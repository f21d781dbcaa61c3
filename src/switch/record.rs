//! The record of a switch in progress: `/var/lib/osctl/switch.json`.
//!
//! A switch writes it (atomically, durably) before its first change and removes it after its
//! commit point, or after a complete rollback. So when a run finds it and can take the device
//! lock, the switch that wrote it was killed (SIGKILL, power loss) somewhere in between: config.json
//! still names the old runtime (the commit point writes it last), the journals of the files it
//! changed have been restored by the lock's recovery, and only the services may be half switched.
//! `osctl switch` and `osctl reconcile` then converge the services to config.json
//! ([`super::converge`]); `osctl status` reports it. While the lock is held, the record means a
//! switch is running now: a second `osctl switch` is refused at once (busy, exit 6) instead of
//! waiting for the lock, as upstream refuses a second switch (`ErrAgentRuntimeSwitchInProgress`).

use serde::{Deserialize, Serialize};

use crate::apply::lock::{self, STATE_DIR};
use crate::apply::state;
use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;

/// How far a switch got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Phase {
    /// Writing the embedded files.
    Materializing,
    /// Running the installer.
    Installing,
    /// Writing presync's changes.
    Presync,
    /// Starting the new unit and waiting for it to stay up (and be ready).
    Starting,
    /// Stopping the old unit.
    StoppingOld,
    /// Writing config.json.
    Committing,
    /// A failure is being rolled back.
    RollingBack,
}

impl Phase {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Materializing => "materializing",
            Phase::Installing => "installing",
            Phase::Presync => "presync",
            Phase::Starting => "starting",
            Phase::StoppingOld => "stopping-old",
            Phase::Committing => "committing",
            Phase::RollingBack => "rolling-back",
        }
    }
}

/// The record's schema: 2 since the old unit's state (`from_was`) is recorded before an
/// installer runs too (an installer may stop the old unit); 1, written by older osctl, recorded
/// it only right before the new unit started.
pub(crate) const SCHEMA: u32 = 2;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub schema: u32,
    pub from: RuntimeId,
    pub to: RuntimeId,
    /// Units without `.service`.
    pub from_unit: String,
    pub to_unit: String,
    pub pid: u32,
    /// Unix seconds.
    pub started: i64,
    pub phase: Phase,
    /// The old unit's state before the switch touched it (read right before the new unit
    /// starts): a convergence back to the old runtime gives back that state, not "enabled and
    /// running" (the old runtime config.json names need not be the one that ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_was: Option<Was>,
    /// The new unit's state, read with the old one's right before the new unit starts: a
    /// convergence back to the old runtime gives the new unit back that state too (a unit that
    /// already ran before the switch keeps running), as the in-process rollback does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_was: Option<Was>,
}

/// Whether a unit was running and enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Was {
    pub running: bool,
    pub enabled: bool,
}

/// `/var/lib/osctl/switch.json`.
pub(crate) fn path() -> DevPath {
    DevPath::new(STATE_DIR).join("switch.json")
}

/// The record, if a switch left one. A damaged record is an error that names it.
pub(crate) fn read(fs: &RootFs) -> Result<Option<Record>> {
    let p = path();
    let Some(text) = fs.read_text(&p)? else {
        return Ok(None);
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Error::json(&p, &e).hint(format!(
            "{p} records a runtime switch that was interrupted; if it is damaged, remove it and run `osctl switch <runtime>` to bring the services in line"
        ))
    })
}

/// Writes the record atomically and durably.
pub(crate) fn write(fs: &RootFs, record: &Record) -> Result<()> {
    let mut text = serde_json::to_vec_pretty(record).map_err(|e| Error::internal(e.to_string()))?;
    text.push(b'\n');
    state::write(fs, &path(), &text, 0o644)
}

/// Removes the record (durably); a missing record is fine.
pub(crate) fn remove(fs: &RootFs) -> Result<()> {
    state::remove(fs, &path())
}

/// A switch recorded and running now (its process holds the lock).
pub(crate) fn running(fs: &RootFs) -> Result<Option<Record>> {
    match read(fs)? {
        Some(r) if lock::held(fs)? => Ok(Some(r)),
        _ => Ok(None),
    }
}

/// Busy (exit 6) at once when a switch is running now: a second switch is refused rather than
/// queued behind the lock.
pub(crate) fn refuse_if_running(fs: &RootFs) -> Result<()> {
    match running(fs)? {
        None => Ok(()),
        Some(r) => Err(Error::new(
            Exit::Busy,
            "busy",
            format!(
                "a switch from {} to {} is in progress (pid {})",
                r.from, r.to, r.pid
            ),
        )
        .hint("wait for it to finish, then run again")),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::apply::lock::DeviceLock;
    use std::time::Duration;

    fn record() -> Record {
        Record {
            schema: 1,
            from: RuntimeId::Openclaw,
            to: RuntimeId::Hermes,
            from_unit: "openclaw".into(),
            to_unit: "hermes-gateway".into(),
            pid: 42,
            started: 1_700_000_000,
            from_was: None,
            to_was: None,
            phase: Phase::Starting,
        }
    }

    #[test]
    fn round_trip_and_remove() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        assert_eq!(read(&fs).unwrap(), None);
        write(&fs, &record()).unwrap();
        assert_eq!(read(&fs).unwrap(), Some(record()));
        let text = std::fs::read_to_string(dir.path().join("var/lib/osctl/switch.json")).unwrap();
        assert!(text.contains("\"to\": \"hermes\""), "{text}");
        assert!(text.contains("\"phase\": \"starting\""), "{text}");
        remove(&fs).unwrap();
        remove(&fs).unwrap();
        assert_eq!(read(&fs).unwrap(), None);
    }

    #[test]
    fn a_damaged_record_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("var/lib/osctl")).unwrap();
        std::fs::write(dir.path().join("var/lib/osctl/switch.json"), "{\"from\":").unwrap();
        let err = read(&fs).unwrap_err();
        assert!(
            err.message.contains("/var/lib/osctl/switch.json"),
            "{err:?}"
        );
    }

    #[test]
    fn running_only_while_the_lock_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        assert!(!lock::held(&fs).unwrap());
        write(&fs, &record()).unwrap();
        assert_eq!(running(&fs).unwrap(), None);
        let lock = DeviceLock::acquire(&fs, Duration::from_secs(1)).unwrap();
        assert!(lock::held(&fs).unwrap());
        assert_eq!(running(&fs).unwrap(), Some(record()));
        drop(lock);
        assert_eq!(running(&fs).unwrap(), None);
    }
}
