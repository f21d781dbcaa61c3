//! One skill's download in phase one of a sync: fetched in memory (capped), checked against the
//! version's sha256 before the zip is opened, unpacked refusing unsafe entries, the package check
//! (no secrets), the skill's own `skill.json`, and staged in the runtime's private folder. A
//! `--dry-run` makes the same download and checks and keeps the files in memory
//! ([`Download::Previewed`]), so its preview shows what the run would install, file by file.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::output::Printer;
use crate::system::http::Http;

use super::Pending;
use crate::skills::archive::{self, MAX_UNPACKED_BYTES, as_tree};
use crate::skills::catalog::SkillJson;
use crate::skills::hash::tree_hash;
use crate::skills::install::Staging;
use crate::skills::{Problem, package};

/// Most bytes one skill zip may have.
pub(crate) const MAX_ZIP_BYTES: u64 = 100 * 1024 * 1024;

/// What phase one made of a pending skill.
pub(super) enum Download {
    /// A preview: `--check` downloads nothing (`None`); `--dry-run` downloads and checks the
    /// skill as the run does and keeps what it unpacked, to show it.
    Previewed(Option<Vec<archive::Entry>>),
    Failed(Problem),
    /// Its own skill.json rules the device out.
    Refused(String),
    /// Verified and staged.
    Staged(Staged),
}

/// A skill in staging.
pub(super) struct Staged {
    /// The FolderHash of what was unpacked.
    pub hash: String,
    /// How many files it holds.
    pub files: usize,
}

/// Downloads one skill, runs every check on it, and stages its folder.
pub(super) fn download(
    st: &Staging,
    http: &Http,
    out: &Printer,
    cdn: &str,
    caps: &[String],
    p: &Pending,
) -> Download {
    let entries = match checked(http, out, cdn, caps, p) {
        Ok(entries) => entries,
        Err(outcome) => return outcome,
    };
    if let Err(e) = st.stage(&p.name, &entries) {
        st.discard(&p.name);
        return Download::Failed(Problem::new(
            "io_error",
            format!("cannot stage {} in {}: {e}", p.name, st.dev),
        ));
    }
    Download::Staged(Staged {
        hash: tree_hash(&as_tree(&entries)),
        files: file_count(&entries),
    })
}

/// A `--dry-run`'s download: the same download and checks as [`download`], kept in memory.
pub(super) fn preview(
    http: &Http,
    out: &Printer,
    cdn: &str,
    caps: &[String],
    p: &Pending,
) -> Download {
    match checked(http, out, cdn, caps, p) {
        Ok(entries) => Download::Previewed(Some(entries)),
        Err(outcome) => outcome,
    }
}

/// The files of an unpacked skill (its folders not counted).
pub(super) fn file_count(entries: &[archive::Entry]) -> usize {
    entries.iter().filter(|e| e.content.is_some()).count()
}

/// The download and every check, up to the skill's own `skill.json`: the entries, or what
/// became of the skill instead (failed, refused).
fn checked(
    http: &Http,
    out: &Printer,
    cdn: &str,
    caps: &[String],
    p: &Pending,
) -> Result<Vec<archive::Entry>, Download> {
    let entries = download_checked(http, out, cdn, p).map_err(Download::Failed)?;
    let refusal = archive::skill_json(&entries)
        .and_then(|b| serde_json::from_slice::<SkillJson>(b).ok())
        .and_then(|j| j.refuses(caps));
    match refusal {
        Some(reason) => Err(Download::Refused(reason)),
        None => Ok(entries),
    }
}

/// The download itself (in memory, at most [`MAX_ZIP_BYTES`]: written to disk it would cost a
/// device's flash twice the writes, and the filesystem sync before the swap would wait for it),
/// the version check before the zip is opened, unpacking, the package check.
fn download_checked(
    http: &Http,
    out: &Printer,
    cdn: &str,
    p: &Pending,
) -> std::result::Result<Vec<archive::Entry>, Problem> {
    let url = format!("{cdn}/skills/{}.zip", p.name);
    let bar = progress_bar(out, &p.name);
    let result = http.get(&url, MAX_ZIP_BYTES, &mut |n, total| {
        if let Some(b) = &bar {
            if let Some(t) = total {
                b.set_length(t);
            }
            b.set_position(n);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let zip = result.map_err(|e| Problem::new(e.code(), e.describe()))?;
    archive::check_digest(&archive::sha256_hex(&zip), &p.wanted)?;
    let entries = archive::unpack(&zip, MAX_UNPACKED_BYTES)?;
    for e in &entries {
        if let Some(content) = &e.content
            && let Some(f) = package::scan(&e.path, content)
        {
            return Err(Problem::new("package_secret", format!("refused: {f}")));
        }
    }
    Ok(entries)
}

/// A download bar on stderr, only on a terminal and never with `--quiet` or `--json`.
fn progress_bar(out: &Printer, name: &str) -> Option<ProgressBar> {
    use std::io::IsTerminal;
    if out.quiet || out.json || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix:>20} [{bar:30}] {bytes}/{total_bytes}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(name.to_string());
    Some(bar)
}
