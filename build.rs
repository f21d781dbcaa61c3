//! Build facts for `osctl --version`: the commit (`git rev-parse`, or `unknown` outside a git
//! checkout, e.g. a source tarball), the target triple and the compiler that built osctl; and
//! the packed relocations of the static-pie x86-64 binary (README "Static builds").

// A build script runs on the build machine, not on the device: the door rules bind osctl.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = output("git", &["rev-parse", "--short=12", "HEAD"]);
    println!(
        "cargo:rustc-env=OSCTL_COMMIT={}",
        commit.unwrap_or_else(|| "unknown".into())
    );
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    println!(
        "cargo:rustc-env=OSCTL_RUSTC={}",
        output(&rustc, &["-V"]).unwrap_or_else(|| "rustc (unknown version)".into())
    );
    println!(
        "cargo:rustc-env=OSCTL_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=OSCTL_PROFILE={}",
        std::env::var("PROFILE").unwrap_or_default()
    );
    // Rebuild when HEAD moves (a commit, a checkout).
    if let Some(dir) = output("git", &["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
    }
    if let Some(common) = output("git", &["rev-parse", "--git-common-dir"])
        && let Some(head) = output("git", &["symbolic-ref", "-q", "HEAD"])
    {
        // Only files that exist: cargo reruns a build script whose watched file is missing on
        // every build (a branch kept only in packed-refs, or no packed-refs yet).
        for file in [format!("{common}/{head}"), format!("{common}/packed-refs")] {
            if std::path::Path::new(&file).exists() {
                println!("cargo:rerun-if-changed={file}");
            }
        }
    }
    // A static-pie binary relocates itself at start from a table of every pointer in its data
    // (vtables, string tables): 24 bytes each as RELA, 196 KB for osctl. RELR (`-z
    // pack-relative-relocs`, GNU ld 2.38+; applied by glibc 2.36+, also in static-pie start-up)
    // packs them into a bitmap of about 3 KB and keeps the address randomisation. The aarch64
    // build is static without PIE, so it has no such table.
    let cfg = |key: &str| std::env::var(format!("CARGO_CFG_{key}")).unwrap_or_default();
    if cfg("TARGET_ARCH") == "x86_64"
        && cfg("TARGET_OS") == "linux"
        && cfg("TARGET_ENV") == "gnu"
        && cfg("TARGET_FEATURE").split(',').any(|f| f == "crt-static")
    {
        println!("cargo:rustc-link-arg=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
