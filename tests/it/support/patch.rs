//! Applies the diff osctl prints for `--dry-run` to a device tree, as an operator would replay a
//! preview, so a test can hold the preview against what the real run leaves.
//!
//! It reads only the git-style sections of the output (`diff --git a/P b/P`, their headers and
//! hunks); the comment lines between them (`# systemctl …`, a reset's list) are skipped. Every
//! header osctl's renderer writes is understood: new and deleted files with their mode, mode
//! changes, `new folder P/ (mode M)`, `deleted folder P/ (…)`, `deleted empty folder P/`,
//! `new symlink P -> T`, `deleted symlink P -> T`. Anything it cannot replay (a `Binary files … differ` line, a hunk
//! that does not fit the file) is an error: the preview was not complete.
//!
//! Secrets: the preview masks them (`sk-…c0de` keeps 3 and 4 characters, `***` none), so a
//! masked line of the diff matches a file line that has the same text around each mask, and a
//! `+` line with a mask is written masked. [`matches`] compares a replayed tree with the real one
//! the same way: byte for byte, except that a masked line stands for any line with the same text
//! around its masks.
//!
//! (A crate such as `diffy` applies unified diffs, but not osctl's folder, symlink and mode
//! headers, nor masked lines; the format here is small enough to read directly.)

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Applies every section of `diff` under `root`, in order. Returns the paths touched.
pub fn apply(root: &Path, diff: &str) -> Result<Vec<String>, String> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut touched = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\n');
        let Some(rel) = section_path(line) else {
            i += 1;
            continue;
        };
        i += 1;
        touched.push(rel.to_string());
        i = apply_section(root, rel, &lines, i).map_err(|e| format!("{rel}: {e}"))?;
    }
    Ok(touched)
}

/// `diff --git a/P b/P` → `P`.
fn section_path(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("diff --git a/")?;
    // "P b/P": both halves are the same path.
    let half = rest.len().checked_sub(3)? / 2;
    let (a, b) = (&rest[..half], &rest[half..]);
    (b.strip_prefix(" b/") == Some(a)).then_some(a)
}

fn parse_mode(text: &str) -> Result<u32, String> {
    let octal = text.trim().trim_start_matches("100");
    u32::from_str_radix(octal, 8).map_err(|_| format!("bad mode `{text}`"))
}

