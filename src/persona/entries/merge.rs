//! Dedupe, canonical forms, writing entries back in a runtime's format, and the merge of one
//! memory into another within its limit.

use super::*;

/// Drops blank and normalise-equal duplicates, keeping the first (trimmed) of each.
pub fn dedupe(entries: Vec<String>) -> Vec<String> {
    dedupe_scanned(entries)
        .into_iter()
        .map(|(e, _)| e)
        .collect()
}

pub(super) fn dedupe_scanned(entries: Vec<String>) -> Vec<(String, Scan)> {
    let scans: Vec<Option<Scan>> = {
        let mut seen: HashSet<Cow<'_, str>, BuildHasherDefault<KeyHasher>> =
            HashSet::with_capacity_and_hasher(entries.len(), BuildHasherDefault::default());
        entries
            .iter()
            .map(|e| {
                let t = trim(e);
                let sc = scan(t);
                let key = if sc.clean {
                    Cow::Borrowed(t)
                } else {
                    normalized(t)
                };
                (!key.is_empty() && seen.insert(key)).then_some(sc)
            })
            .collect()
    };
    entries
        .into_iter()
        .zip(scans)
        .filter_map(|(e, sc)| {
            let sc = sc?;
            let t = trim(&e);
            Some((if t.len() == e.len() { e } else { t.to_string() }, sc))
        })
        .collect()
}

/// An entry in the form it is written in for `format`, such that reading the file back gives
/// the entry unchanged (see the module doc). Its [`normalize`] key is the original's.
pub fn canonical(entry: &str, format: EntryFormat) -> Cow<'_, str> {
    let e = entry.trim();
    if !e.contains('\n') {
        // One line: nothing to flatten, whatever the format (the common case).
        return Cow::Borrowed(e);
    }
    let flatten = match format {
        EntryFormat::Bullets => true,
        // A part that holds the separator, or ends in a `§` line that would merge with the next
        // separator, would split differently when read back.
        EntryFormat::Sections => e.contains(DELIMITER) || e.ends_with("\n§"),
    };
    if flatten {
        Cow::Owned(normalize(e))
    } else {
        Cow::Borrowed(e)
    }
}

/// Existing entries in canonical form: each entry made canonical, and for bullets the
/// duplicates that reading the file back would drop, dropped.
pub fn canonical_list(entries: Vec<String>, format: EntryFormat) -> Vec<String> {
    let entries: Vec<String> = entries
        .into_iter()
        .map(|e| match canonical(&e, format) {
            Cow::Borrowed(b) if b.len() == e.len() => e,
            other => other.into_owned(),
        })
        .filter(|e| !e.is_empty())
        .collect();
    match format {
        EntryFormat::Bullets => dedupe(entries),
        EntryFormat::Sections => entries,
    }
}

/// The file text for canonical `entries`: `- e` lines (bullets) or the entries joined by
/// [`DELIMITER`] plus a final line break (hermes). A hermes file of one entry has no separator and
/// is read back as Markdown, so an entry that Markdown would read differently (a heading, a list)
/// is written with a trailing separator, which hermes and [`parse_entries`] both read as one entry.
pub fn serialize(entries: &[String], format: EntryFormat) -> String {
    if entries.is_empty() {
        return String::new();
    }
    match format {
        EntryFormat::Bullets => {
            let mut s = String::with_capacity(entries.iter().map(|e| e.len() + 3).sum());
            for e in entries {
                s.push_str("- ");
                s.push_str(e);
                s.push('\n');
            }
            s
        }
        EntryFormat::Sections => {
            if let [only] = entries
                && extract_markdown_entries(only) != [only.as_str()]
            {
                return format!("{only}{DELIMITER}");
            }
            let mut s = entries.join(DELIMITER);
            s.push('\n');
            s
        }
    }
}

/// What a merge did (the report's details).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MergeStats {
    pub existing: usize,
    pub added: usize,
    pub duplicates: usize,
    pub overflowed: usize,
    /// Incoming entries offered (upstream skips a write with none: "no importable entries").
    pub incoming: usize,
}

