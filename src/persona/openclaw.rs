//! openclaw's persona adapter: the openclaw layout ([`super::workspace`]) at
//! `<openclaw_config_dir>/workspace`. It keeps its own former names (ClawdBot, MoltBot) as
//! upstream does.

use super::rebrand::Brand::*;
use super::{Adapter, workspace};
use crate::runtime::RuntimeId;

pub const ADAPTER: Adapter = Adapter {
    id: RuntimeId::Openclaw,
    rebrand_from: &[Hermes, PicoClaw, Codex, ClaudeCode, OpenCode],
    read: workspace::read,
    write: workspace::write,
};
