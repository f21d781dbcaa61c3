//! The time, as osctl uses it: history entries (`agent_state.json` `at`, unix seconds) and
//! backup names (`SOUL.md.bak-<nanoseconds>`).
//!
//! `SOURCE_DATE_EPOCH` (unix seconds, the reproducible-builds convention) fixes that time in
//! every build, so a user's CI can migrate a committed fixture twice and get byte-identical
//! trees (the book's "Golden tests of your own migrations"); each call to [`now_nanos`] then
//! still returns a distinct value (one nanosecond apart, a counter), as real clocks do, so two
//! backups of one run never share a name. A value that is not a whole number of seconds is
//! refused at the start of the run ([`check`]), never read as "use the clock". Debug builds also
//! honour `OSCTL_TEST_NOW` (the golden cases' clock), which wins when both are set. Randomness
//! does not follow this clock: see `random.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static TICK: AtomicU64 = AtomicU64::new(0);

/// The variable that fixes the time osctl writes.
pub const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

fn parse_epoch(v: &str) -> Option<u64> {
    v.trim().parse().ok()
}

fn fixed() -> Option<u64> {
    let test_now = if cfg!(debug_assertions) {
        std::env::var("OSCTL_TEST_NOW")
            .ok()
            .and_then(|v| parse_epoch(&v))
    } else {
        None
    };
    test_now.or_else(|| {
        std::env::var(SOURCE_DATE_EPOCH)
            .ok()
            .filter(|v| !v.is_empty())
            .and_then(|v| parse_epoch(&v))
    })
}

/// Refuses a `SOURCE_DATE_EPOCH` that is set but not a whole number of seconds: a typo must not
/// quietly give a CI job the clock's names, which differ on every run. (Empty counts as unset,
/// as in the reproducible-builds specification.)
pub fn check(env: &dyn Fn(&str) -> Option<String>) -> crate::error::Result<()> {
    match env(SOURCE_DATE_EPOCH) {
        Some(v) if !v.is_empty() && parse_epoch(&v).is_none() => Err(crate::error::Error::input(
            "bad_environment",
            format!(
                "{SOURCE_DATE_EPOCH}={:?} is not a time: it must be whole seconds since 1970-01-01 UTC",
                crate::redact::redact(&v)
            ),
        )
        .hint(format!(
            "nothing was written; set {SOURCE_DATE_EPOCH} to a number such as 1767225600, or unset it to use the clock"
        ))),
        _ => Ok(()),
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
