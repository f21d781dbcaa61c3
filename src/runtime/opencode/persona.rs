//! opencode's persona adapter: the openclaw layout ([`crate::persona::workspace`]) at
//! `/root/.opencode/workspace` (its AGENTS.md persona-inline block is presync's, not migrated).

use crate::persona::{Adapter, workspace};

pub(super) const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
