//! claudecode's persona adapter: the openclaw layout ([`super::workspace`]) at
//! `/root/.claudecode/workspace`. CLAUDE.md is the runtime's own loader and is never carried.

use super::{Adapter, workspace};

pub const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
