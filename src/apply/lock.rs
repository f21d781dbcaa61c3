//! The device-wide lock: one osctl run changes a device at a time, and osctl's state folder.
//!
//! The lock is an advisory `flock` on `/var/lib/osctl/lock` under the root (std `File::lock`), so
//! shell scripts can share it with `flock(1)`, tests under different roots never contend, and the
//! kernel releases it when a holder dies, however it dies. The lock file itself stays empty.
//!
//! **The holder's note.** Right after it takes the lock, a holder writes who it is (pid, start
//! time, the operation, and its command line with every secret masked) to `lock.holder`,
//! whole, under a temporary name renamed into place, so a reader never sees half a note. A note
//! counts only while its process is alive with the same start time (a killed holder's note is
//! stale), and the holder removes it before it lets the lock go. A run that finds the lock held
//! but no note from the current holder yet waits for one briefly (at most [`NOTE_WAIT`]): the
//! busy message names the holder, and a run that must not queue behind one of its own kind (a
//! second `osctl switch`) is refused at once, however the two were scheduled.
//!
//! **The state folder is root's alone.** `/var/lib/osctl` and the folders osctl keeps in it are
//! created 0700 and its files 0600, whatever the umask, since they hold originals of secret
//! files and decide what a root process restores. A state folder, lock, journal or note that is
//! not owned by the running user, or that group or others could write, is refused with an
//! error that says so; the lock is opened without following a link and refused unless it is a
//! regular file with no other hard link (a link to a file elsewhere would otherwise be locked
//! and rewritten by a root process).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Exit, Result};
use crate::path::DevPath;
use crate::system::fs::RootFs;

/// Device folder for osctl's own state (lock, journal, switch record).
pub const STATE_DIR: &str = "/var/lib/osctl";

/// How long a run that finds the lock held waits for the holder's note to appear.
pub const NOTE_WAIT: Duration = Duration::from_secs(2);

const LOCK: &str = "lock";
const NOTE: &str = "lock.holder";
const NOTE_TEMP: &str = ".lock.holder.osctl-tmp";

/// Who holds the lock, as its note says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    /// The process's start time (`/proc/<pid>/stat`, clock ticks after boot; 0 when unknown).
    pub start: u64,
    /// The subcommand (`switch`, `presync`...); empty when the holder did not say.
    pub operation: String,
    /// The command line, secrets masked.
    pub command: String,
}

impl Holder {
    /// This process, running `operation` as `command` (already masked).
    pub fn me(operation: &str, command: &str) -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            start: start_time(pid).unwrap_or(0),
            operation: operation.to_string(),
            command: command.to_string(),
        }
    }

    /// Whether the process that wrote this note is still the one running under its pid.
    fn alive(&self) -> bool {
        if self.pid == 0 {
            return false;
        }
        match (start_time(self.pid), self.start) {
            (Some(now), start) if start != 0 => now == start,
            (Some(_), _) => true,
            // No /proc: the pid's existence is all there is to go on.
            // SAFETY: kill with signal 0 only checks that the process exists.
            (None, _) => unsafe { libc::kill(self.pid as i32, 0) == 0 },
        }
    }

    /// `pid N (command)` for messages.
    pub fn describe(&self) -> String {
        format!(
            "pid {} ({})",
            self.pid,
            crate::redact::redact(&self.command)
        )
    }
}

/// A process's start time from `/proc/<pid>/stat` (field 22); `None` when it is not running or
/// there is no /proc.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// A held device lock; dropping it removes the holder's note, then releases the lock.
#[derive(Debug)]
pub struct DeviceLock {
    _file: File,
    note: PathBuf,
}

impl Drop for DeviceLock {
    fn drop(&mut self) {
        // Before the lock goes (the file closes after this body): the next holder's note is
        // never removed by this one.
        let _ = std::fs::remove_file(&self.note);
    }
}

impl DeviceLock {
    /// Waits up to `timeout` for the lock, then fails with exit 6 (`busy`); the note names this
    /// process with its (masked) command line.
    pub fn acquire(fs: &RootFs, timeout: Duration) -> Result<DeviceLock> {
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let me = Holder::me("", &crate::redact::mask_command_line(&args));
        Self::acquire_as(fs, timeout, &me, false)
    }

    /// Takes the lock as `me` if it is free right now; `None` when another process holds it.
    pub fn try_acquire_as(fs: &RootFs, me: &Holder) -> Result<Option<DeviceLock>> {
        let dev = DevPath::new(STATE_DIR).join(LOCK);
        let state = private_dir(fs, &DevPath::new(STATE_DIR))?;
        let file = open_lock(&state.join(LOCK), &dev)?;
        match file.try_lock() {
            Ok(()) => Self::held(file, &state, me, &dev).map(Some),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(Error::io("lock", &dev, &e)),
        }
    }