/// Applies one section whose header starts at `lines[i]`; returns the index after it.
fn apply_section(root: &Path, rel: &str, lines: &[&str], mut i: usize) -> Result<usize, String> {
    let host = root.join(rel);
    let mut new_mode: Option<u32> = None;
    let mut creating = false;
    let mut deleting = false;
    let mut hunks_seen = false;
    let mut old: Option<Vec<String>> = None;
    let mut new_lines: Vec<String> = Vec::new();
    let mut cursor = 0usize;
    while i < lines.len() {
        let raw = lines[i];
        let line = raw.trim_end_matches('\n');
        if let Some(m) = line.strip_prefix("new file mode ") {
            new_mode = Some(parse_mode(m)?);
            creating = true;
            if host.symlink_metadata().is_ok() {
                return Err(
                    "shown as a new file, but an earlier step of the preview made it".into(),
                );
            }
        } else if line.starts_with("deleted file mode ") {
            deleting = true;
        } else if line.starts_with("old mode ") {
        } else if let Some(m) = line.strip_prefix("new mode ") {
            new_mode = Some(parse_mode(m)?);
        } else if line.starts_with("deleted folder ") {
            std::fs::remove_dir_all(&host).map_err(|e| format!("remove folder: {e}"))?;
            return Ok(i + 1);
        } else if line.starts_with("deleted empty folder ") {
            std::fs::remove_dir(&host).map_err(|e| format!("remove empty folder: {e}"))?;
            return Ok(i + 1);
        } else if line.starts_with("deleted symlink ") {
            std::fs::remove_file(&host).map_err(|e| format!("remove link: {e}"))?;
            return Ok(i + 1);
        } else if let Some(rest) = line.strip_prefix("new symlink ") {
            let (_, target) = rest
                .split_once(" -> ")
                .ok_or("new symlink without a target")?;
            if let Some(dir) = host.parent() {
                make_parents(dir)?;
            }
            let _ = std::fs::remove_file(&host);
            std::os::unix::fs::symlink(target, &host).map_err(|e| format!("link: {e}"))?;
            return Ok(i + 1);
        } else if let Some(rest) = line.strip_prefix("new folder ") {
            let mode = rest
                .rsplit_once("(mode ")
                .map(|(_, m)| m.trim_end_matches(')'))
                .ok_or("new folder without a mode")?;
            let mode = u32::from_str_radix(mode, 8).map_err(|e| e.to_string())?;
            if host.is_dir() {
                return Err("shown as a new folder, but it is there already".into());
            }
            std::fs::create_dir_all(&host).map_err(|e| format!("mkdir: {e}"))?;
            std::fs::set_permissions(&host, std::fs::Permissions::from_mode(mode))
                .map_err(|e| e.to_string())?;
            return Ok(i + 1);
        } else if line.starts_with("Binary files ") {
            // A binary file that goes needs no content; one that is written cannot be replayed.
            if !deleting {
                return Err("a binary change: the preview does not show its content".into());
            }
        } else if line.starts_with("--- ") || line.starts_with("+++ ") {
        } else if let Some(h) = line.strip_prefix("@@ ") {
            hunks_seen = true;
            if old.is_none() {
                old = Some(if creating {
                    Ok(Vec::new())
                } else if host.is_file() {
                    Ok(read_lines(&host))
                } else {
                    Err("changed by the preview, but there is no such file")
                }?);
            }
            let old_lines = old.as_mut().unwrap();
            let (o_start, o_len, n_len) = parse_hunk(h)?;
            i += 1;
            let mut taken: Vec<String> = Vec::new();
            let mut added: Vec<String> = Vec::new();
            let (mut o_left, mut n_left) = (o_len, n_len);
            while o_left > 0 || n_left > 0 {
                let raw = lines.get(i).ok_or("hunk cut short")?;
                let (tag, body) = raw.split_at(1.min(raw.len()));
                match tag {
                    " " => {
                        taken.push(body.to_string());
                        added.push(body.to_string());
                        o_left = o_left.checked_sub(1).ok_or("hunk longer than said")?;
                        n_left = n_left.checked_sub(1).ok_or("hunk longer than said")?;
                    }
                    "-" => {
                        taken.push(body.to_string());
                        o_left = o_left.checked_sub(1).ok_or("hunk longer than said")?;
                    }
                    "+" => {
                        added.push(body.to_string());
                        n_left = n_left.checked_sub(1).ok_or("hunk longer than said")?;
                    }
                    _ => return Err(format!("unexpected hunk line `{}`", raw.trim_end())),
                }
                i += 1;
                // "\ No newline at end of file" belongs to the line before it.
                if let Some(next) = lines.get(i)
                    && next.starts_with("\\ ")
                {
                    let last = match tag {
                        "-" => taken.last_mut(),
                        "+" => added.last_mut(),
                        _ => {
                            // A context line without a newline ends both sides.
                            let t = taken.last_mut().unwrap();
                            *t = t.trim_end_matches('\n').to_string();
                            added.last_mut()
                        }
                    };
                    if let Some(l) = last {
                        *l = l.trim_end_matches('\n').to_string();
                    }
                    i += 1;
                }
            }
            // Hunks come in order: copy what lies before this one, check what it replaces.
            let start = o_start.saturating_sub(1).max(cursor);
            let start = if o_len == 0 {
                o_start.max(cursor)
            } else {
                start
            };
            if start > old_lines.len() {
                return Err(format!(
                    "hunk at line {o_start} is past the end of the file"
                ));
            }
            new_lines.extend(old_lines[cursor..start].iter().cloned());
            for (k, want) in taken.iter().enumerate() {
                let have = old_lines.get(start + k).ok_or("hunk runs past the file")?;
                if !line_matches(want, have) {
                    return Err(format!(
                        "line {}: the preview expects {want:?}, the file has {have:?}",
                        start + k + 1
                    ));
                }
            }
            new_lines.extend(added);
            cursor = start + taken.len();
            continue;
        } else {
            break;
        }
        i += 1;
    }
    if deleting {
        std::fs::remove_file(&host).map_err(|e| format!("delete: {e}"))?;
        return Ok(i);
    }
    if hunks_seen {
        let old_lines = old.unwrap_or_default();
        new_lines.extend(old_lines[cursor.min(old_lines.len())..].iter().cloned());
        let mode = match new_mode {
            Some(m) => m,
            None => std::fs::metadata(&host)
                .map(|m| m.permissions().mode() & 0o7777)
                .unwrap_or(0o644),
        };
        if let Some(dir) = host.parent() {
            make_parents(dir)?;
        }
        std::fs::write(&host, new_lines.concat()).map_err(|e| format!("write: {e}"))?;
        std::fs::set_permissions(&host, std::fs::Permissions::from_mode(mode))
            .map_err(|e| e.to_string())?;
    } else if creating {
        // An empty new file.
        if let Some(dir) = host.parent() {
            make_parents(dir)?;
        }
        std::fs::write(&host, b"").map_err(|e| format!("write: {e}"))?;
        std::fs::set_permissions(&host, std::fs::Permissions::from_mode(new_mode.unwrap()))
            .map_err(|e| e.to_string())?;
    } else if let Some(mode) = new_mode {
        std::fs::set_permissions(&host, std::fs::Permissions::from_mode(mode))
            .map_err(|e| format!("chmod: {e}"))?;
    }
    Ok(i)
}

