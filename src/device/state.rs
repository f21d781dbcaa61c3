//! `/root/config/agent_state.json`: the runtime switch history (docs/device-contract.md §3.3).
//!
//! osctl's persona reconciler owns it. prev = the last entry; an entry is appended only when the
//! runtime differs from the last one; the history keeps the newest 50; it is written atomically
//! with mode 0644.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::system::fs::RootFs;

/// Entries kept; the oldest are dropped.
pub const HISTORY_CAP: usize = 50;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateEntry {
    pub runtime: String,
    /// Unix seconds.
    pub at: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentState {
    #[serde(default)]
    pub history: Vec<StateEntry>,
}

impl AgentState {
    /// Reads the history; a missing file is an empty history (first boot).
    pub fn load(fs: &RootFs, path: &DevPath) -> Result<AgentState> {
        match fs.read_text(path)? {
            None => Ok(AgentState::default()),
            Some(text) if text.trim().is_empty() => Ok(AgentState::default()),
            Some(text) => AgentState::parse(&text, path).map_err(|e| {
                e.hint("nothing was written; fix or remove the file (it only holds the switch history)")
            }),
        }
    }

    /// Parses the history. The text is read as a JSON value first, so that a top level that is
    /// not an object (serde would read `[]` as a struct) and nesting deeper than serde_json's
    /// limit (skipped unchecked inside an unknown key) are refused instead of being taken for
    /// an empty history, which the persona reconciler would then overwrite.
    pub fn parse(text: &str, path: &DevPath) -> Result<AgentState> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::json(path, &e))?;
        if !value.is_object() {
            return Err(Error::parse(
                path,
                Some(1),
                None,
                "the top level is not a JSON object",
            ));
        }
        // Each key's type, checked from the text so that a wrong one is reported with its key,
        // line and column; then the typed read itself.
        if let serde_json::Value::Object(fields) = &value {
            super::keys::check(
                &path.to_string(),
                text,
                fields,
                super::keys::STATE,
                "in agent_state.json (or remove the file: it only holds the switch history)",
            )?;
        }
        serde_json::from_str(text).map_err(|e| Error::json(path, &e))
    }

    /// The runtime of the last entry.
    pub fn last(&self) -> Option<&StateEntry> {
        self.history.last()
    }

    /// Appends `runtime` unless it is already the last entry; keeps the newest [`HISTORY_CAP`].
    /// Returns whether anything changed.
    pub fn record(&mut self, runtime: &str, at: i64) -> bool {
        if self.last().is_some_and(|e| e.runtime == runtime) {
            return false;
        }
        self.history.push(StateEntry {
            runtime: runtime.to_string(),
            at,
        });
        if self.history.len() > HISTORY_CAP {
            let extra = self.history.len() - HISTORY_CAP;
            self.history.drain(..extra);
        }
        true
    }

    /// The file's text as osctl writes it.
    pub fn to_text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn appends_only_changes_and_caps_at_fifty() {
        let mut s = AgentState::default();
        assert!(s.record("openclaw", 1));
        assert!(!s.record("openclaw", 2));
        for i in 0..60 {
            s.record(if i % 2 == 0 { "hermes" } else { "codex" }, i);
        }
        assert_eq!(s.history.len(), HISTORY_CAP);
        assert_eq!(s.last().unwrap().runtime, "codex");
    }
}
