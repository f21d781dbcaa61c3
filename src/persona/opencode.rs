//! opencode's persona adapter: the openclaw layout ([`super::workspace`]) at
//! `/root/.opencode/workspace` (its AGENTS.md persona-inline block is presync's, not migrated).

use super::rebrand::Brand::*;
use super::{Adapter, workspace};
use crate::runtime::RuntimeId;

pub const ADAPTER: Adapter = Adapter {
    id: RuntimeId::Opencode,
    rebrand_from: &[OpenClaw, Hermes, PicoClaw, ClawdBot, MoltBot],
    read: workspace::read,
    write: workspace::write,
};
