//! Persona and memory migration between runtimes (docs/device-contract.md §5), hub and spoke.
//!
//! Each runtime has one reader (its files → a [`PersonaBundle`]) and one writer (a bundle → its
//! files): its [`Adapter`], in `src/runtime/<rt>/persona.rs` and reached through
//! `Runtime::persona_adapter`. A migration is `read[from]` then `write[to]`, so six runtimes need
//! six adapters, not thirty pairwise migrators, and a seventh is one more. Five runtimes share the
//! openclaw layout, whose reader and writer (`workspace.rs`) are driven by the slots in
//! `src/runtime/<rt>/mod.rs`; hermes has its own (`src/runtime/hermes/persona.rs`). This module
//! holds the building blocks the adapters use.
//!
//! The rules are upstream's, in their own modules: entries and limits ([`entries`]), identity
//! fields and the hermes card ([`identity`]), USER.md as a form ([`user_profile`]), rebranding
//! ([`rebrand`]); the runtimes' stock default souls, which presync tells from the owner's by
//! content, are [`souls`]. What is carried: SOUL.md, the identity, MEMORY.md (with daily memory folded in),
//! KNOWLEDGE.md and USER.md. Never carried: AGENTS.md, TOOLS.md, HEARTBEAT.md, CLAUDE.md, hooks/
//! and runtime memory databases; they belong to their runtime.
//!
//! Planning is pure: every read goes through the [`Draft`], and the migration's writes become
//! draft writes only at the end ([`run_migration`]), each preceded by a `<file>.bak-<nanoseconds>`
//! copy of what it replaces ([`backup`], with the file's own mode). A file whose content would not change is neither written nor backed
//! up, so a second identical run plans nothing.

pub(crate) mod backup;
pub(crate) mod bundle;
pub mod entries;
pub mod identity;
pub(crate) mod migrator;
pub mod rebrand;
pub(crate) mod report;
pub mod souls;
pub(crate) mod text;
pub mod user_profile;

pub(crate) mod workspace;

pub use bundle::PersonaBundle;
pub use report::{Item, ItemStatus, Report};

use crate::device::paths::Layout;
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::Draft;
use crate::runtime::{Loc, REGISTRY, Runtime, RuntimeId};
use migrator::{Migrator, Staged};

/// One runtime's persona reader and writer (`Runtime::persona_adapter`).
#[derive(Clone, Copy, Debug)]
pub struct Adapter {
    pub read: fn(&Source<'_, '_>) -> Result<PersonaBundle>,
    pub write: fn(&mut Migrator<'_, '_>, &PersonaBundle) -> Result<()>,
}

/// The adapter of a runtime, if it has one (upstream `CanMigrate`).
pub fn adapter(id: RuntimeId) -> Option<&'static Adapter> {
    id.spec().persona_adapter.as_ref()
}

/// How a migration runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Replace a destination SOUL.md that differs (backed up first); else report a conflict.
    pub overwrite: bool,
    /// Fold the daily memory files into MEMORY.md.
    pub include_daily: bool,
    /// Code points of MEMORY.md / KNOWLEDGE.md entries joined by the `§` separator.
    pub memory_limit: usize,
    /// The same for USER.md.
    pub user_limit: usize,
    /// A preview (`--dry-run`, `--check`): only the report's wording changes.
    pub preview: bool,
}

impl Default for Options {
    /// What the device's reconciler uses: overwrite, with daily memory, upstream's limits.
    fn default() -> Self {
        Options {
            overwrite: true,
            include_daily: true,
            memory_limit: entries::MEMORY_CHAR_LIMIT,
            user_limit: entries::USER_CHAR_LIMIT,
            preview: false,
        }
    }
}

/// Read access to the source runtime's files, for a reader.
pub struct Source<'d, 'a> {
    pub draft: &'d Draft<'a>,
    pub layout: &'d Layout,
    pub rt: &'static Runtime,
    pub include_daily: bool,
}

impl Source<'_, '_> {
    /// A slot's text (empty when absent) and its path when present.
    pub fn text(&self, loc: Loc) -> Result<(String, Option<DevPath>)> {
        let path = self.layout.path(loc);
        Ok(match self.draft.read_text(&path)? {
            Some(t) => (t, Some(path)),
            None => (String::new(), None),
        })
    }

    /// A slot's entries and its path when present.
    pub fn entries(&self, loc: Option<Loc>) -> Result<(Vec<String>, Option<DevPath>)> {
        let Some(loc) = loc else {
            return Ok((Vec::new(), None));
        };
        let (text, from) = self.text(loc)?;
        Ok((entries::parse_entries(&text), from))
    }

    /// The daily memory files (`<daily_dir>/*.md`, without a MEMORY.md kept in the same folder),
    /// newest first ([`daily_order`]), and the folder when it has any; none without
    /// `include_daily`.
    pub fn daily_files(&self) -> Result<(Vec<DevPath>, Option<DevPath>)> {
        let Some(dir) = self.rt.persona.daily_dir.filter(|_| self.include_daily) else {
            return Ok((Vec::new(), None));
        };
        let dir = self.layout.path(dir);
        let memory = self.layout.path(self.rt.persona.memory);
        let mut names: Vec<String> = self
            .draft
            .list_dir(&dir)?
            .into_iter()
            .filter(|name| name.ends_with(".md"))
            .collect();
        names.sort_by(|a, b| daily_order(a, b));
        let files: Vec<DevPath> = names
            .into_iter()
            .map(|name| dir.join(name))
            .filter(|p| *p != memory)
            .collect();
        let from = (!files.is_empty()).then_some(dir);
        Ok((files, from))
    }
}

