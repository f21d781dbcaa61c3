//! opencode's persona adapter: the openclaw layout ([`super::workspace`]) at
//! `/root/.opencode/workspace` (its AGENTS.md persona-inline block is presync's, not migrated).

use super::{Adapter, workspace};

pub const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
