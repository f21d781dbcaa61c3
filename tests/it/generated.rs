//! The committed completions and man page must match what the clap types generate now, and the
//! README quick start must show the golden output of its command.
//! Regenerate with `OSCTL_BLESS=1 cargo test --test it generated::`.

use std::path::Path;

use osctl::cli::Shell;
use osctl::cli::complete::completion_script;
use osctl::cli::man::man_pages;

fn check(rel: &str, fresh: Vec<u8>, stale: &mut Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    if std::env::var("OSCTL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    if std::fs::read(&path).ok().as_deref() != Some(fresh.as_slice()) {
        stale.push(rel.to_string());
    }
}

#[test]
fn completions_and_man_page_are_fresh() {
    let mut stale = Vec::new();
    check(
        "completions/osctl.bash",
        completion_script(Shell::Bash),
        &mut stale,
    );
    check(
        "completions/_osctl",
        completion_script(Shell::Zsh),
        &mut stale,
    );
    check(
        "completions/osctl.fish",
        completion_script(Shell::Fish),
        &mut stale,
    );
    let pages = man_pages().unwrap();
    for (name, page) in &pages {
        // The committed pages are the package's (the six-runtime build): under
        // `--features test-runtime` a page is compared without the test-only runtime's
        // possible-value items, the one thing that build adds (a bless writes the package's page).
        let page = crate::support::registry::packaged_man_page(page);
        check(&format!("man/{name}"), page, &mut stale);
    }
    // A page whose command is gone is stale too.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !pages.iter().any(|(n, _)| *n == name) {
            if std::env::var("OSCTL_BLESS").is_ok_and(|v| v == "1") {
                std::fs::remove_file(dir.join(&name)).unwrap();
            } else {
                stale.push(format!("man/{name} (no such page any more)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {stale:?}; run `OSCTL_BLESS=1 cargo test --test it generated::` and commit them"
    );
}

/// The README's quick start shows the golden case's output, so the first thing a reader runs
/// prints what the README says.
#[test]
fn the_readme_quick_start_is_the_golden_output() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let golden =
        std::fs::read_to_string(repo.join("tests/cli/status/sample-device/stdout")).unwrap();
    let prompt = "$ cargo run -q -- --root examples/device status\n";
    let start = readme.find(prompt).expect("the quick start command") + prompt.len();
    let end = start + readme[start..].find("```").expect("the end of the block");
    assert_eq!(
        &readme[start..end],
        golden,
        "README quick start differs from tests/cli/status/sample-device/stdout"
    );
}
