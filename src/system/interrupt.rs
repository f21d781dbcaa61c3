//! Interrupts: SIGINT (Ctrl-C), SIGTERM (`systemctl stop`, a playbook's timeout) and SIGHUP (a
//! dropped SSH session).
//!
//! Outside a change, a signal does what it always does: osctl ends at once (nothing was
//! written, so nothing is lost). Inside a change ([`Change`], held by the apply engine and the
//! switch), the signal is noted instead, and the change stops at its next safe point, between
//! two steps, where it rolls back what it did and exits 130 ("interrupted"). A change that has
//! reached its commit point (every write landed) is finished instead: rolling it back then
//! would undo a change the journal already calls done. A program osctl is waiting for (an
//! installer) runs in its own process group, so the terminal's Ctrl-C does not reach it;
//! [`crate::system::process`] kills that group when an interrupt is noted.
//!
//! SIGKILL and a power cut cannot be caught; the journal covers those (the next run restores).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Exit, Result};

/// The signals a change defers.
const SIGNALS: &[i32] = &[libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

struct State {
    /// The last signal that arrived (0: none).
    pending: Arc<AtomicUsize>,
    /// True outside a change: the signal's default action (ending osctl) runs.
    default_action: Arc<AtomicBool>,
    /// Nesting depth of [`Change`] guards (the switch holds one and runs apply inside it).
    depth: Mutex<usize>,
}

static STATE: OnceLock<Option<State>> = OnceLock::new();

fn state() -> Option<&'static State> {
    STATE.get().and_then(Option::as_ref)
}

/// Installs the handlers, once per process (`lib::run` calls this before a command runs).
/// If they cannot be installed, signals keep their default action and a change can be ended
/// by one as by a kill: the journal covers that.
pub(crate) fn install() {
    STATE.get_or_init(|| {
        let pending = Arc::new(AtomicUsize::new(0));
        let default_action = Arc::new(AtomicBool::new(true));
        for &sig in SIGNALS {
            // In this order: the signal is noted first, then ends osctl if no change is running.
            let noted = signal_hook::flag::register_usize(sig, pending.clone(), sig as usize);
            let ended =
                signal_hook::flag::register_conditional_default(sig, default_action.clone());
            if noted.is_err() || ended.is_err() {
                return None;
            }
        }
        Some(State {
            pending,
            default_action,
            depth: Mutex::new(0),
        })
    });
}

/// Held while a change runs: signals are deferred to [`check`] until it is dropped.
pub(crate) struct Change(());

impl Change {
    pub(crate) fn begin() -> Self {
        if let Some(s) = state() {
            let mut depth = s.depth.lock().unwrap_or_else(|e| e.into_inner());
            *depth += 1;
            s.default_action.store(false, Ordering::SeqCst);
        }
        Change(())
    }
}

impl Drop for Change {
    fn drop(&mut self) {
        if let Some(s) = state() {
            let mut depth = s.depth.lock().unwrap_or_else(|e| e.into_inner());
            *depth = depth.saturating_sub(1);
            if *depth == 0 {
                s.default_action.store(true, Ordering::SeqCst);
            }
        }
    }
}

/// The signal that arrived during a change, if one did.
pub(crate) fn pending() -> Option<i32> {
    let sig = state()?.pending.load(Ordering::SeqCst);
    (sig != 0).then_some(sig as i32)
}

/// A safe point of a change: `Err` (exit 130) once a signal has arrived.
pub(crate) fn check() -> Result<()> {
    match pending() {
        None => Ok(()),
        Some(sig) => Err(interrupted(sig)),
    }
}

/// The error of a change stopped by `sig` (the rollback adds what it restored).
pub(crate) fn interrupted(sig: i32) -> Error {
    Error::new(
        Exit::Interrupted,
        "interrupted",
        format!("interrupted by {}", signal_name(sig)),
    )
    .hint("nothing is left half done: run the command again to make the change")
}

/// SIGINT, SIGTERM or SIGHUP.
pub(crate) fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}
