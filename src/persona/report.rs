//! The migration report, in upstream's shape (`Report`/`ItemResult`): one item per slot written
//! (`soul`, `identity`, `identity-inline`, `memory`, `knowledge`, `user-profile`), each with its
//! source, destination, status and reason, and the counts per status.

use std::fmt;

use serde_json::{Map, Value};

use crate::runtime::RuntimeId;

/// How one item ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemStatus {
    /// The destination changes (or would, in a preview).
    Migrated,
    /// Nothing to carry, or the destination already holds it.
    Skipped,
    /// The destination differs and `--no-overwrite` keeps it.
    Conflict,
    /// Upstream's status for a failed write. osctl plans every write before making any, so a
    /// failure fails the whole run instead (exit 1 before writing, exit 4 rolled back); the
    /// status and its counter stay for the report's shape and are always absent / 0.
    Error,
}

impl ItemStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::Migrated => "migrated",
            ItemStatus::Skipped => "skipped",
            ItemStatus::Conflict => "conflict",
            ItemStatus::Error => "error",
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Item {
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub destination: String,
    pub status: ItemStatus,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub details: Map<String, Value>,
    /// What the text report adds to the reason (what did not fit the limit, say); the JSON
    /// report carries the same in `details`.
    #[serde(skip)]
    pub note: String,
}

impl Item {
    /// One line for the terminal: `memory       migrated  /root/.hermes/memories/MEMORY.md (…)`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{:<15} {:<9} {}",
            self.kind,
            self.status.as_str(),
            self.destination
        );
        match (self.reason.is_empty(), self.note.is_empty()) {
            (false, false) => s.push_str(&format!(" ({}; {})", self.reason, self.note)),
            (false, true) => s.push_str(&format!(" ({})", self.reason)),
            (true, false) => s.push_str(&format!(" ({})", self.note)),
            (true, true) => {}
        }
        s
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub migrated: usize,
    pub skipped: usize,
    pub conflict: usize,
    pub error: usize,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// `<from>_to_<to>`.
    pub direction: String,
    /// The runtimes read and written, for the text's last line (the JSON says `direction`).
    #[serde(skip)]
    pub from: RuntimeId,
    #[serde(skip)]
    pub to: RuntimeId,
    /// `execute`, or `dry-run` for a preview (`--dry-run`, `--check`).
    pub mode: &'static str,
    pub items: Vec<Item>,
    pub summary: Summary,
}

impl Report {
    pub fn new(from: RuntimeId, to: RuntimeId, preview: bool, items: Vec<Item>) -> Report {
        let mut summary = Summary::default();
        for it in &items {
            match it.status {
                ItemStatus::Migrated => summary.migrated += 1,
                ItemStatus::Skipped => summary.skipped += 1,
                ItemStatus::Conflict => summary.conflict += 1,
                ItemStatus::Error => summary.error += 1,
            }
        }
        Report {
            direction: format!("{from}_to_{to}"),
            from,
            to,
            mode: if preview { "dry-run" } else { "execute" },
            items,
            summary,
        }
    }

    /// `3 migrated, 2 skipped, 0 conflicts`.
    pub fn counts(&self) -> String {
        format!(
            "{} migrated, {} skipped, {} conflict{}",
            self.summary.migrated,
            self.summary.skipped,
            self.summary.conflict,
            if self.summary.conflict == 1 { "" } else { "s" }
        )
    }
}

/// The text report: one line per item, then the direction and the counts.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            writeln!(f, "{}", item.line())?;
        }
        writeln!(f, "{} → {}: {}", self.from, self.to, self.counts())
    }
}
