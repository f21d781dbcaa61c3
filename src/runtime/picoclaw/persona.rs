//! picoclaw's persona adapter: the openclaw layout ([`crate::persona::workspace`]), with MEMORY.md in
//! `memory/` beside the daily files (the reader leaves it out of the daily ones).

use crate::persona::{Adapter, workspace};

pub(super) const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