/// Upstream `mergeEntries`, one incoming entry at a time, so daily memory can be streamed: the
/// existing entries first, then each incoming entry that is not a duplicate (of an existing or an
/// added entry) while the entries joined by [`DELIMITER`] stay within `limit` code points; the
/// rest are counted as overflowed and dropped. Memory use is bounded by what fits the limit.
///
/// Daily notes are offered newest first ([`Merger::source`] with `daily`), and the first daily
/// entry that does not fit closes the merge to every later daily entry: what is kept of them is
/// the most recent run, never an old note that happened to be short enough to fill the gap
/// (upstream offered them oldest first, so a long history kept its first year and dropped every
/// recent day). Which sources lost entries is recorded for the report ([`Merger::overflow`]).
pub struct Merger {
    format: EntryFormat,
    limit: usize,
    entries: Vec<String>,
    seen: KeySet,
    /// Code points of the entries joined by the separator.
    len: usize,
    stats: MergeStats,
    /// The source of the entries being offered, and whether it is a daily note.
    source: Option<(String, bool)>,
    /// A daily entry overflowed: no later daily entry is added.
    daily_closed: bool,
    overflow: Vec<Overflow>,
}

/// Entries of one source that did not fit the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The source file (a path), or for a daily note its date (the file's stem).
    pub source: String,
    pub daily: bool,
    pub entries: usize,
}

impl Merger {
    /// Starts from the destination's entries (made canonical here).
    pub fn new(existing: Vec<String>, format: EntryFormat, limit: usize) -> Merger {
        let entries = canonical_list(existing, format);
        let mut seen = KeySet::default();
        for e in &entries {
            let k = normalize(e);
            if !k.is_empty() {
                seen.insert(k);
            }
        }
        // (The existing entries are few: what fits the limit, or the destination file.)
        let len = if entries.is_empty() {
            0
        } else {
            entries.iter().map(|e| char_len(e)).sum::<usize>()
                + DELIMITER_CHARS * (entries.len() - 1)
        };
        Merger {
            format,
            limit,
            stats: MergeStats {
                existing: entries.len(),
                ..MergeStats::default()
            },
            entries,
            seen,
            len,
            source: None,
            daily_closed: false,
            overflow: Vec::new(),
        }
    }

    /// Names the source of the entries offered next (for the report); `daily`: they are a daily
    /// note's, offered newest first.
    pub fn source(&mut self, source: impl Into<String>, daily: bool) {
        self.source = Some((source.into(), daily));
    }

    /// The sources that lost entries to the limit, in the order they were offered.
    pub fn overflow(&self) -> &[Overflow] {
        &self.overflow
    }

    /// The entries so far (existing and added).
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Offers one incoming entry.
    pub fn offer(&mut self, entry: &str) {
        let e = canonical(entry, self.format);
        let key = normalized(&e);
        self.consider(&e, &key);
    }

    /// Offers an entry that [`scan`] found `clean` (trimmed, one line, its own key), which is
    /// also its canonical form, without looking at it again; other entries go to [`Self::offer`].
    pub fn offer_scanned(&mut self, entry: &str, clean: bool) {
        if clean {
            self.consider(entry, entry);
        } else {
            self.offer(entry);
        }
    }

    fn consider(&mut self, e: &str, key: &str) {
        if key.is_empty() {
            return;
        }
        self.stats.incoming += 1;
        if self.seen.contains(key) {
            self.stats.duplicates += 1;
            return;
        }
        let daily = self.source.as_ref().is_some_and(|(_, d)| *d);
        let n = char_len(e);
        let candidate = if self.entries.is_empty() {
            n
        } else {
            self.len + DELIMITER_CHARS + n
        };
        if candidate > self.limit || (daily && self.daily_closed) {
            self.stats.overflowed += 1;
            self.daily_closed |= daily;
            self.note_overflow();
            return;
        }
        self.entries.push(e.to_string());
        self.seen.insert(key.to_string());
        self.len = candidate;
        self.stats.added += 1;
    }

    fn note_overflow(&mut self) {
        let (source, daily) = self
            .source
            .as_ref()
            .map_or(("", false), |(s, d)| (s.as_str(), *d));
        match self.overflow.last_mut() {
            Some(last) if last.source == source && last.daily == daily => last.entries += 1,
            _ => self.overflow.push(Overflow {
                source: source.to_string(),
                daily,
                entries: 1,
            }),
        }
    }

    pub fn stats(&self) -> MergeStats {
        self.stats
    }

    pub fn into_entries(self) -> Vec<String> {
        self.entries
    }
}
