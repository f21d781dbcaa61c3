//! Fault injection for the crash and rollback tests, compiled into debug builds only.
//!
//! `OSCTL_FAULT` selects one fault:
//! - `panic`: panic as the run starts (checks the internal-error path, exit 101);
//! - `fail-write:N`: the Nth file step of an apply fails with an I/O error (rollback, exit 4);
//! - `abort-write:N`: the process aborts (no destructors, like a power cut) before the Nth file
//!   step, leaving the journal behind;
//! - `fail-restore`: restoring a journal fails (incomplete rollback, exit 5).
//!
//! Release builds ignore the variable: every function here is a no-op there.

#[cfg(debug_assertions)]
mod imp {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static FAULT: OnceLock<Option<String>> = OnceLock::new();
    static WRITES: AtomicUsize = AtomicUsize::new(0);

    fn fault() -> Option<&'static str> {
        FAULT
            .get_or_init(|| std::env::var("OSCTL_FAULT").ok().filter(|s| !s.is_empty()))
            .as_deref()
    }

    pub fn at_start() {
        if fault() == Some("panic") {
            panic!("fault injected by OSCTL_FAULT=panic");
        }
    }

    pub fn before_write() -> std::io::Result<()> {
        let n = WRITES.fetch_add(1, Ordering::SeqCst) + 1;
        let Some(f) = fault() else { return Ok(()) };
        if let Some(k) = f.strip_prefix("fail-write:")
            && k.parse() == Ok(n)
        {
            return Err(std::io::Error::other(format!(
                "fault injected at write {n}"
            )));
        }
        if let Some(k) = f.strip_prefix("abort-write:")
            && k.parse() == Ok(n)
        {
            std::process::abort();
        }
        Ok(())
    }

    pub fn before_restore() -> std::io::Result<()> {
        if fault() == Some("fail-restore") {
            return Err(std::io::Error::other("fault injected in restore"));
        }
        Ok(())
    }
}

#[cfg(not(debug_assertions))]
mod imp {
    #[inline(always)]
    pub fn at_start() {}
    #[inline(always)]
    pub fn before_write() -> std::io::Result<()> {
        Ok(())
    }
    #[inline(always)]
    pub fn before_restore() -> std::io::Result<()> {
        Ok(())
    }
}

pub use imp::*;
