//! The skills state file, `/var/lib/osctl/skills.json`: what osctl installed, per runtime.
//!
//! ```json
//! {"schema": 1,
//!  "signed": {"<signing key, base64>": {"sequence": 42, "payload_sha256": "<hex>"}},
//!  "runtimes": {"openclaw": {
//!    "skills": {"audio": {"version": "0123456789ab", "hash": "<FolderHash>"}},
//!    "hooks": {"turn-gate": {"hash": "<FolderHash>"}}}}}
//! ```
//!
//! `signed` keeps, per signing key, the newest signed metadata document osctl accepted: a
//! document with a lower `sequence` (a replayed older release, whose zips are older too) is
//! refused, and so is one that reuses the sequence with other content. It is recorded as soon as
//! a document is accepted, even when its downloads then fail, so an older document cannot be
//! slipped in between. A new key starts its own record.
//!
//! A skill's `version` is advanced only after its download was verified and its folder swapped
//! into place (docs/device-contract.md §10 item 4), so a failed download is retried by the next
//! sync. The `hash` is the FolderHash of what osctl installed: `skills verify` compares the folder
//! with it. A skill whose own `skill.json` rules the device out is recorded with `"installed":
//! false`, so the same version is not downloaded again. The file is osctl's own, written through
//! the plan (atomic, durable, journaled), and always last, after the folders it describes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::metadata::Sequence;
use crate::apply::lock::STATE_DIR;
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::Draft;
use crate::runtime::RuntimeId;
use crate::system::fs::RootFs;

pub(crate) const SCHEMA: u32 = 1;

/// The state file's device path.
pub(crate) fn path() -> DevPath {
    DevPath::new(STATE_DIR).join("skills.json")
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SkillsState {
    pub schema: u32,
    /// The newest signed document accepted, per signing key (base64, as bootstrap.json has it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub signed: BTreeMap<String, Sequence>,
    #[serde(default)]
    pub runtimes: BTreeMap<RuntimeId, RuntimeState>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RuntimeState {
    #[serde(default)]
    pub skills: BTreeMap<String, SkillRecord>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hooks: BTreeMap<String, HookRecord>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SkillRecord {
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// `false`: the skill's own skill.json rules this device out; the version is remembered so it
    /// is not fetched again.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub installed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HookRecord {
    pub hash: String,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl SkillsState {
    /// Reads the state file (empty when it does not exist). A damaged file is an error naming
    /// it: osctl will not guess what it installed.
    pub(crate) fn load(fs: &RootFs) -> Result<SkillsState> {
        let p = path();
        let Some(text) = fs.read_text(&p)? else {
            return Ok(SkillsState {
                schema: SCHEMA,
                ..Default::default()
            });
        };
        let state: SkillsState = serde_json::from_str(&text).map_err(|e| {
            Error::json(&p, &e).hint(format!(
                "nothing was written; {p} is osctl's record of installed skills: remove it and the next sync re-downloads every skill"
            ))
        })?;
        if state.schema != SCHEMA {
            return Err(Error::input(
                "state_schema",
                format!("{p} has schema {}, this osctl reads {SCHEMA}", state.schema),
            ));
        }
        Ok(state)
    }

    /// Refuses a signed document older than (or different from, at the same sequence) the newest
    /// one accepted with `key`; otherwise records it as the newest.
    pub(crate) fn accept(&mut self, key: &str, got: &Sequence, url: &str) -> Result<()> {
        let key = key.trim().to_string();
        if let Some(seen) = self.signed.get(&key) {
            let hint = format!(
                "a CDN, a mirror or a cache is serving an older release than this device already accepted; nothing was installed; osctl's record is in {}",
                path()
            );
            if got.sequence < seen.sequence {
                return Err(Error::input(
                    "metadata_downgrade",
                    format!(
                        "refused the skills metadata at {url}: its signed sequence {} is older than {}, which this device already accepted",
                        got.sequence, seen.sequence
                    ),
                )
                .hint(hint));
            }
            if got.sequence == seen.sequence && got.payload_sha256 != seen.payload_sha256 {
                return Err(Error::input(
                    "metadata_downgrade",
                    format!(
                        "refused the skills metadata at {url}: its signed sequence {} was accepted before with other content",
                        got.sequence
                    ),
                )
                .hint("every signed release needs a sequence of its own, higher than the last; nothing was installed"));
            }
        }
        self.signed.insert(key, got.clone());
        Ok(())
    }

    pub(crate) fn runtime(&self, rt: RuntimeId) -> RuntimeState {
        self.runtimes.get(&rt).cloned().unwrap_or_default()
    }

    /// Plans the state file to hold `self` (no change when it already does).
    pub(crate) fn plan_write(&self, draft: &mut Draft<'_>) -> Result<bool> {
        let mut text = serde_json::to_string_pretty(self).expect("state serialises");
        text.push('\n');
        draft.write(&path(), text, Some(0o644), "record installed skills")
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn an_older_or_reused_sequence_is_refused_and_a_newer_one_recorded() {
        let seq = |n: u64, h: &str| Sequence {
            sequence: n,
            payload_sha256: h.into(),
        };
        let mut s = SkillsState::default();
        s.accept("K", &seq(5, "a"), "u").unwrap();
        s.accept("K", &seq(5, "a"), "u").unwrap();
        assert_eq!(
            s.accept("K", &seq(4, "b"), "u").unwrap_err().code,
            "metadata_downgrade"
        );
        assert_eq!(
            s.accept("K", &seq(5, "b"), "u").unwrap_err().code,
            "metadata_downgrade"
        );
        assert_eq!(s.signed["K"], seq(5, "a"), "a refusal records nothing");
        s.accept("K", &seq(6, "c"), "u").unwrap();
        assert_eq!(s.signed["K"], seq(6, "c"));
        s.accept("other key", &seq(1, "d"), "u").unwrap();
    }

    #[test]
    fn round_trips_and_omits_defaults() {
        let mut s = SkillsState {
            schema: SCHEMA,
            ..Default::default()
        };
        let rt = s.runtimes.entry(RuntimeId::Openclaw).or_default();
        rt.skills.insert(
            "audio".into(),
            SkillRecord {
                version: "0123456789ab".into(),
                hash: Some("h".into()),
                installed: true,
            },
        );
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"schema":1,"runtimes":{"openclaw":{"skills":{"audio":{"version":"0123456789ab","hash":"h"}}}}}"#
        );
        assert_eq!(serde_json::from_str::<SkillsState>(&text).unwrap(), s);
    }
}
