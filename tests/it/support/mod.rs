//! Support of a few suites each: golden trees, the dry-run diff applier, the JSON Schemas and the
//! real-systemd lab. (The reliability, skills and lifecycle support are modules of their own at
//! the crate's root, as they were folders of their own before.)

// Shared with the golden binary (`tests/golden.rs`), which runs and blesses the cases with the
// parts this crate does not use (and leaves unused the case readers used here).
#[allow(dead_code)]
pub mod golden_tree;
pub mod leaks;
pub mod patch;
pub mod registry;
pub mod schema;
pub mod systemd_lab;
