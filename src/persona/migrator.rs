//! The write side shared by every destination (upstream `baseMigrator`): the rules for SOUL.md,
//! the identity (restored into IDENTITY.md or inlined as a card), memory and knowledge, and
//! USER.md, each recording one report item.
//!
//! Writes are staged here, not planned at once: a file may be written twice in one migration
//! (hermes' SOUL.md gets the soul, then the identity card), and only the final content counts.
//! [`Migrator::into_parts`] hands the staged files to `super::emit`, which plans a backup and a
//! write for each file whose content really changes, and nothing for the rest. That is what makes
//! a second identical run write nothing (docs/device-contract.md §10 item 10), where upstream made
//! a new backup and rewrote the same bytes every time.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::Options;
use super::entries::{
    DELIMITER, Merger, Overflow, canonical, canonical_list, parse_entries, parse_entries_scanned,
    serialize,
};
use super::identity::{self, CARD_HEADING, IdentityField};
use super::rebrand::{Brand, patterns_to, rebrand};
use super::report::{Item, ItemStatus};
use super::user_profile;
use crate::device::paths::Layout;
use crate::error::Result;
use crate::format::mdblock::{self, OS_MARKER};
use crate::path::DevPath;
use crate::plan::Draft;
use crate::runtime::{EntryFormat, Loc, Runtime};

/// A file the migration writes: what it held before, what it will hold.
pub struct Staged {
    pub path: DevPath,
    pub original: Option<String>,
    pub content: String,
}

/// Writes one bundle into one runtime's layout.
pub struct Migrator<'d, 'a> {
    draft: &'d Draft<'a>,
    layout: &'d Layout,
    /// The destination runtime.
    pub rt: &'static Runtime,
    /// The names rewritten to the destination's brand.
    rebrand_from: &'static [Brand],
    pub opts: &'d Options,
    items: Vec<Item>,
    staged: Vec<Staged>,
    /// Files left as they are because they differ and `--no-overwrite` keeps them: nothing of
    /// this migration may touch them (the identity card included).
    kept: Vec<DevPath>,
}

impl<'d, 'a> Migrator<'d, 'a> {
    pub fn new(
        draft: &'d Draft<'a>,
        layout: &'d Layout,
        rt: &'static Runtime,
        opts: &'d Options,
    ) -> Self {
        Migrator {
            draft,
            layout,
            rt,
            rebrand_from: patterns_to(rt),
            opts,
            items: Vec::new(),
            staged: Vec::new(),
            kept: Vec::new(),
        }
    }

    pub fn path(&self, loc: Loc) -> DevPath {
        self.layout.path(loc)
    }

    /// The text of `path` as this migration has it so far.
    pub fn read_text(&self, path: &DevPath) -> Result<Option<String>> {
        match self.staged.iter().find(|s| &s.path == path) {
            Some(s) => Ok(Some(s.content.clone())),
            None => self.draft.read_text(path),
        }
    }

    fn stage(&mut self, path: &DevPath, content: String) -> Result<()> {
        debug_assert!(
            !self.kept.contains(path),
            "{path} is kept by --no-overwrite"
        );
        if let Some(s) = self.staged.iter_mut().find(|s| &s.path == path) {
            s.content = content;
            return Ok(());
        }
        let original = self.draft.read_text(path)?;
        self.staged.push(Staged {
            path: path.clone(),
            original,
            content,
        });
        Ok(())
    }

