//! Plans: what a command will change, as data.
//!
//! Every mutating command computes its whole change first, as a [`Plan`]: an ordered list of
//! [`Step`]s, each a file change (with the state it expects to replace) or a service/command
//! action. The same plan is rendered for `--dry-run` ([`render`]), counted for `--check`, and
//! carried out by [`crate::apply`], so a preview can never disagree with the run. This module is
//! pure: it does no I/O.

pub(crate) mod draft;
pub mod render;

pub use draft::Draft;

use crate::path::DevPath;

/// The state of one path, before or after a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    Absent,
    /// A regular file with its bytes and permission bits.
    File {
        content: Vec<u8>,
        mode: u32,
    },
    /// A folder (created, or expected to be there).
    Dir {
        mode: u32,
    },
    /// A symbolic link (only ever removed, never followed).
    Symlink {
        target: String,
    },
    /// A folder with everything in it, to be removed as a whole. The counts are for display and
    /// for the journal; apply re-checks that the folder is still there.
    Tree {
        files: u64,
        bytes: u64,
    },
}

impl FileState {
    pub fn file(content: impl Into<Vec<u8>>, mode: u32) -> Self {
        FileState::File {
            content: content.into(),
            mode,
        }
    }

    pub fn content(&self) -> Option<&[u8]> {
        match self {
            FileState::File { content, .. } => Some(content),
            _ => None,
        }
    }

    pub fn mode(&self) -> Option<u32> {
        match self {
            FileState::File { mode, .. } | FileState::Dir { mode } => Some(*mode),
            _ => None,
        }
    }
}

/// One path changing from `before` (what the planner read) to `after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: DevPath,
    pub before: FileState,
    pub after: FileState,
    /// Why osctl changes this path (one short phrase, shown in verbose output and JSON).
    pub reason: String,
}

/// What kind of change a [`FileChange`] is, for summaries and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Create,
    Modify,
    Chmod,
    Delete,
    Mkdir,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Create => "create",
            ChangeKind::Modify => "modify",
            ChangeKind::Chmod => "chmod",
            ChangeKind::Delete => "delete",
            ChangeKind::Mkdir => "mkdir",
        }
    }
}

impl FileChange {
    pub fn new(
        path: DevPath,
        before: FileState,
        after: FileState,
        reason: impl Into<String>,
    ) -> Self {
        FileChange {
            path,
            before,
            after,
            reason: reason.into(),
        }
    }

    /// Writes `content` with `mode` over whatever `before` is.
    pub fn write(
        path: DevPath,
        before: FileState,
        content: impl Into<Vec<u8>>,
        mode: u32,
        reason: impl Into<String>,
    ) -> Self {
        Self::new(path, before, FileState::file(content, mode), reason)
    }

    pub fn kind(&self) -> ChangeKind {
        match (&self.before, &self.after) {
            (_, FileState::Absent) => ChangeKind::Delete,
            (_, FileState::Dir { .. }) => ChangeKind::Mkdir,
            (FileState::File { content: a, .. }, FileState::File { content: b, .. }) if a == b => {
                ChangeKind::Chmod
            }
            (FileState::File { .. }, _) => ChangeKind::Modify,
            _ => ChangeKind::Create,
        }
    }

    /// A change that changes nothing (planners drop these).
    pub fn is_noop(&self) -> bool {
        match (&self.before, &self.after) {
            (FileState::Dir { .. }, FileState::Dir { .. }) => true,
            (a, b) => a == b,
        }
    }
}

/// A service action (its home is the systemctl door, which runs it; a plan lists them).
pub use crate::system::services::ServiceAction;

/// A program osctl runs as part of a plan (an installer, a runtime's own reset command). Data
/// reaches it through environment variables, never by formatting script text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CommandAction {
    /// Device path of the program or the first word of the command line.
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Seconds before it is killed.
    pub timeout_secs: u64,
    /// A failure is reported as a warning instead of failing the plan.
    pub optional: bool,
    /// What this step is for (shown in the plan).
    pub label: String,
}

/// One step of a plan, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    File(FileChange),
    Service(ServiceAction),
    Command(CommandAction),
}

/// The whole change a command would make.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub steps: Vec<Step>,
    /// Things the operator should know that change nothing (shown on stderr).
    pub warnings: Vec<String>,
    /// Service actions that put the units back as they were, should this plan be rolled back
    /// (by its own run or, after a kill, by the next run's recovery): a reset records here the
    /// state of the unit it stops. Recorded in the plan's journal; never previewed.
    pub undo: Vec<ServiceAction>,
}

impl Plan {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file change, dropping it when it changes nothing.
    pub fn file(&mut self, change: FileChange) {
        if !change.is_noop() {
            self.steps.push(Step::File(change));
        }
    }

    pub fn service(&mut self, action: ServiceAction) {
        self.steps.push(Step::Service(action));
    }

    pub fn command(&mut self, action: CommandAction) {
        self.steps.push(Step::Command(action));
    }

    pub fn warn(&mut self, warning: impl Into<String>) {
        self.warnings.push(warning.into());
    }

    pub fn extend(&mut self, other: Plan) {
        self.steps.extend(other.steps);
        self.warnings.extend(other.warnings);
        self.undo.extend(other.undo);
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    pub fn file_changes(&self) -> impl Iterator<Item = &FileChange> {
        self.steps.iter().filter_map(|s| match s {
            Step::File(c) => Some(c),
            _ => None,
        })
    }

    pub fn has_file_changes(&self) -> bool {
        self.file_changes().next().is_some()
    }

    /// The planned new content of `path`, if this plan writes it (the last write wins).
    pub fn planned_content(&self, path: &DevPath) -> Option<&[u8]> {
        self.file_changes()
            .filter(|c| &c.path == path)
            .last()
            .and_then(|c| c.after.content())
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn kinds_and_noops() {
        let p = DevPath::new("/x");
        let f = |s: &str, m| FileState::file(s.as_bytes().to_vec(), m);
        assert_eq!(
            FileChange::new(p.clone(), FileState::Absent, f("a", 0o644), "").kind(),
            ChangeKind::Create
        );
        assert_eq!(
            FileChange::new(p.clone(), f("a", 0o644), f("b", 0o644), "").kind(),
            ChangeKind::Modify
        );
        assert_eq!(
            FileChange::new(p.clone(), f("a", 0o644), f("a", 0o600), "").kind(),
            ChangeKind::Chmod
        );
        assert_eq!(
            FileChange::new(p.clone(), f("a", 0o644), FileState::Absent, "").kind(),
            ChangeKind::Delete
        );
        assert!(FileChange::new(p.clone(), f("a", 0o644), f("a", 0o644), "").is_noop());
        let mut plan = Plan::new();
        plan.file(FileChange::new(p, f("a", 0o644), f("a", 0o644), ""));
        assert!(plan.is_empty());
    }
}
