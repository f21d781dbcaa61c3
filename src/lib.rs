//! osctl: operator toolkit for a device OS that runs one of six swappable AI-agent runtimes.
pub mod apply;
pub mod device;
pub mod error;
pub mod format;
pub mod output;
pub mod plan;
pub mod redact;
pub mod runtime;
pub mod system;
