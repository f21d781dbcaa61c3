//! The doors, enforced: `clippy.toml` forbids the outside world's calls (files, processes,
//! sockets, environment, clock, randomness) and types everywhere, `cargo clippy -D warnings`
//! in CI turns every use into an error, and only the two doors are allowed them whole (`system`,
//! which reaches the outside, and `apply`, which writes; declared in `src/lib.rs`), with the
//! process's edge (`main`) and fault injection. Every other `#[allow]` of those lints in `src/`
//! is either a test module (tests set up files directly) or a *door exception*: code that still
//! reaches the outside itself, each marked `// door exception (#18): <why, and what would fix
//! it>`. This test keeps that list from growing: a new allow without one of those forms fails,
//! and the number of exceptions may only go down (lower [`DOOR_EXCEPTIONS`] when one is fixed).

// A test touches the world directly: the door rules of clippy.toml bind osctl's own code.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;

/// Door exceptions left in `src/` (each names its reason in place).
const DOOR_EXCEPTIONS: usize = 9;

/// The module declarations that are the doors themselves.
const DOORS: &[(&str, &str)] = &[
    ("src/lib.rs", "pub mod apply;"),
    ("src/lib.rs", "pub mod fault;"),
    ("src/lib.rs", "pub mod system;"),
    ("src/main.rs", "fn main() {"),
];

#[test]
fn only_the_doors_reach_the_outside() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut exceptions = Vec::new();
    let mut unexplained = Vec::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(src.parent().unwrap())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("allow(clippy::disallowed_") {
                continue;
            }
            let before = if i > 0 { lines[i - 1] } else { "" };
            let next = lines.get(i + 1).copied().unwrap_or("");
            let door = DOORS
                .iter()
                .any(|(f, decl)| *f == rel && next.contains(decl));
            if door || line.contains("// tests set up files directly") {
                continue;
            }
            if before.contains("// door exception (#18): ")
                || line.contains("// door exception (#18): ")
            {
                exceptions.push(format!("{rel}:{}", i + 1));
            } else {
                unexplained.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "an allow of the door lints without a reason (go through system/ or apply/, or mark it \
         `// door exception (#18): <why>` on the line before): {unexplained:#?}"
    );
    assert!(
        exceptions.len() <= DOOR_EXCEPTIONS,
        "new door exceptions (reach the outside through system/, write through apply/): {} now, \
         {DOOR_EXCEPTIONS} allowed: {exceptions:#?}",
        exceptions.len()
    );
    assert_eq!(
        exceptions.len(),
        DOOR_EXCEPTIONS,
        "fewer door exceptions than DOOR_EXCEPTIONS: lower it to {}",
        exceptions.len()
    );
}

/// The rules themselves: clippy.toml names the outside world's entry points, so removing one
/// (or the file) cannot pass unnoticed.
#[test]
fn clippy_toml_forbids_the_outside_world() {
    let toml =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("clippy.toml")).unwrap();
    for needle in [
        "std::fs::write",
        "std::fs::read",
        "std::fs::File",
        "std::fs::OpenOptions",
        "std::process::Command",
        "std::net::UdpSocket",
        "std::env::var",
        "std::time::SystemTime::now",
        "libc::getrandom",
        "walkdir::WalkDir",
    ] {
        assert!(
            toml.contains(&format!("\"{needle}")),
            "clippy.toml lost {needle}"
        );
    }
}
