//! Randomness, as osctl uses it: fresh secrets (a runtime's gateway token).
//!
//! Debug builds with `OSCTL_TEST_NOW` set (the fixed clock of the golden cases) get fixed bytes,
//! so generated secrets are reproducible there; release builds always ask the kernel.

/// `N` random bytes from the kernel (`getrandom(2)`). Without an entropy source (an old kernel,
/// a seccomp filter) the clock and the process id fill the first 16 bytes instead: still unique
/// per device and run, which is what a gateway token needs.
pub(crate) fn bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    if cfg!(debug_assertions) && std::env::var_os("OSCTL_TEST_NOW").is_some() {
        for (i, b) in out.iter_mut().enumerate() {
            *b = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef][i % 8];
        }
        return out;
    }
    // SAFETY: getrandom writes at most `out.len()` bytes into the buffer it is given.
    let n = unsafe { libc::getrandom(out.as_mut_ptr().cast(), out.len(), 0) };
    if n != out.len() as isize {
        let seed = (super::clock::now_nanos() ^ u128::from(std::process::id())).to_le_bytes();
        let k = N.min(seed.len());
        out[..k].copy_from_slice(&seed[..k]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_draws_differ() {
        // Unit tests run without OSCTL_TEST_NOW unless a developer set it in the shell.
        if std::env::var_os("OSCTL_TEST_NOW").is_none() {
            assert_ne!(super::bytes::<24>(), super::bytes::<24>());
        }
    }
}