/// The order daily notes are folded in: dated ones (`YYYY-MM-DD….md`) newest first, then the
/// others by name. The memory limit keeps what comes first, and the recent days are the ones
/// the owner's agent needs (upstream folded them oldest first, so a long history kept its first
/// year and nothing recent).
pub fn daily_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (daily_date(a), daily_date(b)) {
        (Some(_), Some(_)) => b.cmp(a),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// The date a daily note's file name opens with (`2026-07-01.md` → `2026-07-01`).
pub fn daily_date(name: &str) -> Option<&str> {
    let date = name.get(..10)?;
    let b = date.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    (digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)).then_some(date)
}

/// Plans the migration of the persona from one runtime to another into `draft` and returns the
/// report. Errors (a persona file that is not UTF-8 text, an unreadable folder) leave nothing of
/// the migration in the draft.
pub fn run_migration(
    draft: &mut Draft<'_>,
    layout: &Layout,
    from: RuntimeId,
    to: RuntimeId,
    opts: &Options,
) -> Result<Report> {
    if from == to {
        return Err(Error::input(
            "same_runtime",
            format!("cannot migrate the persona from {from} to itself"),
        )
        .hint("name two different runtimes: --from is read, --to is written"));
    }
    let missing = |id: RuntimeId| {
        Error::input(
            "no_persona_adapter",
            format!("{id} has no persona adapter, so its persona cannot be migrated"),
        )
    };
    let src = adapter(from).ok_or_else(|| missing(from))?;
    let dst = adapter(to).ok_or_else(|| missing(to))?;
    let (mut items, staged) = {
        let source = Source {
            draft,
            layout,
            rt: from.spec(),
            include_daily: opts.include_daily,
        };
        let bundle = (src.read)(&source)?;
        let mut m = Migrator::new(draft, layout, to.spec(), opts);
        (dst.write)(&mut m, &bundle)?;
        m.into_parts()
    };
    emit(draft, staged, &mut items, from)?;
    Ok(Report::new(from, to, opts.preview, items))
}

/// Plans each staged file whose content changes, after a backup of what it replaces.
fn emit(
    draft: &mut Draft<'_>,
    staged: Vec<Staged>,
    items: &mut [Item],
    from: RuntimeId,
) -> Result<()> {
    for s in staged {
        let dest = s.path.to_string();
        let mine = |it: &&mut Item| it.destination == dest && it.status == ItemStatus::Migrated;
        if s.original.as_deref() == Some(s.content.as_str()) {
            for it in items.iter_mut().filter(mine) {
                it.status = ItemStatus::Skipped;
                it.reason = "already up to date".into();
            }
            continue;
        }
        let name = s.path.file_name().unwrap_or_default().to_string();
        if s.original.is_some() {
            let reason = format!("back up {name} before the persona migration replaces it");
            if let Some(backup) = backup::plan_backup(draft, &s.path, &reason)? {
                for it in items.iter_mut().filter(mine) {
                    it.details
                        .insert("backup".into(), backup.to_string().into());
                }
            }
        }
        draft.write(
            &s.path,
            s.content,
            None,
            &format!("persona migrated from {from}"),
        )?;
    }
    Ok(())
}

/// The persona paths of every runtime (files plus the memory folder, never a workspace or home
/// root), sorted and deduplicated: what a factory reset wipes in every tree
/// (upstream `PersonaPaths`). The per-runtime lists are data in `src/runtime/<rt>/mod.rs`.
pub fn wipe_paths(layout: &Layout) -> Vec<DevPath> {
    let mut paths: Vec<DevPath> = REGISTRY
        .iter()
        .flat_map(|rt| rt.persona.wipe.iter().map(|loc| layout.path(*loc)))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::paths::DeviceEnv;

    #[test]
    fn daily_notes_newest_first_then_undated() {
        let mut names = vec![
            "notes.md",
            "2012-01-01.md",
            "2026-07-02.md",
            "2026-07-01-evening.md",
            "2026-07-10.md",
            "a.md",
        ];
        names.sort_by(|a, b| daily_order(a, b));
        assert_eq!(
            names,
            [
                "2026-07-10.md",
                "2026-07-02.md",
                "2026-07-01-evening.md",
                "2012-01-01.md",
                "a.md",
                "notes.md"
            ]
        );
        assert_eq!(daily_date("2026-07-01.md"), Some("2026-07-01"));
        assert_eq!(daily_date("2026-7-01.md"), None);
        assert_eq!(daily_date("é026-07-01.md"), None);
    }

    #[test]
    fn wipe_paths_union_every_runtime_and_never_a_root() {
        let layout = Layout::new(&DeviceEnv::default(), None);
        let paths = wipe_paths(&layout);
        let shown: Vec<String> = paths.iter().map(ToString::to_string).collect();
        for want in [
            "/root/.hermes/SOUL.md",
            "/root/.hermes/memories",
            "/root/.openclaw/workspace/memory",
            "/root/.picoclaw/workspace/memory",
            "/root/.codex/workspace/USER.md",
            "/root/.claudecode/workspace/IDENTITY.md",
            "/root/.opencode/workspace/KNOWLEDGE.md",
        ] {
            assert!(
                shown.contains(&want.to_string()),
                "{want} missing: {shown:?}"
            );
        }
        let mut roots = vec![DevPath::new("/"), layout.agent_home.clone()];
        for rt in REGISTRY {
            roots.push(layout.path(rt.home));
            roots.push(layout.path(rt.workspace));
            roots.push(layout.path(rt.skills.dir));
        }
        for p in &paths {
            for root in &roots {
                assert!(!root.starts_with(p), "{p} would wipe {root}");
            }
        }
        let mut sorted = paths.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, paths);
    }
}
