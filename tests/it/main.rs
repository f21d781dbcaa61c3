//! osctl's integration tests, one binary (issue #18): each former `tests/<name>.rs` is the
//! module `<name>` here, so `cargo test --test it <name>::` runs one suite and
//! `cargo test --test it <name>::<test>` one test. The support the suites share is declared
//! once, below. The golden CLI cases stay a binary of their own (`tests/golden.rs`): they are
//! one libtest-mimic trial per case, which needs its own `main` (`harness = false`).
//!
//! All modules run in one process, on libtest's threads (as many as cores, 2 on the build
//! machine, as each binary had before). No test changes the process's environment, working
//! folder or signal handling (signals go to children only); each works in its own temporary
//! folders and listens only on ports the kernel picks (the fixed ones named, 127.0.0.1:1 and :9,
//! are there to be refused; switch_lab's listen inside its container's own network); a
//! real-systemd container is named after the process and a counter of the process
//! (`support::systemd_lab`), so suites that boot one at the same time never share it. No two
//! modules share anything that needs a lock between them.

// A test touches the world directly: the door rules of clippy.toml bind osctl's own code, not
// its tests (`doors` checks that `src/` stays inside them).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

// Support shared by the suites.
mod lifecycle_support;
mod reliability_support;
mod skill_secrets;
mod skills_support;
mod support;

// The suites, one module per former test binary.
mod book;
mod channel_lab;
mod channel_slack;
mod channel_switch;
mod cli_globals;
mod completions;
mod docs_citations;
mod doctor;
mod doors;
mod exit_codes;
mod file_sizes;
mod fleet_local;
mod fleet_ssh;
mod format_conformance;
mod fuzz_parsers;
mod fuzz_persona;
mod generated;
mod golden_recipe;
mod json_contract;
mod lab_selftest;
mod layers;
mod lifecycle;
mod man_pages;
mod mcp_cli;
mod mcp_oracles;
mod mcp_switch;
mod oracle_presync;
mod package_lab;
mod persona_props;
mod persona_regressions;
mod presync_hook_shim;
mod presync_idempotence;
mod presync_picoclaw_schema;
mod preview_run;
mod real_runtimes;
mod reliability_bad_input;
mod reliability_concurrency;
mod reliability_containment;
mod reliability_crash;
mod reliability_engine;
mod reliability_regressions;
mod reliability_secrets;
mod reset_audit;
mod reset_crash;
mod reset_device;
mod reset_restore;
mod reset_safety;
mod runtime_names;
// Only with `--features test-runtime` (the test runtime `testclaw` exists only then).
#[cfg(feature = "test-runtime")]
mod seventh_runtime;
mod skills_sync;
mod streams;
mod switch_fake;
mod switch_lab;