    fn held(file: File, state: &Path, me: &Holder, dev: &DevPath) -> Result<DeviceLock> {
        // An older osctl kept its note (unmasked) in the lock file itself.
        if file.metadata().is_ok_and(|m| m.len() > 0) {
            let _ = file.set_len(0);
        }
        write_note(state, me).map_err(|e| {
            Error::io(
                "write the lock holder's note",
                dev.with_suffix(".holder"),
                &e,
            )
        })?;
        Ok(DeviceLock {
            _file: file,
            note: state.join(NOTE),
        })
    }

    /// Waits up to `timeout` for the lock as `me`. With `exclusive`, a holder whose note names
    /// the same operation refuses this run at once (busy) instead of queueing it behind.
    pub fn acquire_as(
        fs: &RootFs,
        timeout: Duration,
        me: &Holder,
        exclusive: bool,
    ) -> Result<DeviceLock> {
        let dev = DevPath::new(STATE_DIR).join(LOCK);
        let state = private_dir(fs, &DevPath::new(STATE_DIR))?;
        let file = open_lock(&state.join(LOCK), &dev)?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let holder = if exclusive || started.elapsed() >= timeout {
                        current_holder(&state, &file, NOTE_WAIT)
                    } else {
                        None
                    };
                    if exclusive
                        && let Some(h) = holder.as_ref().filter(|h| h.operation == me.operation)
                    {
                        return Err(Error::new(
                            Exit::Busy,
                            "busy",
                            format!(
                                "another osctl {} is in progress (pid {})",
                                me.operation, h.pid
                            ),
                        )
                        .cause(format!("held by {}", h.describe()))
                        .hint("wait for it to finish, then run again"));
                    }
                    if started.elapsed() >= timeout {
                        let mut err = Error::new(
                            Exit::Busy,
                            "busy",
                            format!(
                                "another osctl run holds the device lock {dev} (waited {} s)",
                                timeout.as_secs()
                            ),
                        );
                        err = err.cause(match holder {
                            Some(h) => format!("held by {}", h.describe()),
                            None => "held by a process that left no note (flock(1)?)".into(),
                        });
                        return Err(err
                            .hint("wait for it to finish and run again, or raise --lock-timeout"));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(Error::io("lock", &dev, &e));
                }
            }
        }
        Self::held(file, &state, me, &dev)
    }
}

/// Opens the lock file (creating it 0600), refusing anything but a regular file of ours with no
/// other hard link.
fn open_lock(host: &Path, dev: &DevPath) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(host)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                refused(dev, "it is a symbolic link")
            } else {
                Error::io("open the lock file", dev, &e)
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io("inspect the lock file", dev, &e))?;
    if !meta.is_file() {
        return Err(refused(
            dev,
            &format!(
                "it is {}",
                crate::system::fs::special_kind(&meta.file_type())
            ),
        ));
    }
    if meta.nlink() != 1 {
        return Err(refused(
            dev,
            &format!(
                "it has {} hard links (a link to a file elsewhere would be locked and rewritten)",
                meta.nlink()
            ),
        ));
    }
    check_owner(dev, &meta)?;
    if meta.mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io("protect the lock file", dev, &e))?;
    }
    Ok(file)
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

fn refused(dev: &DevPath, why: &str) -> Error {
    Error::input(
        "untrusted_state",
        format!("refusing to use {dev}: {why}"),
    )
    .hint(format!(
        "osctl keeps its lock and journal in {STATE_DIR}, which only the user running osctl may write; check who put this there, remove it, and run again"
    ))
}

