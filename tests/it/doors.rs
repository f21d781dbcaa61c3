//! The doors, enforced: `clippy.toml` forbids the outside world's calls (files, processes,
//! sockets, environment, clock, randomness) and types everywhere, `cargo clippy -D warnings`
//! in CI turns every use into an error, and only the two doors are allowed them whole (`system`,
//! which reaches the outside, and `apply`, which writes; declared in `src/lib.rs`), with the
//! process's edge (`main`) and fault injection. Every other `#[allow]` of those lints in `src/`
//! must be a test module (tests set up files directly): the last door exceptions (17 when the
//! rules came in) are gone, and this test keeps a new one from coming back.

use std::path::Path;

/// The module declarations that are the doors themselves.
const DOORS: &[(&str, &str)] = &[
    ("src/lib.rs", "pub mod apply;"),
    ("src/lib.rs", "pub(crate) mod fault;"),
    ("src/lib.rs", "pub mod system;"),
    ("src/main.rs", "fn main() {"),
];

#[test]
fn only_the_doors_reach_the_outside() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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
            let before = if i > 0 { lines[i - 1].trim() } else { "" };
            let next = lines.get(i + 1).copied().unwrap_or("").trim();
            let door = DOORS
                .iter()
                .any(|(f, decl)| *f == rel && next.contains(decl));
            // A test module: `#[cfg(test)]`, the allow, `mod …` (so the reason cannot be pasted
            // onto code that ships).
            let test_module = before == "#[cfg(test)]"
                && next.starts_with("mod ")
                && line.contains("// tests set up files directly");
            if door || test_module {
                continue;
            }
            unexplained.push(format!("{rel}:{}: {}", i + 1, line.trim()));
        }
    }
    assert!(
        unexplained.is_empty(),
        "an allow of the door lints outside the doors (reach the outside through system/, write \
         through apply/): {unexplained:#?}"
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
