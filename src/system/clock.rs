//! The time, as osctl uses it: history entries (`agent_state.json` `at`, unix seconds) and
//! backup names (`SOUL.md.bak-<nanoseconds>`).
//!
//! Debug builds honour `OSCTL_TEST_NOW` (unix seconds) so golden cases are reproducible; each
//! call to [`now_nanos`] then still returns a distinct value (one nanosecond apart), as real
//! clocks do. Release builds always read the system clock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static TICK: AtomicU64 = AtomicU64::new(0);

fn fixed() -> Option<u64> {
    if cfg!(debug_assertions) {
        std::env::var("OSCTL_TEST_NOW")
            .ok()
            .and_then(|v| v.trim().parse().ok())
    } else {
        None
    }
}

/// Unix seconds.
pub fn now_secs() -> i64 {
    match fixed() {
        Some(s) => s as i64,
        None => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0),
    }
}

/// Unix nanoseconds, distinct on every call within a run.
pub fn now_nanos() -> u128 {
    match fixed() {
        Some(s) => s as u128 * 1_000_000_000 + TICK.fetch_add(1, Ordering::SeqCst) as u128,
        None => {
            let n = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            // Two calls in the same nanosecond (coarse clocks) still get distinct values.
            let last = TICK.fetch_max(n as u64, Ordering::SeqCst) as u128;
            if n <= last {
                TICK.fetch_add(1, Ordering::SeqCst) as u128 + 1
            } else {
                n
            }
        }
    }
}

/// A monotonic instant, for timeouts and durations (never for what is recorded).
pub fn monotonic() -> std::time::Instant {
    std::time::Instant::now()
}
