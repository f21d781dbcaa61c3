//! claudecode's persona adapter: the openclaw layout ([`crate::persona::workspace`]) at
//! `/root/.claudecode/workspace`. CLAUDE.md is the runtime's own loader and is never carried.

use crate::persona::{Adapter, workspace};

pub(super) const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
