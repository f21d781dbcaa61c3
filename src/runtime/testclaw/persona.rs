//! testclaw's persona adapter: the openclaw layout ([`crate::persona::workspace`]) at
//! `/root/.testclaw/workspace`.

use crate::persona::{Adapter, workspace};

pub(super) const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