/// Creates the folders a new file or link needs (0755 under the umask, as a run does).
fn make_parents(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("mkdir: {e}"))
}

fn read_lines(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(&bytes)
        .split_inclusive('\n')
        .map(str::to_string)
        .collect()
}

/// `-a,b +c,d @@ …` → (a, b, d).
fn parse_hunk(h: &str) -> Result<(usize, usize, usize), String> {
    let mut parts = h.split_whitespace();
    let old = parts.next().ok_or("hunk header")?;
    let new = parts.next().ok_or("hunk header")?;
    let range = |s: &str, sign: char| -> Result<(usize, usize), String> {
        let s = s.strip_prefix(sign).ok_or(format!("hunk range `{s}`"))?;
        let (a, b) = s.split_once(',').unwrap_or((s, "1"));
        Ok((
            a.parse().map_err(|_| format!("hunk range `{s}`"))?,
            b.parse().map_err(|_| format!("hunk range `{s}`"))?,
        ))
    };
    let (o_start, o_len) = range(old, '-')?;
    let (_, n_len) = range(new, '+')?;
    Ok((o_start, o_len, n_len))
}

/// Whether `shown` (a line as the preview prints it, maybe masked) stands for `real`.
pub fn line_matches(shown: &str, real: &str) -> bool {
    if shown == real {
        return true;
    }
    if !shown.contains('…') && !shown.contains("***") {
        return false;
    }
    // Literal pieces between masks, in order; each mask stands for one or more characters.
    let mut pieces: Vec<&str> = Vec::new();
    let mut rest = shown;
    loop {
        let next = [rest.find('…'), rest.find("***")]
            .into_iter()
            .flatten()
            .min();
        match next {
            None => {
                pieces.push(rest);
                break;
            }
            Some(at) => {
                pieces.push(&rest[..at]);
                let len = if rest[at..].starts_with('…') {
                    '…'.len_utf8()
                } else {
                    3
                };
                rest = &rest[at + len..];
            }
        }
    }
    glob(&pieces, real)
}

/// `pieces[0] .+ pieces[1] .+ … pieces[n]`, anchored at both ends.
fn glob(pieces: &[&str], text: &str) -> bool {
    let Some((first, rest)) = pieces.split_first() else {
        return text.is_empty();
    };
    let Some(mut tail) = text.strip_prefix(first) else {
        return false;
    };
    if rest.is_empty() {
        return tail.is_empty();
    }
    // At least one character for the mask, then try each place the next piece could start.
    loop {
        let mut chars = tail.chars();
        if chars.next().is_none() {
            return false;
        }
        tail = chars.as_str();
        if glob(rest, tail) {
            return true;
        }
    }
}

/// One path of a tree, as compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    File { content: Vec<u8>, mode: u32 },
    Link(String),
    Dir { mode: u32 },
}

