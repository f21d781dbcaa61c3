//! Fault injection for the crash and rollback tests, compiled into debug builds only.
//!
//! `OSCTL_FAULT` selects one fault:
//! - `panic`: panic as the run starts (checks the internal-error path, exit 101);
//! - `fail-write:N`: the Nth file step of an apply fails with an I/O error (rollback, exit 4);
//! - `abort-write:N`: the process aborts (no destructors, like a power cut) before the Nth file
//!   step, leaving the journal behind;
//! - `signal-write:N:SIG` (SIG one of INT, TERM, HUP): osctl sends itself that signal before
//!   the Nth file step, through the real handler (the interrupt tests: rollback, exit 130);
//! - `abort-before-done`: the process aborts after the last write of an apply, before its
//!   journal is marked done (the window between the change landing and being recorded);
//! - `fail-done`: marking a journal done fails (the run rolls back);
//! - `fail-cleanup`: removing a finished journal fails (the run still succeeds);
//! - `fail-restore`: restoring a journal fails (incomplete rollback, exit 5);
//! - `immutable:NAME`: removing or replacing any file or folder called NAME fails with EPERM,
//!   as `chattr +i` makes it (for machines where chattr is not available).
//!
//! Release builds ignore the variable: every function here is a no-op there.

#[cfg(debug_assertions)]
mod imp {
    use std::path::Path;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static FAULT: OnceLock<Option<String>> = OnceLock::new();
    static WRITES: AtomicUsize = AtomicUsize::new(0);

    fn fault() -> Option<&'static str> {
        FAULT
            .get_or_init(|| std::env::var("OSCTL_FAULT").ok().filter(|s| !s.is_empty()))
            .as_deref()
    }

    fn injected(what: &str) -> std::io::Error {
        std::io::Error::other(format!("fault injected {what}"))
    }

    pub(crate) fn at_start() {
        if fault() == Some("panic") {
            panic!("fault injected by OSCTL_FAULT=panic");
        }
    }

    pub(crate) fn before_write() -> std::io::Result<()> {
        let n = WRITES.fetch_add(1, Ordering::SeqCst) + 1;
        let Some(f) = fault() else { return Ok(()) };
        if let Some(k) = f.strip_prefix("fail-write:")
            && k.parse() == Ok(n)
        {
            return Err(injected(&format!("at write {n}")));
        }
        if let Some(k) = f.strip_prefix("abort-write:")
            && k.parse() == Ok(n)
        {
            std::process::abort();
        }
        if let Some((k, sig)) = f
            .strip_prefix("signal-write:")
            .and_then(|rest| rest.split_once(':'))
            && k.parse() == Ok(n)
        {
            let sig = match sig {
                "INT" => libc::SIGINT,
                "TERM" => libc::SIGTERM,
                "HUP" => libc::SIGHUP,
                other => panic!("OSCTL_FAULT=signal-write: unknown signal {other}"),
            };
            // SAFETY: raise(3) sends a signal to this process; its handler only sets flags.
            unsafe {
                libc::raise(sig);
            }
        }
        Ok(())
    }

    pub(crate) fn before_done() -> std::io::Result<()> {
        match fault() {
            Some("abort-before-done") => std::process::abort(),
            Some("fail-done") => Err(injected("in marking the journal done")),
            _ => Ok(()),
        }
    }

    pub(crate) fn before_cleanup() -> std::io::Result<()> {
        if fault() == Some("fail-cleanup") {
            return Err(injected("in removing the journal"));
        }
        Ok(())
    }

    pub(crate) fn before_restore() -> std::io::Result<()> {
        if fault() == Some("fail-restore") {
            return Err(injected("in restore"));
        }
        Ok(())
    }

    fn immutable(path: &Path) -> std::io::Result<()> {
        if let Some(name) = fault().and_then(|f| f.strip_prefix("immutable:"))
            && path.file_name().is_some_and(|n| n == name)
        {
            return Err(std::io::Error::from_raw_os_error(libc::EPERM));
        }
        Ok(())
    }

    pub(crate) fn before_remove(path: &Path) -> std::io::Result<()> {
        immutable(path)
    }

    pub(crate) fn before_rename(path: &Path) -> std::io::Result<()> {
        immutable(path)
    }
}

#[cfg(not(debug_assertions))]
mod imp {
    use std::path::Path;

    #[inline(always)]
    pub(crate) fn at_start() {}
    #[inline(always)]
    pub(crate) fn before_write() -> std::io::Result<()> {
        Ok(())
    }
    #[inline(always)]
    pub(crate) fn before_done() -> std::io::Result<()> {
        Ok(())
    }
    #[inline(always)]
    pub(crate) fn before_cleanup() -> std::io::Result<()> {
        Ok(())
    }
    #[inline(always)]
    pub(crate) fn before_restore() -> std::io::Result<()> {
        Ok(())
    }
    #[inline(always)]
    pub(crate) fn before_remove(_: &Path) -> std::io::Result<()> {
        Ok(())
    }
    #[inline(always)]
    pub(crate) fn before_rename(_: &Path) -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) use imp::*;
