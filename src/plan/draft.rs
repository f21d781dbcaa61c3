//! A plan being written: reads that see the plan's own pending writes.
//!
//! Planners that touch a file more than once (presync adds two blocks to SOUL.md; a reconcile
//! updates two markers in config.json; a switch runs presync and then the reconcilers) read and
//! write through a [`Draft`]. Every path keeps one [`FileChange`], from what is on disk now
//! (`before`) to the latest content planned (`after`), in the order paths were first touched;
//! writing a file back to what is on disk drops its change. Service actions and commands keep
//! their order after the file changes that came before them. Reads go to the device only
//! through the draft's [`RootFs`], so a planner stays pure with respect to everything else.
//!
//! A command of several independent steps (a switch: embedded files, presync, the commit point,
//! each reconcile step) plans them as **phases** of one draft: [`Draft::end_phase`] hands back
//! the plan of the phase just planned and keeps what it leaves, so the next phase reads the files
//! as the earlier ones leave them and its changes start from there (their `before` is that
//! state, which is what the disk holds once the earlier phases are applied). A preview of the
//! whole command is then the phases' plans in order, and replaying them gives what the run does.
//!
//! A change is kept per *file*, not per name: two device paths that reach one file through a
//! symbolic link inside the root (`workspace/.claude` linked to `~/.claude`, a workspace
//! `AGENTS.md` linked to the global one) share one change, so the file is written once, and a
//! write through the second name sees the first one's content. (Two changes for one file used
//! to fail every such run: the second write found the file changed by the first.)

use std::cell::RefCell;
use std::collections::HashMap;

use super::{CommandAction, FileChange, FileState, Plan, ServiceAction, Step};
use crate::error::{Error, Exit, Result};
use crate::format::Format;
use crate::format::doc::Doc;
use crate::path::DevPath;
use crate::redact;
use crate::system::fs::{Kind, RootFs, text_from_bytes};

/// Mode for a new file when the planner does not ask for one.
pub(crate) const DEFAULT_FILE_MODE: u32 = 0o644;
pub(crate) const DEFAULT_DIR_MODE: u32 = 0o755;

#[derive(Clone)]
pub struct Draft<'a> {
    fs: &'a RootFs,
    steps: Vec<Step>,
    /// Index into `steps` of each file's change, by the file's resolved device path
    /// ([`Draft::key`]).
    by_path: HashMap<DevPath, usize>,
    /// Folders resolved through their links (device path → resolved device path), so keying
    /// a path costs one `lstat` of its last component.
    resolved: RefCell<HashMap<DevPath, DevPath>>,
    warnings: Vec<String>,
    /// A fingerprint of the first state read from the disk for each path. A planner that read
    /// a file, then wrote what it made of it, must not have its plan applied over a version
    /// someone else wrote in between (presync plans without the lock): every later read of the
    /// path must find the same state, so a change's `before` is what the planner first read, and
    /// apply re-checks `before`. Only fingerprints are kept: a migration reads thousands of
    /// daily files, and keeping their bytes would hold the whole input in memory.
    seen: RefCell<HashMap<DevPath, [u8; 32]>>,
    /// What the phases ended so far leave at each path they touched (see [`Draft::end_phase`]):
    /// read in place of the disk.
    done: HashMap<DevPath, FileState>,
    /// Paths whose content on disk the ended phases did away with (a folder removed, or
    /// recreated empty): below them, only `done` counts.
    done_cleared: Vec<DevPath>,
    /// Symbolic links that lead out of their runtime's tree, where they really are ([`Draft::sever`]):
    /// nothing at or below one is read, listed or written.
    severed: Vec<DevPath>,
}

impl<'a> Draft<'a> {
    pub fn new(fs: &'a RootFs) -> Self {
        Draft {
            fs,
            steps: Vec::new(),
            by_path: HashMap::new(),
            warnings: Vec::new(),
            seen: RefCell::new(HashMap::new()),
            resolved: RefCell::new(HashMap::new()),
            done: HashMap::new(),
            done_cleared: Vec::new(),
            severed: Vec::new(),
        }
    }

