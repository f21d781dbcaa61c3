//! picoclaw's persona adapter: the openclaw layout ([`super::workspace`]), with MEMORY.md in
//! `memory/` beside the daily files (the reader leaves it out of the daily ones).

use super::rebrand::Brand::*;
use super::{Adapter, workspace};
use crate::runtime::RuntimeId;

pub const ADAPTER: Adapter = Adapter {
    id: RuntimeId::Picoclaw,
    rebrand_from: &[
        OpenClaw, Hermes, ClawdBot, MoltBot, Codex, ClaudeCode, OpenCode,
    ],
    read: workspace::read,
    write: workspace::write,
};
