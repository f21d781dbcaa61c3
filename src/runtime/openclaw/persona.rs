//! openclaw's persona adapter: the openclaw layout ([`crate::persona::workspace`]) at
//! `<openclaw_config_dir>/workspace`. It keeps its own former names (ClawdBot, MoltBot) as
//! upstream does.

use crate::persona::{Adapter, workspace};

pub(super) const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
