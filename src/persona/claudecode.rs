//! claudecode's persona adapter: the openclaw layout ([`super::workspace`]) at
//! `/root/.claudecode/workspace`. CLAUDE.md is the runtime's own loader and is never carried.

use super::rebrand::Brand::*;
use super::{Adapter, workspace};
use crate::runtime::RuntimeId;

pub const ADAPTER: Adapter = Adapter {
    id: RuntimeId::Claudecode,
    rebrand_from: &[OpenClaw, Hermes, ClawdBot, MoltBot, PicoClaw],
    read: workspace::read,
    write: workspace::write,
};