    /// Cuts each of `links` (symbolic links, where they really are, not followed) off this
    /// draft: at and below one, every path reads as absent, lists nothing and is never
    /// resolved through the link, a removal there has nothing to do, and a write is an error.
    /// A reset plans on a device whose links out of a runtime's tree it removes first, and must
    /// never read or change what they point at.
    pub fn sever(&mut self, links: &[DevPath]) {
        self.severed.extend(links.iter().cloned());
    }

    /// The severed link at or above `path`, when there is one. Each folder on the way is looked
    /// up without following its last component, from the top, so nothing below a severed link
    /// is ever resolved.
    pub fn severed_above(&self, path: &DevPath) -> Option<DevPath> {
        if self.severed.is_empty() {
            return None;
        }
        let mut here = DevPath::new("/");
        for part in path.relative().components() {
            here = here.join(part.as_os_str());
            let key = self.key(&here, false);
            if self.severed.contains(&key) {
                return Some(key);
            }
        }
        None
    }

    /// The file `path` names: its device path with every link inside the root resolved (the
    /// last one too when `follow`, as writes follow it and removals do not). A path that cannot
    /// be resolved is its own key (reading it reports why).
    fn key(&self, path: &DevPath, follow: bool) -> DevPath {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return path.clone();
        };
        let dir = {
            let mut cache = self.resolved.borrow_mut();
            match cache.get(&parent) {
                Some(d) => d.clone(),
                None => match self.fs.resolve_dev(&parent, true) {
                    Ok(d) => {
                        cache.insert(parent.clone(), d.clone());
                        d
                    }
                    Err(_) => return path.clone(),
                },
            }
        };
        let candidate = dir.join(name);
        if follow && self.fs.is_link_in_resolved(&candidate) {
            return self.fs.resolve_dev(&candidate, true).unwrap_or(candidate);
        }
        candidate
    }

    /// Ends the phase planned so far: returns its plan (what [`Draft::finish`] would return) and
    /// keeps what it leaves, so later reads see it and later changes start from it.
    pub fn end_phase(&mut self) -> Plan {
        let steps = std::mem::take(&mut self.steps);
        let warnings = std::mem::take(&mut self.warnings);
        // Keyed as `by_path` is: by the file each change names (links resolved).
        for (key, i) in self.by_path.drain() {
            if let Step::File(c) = &steps[i] {
                if replaces_content(c) {
                    self.done_cleared.push(key.clone());
                }
                self.done.insert(key, c.after.clone());
            }
        }
        plan_of(steps, warnings)
    }

    /// The state the ended phases leave at `path`, when they decide it (`None`: the disk's).
    fn done_state(&self, path: &DevPath) -> Option<FileState> {
        if let Some(s) = self.done.get(path) {
            return Some(s.clone());
        }
        self.done_cleared
            .iter()
            .any(|c| path != c && path.starts_with(c))
            .then_some(FileState::Absent)
    }

    /// Whether what the disk lists in `dir` no longer counts (the folder is gone or new).
    fn listing_replaced(&self, dir: &DevPath) -> bool {
        self.done_cleared.iter().any(|c| dir.starts_with(c))
            || self
                .pending(dir)
                .is_some_and(|c| c.before == FileState::Absent || replaces_content(c))
            || self.under_removed_tree(dir)
    }

    /// The disk state of `path`, which must be the state this draft first read of it.
    fn observed(&self, path: &DevPath) -> Result<FileState> {
        let state = current(self.fs, path)?;
        let print = fingerprint(&state);
        let mut seen = self.seen.borrow_mut();
        match seen.get(path) {
            Some(first) if *first != print => Err(Error::new(
                Exit::RolledBack,
                "changed_underfoot",
                format!("{path} changed while osctl was reading it"),
            )
            .hint("something else wrote the file while osctl planned; nothing was written; run the command again")),
            Some(_) => Ok(state),
            None => {
                seen.insert(path.clone(), print);
                Ok(state)
            }
        }
    }

    pub fn fs(&self) -> &'a RootFs {
        self.fs
    }

    fn pending(&self, path: &DevPath) -> Option<&FileChange> {
        self.by_path.get(path).and_then(|&i| match &self.steps[i] {
            Step::File(c) => Some(c),
            _ => None,
        })
    }

    /// The planned state of `path` (pending change, else the disk), following a final link.
    pub fn state(&self, path: &DevPath) -> Result<FileState> {
        if self.severed_above(path).is_some() {
            return Ok(FileState::Absent);
        }
        if self.by_path.is_empty() && self.done.is_empty() {
            return self.observed(path);
        }
        let key = self.key(path, true);
        if let Some(c) = self.pending(&key) {
            return Ok(c.after.clone());
        }
        if self.under_removed_tree(&key) {
            return Ok(FileState::Absent);
        }
        if let Some(s) = self.done_state(&key) {
            return Ok(s);
        }
        self.observed(path)
    }

    fn under_removed_tree(&self, path: &DevPath) -> bool {
        self.by_path.iter().any(|(p, &i)| {
            path != p
                && path.starts_with(p)
                && matches!(&self.steps[i], Step::File(c) if replaces_content(c))
        })
    }

    /// The planned bytes of a file; `None` when it does not (or will not) exist.
    pub fn read(&self, path: &DevPath) -> Result<Option<Vec<u8>>> {
        Ok(match self.state(path)? {
            FileState::File { content, .. } => Some(content),
            _ => None,
        })
    }

    /// The planned text of a file (UTF-8, errors name the line).
    pub fn read_text(&self, path: &DevPath) -> Result<Option<String>> {
        match self.read(path)? {
            None => Ok(None),
            Some(bytes) => text_from_bytes(path, bytes).map(Some),
        }
    }

    /// The planned structured document at `path` (pending writes included); an empty document
    /// of `format` when the file does not exist or is empty.
    pub fn doc(&self, path: &DevPath, format: Format) -> Result<Doc> {
        Doc::parse_or_empty(format, self.read_text(path)?.as_deref(), &path.to_string())
    }

    pub fn exists(&self, path: &DevPath) -> Result<bool> {
        Ok(!matches!(self.state(path)?, FileState::Absent))
    }

    pub fn is_dir(&self, path: &DevPath) -> Result<bool> {
        Ok(matches!(
            self.state(path)?,
            FileState::Dir { .. } | FileState::Tree { .. }
        ))
    }

    /// Names in a folder as planned: on disk, plus files the plan (and its ended phases)
    /// creates, minus those it removes.
    pub fn list_dir(&self, path: &DevPath) -> Result<Vec<String>> {
        if !self.is_dir(path)? {
            return Ok(Vec::new());
        }
        let dir = self.key(path, true);
        let mut names: Vec<String> = if self.listing_replaced(&dir) {
            Vec::new()
        } else {
            self.fs.list_dir(path)?.unwrap_or_default()
        };
        let layers = self
            .done
            .iter()
            .chain(
                self.by_path
                    .iter()
                    .filter_map(|(p, &i)| match &self.steps[i] {
                        Step::File(c) => Some((p, &c.after)),
                        _ => None,
                    }),
            );
        for (p, after) in layers {
            if p.parent().as_ref() != Some(&dir) {
                continue;
            }
            let Some(name) = p.file_name().map(str::to_string) else {
                continue;
            };
            names.retain(|n| *n != name);
            if !matches!(after, FileState::Absent) {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    fn record(
        &mut self,
        path: &DevPath,
        after: FileState,
        reason: &str,
        // `before` is read at the path itself (a link stays a link): removals and links.
        removal: bool,
    ) -> Result<bool> {
        if let Some(link) = self.severed_above(path) {
            if removal && after == FileState::Absent {
                return Ok(false);
            }
            return Err(Error::input(
                "written_through_link",
                format!("{path} lies through the symbolic link {link}, which leads out of its runtime's tree"),
            )
            .hint(format!("nothing was written; remove or replace the link {link}")));
        }
        let key = self.key(path, !removal);
        if let Some(&i) = self.by_path.get(&key) {
            let Step::File(change) = &mut self.steps[i] else {
                unreachable!()
            };
            if change.after == after {
                return Ok(false);
            }
            change.after = after;
            if !change.reason.contains(reason) {
                change.reason = format!("{}; {reason}", change.reason);
            }
            return Ok(true);
        }
        let before = if self.under_removed_tree(&key) {
            // Its folder goes first in this plan: by the time this step runs, nothing is there.
            if removal && after == FileState::Absent {
                return Ok(false);
            }
            FileState::Absent
        } else if let Some(done) = self.done_state(&key) {
            match done {
                // A folder an earlier phase made, removed with what it holds.
                FileState::Dir { .. } if removal => FileState::Tree { files: 0, bytes: 0 },
                s => s,
            }
        } else if removal {
            current_for_removal(self.fs, path)?
        } else {
            self.observed(path)?
        };
        let change = FileChange::new(path.clone(), before, after, reason);
        if change.is_noop()
            || (change.after == FileState::Absent && change.before == FileState::Absent)
        {
            return Ok(false);
        }
        self.by_path.insert(key, self.steps.len());
        self.steps.push(Step::File(change));
        Ok(true)
    }

    /// Plans `path` to hold `content`. `mode`: exact permission bits, or `None` to keep the
    /// file's current mode (0644 for a new file); with `None`, new content that holds a secret
    /// (anything the redactor would mask: a registered value, the value of a secret-looking key,
    /// a bearer token) loses its group and other bits, so every file osctl writes with a secret
    /// in it is 0600 (a user's MCP header in a runtime's own config, say). Content that does
    /// not change keeps its mode: osctl does not chmod files it leaves alone. Returns whether
    /// this changed the plan.
    pub fn write(
        &mut self,
        path: &DevPath,
        content: impl Into<Vec<u8>>,
        mode: Option<u32>,
        reason: &str,
    ) -> Result<bool> {
        let content = content.into();
        let mode = match mode {
            Some(m) => m,
            None => {
                let (same, mode) = match self.state(path)? {
                    FileState::File { content: old, mode } => (old == content, mode),
                    _ => (false, DEFAULT_FILE_MODE),
                };
                // Unchanged content (the boot path's usual case) is not scanned at all.
                let holds_secret = !same && {
                    let text = String::from_utf8_lossy(&content);
                    redact::redact(&text) != text
                };
                if holds_secret { mode & !0o077 } else { mode }
            }
        };
        self.record(path, FileState::file(content, mode), reason, false)
    }

    /// Plans a folder to exist (with its parents, created by apply). A folder this plan removes
    /// comes back empty: `before` stays the old tree, which apply moves to the journal first.
    pub fn mkdir(&mut self, path: &DevPath, reason: &str) -> Result<bool> {
        if self.is_dir(path)? {
            return Ok(false);
        }
        self.record(
            path,
            FileState::Dir {
                mode: DEFAULT_DIR_MODE,
            },
            reason,
            false,
        )
    }

    /// Plans a folder with exactly `mode` (a folder put back as it was: recovery's preview). A
    /// folder already there is left as it is.
    pub fn mkdir_mode(&mut self, path: &DevPath, mode: u32, reason: &str) -> Result<bool> {
        if self.is_dir(path)? {
            return Ok(false);
        }
        self.record(path, FileState::Dir { mode }, reason, false)
    }

    /// Plans `path` to be a symbolic link to `target` (systemd's `[Install]` links: `osctl
    /// setup` enables its units in an offline image as `systemctl enable` would). A file or a
    /// link to elsewhere at `path` is replaced; a folder there is refused.
    pub fn symlink(&mut self, path: &DevPath, target: &str, reason: &str) -> Result<bool> {
        let after = FileState::Symlink {
            target: target.to_string(),
        };
        if let Some(c) = self.pending(path) {
            if c.after == after {
                return Ok(false);
            }
        } else if matches!(
            current_for_removal(self.fs, path)?,
            FileState::Dir { .. } | FileState::Tree { .. }
        ) {
            return Err(Error::input(
                "path_is_a_folder",
                format!("{path} is a folder; osctl would make it a link to {target}"),
            )
            .hint("move the folder away, then run the command again"));
        }
        self.record(path, after, reason, true)
    }

    /// Plans `path` to be gone: a file, a symlink (as a link) or a folder with its content.
    pub fn remove(&mut self, path: &DevPath, reason: &str) -> Result<bool> {
        let key = self.key(path, false);
        if let Some(c) = self.pending(&key)
            && c.before == FileState::Absent
        {
            // Created by this plan only: forget it.
            let i = self.by_path.remove(&key).expect("pending has an index");
            self.steps.remove(i);
            for v in self.by_path.values_mut() {
                if *v > i {
                    *v -= 1;
                }
            }
            return Ok(true);
        }
        self.record(path, FileState::Absent, reason, true)
    }

    /// Adds a service action; an action already planned for the same unit later is not repeated.
    pub fn service(&mut self, action: ServiceAction) {
        if !self
            .steps
            .iter()
            .any(|s| matches!(s, Step::Service(a) if *a == action))
        {
            self.steps.push(Step::Service(action));
        }
    }

    pub fn command(&mut self, action: CommandAction) {
        self.steps.push(Step::Command(action));
    }

    pub fn warn(&mut self, warning: impl Into<String>) {
        self.warnings.push(warning.into());
    }

    /// A point to come back to when a part of a plan fails and must contribute nothing.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            steps: self.steps.clone(),
            by_path: self.by_path.clone(),
            warnings: self.warnings.len(),
        }
    }

    /// Forgets everything planned since `checkpoint`.
    pub fn rollback_to(&mut self, checkpoint: Checkpoint) {
        self.steps = checkpoint.steps;
        self.by_path = checkpoint.by_path;
        self.warnings.truncate(checkpoint.warnings);
    }

    /// Whether the draft changes any file (in this phase or an ended one: either way, reads
    /// must go through the draft).
    pub fn has_file_changes(&self) -> bool {
        !self.done.is_empty()
            || self
                .steps
                .iter()
                .any(|s| matches!(s, Step::File(c) if !c.is_noop()))
    }

    /// The finished plan of the phase being planned (changes that ended where they started are
    /// dropped).
    pub fn finish(self) -> Plan {
        plan_of(self.steps, self.warnings)
    }
}