    /// Text arriving here, with other runtimes' names replaced by this one's.
    pub fn rebrand<'t>(&self, text: &'t str) -> Cow<'t, str> {
        rebrand(text, self.rebrand_from, self.rt.brand)
    }

    fn record(
        &mut self,
        kind: &'static str,
        source: Option<String>,
        destination: &DevPath,
        status: ItemStatus,
        reason: &str,
        details: Map<String, Value>,
    ) {
        self.items.push(Item {
            kind,
            source,
            destination: destination.to_string(),
            status,
            reason: reason.to_string(),
            details,
            note: String::new(),
        });
    }

    /// "would …" in a preview, the past tense otherwise.
    fn done(&self, preview: &str, applied: &str) -> String {
        if self.opts.preview { preview } else { applied }.to_string()
    }

    /// SOUL.md (upstream `writePersona`): an empty soul is skipped, an identical one too; a
    /// different destination without `overwrite` is a conflict; otherwise it is replaced (and
    /// backed up). `soul` is the bundle's soul, identity card already stripped where the writer
    /// strips it.
    ///
    /// The OS-managed block (`<!-- OS DO NOT REMOVE -->` … `---`) is the device's, not the
    /// owner's: it is never rebranded, and the destination keeps its own block when it has one
    /// (else the source's is carried). That is the file presync would make, so the next presync
    /// changes nothing; upstream carried and rebranded the source's block, which presync then
    /// replaced.
    pub fn write_soul(
        &mut self,
        source: Option<&DevPath>,
        soul: &str,
        dest: &DevPath,
    ) -> Result<()> {
        let source = source.map(DevPath::to_string);
        if soul.trim().is_empty() {
            self.record(
                "soul",
                source,
                dest,
                ItemStatus::Skipped,
                "no source persona",
                Map::new(),
            );
            return Ok(());
        }
        let existing = self.read_text(dest)?;
        let content = self.soul_for_destination(soul, existing.as_deref());
        if existing.as_deref() == Some(content.as_str()) {
            self.record(
                "soul",
                source,
                dest,
                ItemStatus::Skipped,
                "target already matches source",
                Map::new(),
            );
            return Ok(());
        }
        if existing.is_some() && !self.opts.overwrite {
            self.kept.push(dest.clone());
            self.record(
                "soul",
                source,
                dest,
                ItemStatus::Conflict,
                "target exists and overwrite is disabled",
                Map::new(),
            );
            return Ok(());
        }
        self.stage(dest, content)?;
        let reason = self.done("would copy", "copied");
        self.record(
            "soul",
            source,
            dest,
            ItemStatus::Migrated,
            &reason,
            Map::new(),
        );
        Ok(())
    }

    fn soul_for_destination(&self, soul: &str, existing: Option<&str>) -> String {
        let own = block_body(soul);
        let rest = match own {
            Some(_) => Cow::Owned(mdblock::strip_block(soul, OS_MARKER)),
            None => Cow::Borrowed(soul),
        };
        let rest = self.rebrand(&rest).into_owned();
        match existing.and_then(block_body).or(own) {
            Some(body) => mdblock::upsert_top_block(&rest, OS_MARKER, &body),
            None => rest,
        }
    }

    /// The hermes identity card (upstream `inlineIdentityCard`): appended to the destination
    /// SOUL.md unless there are no fields, no soul to append to, or a card already there.
    pub fn inline_identity(
        &mut self,
        source: Option<&DevPath>,
        fields: &[IdentityField],
        soul: &DevPath,
    ) -> Result<()> {
        const KIND: &str = "identity-inline";
        let source = source.map(DevPath::to_string);
        let block = identity::card_block(fields, |t| self.rebrand(t));
        let skip = |m: &mut Self, reason: &str| {
            m.record(
                KIND,
                source.clone(),
                soul,
                ItemStatus::Skipped,
                reason,
                Map::new(),
            )
        };
        if block.is_empty() {
            skip(self, "no filled identity fields");
            return Ok(());
        }
        let Some(raw) = self.read_text(soul)? else {
            skip(self, "soul not present to inline into");
            return Ok(());
        };
        if raw.contains(CARD_HEADING) {
            skip(self, "identity already inlined");
            return Ok(());
        }
        if self.kept.contains(soul) {
            // The soul was kept as the owner has it: appending the card would change the very
            // file `--no-overwrite` promised to leave alone (upstream appended it, with a backup).
            self.record(
                KIND,
                source,
                soul,
                ItemStatus::Conflict,
                "soul kept by --no-overwrite; identity card not inlined",
                Map::new(),
            );
            return Ok(());
        }
        self.stage(soul, identity::inline_card(&raw, &block))?;
        let reason = self.done("would inline identity", "identity inlined into soul");
        self.record(
            KIND,
            source,
            soul,
            ItemStatus::Migrated,
            &reason,
            Map::new(),
        );
        Ok(())
    }

    /// IDENTITY.md (upstream `writeIdentityFields`, the restore): each field replaced or
    /// appended, the rest of the file kept; created when absent.
    pub fn restore_identity(
        &mut self,
        source: Option<&DevPath>,
        fields: &[IdentityField],
        dest: &DevPath,
    ) -> Result<()> {
        const KIND: &str = "identity";
        let source = source.map(DevPath::to_string);
        if fields.is_empty() {
            self.record(
                KIND,
                source,
                dest,
                ItemStatus::Skipped,
                "no identity fields to restore",
                Map::new(),
            );
            return Ok(());
        }
        let existing = self.read_text(dest)?.unwrap_or_default();
        let mut updated = existing.clone();
        for f in fields {
            let value = self.rebrand(&f.value).into_owned();
            updated = identity::set_identity_field(&updated, &f.name, &value);
        }
        if updated == existing {
            self.record(
                KIND,
                source,
                dest,
                ItemStatus::Skipped,
                "identity already current",
                Map::new(),
            );
            return Ok(());
        }
        self.stage(dest, updated)?;
        let reason = self.done("would restore identity", "identity restored to IDENTITY.md");
        self.record(
            KIND,
            source,
            dest,
            ItemStatus::Migrated,
            &reason,
            Map::new(),
        );
        Ok(())
    }

    /// A merger over the destination's current entries.
    pub fn merger(&self, dest: &DevPath, limit: usize) -> Result<Merger> {
        let existing = self
            .read_text(dest)?
            .map(|t| parse_entries(&t))
            .unwrap_or_default();
        Ok(Merger::new(existing, self.rt.persona.format, limit))
    }

    /// Offers entries read from `source` (rebranded for this runtime).
    pub fn offer_entries(&self, source: Option<&DevPath>, entries: &[String], merger: &mut Merger) {
        if let Some(source) = source {
            merger.source(source.to_string(), false);
        }
        for e in entries {
            merger.offer(&self.rebrand(e));
        }
    }

    /// Offers each entry of the daily files, one file at a time, in the order given (newest
    /// first: [`super::daily_order`]).
    pub fn offer_daily(&self, files: &[DevPath], merger: &mut Merger) -> Result<()> {
        // A draft without pending file changes reads what the rooted filesystem reads; going to
        // it directly resolves each path once instead of twice (stat, then read), which counts
        // with thousands of daily files. This migration's own writes are staged, not drafted.
        let direct = !self.draft.has_file_changes();
        for path in files {
            let name = path.file_name().unwrap_or_default();
            merger.source(super::daily_date(name).unwrap_or(name), true);
            let text = if direct {
                // A folder named `*.md` is an error for the filesystem and absent for the draft
                // (skipped, as upstream skips it); the draft also re-raises a real error.
                match self.draft.fs().read_text(path) {
                    Ok(text) => text,
                    Err(_) => self.draft.read_text(path)?,
                }
            } else {
                self.draft.read_text(path)?
            };
            if let Some(text) = text {
                for (e, scan) in parse_entries_scanned(&text) {
                    match scan.branded.then(|| self.rebrand(&e)) {
                        Some(Cow::Owned(rebranded)) => merger.offer(&rebranded),
                        _ => merger.offer_scanned(&e, scan.clean),
                    }
                }
            }
        }
        Ok(())
    }

    /// Memory or knowledge (upstream `writeMemoryEntries`), once every entry was offered.
    pub fn finish_memory(
        &mut self,
        kind: &'static str,
        source: Option<String>,
        dest: &DevPath,
        merger: Merger,
        limit: usize,
    ) -> Result<()> {
        let stats = merger.stats();
        let mut details = merge_details(stats, limit);
        overflow_details(merger.overflow(), &mut details);
        let note = overflow_note(merger.overflow(), stats.overflowed, limit);
        if stats.incoming == 0 {
            let reason = "no importable entries found";
            self.record(kind, source, dest, ItemStatus::Skipped, reason, details);
            return Ok(());
        }
        if stats.added == 0 {
            let reason = "no new entries to import";
            self.record(kind, source, dest, ItemStatus::Skipped, reason, details);
            self.note(note);
            return Ok(());
        }
        let text = serialize(merger.entries(), self.rt.persona.format);
        self.stage(dest, text)?;
        let reason = self.done("would merge entries", "merged entries");
        self.record(kind, source, dest, ItemStatus::Migrated, &reason, details);
        self.note(note);
        Ok(())
    }

    /// A note on the item recorded last, for the text report.
    fn note(&mut self, note: String) {
        if let Some(item) = self.items.last_mut() {
            item.note = note;
        }
    }

    /// USER.md (upstream `writeUserProfile`): the singular fields filled in place, the rest
    /// entry-merged under the user limit; written when entries were added or a field changed.
    pub fn write_user_profile(
        &mut self,
        source: Option<&DevPath>,
        incoming: &[String],
        dest: &DevPath,
    ) -> Result<()> {
        const KIND: &str = "user-profile";
        let source = source.map(DevPath::to_string);
        let format = self.rt.persona.format;
        let limit = self.opts.user_limit;
        let original = self.read_text(dest)?;
        let existing = canonical_list(
            original.as_deref().map(parse_entries).unwrap_or_default(),
            format,
        );
        let incoming_canon: Vec<String> = incoming
            .iter()
            .map(|e| canonical(&self.rebrand(e), format).into_owned())
            .collect();
        let (existing_fields, _) = user_profile::partition(&existing);
        let (incoming_fields, incoming_rest) = user_profile::partition(&incoming_canon);
        let fields = user_profile::merge_fields(&existing_fields, &incoming_fields);
        let with_fields = user_profile::apply_fields(&existing, &fields);
        let structure_changed = with_fields != existing;
        let mut merger = Merger::new(with_fields, format, limit);
        for e in &incoming_rest {
            merger.offer(e);
        }
        let stats = merger.stats();
        let mut details = merge_details(stats, limit);
        details.insert("profile_fields".into(), user_profile::count(&fields).into());
        if incoming.is_empty() && !structure_changed {
            let reason = "no importable entries found";
            self.record(KIND, source, dest, ItemStatus::Skipped, reason, details);
            return Ok(());
        }
        if stats.added == 0 && !structure_changed {
            let reason = "no new entries to import";
            self.record(KIND, source, dest, ItemStatus::Skipped, reason, details);
            return Ok(());
        }
        // A Markdown form is edited in place (the template stays line for line); hermes' `§`
        // entries, an empty file and a form that cannot be edited in place are written whole.
        let in_place = match (&original, format) {
            (Some(text), EntryFormat::Bullets)
                if !text.trim().is_empty() && !text.contains(DELIMITER) =>
            {
                let added = &merger.entries()[stats.existing..];
                user_profile::edit_form(text, &fields, added, merger.entries())
            }
            _ => None,
        };
        let text = in_place.unwrap_or_else(|| serialize(merger.entries(), format));
        self.stage(dest, text)?;
        let reason = self.done("would merge user profile", "merged user profile");
        self.record(KIND, source, dest, ItemStatus::Migrated, &reason, details);
        Ok(())
    }

    pub fn into_parts(self) -> (Vec<Item>, Vec<Staged>) {
        (self.items, self.staged)
    }
}