/// Refuses `meta` unless the running user owns it and neither group nor others may write it.
pub fn check_owner(dev: &DevPath, meta: &std::fs::Metadata) -> Result<()> {
    if meta.uid() != euid() {
        return Err(refused(
            dev,
            &format!(
                "it belongs to uid {}, not to the user running osctl (uid {})",
                meta.uid(),
                euid()
            ),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(refused(
            dev,
            &format!(
                "group or others may write it (mode {:04o})",
                meta.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

/// Makes `dev` (a folder of osctl's state: `/var/lib/osctl` or one inside it) exist as a folder
/// only the running user may enter: created 0700 whatever the umask, and an existing one checked
/// (a real folder, not a link; owned by the running user; not writable by group or others) and
/// closed to group and others. Returns its host path.
pub fn private_dir(fs: &RootFs, dev: &DevPath) -> Result<PathBuf> {
    let parent = dev.parent().unwrap_or_else(|| DevPath::new("/"));
    let name = dev.file_name().unwrap_or_default();
    let up = fs.host(&parent)?;
    if !up.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(&up)
            .map_err(|e| Error::io("create", &parent, &e))?;
    }
    let host = up.join(name);
    match std::fs::DirBuilder::new().mode(0o700).create(&host) {
        Ok(()) => {
            std::fs::set_permissions(&host, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| Error::io("protect", dev, &e))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::io("create", dev, &e)),
    }
    let meta = std::fs::symlink_metadata(&host).map_err(|e| Error::io("inspect", dev, &e))?;
    if !meta.is_dir() {
        return Err(refused(
            dev,
            &format!(
                "it is {}, not a folder",
                crate::system::fs::special_kind(&meta.file_type())
            ),
        ));
    }
    check_owner(dev, &meta)?;
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(&host, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io("protect", dev, &e))?;
    }
    Ok(host)
}

/// Writes `me` as the holder's note: whole, under a temporary name, renamed into place. Not
/// synced: a note only speaks for a live process, so one lost to a power cut is no loss.
fn write_note(state: &Path, me: &Holder) -> std::io::Result<()> {
    let temp = state.join(NOTE_TEMP);
    match std::fs::remove_file(&temp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temp)?;
    let text = serde_json::to_vec(me).map_err(std::io::Error::other)?;
    f.write_all(&text)?;
    drop(f);
    std::fs::rename(&temp, state.join(NOTE))
}

/// The note of the process that holds the lock now, if it wrote one: waits up to `wait` for it
/// (a new holder writes its note right after it takes the lock), and gives up early when the
/// lock is released meanwhile.
fn current_holder(state: &Path, lock: &File, wait: Duration) -> Option<Holder> {
    let started = Instant::now();
    loop {
        if let Some(h) = read_note(state).filter(Holder::alive) {
            return Some(h);
        }
        if started.elapsed() >= wait {
            return None;
        }
        // Free now (the holder finished): the caller's next try takes it.
        if lock.try_lock_shared().is_ok() {
            let _ = lock.unlock();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The holder's note as it is on disk (any process's, live or not); `None` when there is none
/// or it cannot be trusted (not a regular file of ours).
fn read_note(state: &Path) -> Option<Holder> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(state.join(NOTE))
        .ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file()
        || meta.len() > 64 << 10
        || check_owner(&DevPath::new(STATE_DIR).join(NOTE), &meta).is_err()
    {
        return None;
    }
    serde_json::from_reader(std::io::BufReader::new(f)).ok()
}

/// Whether another process holds the device lock now (checked without taking it or creating
/// the lock file, so `status` stays read-only).
pub fn held(fs: &RootFs) -> Result<bool> {
    let dev = DevPath::new(STATE_DIR).join(LOCK);
    let host = fs.host(&dev)?;
    let file = match OpenOptions::new().read(true).open(&host) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io("open", &dev, &e)),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(false),
        Err(std::fs::TryLockError::WouldBlock) => Ok(true),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io("lock", &dev, &e)),
    }
}

/// The note of the process that holds the lock now, without waiting (for `status`).
pub fn holder(fs: &RootFs) -> Option<Holder> {
    let state = fs.host(&DevPath::new(STATE_DIR)).ok()?;
    read_note(&state).filter(Holder::alive)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_as(fs: &RootFs, op: &str, timeout: Duration) -> Result<DeviceLock> {
        DeviceLock::acquire_as(
            fs,
            timeout,
            &Holder::me(op, &format!("osctl {op}")),
            op == "switch",
        )
    }

    #[test]
    fn second_holder_times_out_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let first = DeviceLock::acquire(&fs, Duration::from_secs(1)).unwrap();
        let err = DeviceLock::acquire(&fs, Duration::from_millis(50)).unwrap_err();
        assert_eq!(err.exit, Exit::Busy);
        assert!(err.causes[0].starts_with("held by pid "), "{err:?}");
        drop(first);
        DeviceLock::acquire(&fs, Duration::from_millis(50)).unwrap();
    }

    #[test]
    fn the_note_lives_as_long_as_the_lock_and_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let note = dir.path().join("var/lib/osctl/lock.holder");
        let held = lock_as(&fs, "presync", Duration::ZERO).unwrap();
        let h = holder(&fs).unwrap();
        assert_eq!(h.pid, std::process::id());
        assert_eq!(h.operation, "presync");
        assert_eq!(
            std::fs::metadata(&note).unwrap().permissions().mode() & 0o777,
            0o600
        );
        drop(held);
        assert!(!note.exists());
        assert_eq!(
            std::fs::metadata(dir.path().join("var/lib/osctl/lock"))
                .unwrap()
                .len(),
            0
        );
    }

    #[test]
    fn a_stale_note_of_a_dead_holder_is_not_believed() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        private_dir(&fs, &DevPath::new(STATE_DIR)).unwrap();
        let mut dead = Holder::me("switch", "osctl switch hermes");
        dead.start += 1; // same pid, another process: not the holder
        write_note(&dir.path().join("var/lib/osctl"), &dead).unwrap();
        assert_eq!(holder(&fs), None);
    }

    #[test]
    fn an_exclusive_operation_is_refused_at_once_by_its_own_kind_only() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let _held = lock_as(&fs, "switch", Duration::ZERO).unwrap();
        let started = Instant::now();
        let err = lock_as(&fs, "switch", Duration::from_secs(30)).unwrap_err();
        assert_eq!(err.exit, Exit::Busy);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            err.message.contains("another osctl switch is in progress"),
            "{err:?}"
        );
        // Another kind waits for the lock (here: until its timeout).
        let err = lock_as(&fs, "presync", Duration::from_millis(100)).unwrap_err();
        assert!(err.message.contains("holds the device lock"), "{err:?}");
    }
}
