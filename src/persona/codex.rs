//! codex's persona adapter: the openclaw layout ([`super::workspace`]) at
//! `$CODEX_HOME/workspace`. Upstream rewrites only the claw family and Hermes to "Codex" (Claude
//! Code and OpenCode are left as they are); so does osctl.

use super::rebrand::Brand::*;
use super::{Adapter, workspace};
use crate::runtime::RuntimeId;

pub const ADAPTER: Adapter = Adapter {
    id: RuntimeId::Codex,
    rebrand_from: &[OpenClaw, Hermes, PicoClaw, ClawdBot, MoltBot],
    read: workspace::read,
    write: workspace::write,
};