/// Every path under `root` with what it holds, osctl's own bookkeeping (the lock file, the
/// holder's note a killed run leaves beside it, which the next run to take the lock clears,
/// and the empty state folders that hold them) left out. Backups keep their names: under a fixed clock
/// (`OSCTL_TEST_NOW`, as `SOURCE_DATE_EPOCH` in a release build) a preview names exactly the
/// backups its run writes.
pub fn tree(root: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).min_depth(1).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel == "var/lib/osctl/lock"
            || rel == "var/lib/osctl/lock.holder"
            || entry.file_name() == ".keep"
        {
            continue;
        }
        let meta = entry.path().symlink_metadata().unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        let node = if meta.file_type().is_symlink() {
            Node::Link(
                std::fs::read_link(entry.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            )
        } else if meta.is_dir() {
            Node::Dir { mode }
        } else {
            Node::File {
                content: std::fs::read(entry.path()).unwrap(),
                mode,
            }
        };
        out.insert(rel, node);
    }
    // State folders that hold nothing but the lock are bookkeeping too.
    for dir in ["var/lib/osctl/journal", "var/lib/osctl", "var/lib", "var"] {
        let prefix = format!("{dir}/");
        if !out.keys().any(|k| k.starts_with(&prefix)) {
            out.remove(dir);
        }
    }
    out
}

/// Preview = run, the check every such test makes: replays `diff` (a `-v --dry-run` output) on
/// `replay`, a copy of the device as it was before, and lists how it differs from `real`, the
/// tree the real run left (empty when they agree). Taking the device lock makes the state folder
/// 0700 (the book, Security): a fact of the lock, not a change a preview lists, so the replay
/// gets it too. `Err` when the diff does not replay.
pub fn replay_differences(replay: &Path, diff: &str, real: &Path) -> Result<Vec<String>, String> {
    apply(replay, diff).map_err(|e| format!("the preview does not replay: {e}"))?;
    let state = replay.join("var/lib/osctl");
    if state.is_dir() {
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    Ok(differences(&tree(replay), &tree(real)))
}

/// Differences between the tree a replayed preview left (`shown`, masked lines allowed) and the
/// tree the real run left (`real`); empty when they agree.
pub fn differences(shown: &BTreeMap<String, Node>, real: &BTreeMap<String, Node>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, s) in shown {
        match real.get(path) {
            None => out.push(format!("only in the preview: {path}")),
            Some(r) if !node_matches(s, r) => out.push(describe(path, s, r)),
            Some(_) => {}
        }
    }
    for path in real.keys() {
        if !shown.contains_key(path) {
            out.push(format!("only in the run: {path}"));
        }
    }
    out
}

fn node_matches(shown: &Node, real: &Node) -> bool {
    match (shown, real) {
        (
            Node::File {
                content: a,
                mode: ma,
            },
            Node::File {
                content: b,
                mode: mb,
            },
        ) => {
            if ma != mb {
                return false;
            }
            if a == b {
                return true;
            }
            let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
            let (a, b): (Vec<&str>, Vec<&str>) = (
                a.split_inclusive('\n').collect(),
                b.split_inclusive('\n').collect(),
            );
            a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| line_matches(x, y))
        }
        (a, b) => a == b,
    }
}

fn describe(path: &str, shown: &Node, real: &Node) -> String {
    match (shown, real) {
        (
            Node::File {
                content: a,
                mode: ma,
            },
            Node::File {
                content: b,
                mode: mb,
            },
        ) => {
            let diff = similar::TextDiff::from_lines(
                &*String::from_utf8_lossy(a),
                &*String::from_utf8_lossy(b),
            )
            .unified_diff()
            .header("preview", "run")
            .to_string();
            format!("differs: {path} (mode {ma:o} / {mb:o})\n{diff}")
        }
        _ => format!("differs: {path}: preview {shown:?}, run {real:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_stand_for_the_hidden_text_only() {
        assert!(line_matches(
            "KEY=sk-…c0de\n",
            "KEY=sk-example-0000000000000000c0de\n"
        ));
        assert!(!line_matches(
            "KEY=sk-…c0de\n",
            "KEY=sk-example-0000000000000000beef\n"
        ));
        assert!(line_matches("token: ***\n", "token: abc\n"));
        assert!(!line_matches("token: ***\n", "token: \n"));
        assert!(!line_matches("a\n", "b\n"));
    }
}