fn plan_of(steps: Vec<Step>, warnings: Vec<String>) -> Plan {
    let mut plan = Plan::new();
    for step in steps {
        match step {
            Step::File(c) => plan.file(c),
            Step::Service(a) => plan.service(a),
            Step::Command(c) => plan.command(c),
        }
    }
    plan.warnings = warnings;
    plan
}

/// Whether a change does away with what was under its path (removed, or a folder recreated
/// empty): paths below it no longer hold what the disk shows.
fn replaces_content(c: &FileChange) -> bool {
    c.after == FileState::Absent || matches!(c.before, FileState::Tree { .. })
}

/// See [`Draft::checkpoint`].
pub struct Checkpoint {
    steps: Vec<Step>,
    by_path: HashMap<DevPath, usize>,
    warnings: usize,
}

/// A digest of a path's state: its kind, mode or link target, and bytes.
fn fingerprint(state: &FileState) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    match state {
        FileState::Absent => h.update(b"absent"),
        FileState::File { content, mode } => {
            h.update(b"file");
            h.update(mode.to_le_bytes());
            h.update(content);
        }
        FileState::Dir { mode } => {
            h.update(b"dir");
            h.update(mode.to_le_bytes());
        }
        FileState::Symlink { target } => {
            h.update(b"link");
            h.update(target.as_bytes());
        }
        FileState::Tree { files, bytes } => {
            h.update(b"tree");
            h.update(files.to_le_bytes());
            h.update(bytes.to_le_bytes());
        }
    }
    h.finalize().into()
}

