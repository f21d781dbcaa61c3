//! What the suites need to know of a registered runtime, read from the registry
//! (`osctl::runtime::REGISTRY`) rather than typed out again: a runtime the suites have no table
//! row for (the test-only seventh, `--features test-runtime`) is run through them from its
//! [`Runtime`] facts alone. A suite keeps its own table for the six the package ships where the
//! table is an independent statement of the contract (docs/device-contract.md), and falls back
//! to these for any other runtime.

use osctl::runtime::{Anchor, Loc, REGISTRY, Runtime};

/// The runtime named `name` (a registered one).
pub fn spec(name: &str) -> &'static Runtime {
    REGISTRY
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("{name} is not a registered runtime"))
}

/// The registered runtimes the Debian package does not ship: the test-only one under
/// `--features test-runtime`, none otherwise.
pub fn test_only() -> impl Iterator<Item = &'static str> {
    REGISTRY[osctl::runtime::packaged().len()..]
        .iter()
        .map(|r| r.name)
}

/// `loc` on a device with the default anchors (`$OS_AGENT_HOME` = /root, `$CODEX_HOME` =
/// /root/.codex, openclaw's folder /root/.openclaw), relative to the device root (no leading `/`).
pub fn dev_path(loc: Loc) -> String {
    let base = match loc.anchor {
        Anchor::AgentHome => "root",
        Anchor::CodexHome => "root/.codex",
        Anchor::OpenclawDir => "root/.openclaw",
        Anchor::Root => return loc.rel.trim_start_matches('/').to_string(),
    };
    format!("{base}/{}", loc.rel)
}

/// A man page as the package's build prints it: the feature build's page without the
/// possible-value items of the runtimes the package does not ship (clap lists every registered
/// runtime as a possible value, one `.IP \(bu 2` item each). The committed pages are the
/// package's; the build with the test-only runtime differs from them by exactly those items.
pub fn packaged_man_page(page: &[u8]) -> Vec<u8> {
    let mut text = String::from_utf8(page.to_vec()).expect("a man page is UTF-8");
    for rt in test_only() {
        text = text.replace(&format!(".IP \\(bu 2\n{rt}\n"), "");
    }
    text.into_bytes()
}

/// [`dev_path`] as a `&'static str`, for suites whose per-runtime tables hold static paths (each
/// path is made once and kept for the process).
pub fn dev_path_static(loc: Loc) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, OnceLock};
    static PATHS: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let path = dev_path(loc);
    let mut paths = PATHS.get_or_init(Default::default).lock().unwrap();
    if let Some(p) = paths.get(path.as_str()) {
        return p;
    }
    let p: &'static str = Box::leak(path.into_boxed_str());
    paths.insert(p);
    p
}
