//! Support of a few suites each: golden trees, the dry-run diff applier, the JSON Schemas and the
//! real-systemd lab. (The reliability, skills and lifecycle support are modules of their own at
//! the crate's root, as they were folders of their own before.)

pub mod golden_tree;
pub mod patch;
pub mod schema;
pub mod systemd_lab;