/// The current state of `path` as a planner's `before` (following a final link).
pub(crate) fn current(fs: &RootFs, path: &DevPath) -> Result<FileState> {
    let Some(meta) = fs.stat(path)? else {
        return Ok(FileState::Absent);
    };
    Ok(match meta.kind {
        Kind::Dir => FileState::Dir { mode: meta.mode },
        // A FIFO, device node or socket where a file belongs: the read names it as an error.
        _ => FileState::File {
            content: fs.read(path)?.unwrap_or_default(),
            mode: meta.mode,
        },
    })
}

/// The current state of `path` for a removal: a link stays a link, a folder is counted whole.
pub(crate) fn current_for_removal(fs: &RootFs, path: &DevPath) -> Result<FileState> {
    let Some(meta) = fs.lstat(path)? else {
        return Ok(FileState::Absent);
    };
    Ok(match meta.kind {
        Kind::Symlink => match fs.read_link(path)? {
            Some(target) => FileState::Symlink {
                target: target.to_string_lossy().into_owned(),
            },
            // Gone between the two looks.
            None => FileState::Absent,
        },
        Kind::Dir => {
            let (files, bytes) = fs.tree_size(path)?;
            FileState::Tree { files, bytes }
        }
        _ => FileState::File {
            content: fs.read(path)?.unwrap_or_default(),
            mode: meta.mode,
        },
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::apply::{Target, apply};
    use crate::output::{ColorChoice, Printer};
    use crate::system::services::Services;

    #[test]
    fn a_removed_folder_can_be_recreated_empty_and_written_into() {
        let (dir, fs) = setup();
        let mut d = Draft::new(&fs);
        let mem = DevPath::new("/ws/memory");
        d.remove(&mem, "wipe").unwrap();
        // Removing something inside a folder that goes anyway plans nothing more.
        assert!(!d.remove(&DevPath::new("/ws/memory/a.md"), "inner").unwrap());
        d.mkdir(&mem, "fresh").unwrap();
        d.write(&DevPath::new("/ws/memory/new.md"), "n\n", None, "seed")
            .unwrap();
        assert_eq!(d.list_dir(&mem).unwrap(), vec!["new.md"]);
        let plan = d.finish();
        let out = Printer::new(false, true, 0, ColorChoice::Never, true);
        let target = Target {
            fs: &fs,
            services: &Services::Offline,
            out: &out,
            command: "test",
        };
        apply(&target, &plan).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path().join("ws/memory"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("new.md")]);
    }

    fn setup() -> (tempfile::TempDir, RootFs) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws/memory")).unwrap();
        std::fs::write(dir.path().join("ws/SOUL.md"), "soul\n").unwrap();
        std::fs::write(dir.path().join("ws/memory/a.md"), "a\n").unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        (dir, fs)
    }

    #[test]
    fn reads_see_pending_writes_and_one_change_per_path() {
        let (_d, fs) = setup();
        let mut d = Draft::new(&fs);
        let soul = DevPath::new("/ws/SOUL.md");
        d.write(&soul, "soul 2\n", None, "first").unwrap();
        assert_eq!(d.read_text(&soul).unwrap().unwrap(), "soul 2\n");
        d.write(&soul, "soul 3\n", None, "second").unwrap();
        let plan = d.finish();
        assert_eq!(plan.steps.len(), 1);
        let c = plan.file_changes().next().unwrap();
        assert_eq!(c.before.content().unwrap(), b"soul\n");
        assert_eq!(c.after.content().unwrap(), b"soul 3\n");
        assert_eq!(c.reason, "first; second");
    }

    #[test]
    fn a_phase_starts_from_what_the_phases_before_it_leave() {
        let (dir, fs) = setup();
        let mut d = Draft::new(&fs);
        let soul = DevPath::new("/ws/SOUL.md");
        let mem = DevPath::new("/ws/memory");
        d.write(&soul, "soul 2\n", None, "first").unwrap();
        d.write(&DevPath::new("/ws/new.md"), "new\n", None, "first")
            .unwrap();
        d.remove(&mem, "first").unwrap();
        let first = d.end_phase();
        assert_eq!(first.file_changes().count(), 3);
        // The next phase reads the first one's result and changes it from there.
        assert_eq!(d.read_text(&soul).unwrap().unwrap(), "soul 2\n");
        assert!(!d.exists(&DevPath::new("/ws/memory/a.md")).unwrap());
        assert_eq!(
            d.list_dir(&DevPath::new("/ws")).unwrap(),
            vec!["SOUL.md", "new.md"]
        );
        d.write(&soul, "soul 3\n", None, "second").unwrap();
        d.remove(&DevPath::new("/ws/new.md"), "second").unwrap();
        d.mkdir(&mem, "second").unwrap();
        let second = d.end_phase();
        let changes: Vec<_> = second.file_changes().collect();
        assert_eq!(changes.len(), 3, "{changes:?}");
        assert_eq!(changes[0].before.content().unwrap(), b"soul 2\n");
        assert_eq!(changes[1].before.content().unwrap(), b"new\n");
        assert_eq!(changes[1].after, FileState::Absent);
        assert_eq!(changes[2].before, FileState::Absent);
        // Applied one after the other, the phases hold.
        let out = Printer::new(false, true, 0, ColorChoice::Never, true);
        let target = Target {
            fs: &fs,
            services: &Services::Offline,
            out: &out,
            command: "test",
        };
        apply(&target, &first).unwrap();
        apply(&target, &second).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("ws/SOUL.md")).unwrap(),
            "soul 3\n"
        );
        assert!(!dir.path().join("ws/new.md").exists());
        assert!(dir.path().join("ws/memory").is_dir());
        assert!(!dir.path().join("ws/memory/a.md").exists());
    }

    #[test]
    fn writing_back_the_original_drops_the_change() {
        let (_d, fs) = setup();
        let mut d = Draft::new(&fs);
        let soul = DevPath::new("/ws/SOUL.md");
        d.write(&soul, "x\n", None, "x").unwrap();
        d.write(&soul, "soul\n", None, "back").unwrap();
        assert!(d.finish().is_empty());
    }

    #[test]
    fn removal_hides_the_tree_and_listing_merges_pending_files() {
        let (_d, fs) = setup();
        let mut d = Draft::new(&fs);
        d.write(&DevPath::new("/ws/memory/b.md"), "b\n", None, "add")
            .unwrap();
        assert_eq!(
            d.list_dir(&DevPath::new("/ws/memory")).unwrap(),
            vec!["a.md", "b.md"]
        );
        d.remove(&DevPath::new("/ws/memory/b.md"), "undo").unwrap();
        assert!(d.finish().is_empty());
        let mut d = Draft::new(&fs);
        d.remove(&DevPath::new("/ws/memory"), "wipe").unwrap();
        assert!(!d.exists(&DevPath::new("/ws/memory/a.md")).unwrap());
        let plan = d.finish();
        assert!(matches!(
            plan.file_changes().next().unwrap().before,
            FileState::Tree { files: 1, .. }
        ));
    }
}