/// The body of the first OS-managed block of `text` (between its marker and `---` lines).
fn block_body(text: &str) -> Option<String> {
    let range = mdblock::find_block(text, OS_MARKER)?;
    let block = &text[range];
    let mut lines: Vec<&str> = block.split_inclusive('\n').skip(1).collect();
    if lines
        .last()
        .is_some_and(|l| l.trim_end_matches(['\n', '\r']) == "---")
    {
        lines.pop();
    }
    Some(lines.concat())
}

fn merge_details(stats: super::entries::MergeStats, limit: usize) -> Map<String, Value> {
    let Value::Object(map) = json!({
        "existing_entries": stats.existing,
        "added_entries": stats.added,
        "duplicate_entries": stats.duplicates,
        "overflowed_entries": stats.overflowed,
        "char_limit": limit,
    }) else {
        unreachable!("a JSON object literal")
    };
    map
}

/// The report's details on what did not fit: for the daily notes, how many days lost entries and
/// the oldest and newest of them; for each other source, its entries left out.
fn overflow_details(overflow: &[Overflow], details: &mut Map<String, Value>) {
    let days: Vec<&Overflow> = overflow.iter().filter(|o| o.daily).collect();
    if let (Some(oldest), Some(newest)) = (
        days.iter().map(|o| o.source.as_str()).min(),
        days.iter().map(|o| o.source.as_str()).max(),
    ) {
        details.insert("overflowed_daily_notes".into(), days.len().into());
        details.insert(
            "overflowed_daily_entries".into(),
            days.iter().map(|o| o.entries).sum::<usize>().into(),
        );
        details.insert("overflowed_daily_oldest".into(), oldest.into());
        details.insert("overflowed_daily_newest".into(), newest.into());
    }
    let others: Vec<Value> = overflow
        .iter()
        .filter(|o| !o.daily)
        .map(|o| json!({"source": o.source, "entries": o.entries}))
        .collect();
    if !others.is_empty() {
        details.insert("overflowed_sources".into(), others.into());
    }
}

