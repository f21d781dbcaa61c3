//! `<file>.bak-<nanoseconds>` copies: what osctl keeps of a file before an edit removes text a
//! person could have written (a migration replacing SOUL.md or merging into USER.md, presync
//! dropping owner text below a broken OS block).
//!
//! A backup is the file's own content under a new name, so it gets the file's own permission bits:
//! a backup of a 0600 file stays 0600 (upstream wrote every backup 0644, so a copy of a private file
//! was readable by everyone), and a backup whose content holds a secret (anything the redactor
//! would mask) loses its group and other bits whatever the original's mode was. Backups are never
//! pruned here; a factory reset removes the persona files' backups (`src/reset/`).

use crate::error::Result;
use crate::path::DevPath;
use crate::plan::{Draft, FileState};
use crate::redact;

/// `<path>.bak-<nanoseconds>`.
pub(crate) fn backup_path(path: &DevPath, nanos: u128) -> DevPath {
    path.with_suffix(&format!(".bak-{nanos}"))
}

/// The mode of a copy of a file holding `content` whose own mode is `mode`.
pub(crate) fn backup_mode(content: &[u8], mode: u32) -> u32 {
    let mode = mode & 0o7777;
    let text = String::from_utf8_lossy(content);
    if redact::redact(&text) != text {
        mode & !0o077
    } else {
        mode
    }
}

/// Plans a copy of `path` as the plan has it now (before the edit that follows) under a fresh
/// backup name, with the mode [`backup_mode`] gives. Nothing when `path` is not a file (there is
/// nothing to lose). Returns the backup's path.
pub(crate) fn plan_backup(
    draft: &mut Draft<'_>,
    path: &DevPath,
    reason: &str,
) -> Result<Option<DevPath>> {
    let FileState::File { content, mode } = draft.state(path)? else {
        return Ok(None);
    };
    let backup = backup_path(path, crate::clock::now_nanos());
    let mode = backup_mode(&content, mode);
    draft.write(&backup, content, Some(mode), reason)?;
    Ok(Some(backup))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn backup_names() {
        let p = backup_path(&DevPath::new("/w/SOUL.md"), 17);
        assert_eq!(p.to_string(), "/w/SOUL.md.bak-17");
    }

    #[test]
    fn regression_backup_widened_permissions() {
        assert_eq!(backup_mode(b"- likes tea\n", 0o600), 0o600);
        assert_eq!(backup_mode(b"- likes tea\n", 0o640), 0o640);
        assert_eq!(backup_mode(b"- likes tea\n", 0o644), 0o644);
        // a secret in the content: private whatever the original's mode
        let secret =
            b"- bot token: TELEGRAM_BOT_TOKEN=123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0\n";
        assert_eq!(backup_mode(secret, 0o644), 0o600);
        assert_eq!(backup_mode(secret, 0o640), 0o600);
        // file type bits never leak into a mode
        assert_eq!(backup_mode(b"x", 0o100_644), 0o644);
    }
}
