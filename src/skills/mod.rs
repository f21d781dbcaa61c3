//! Skills: the capability-gated skills that the device's CDN publishes, kept in each runtime's
//! skills folder (docs/device-contract.md §7). osctl replaces upstream's per-runtime skill watcher
//! with one `skills sync` pass that a timer or the daemon runs.
//!
//! - [`metadata`]: the skills list in the OTA metadata, and its ed25519 signature.
//! - [`catalog`]: the platform catalog (embedded) and capability gating.
//! - [`archive`]: the version check (a sha256 prefix) before a zip is opened, safe unpacking.
//! - [`package`]: the package check (no secrets, no developer-machine paths), with the secret
//!   rule set in [`secrets`].
//! - [`install`]: the private staging area of a sync, and the atomic swap of whole skill
//!   folders (the writes themselves are `apply::stage`'s).
//! - [`prune`]: which folders a sync removes, per runtime rule.
//! - [`hooks`]: openclaw's OS hooks and their registration in openclaw.json.
//! - [`hash`]: FolderHash, as upstream computes it, which decides whether the agent is told.
//! - [`state`]: the record of installed versions (`/var/lib/osctl/skills.json`).
//! - [`prompt`]: the update prompt the agent is sent.
//! - [`sync`]: one pass, tying the above together; [`list`]: what `skills list/verify` show.

pub mod archive;
pub(crate) mod catalog;
pub(crate) mod hash;
pub(crate) mod hooks;
pub(crate) mod install;
pub(crate) mod list;
pub mod metadata;
pub mod package;
pub(crate) mod prompt;
pub(crate) mod prune;
pub(crate) mod secrets;
pub(crate) mod state;
pub(crate) mod sync;

/// A per-skill (or per-hook) failure: a stable code for `--json` and a message.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub code: &'static str,
    pub message: String,
}

impl Problem {
    pub fn new(code: &'static str, message: impl Into<String>) -> Problem {
        Problem {
            code,
            message: message.into(),
        }
    }
}

impl From<archive::Refusal> for Problem {
    fn from(r: archive::Refusal) -> Problem {
        Problem::new(r.code, r.message)
    }
}