/// `12 entries did not fit the 2200-code-point limit and were not carried: 10 from the daily
/// notes of 2026-06-01 to 2026-06-09 (9 days), 2 from /root/…/KNOWLEDGE.md`; empty when all fit.
fn overflow_note(overflow: &[Overflow], total: usize, limit: usize) -> String {
    if total == 0 {
        return String::new();
    }
    let mut parts = Vec::new();
    let mut days: Vec<&str> = overflow
        .iter()
        .filter(|o| o.daily)
        .map(|o| o.source.as_str())
        .collect();
    if !days.is_empty() {
        let n: usize = overflow.iter().filter(|o| o.daily).map(|o| o.entries).sum();
        days.sort_unstable();
        days.dedup();
        let when = match days.as_slice() {
            [one] => format!("the daily note of {one}"),
            [a, b] => format!("the daily notes of {a} and {b}"),
            [first, .., last] => {
                format!("the daily notes of {first} to {last} ({} days)", days.len())
            }
            [] => unreachable!("checked not empty"),
        };
        parts.push(format!("{n} from {when}"));
    }
    for o in overflow.iter().filter(|o| !o.daily) {
        let from = if o.source.is_empty() {
            "other sources"
        } else {
            &o.source
        };
        parts.push(format!("{} from {from}", o.entries));
    }
    let entries = if total == 1 { "entry" } else { "entries" };
    let verb = if total == 1 { "does" } else { "do" };
    format!(
        "{total} {entries} {verb} not fit the {limit}-code-point limit and {} not carried: {}",
        if total == 1 { "is" } else { "are" },
        parts.join(", ")
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::paths::DeviceEnv;
    use crate::runtime::REGISTRY;
    use crate::system::fs::RootFs;

    /// The first runtime whose entries are written as `format`.
    fn runtime(format: EntryFormat) -> &'static Runtime {
        REGISTRY
            .iter()
            .find(|r| r.persona.format == format)
            .unwrap()
    }

    struct Device {
        dir: tempfile::TempDir,
        fs: RootFs,
        layout: Layout,
    }

    fn device() -> Device {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        Device {
            dir,
            fs,
            layout: Layout::new(&DeviceEnv::default(), None),
        }
    }

    impl Device {
        fn put(&self, path: &DevPath, text: &str) {
            let host = self.dir.path().join(path.relative());
            std::fs::create_dir_all(host.parent().unwrap()).unwrap();
            std::fs::write(host, text).unwrap();
        }
    }

    fn options(overwrite: bool, preview: bool) -> Options {
        Options {
            overwrite,
            preview,
            ..Options::default()
        }
    }

    #[test]
    fn a_soul_is_skipped_when_empty_or_identical_kept_on_conflict_else_staged() {
        let d = device();
        let rt = runtime(EntryFormat::Bullets);
        let dest = d.layout.path(rt.persona.soul);
        d.put(&dest, "I am the owner's soul.\n");
        let draft = Draft::new(&d.fs);

        let keep = options(false, false);
        let mut m = Migrator::new(&draft, &d.layout, rt, &keep);
        m.write_soul(None, "  \n", &dest).unwrap();
        m.write_soul(None, "Another soul.\n", &dest).unwrap();
        let (items, staged) = m.into_parts();
        let status: Vec<ItemStatus> = items.iter().map(|i| i.status).collect();
        assert_eq!(status, [ItemStatus::Skipped, ItemStatus::Conflict]);
        assert!(staged.is_empty(), "a conflict writes nothing");

        let replace = options(true, true);
        let mut m = Migrator::new(&draft, &d.layout, rt, &replace);
        m.write_soul(None, "Another soul.\n", &dest).unwrap();
        let (items, staged) = m.into_parts();
        assert_eq!(items[0].status, ItemStatus::Migrated);
        assert_eq!(
            items[0].reason, "would copy",
            "a preview says what it would do"
        );
        assert_eq!(staged.len(), 1);
        assert_eq!(
            staged[0].original.as_deref(),
            Some("I am the owner's soul.\n")
        );
        assert!(staged[0].content.contains("Another soul."));

        // Staged content is what the migration reads next: the same soul again is no change.
        let mut m = Migrator::new(&draft, &d.layout, rt, &replace);
        m.write_soul(None, "Another soul.\n", &dest).unwrap();
        let first = m.read_text(&dest).unwrap().unwrap();
        m.write_soul(None, &first, &dest).unwrap();
        let (items, _) = m.into_parts();
        assert_eq!(items[1].status, ItemStatus::Skipped, "{:?}", items[1]);
    }

    #[test]
    fn memory_merges_new_entries_drops_duplicates_and_reports_what_did_not_fit() {
        for format in [EntryFormat::Bullets, EntryFormat::Sections] {
            let d = device();
            let rt = runtime(format);
            let dest = d.layout.path(rt.persona.memory);
            let existing = serialize(&["the owner likes tea".to_string()], format);
            d.put(&dest, &existing);
            let draft = Draft::new(&d.fs);
            let opts = options(true, false);
            let mut m = Migrator::new(&draft, &d.layout, rt, &opts);
            let limit = 60;
            let mut merger = m.merger(&dest, limit).unwrap();
            let incoming = [
                "the  owner likes   tea".to_string(), // the same entry, other spacing
                "walks at seven".to_string(),
                "x".repeat(80), // does not fit the limit
            ];
            m.offer_entries(
                Some(&DevPath::new("/src/MEMORY.md")),
                &incoming,
                &mut merger,
            );
            m.finish_memory("memory", None, &dest, merger, limit)
                .unwrap();
            let (items, staged) = m.into_parts();
            let item = &items[0];
            assert_eq!(item.status, ItemStatus::Migrated, "{format:?}: {item:?}");
            assert_eq!(item.details["existing_entries"], 1, "{format:?}");
            assert_eq!(item.details["added_entries"], 1, "{format:?}");
            assert_eq!(item.details["duplicate_entries"], 1, "{format:?}");
            assert_eq!(item.details["overflowed_entries"], 1, "{format:?}");
            assert!(
                item.note.contains("not carried: 1 from /src/MEMORY.md"),
                "{format:?}: {}",
                item.note
            );
            let written = parse_entries(&staged[0].content);
            assert_eq!(
                written,
                ["the owner likes tea", "walks at seven"],
                "{format:?}"
            );

            // Offered again, nothing is new: skipped, nothing staged.
            let draft = Draft::new(&d.fs);
            d.put(&dest, &staged[0].content);
            let mut m = Migrator::new(&draft, &d.layout, rt, &opts);
            let mut merger = m.merger(&dest, limit).unwrap();
            m.offer_entries(None, &incoming[..2], &mut merger);
            m.finish_memory("memory", None, &dest, merger, limit)
                .unwrap();
            let (items, staged) = m.into_parts();
            assert_eq!(items[0].status, ItemStatus::Skipped, "{format:?}");
            assert!(staged.is_empty(), "{format:?}");
        }
    }

    #[test]
    fn overflow_notes_name_the_days_and_the_sources() {
        let o = |source: &str, daily: bool, entries: usize| Overflow {
            source: source.into(),
            daily,
            entries,
        };
        let list = [
            o("2026-06-09", true, 4),
            o("2026-06-01", true, 6),
            o("2026-06-05", true, 1),
            o("/root/KNOWLEDGE.md", false, 2),
        ];
        let note = overflow_note(&list, 13, 2200);
        assert!(
            note.contains("11 from the daily notes of 2026-06-01 to 2026-06-09 (3 days)"),
            "{note}"
        );
        assert!(note.contains("2 from /root/KNOWLEDGE.md"), "{note}");
        assert_eq!(overflow_note(&[], 0, 2200), "");
        let mut details = Map::new();
        overflow_details(&list, &mut details);
        assert_eq!(details["overflowed_daily_notes"], 3);
        assert_eq!(details["overflowed_daily_oldest"], "2026-06-01");
        assert_eq!(details["overflowed_daily_newest"], "2026-06-09");
    }
}
