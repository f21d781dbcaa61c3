//! codex's persona adapter: the openclaw layout ([`crate::persona::workspace`]) at
//! `$CODEX_HOME/workspace`. Upstream rewrites only the claw family and Hermes to "Codex" (Claude
//! Code and OpenCode are left as they are); so does osctl.

use crate::persona::{Adapter, workspace};

pub(super) const ADAPTER: Adapter = Adapter {
    read: workspace::read,
    write: workspace::write,
};
