//! The device-wide lock: one osctl run changes a device at a time.
//!
//! The lock is an advisory `flock` on `/var/lib/osctl/lock` under the root (std `File::lock`), so
//! shell scripts can share it with `flock(1)`, tests under different roots never contend, and the
//! kernel releases it when a holder dies, however it dies.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::time::{Duration, Instant};

use crate::error::{Error, Exit, Result};
use crate::system::fs::RootFs;
use crate::system::path::DevPath;

/// Device folder for osctl's own state (lock, journal, switch record).
pub const STATE_DIR: &str = "/var/lib/osctl";

/// A held device lock; dropping it releases the lock.
#[derive(Debug)]
pub struct DeviceLock {
    _file: File,
}

impl DeviceLock {
    /// Waits up to `timeout` for the lock, then fails with exit 6 (`busy`).
    pub fn acquire(fs: &RootFs, timeout: Duration) -> Result<DeviceLock> {
        let dev = DevPath::new(STATE_DIR).join("lock");
        let host = fs.host(&dev)?;
        if let Some(parent) = host.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io("create", DevPath::new(STATE_DIR), &e))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&host)
            .map_err(|e| Error::io("open the lock file", &dev, &e))?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    if started.elapsed() >= timeout {
                        let holder = std::fs::read_to_string(&host).unwrap_or_default();
                        let holder = holder.trim();
                        let mut err = Error::new(
                            Exit::Busy,
                            "busy",
                            format!(
                                "another osctl run holds the device lock {dev} (waited {} s)",
                                timeout.as_secs()
                            ),
                        );
                        if !holder.is_empty() {
                            err = err.cause(format!("held by {holder}"));
                        }
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
        // Record the holder for the busy message of the next run (best effort: the lock itself
        // is the flock, not this text).
        let _ = file.set_len(0);
        let _ = write!(
            file,
            "pid {} ({})",
            std::process::id(),
            std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        );
        Ok(DeviceLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_times_out_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let first = DeviceLock::acquire(&fs, Duration::from_secs(1)).unwrap();
        let err = DeviceLock::acquire(&fs, Duration::from_millis(50)).unwrap_err();
        assert_eq!(err.exit, Exit::Busy);
        drop(first);
        DeviceLock::acquire(&fs, Duration::from_millis(50)).unwrap();
    }
}
