//! Preview = run: a compact applier of osctl's `--dry-run` output.
//!
//! A dry run prints the whole plan as git-style diffs (one block per file change, in order, each
//! relative to the state the blocks before it leave) and one `# …` line per service action or
//! program. [`Preview::parse`] reads that text; [`Preview::apply`] applies it to the tree the
//! device had before the step, strictly (a hunk whose context or removed lines do not match the
//! file is a mismatch, as `git apply` would refuse it); [`compare`] then sets the result against
//! the tree the real run left.
//!
//! Secrets are masked in every output (`sk-…c0de`, `***`), so a diff line holding one is a
//! pattern: `…` stands for any text and `***` for any non-empty text. A masked line matches a
//! real line of that shape; the secret itself is the one thing preview = run cannot check.
//! Backups (`<file>.bak-<digits>`) are compared by the file they back up and their content, not
//! by their exact name (the nanoseconds differ between two runs on a real clock).

use std::collections::BTreeMap;

use crate::reliability_support::{Node, Tree};

/// One line of a file in the previewed tree: exact text, or a masked pattern from a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Exact(String),
    Masked(String),
}

impl Line {
    pub fn text(&self) -> &str {
        match self {
            Line::Exact(s) | Line::Masked(s) => s,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PNode {
    /// A text file as lines (each with its `\n`, the last maybe without), and its mode.
    Text(Vec<Line>, u32),
    /// A file whose content the preview cannot show (binary; or content it leaves out by design).
    Opaque(Option<Vec<u8>>, u32),
    Link(std::path::PathBuf),
    Dir(u32),
}

pub type PTree = BTreeMap<String, PNode>;

/// The previewed tree, built from a snapshot.
pub fn from_snapshot(t: &Tree) -> PTree {
    let mut out = PTree::new();
    for (path, node) in t {
        let n = match node {
            Node::File(bytes, mode) => match std::str::from_utf8(bytes) {
                Ok(s) if !s.contains('\0') => PNode::Text(
                    s.split_inclusive('\n')
                        .map(|l| Line::Exact(l.to_string()))
                        .collect(),
                    *mode,
                ),
                _ => PNode::Opaque(Some(bytes.clone()), *mode),
            },
            Node::Link(t) => PNode::Link(t.clone()),
            Node::EmptyDir(mode) => PNode::Dir(*mode),
        };
        out.insert(path.clone(), n);
    }
    out
}

/// One hunk line: ' ', '-' or '+', its text (with `\n` unless followed by the no-newline mark).
#[derive(Clone, Debug)]
struct HunkLine {
    op: char,
    text: String,
}

#[derive(Clone, Debug)]
struct Hunk {
    old_start: usize,
    lines: Vec<HunkLine>,
}

#[derive(Clone, Debug)]
enum Block {
    NewFolder(String, u32),
    DeletedFolder(String),
    DeletedEmptyFolder(String),
    DeletedSymlink(String),
    File {
        path: String,
        created: Option<u32>,
        deleted: bool,
        mode: Option<u32>,
        binary: bool,
        hunks: Vec<Hunk>,
    },
}

/// A parsed dry run: the file blocks in order, and the service actions it announced.
#[derive(Clone, Debug, Default)]
pub struct Preview {
    blocks: Vec<Block>,
    /// `systemctl ARGS` lines, as ARGS (without notes such as `(up to 3 tries)`).
    pub services: Vec<String>,
    /// The unit a switch says it stops, resets and starts again once if it does not settle
    /// (`#   if it does not: systemctl stop and reset-failed U, install once …`).
    pub retry_unit: Option<String>,
}

fn parse_mode(s: &str) -> Option<u32> {
    let digits = s.trim().trim_start_matches("100");
    u32::from_str_radix(digits, 8).ok()
}

impl Block {
    fn path(&self) -> &str {
        match self {
            Block::NewFolder(p, _)
            | Block::DeletedFolder(p)
            | Block::DeletedEmptyFolder(p)
            | Block::DeletedSymlink(p) => p,
            Block::File { path, .. } => path,
        }
    }
}

impl Preview {
    /// Reads the text a `--dry-run` printed on stdout. Lines outside diff blocks and action lines
    /// (a reset's list, a switch's notes) are skipped.
    pub fn parse(text: &str) -> Result<Preview, String> {
        let mut p = Preview::default();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut i = 0;
        while i < lines.len() {
            let l = lines[i].trim_end_matches('\n');
            if let Some(rest) =
                l.strip_prefix("#   if it does not: systemctl stop and reset-failed ")
            {
                p.retry_unit = rest.split([',', ' ']).next().map(str::to_string);
                i += 1;
                continue;
            }
            if let Some(rest) = l.strip_prefix("# systemctl ") {
                let args = match rest.find(" (") {
                    Some(at) => &rest[..at],
                    None => rest,
                };
                p.services.push(args.trim().to_string());
                i += 1;
                continue;
            }
            let Some(rest) = l.strip_prefix("diff --git a/") else {
                i += 1;
                continue;
            };
            let path = match rest.find(" b/") {
                Some(at) => rest[..at].to_string(),
                None => return Err(format!("bad diff header: {l}")),
            };
            i += 1;
            let (mut created, mut deleted, mut mode, mut binary) = (None, false, None, false);
            let mut hunks = Vec::new();
            let mut special = None;
            while i < lines.len() {
                let l = lines[i].trim_end_matches('\n');
                if l.starts_with("diff --git ") || l.starts_with("# ") {
                    break;
                }
                if let Some(m) = l.strip_prefix("new file mode ") {
                    created = parse_mode(m);
                } else if let Some(m) = l.strip_prefix("deleted file mode ") {
                    deleted = true;
                    let _ = m;
                } else if l.starts_with("old mode ") {
                } else if let Some(m) = l.strip_prefix("new mode ") {
                    mode = parse_mode(m);
                } else if l.starts_with("Binary files ") {
                    binary = true;
                } else if l.starts_with("deleted folder ") {
                    special = Some(Block::DeletedFolder(path.clone()));
                } else if l.starts_with("deleted empty folder ") {
                    special = Some(Block::DeletedEmptyFolder(path.clone()));
                } else if l.starts_with("deleted symlink ") {
                    special = Some(Block::DeletedSymlink(path.clone()));
                } else if let Some(rest) = l.strip_prefix("new folder ") {
                    let m = rest
                        .split("(mode ")
                        .nth(1)
                        .and_then(|m| u32::from_str_radix(m.trim_end_matches(')'), 8).ok())
                        .unwrap_or(0o755);
                    special = Some(Block::NewFolder(path.clone(), m));
                } else if hunks.is_empty() && (l.starts_with("--- ") || l.starts_with("+++ ")) {
                } else if let Some(h) = l.strip_prefix("@@ -") {
                    let old = h.split_whitespace().next().unwrap_or("0");
                    let start: usize = old.split(',').next().unwrap_or("0").parse().unwrap_or(0);
                    hunks.push(Hunk {
                        old_start: start,
                        lines: Vec::new(),
                    });
                } else if let Some(h) = hunks.last_mut()
                    && let Some(op) = l.chars().next().filter(|c| matches!(c, ' ' | '-' | '+'))
                {
                    h.lines.push(HunkLine {
                        op,
                        text: format!("{}\n", &l[1..]),
                    });
                } else if l.starts_with("\\ No newline at end of file") {
                    if let Some(last) = hunks.last_mut().and_then(|h| h.lines.last_mut()) {
                        last.text.pop();
                    }
                } else {
                    break;
                }
                i += 1;
            }
            p.blocks.push(special.unwrap_or(Block::File {
                path,
                created,
                deleted,
                mode,
                binary,
                hunks,
            }));
        }
        Ok(p)
    }

    /// Applies the preview to `tree`, strictly; the first block that does not apply is an error.
    pub fn apply(&self, tree: &mut PTree) -> Result<(), String> {
        for b in &self.blocks {
            // A deletion leaves its folder behind, empty or not.
            if let Some(parent) = b.path().rsplit_once('/').map(|(p, _)| p.to_string())
                && !tree.contains_key(&parent)
            {
                tree.insert(parent, PNode::Dir(u32::MAX));
            }
            match b {
                Block::NewFolder(p, mode) => {
                    if matches!(tree.get(p), Some(PNode::Text(..) | PNode::Opaque(..))) {
                        return Err(format!("{p}: new folder over a file"));
                    }
                    tree.insert(p.clone(), PNode::Dir(*mode));
                }
                Block::DeletedFolder(p) | Block::DeletedEmptyFolder(p) => {
                    let prefix = format!("{p}/");
                    let had = tree.remove(p).is_some();
                    let before = tree.len();
                    tree.retain(|k, _| !k.starts_with(&prefix));
                    if !had && before == tree.len() {
                        return Err(format!("{p}: deleting a folder that is not there"));
                    }
                }
                Block::DeletedSymlink(p) => {
                    if !matches!(tree.remove(p), Some(PNode::Link(_))) {
                        return Err(format!("{p}: deleting a symlink that is not there"));
                    }
                }
                Block::File {
                    path,
                    created,
                    deleted,
                    mode,
                    binary,
                    hunks,
                } => {
                    let existing = tree.get(path).cloned();
                    if *deleted {
                        match existing {
                            Some(PNode::Text(..) | PNode::Opaque(..) | PNode::Link(_)) => {
                                tree.remove(path);
                            }
                            _ => return Err(format!("{path}: deleting a file that is not there")),
                        }
                        continue;
                    }
                    let (lines, old_mode) = match (&existing, created) {
                        (None | Some(PNode::Dir(_)), Some(m)) => (Some(Vec::new()), *m),
                        (Some(PNode::Text(_, _) | PNode::Opaque(..) | PNode::Link(_)), Some(_)) => {
                            return Err(format!(
                                "{path}: the preview creates it, but it already exists"
                            ));
                        }
                        (Some(PNode::Text(l, m)), None) => (Some(l.clone()), *m),
                        (Some(PNode::Opaque(_, m)), None) => (None, *m),
                        (Some(PNode::Link(_)), None) => {
                            return Err(format!("{path}: the preview edits a symlink as a file"));
                        }
                        (_, None) => {
                            return Err(format!(
                                "{path}: the preview modifies it, but it does not exist"
                            ));
                        }
                    };
                    let new_mode = mode.unwrap_or(old_mode);
                    if *binary {
                        tree.insert(path.clone(), PNode::Opaque(None, new_mode));
                        continue;
                    }
                    let Some(mut lines) = lines else {
                        if hunks.is_empty() {
                            if let Some(PNode::Opaque(b, _)) = existing {
                                tree.insert(path.clone(), PNode::Opaque(b, new_mode));
                            }
                            continue;
                        }
                        return Err(format!("{path}: a text diff of a binary file"));
                    };
                    apply_hunks(path, &mut lines, hunks)?;
                    tree.insert(path.clone(), PNode::Text(lines, new_mode));
                }
            }
        }
        Ok(())
    }
}

fn apply_hunks(path: &str, lines: &mut Vec<Line>, hunks: &[Hunk]) -> Result<(), String> {
    let old = std::mem::take(lines);
    let mut out = Vec::with_capacity(old.len());
    let mut at = 0usize; // next unconsumed old line (0-based)
    for h in hunks {
        let start = h.old_start.saturating_sub(1);
        let start = if h.lines.iter().all(|l| l.op == '+') && h.old_start > 0 {
            h.old_start // an insertion after line N
        } else {
            start
        };
        if start < at || start > old.len() {
            return Err(format!("{path}: hunk at line {} out of order", h.old_start));
        }
        out.extend_from_slice(&old[at..start]);
        at = start;
        for hl in &h.lines {
            match hl.op {
                ' ' | '-' => {
                    let Some(actual) = old.get(at) else {
                        return Err(format!(
                            "{path}: the preview expects {:?} past the end of the file",
                            hl.text
                        ));
                    };
                    if !line_matches(&hl.text, actual) {
                        return Err(format!(
                            "{path}: line {} is {:?}, the preview expects {:?}",
                            at + 1,
                            actual.text(),
                            hl.text
                        ));
                    }
                    if hl.op == ' ' {
                        out.push(actual.clone());
                    }
                    at += 1;
                }
                _ => out.push(if is_masked(&hl.text) {
                    Line::Masked(hl.text.clone())
                } else {
                    Line::Exact(hl.text.clone())
                }),
            }
        }
    }
    out.extend_from_slice(&old[at..]);
    *lines = out;
    Ok(())
}

fn is_masked(s: &str) -> bool {
    s.contains('…') || s.contains("***")
}

/// Whether a line from a diff (maybe masked) stands for `actual`.
fn line_matches(diff: &str, actual: &Line) -> bool {
    let a = actual.text();
    diff == a || (is_masked(diff) && glob(diff, a))
}

/// `…` matches any text, `***` any non-empty text; the rest is literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    // Literal pieces, and between each two a wildcard (true: it needs at least one character).
    let mut lits: Vec<String> = Vec::new();
    let mut lit = String::new();
    let mut rest = pattern;
    let mut wild: Vec<bool> = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('…') {
            lits.push(std::mem::take(&mut lit));
            wild.push(false);
            rest = r;
        } else if let Some(r) = rest.strip_prefix("***") {
            lits.push(std::mem::take(&mut lit));
            wild.push(true);
            rest = r;
        } else {
            let c = rest.chars().next().unwrap();
            lit.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    lits.push(lit);
    fn go(lits: &[String], wild: &[bool], text: &str) -> bool {
        let Some(first) = lits.first() else {
            return text.is_empty();
        };
        let Some(rest) = text.strip_prefix(first.as_str()) else {
            return false;
        };
        if lits.len() == 1 {
            return rest.is_empty();
        }
        let min = usize::from(wild[0]);
        let idx: Vec<usize> = rest
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(rest.len()))
            .collect();
        idx.into_iter()
            .filter(|&i| i >= min)
            .any(|i| go(&lits[1..], &wild[1..], &rest[i..]))
    }
    go(&lits, &wild, text)
}

/// `<file>.bak-<digits>` → `<file>.bak-N` (backups compared by what they back up).
fn backup_key(path: &str) -> String {
    if let Some(at) = path.rfind(".bak-") {
        let digits = &path[at + 5..];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return format!("{}.bak-N", &path[..at]);
        }
    }
    path.to_string()
}

fn node_matches(p: &PNode, real: &Node) -> bool {
    match (p, real) {
        (PNode::Text(lines, m), Node::File(bytes, rm)) => {
            if m != rm {
                return false;
            }
            let Ok(s) = std::str::from_utf8(bytes) else {
                return false;
            };
            let real_lines: Vec<&str> = s.split_inclusive('\n').collect();
            real_lines.len() == lines.len()
                && lines.iter().zip(&real_lines).all(|(l, r)| match l {
                    Line::Exact(e) => e == r,
                    Line::Masked(pat) => pat == r || glob(pat, r),
                })
        }
        (PNode::Opaque(b, m), Node::File(bytes, rm)) => {
            m == rm && b.as_ref().is_none_or(|b| b == bytes)
        }
        (PNode::Link(a), Node::Link(b)) => a == b,
        (PNode::Dir(a), Node::EmptyDir(b)) => a == b,
        _ => false,
    }
}

/// The folders that hold nothing, from the paths of a tree.
fn empty_dirs<'a>(keys: impl Iterator<Item = (&'a String, bool)> + Clone) -> Vec<String> {
    let all: Vec<(&String, bool)> = keys.collect();
    all.iter()
        .filter(|(_, is_dir)| *is_dir)
        .filter(|(k, _)| {
            let prefix = format!("{k}/");
            !all.iter().any(|(o, _)| o.starts_with(&prefix))
        })
        .map(|(k, _)| (*k).clone())
        .collect()
}

/// The differences between the previewed tree and the tree the run left (empty: they agree).
/// `ignore` leaves paths out on both sides (what the preview does not show by design).
pub fn compare(preview: &PTree, real: &Tree, ignore: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut diffs = Vec::new();
    // Empty folders: compare the sets (a folder that holds files is implied by them).
    let p_dirs = empty_dirs(
        preview
            .iter()
            .filter(|(k, _)| !ignore(k))
            .map(|(k, v)| (k, matches!(v, PNode::Dir(_)))),
    );
    let r_dirs = empty_dirs(
        real.iter()
            .filter(|(k, _)| !ignore(k))
            .map(|(k, v)| (k, matches!(v, Node::EmptyDir(_)))),
    );
    for d in &p_dirs {
        if !r_dirs.contains(d) && !real.keys().any(|k| k.starts_with(&format!("{d}/"))) {
            diffs.push(format!(
                "{d}/: the preview leaves this folder, the run does not"
            ));
        }
    }
    for d in &r_dirs {
        if !p_dirs.contains(d) && !preview.keys().any(|k| k.starts_with(&format!("{d}/"))) {
            diffs.push(format!(
                "{d}/: the run leaves this folder, the preview does not"
            ));
        }
    }
    // Files and links, backups grouped by what they back up.
    let mut p_files: BTreeMap<String, Vec<&PNode>> = BTreeMap::new();
    for (k, v) in preview {
        if !ignore(k) && !matches!(v, PNode::Dir(_)) {
            p_files.entry(backup_key(k)).or_default().push(v);
        }
    }
    let mut r_files: BTreeMap<String, Vec<&Node>> = BTreeMap::new();
    for (k, v) in real {
        if !ignore(k) && !matches!(v, Node::EmptyDir(_)) {
            r_files.entry(backup_key(k)).or_default().push(v);
        }
    }
    for (k, pv) in &p_files {
        match r_files.get(k) {
            None => diffs.push(format!("{k}: in the preview, not after the run")),
            Some(rv) => {
                let mut unmatched: Vec<&Node> = rv.clone();
                let mut ok = pv.len() == rv.len();
                for p in pv {
                    match unmatched.iter().position(|r| node_matches(p, r)) {
                        Some(i) => {
                            unmatched.remove(i);
                        }
                        None => ok = false,
                    }
                }
                if !ok {
                    diffs.push(format!("{k}: {}", describe(pv, rv)));
                }
            }
        }
    }
    for k in r_files.keys() {
        if !p_files.contains_key(k) {
            diffs.push(format!("{k}: after the run, not in the preview"));
        }
    }
    diffs
}

fn describe(p: &[&PNode], r: &[&Node]) -> String {
    let show_p = |n: &PNode| match n {
        PNode::Text(l, m) => format!(
            "{m:o} {:?}",
            l.iter()
                .map(Line::text)
                .collect::<String>()
                .chars()
                .take(400)
                .collect::<String>()
        ),
        PNode::Opaque(_, m) => format!("{m:o} (opaque)"),
        PNode::Link(t) => format!("link {}", t.display()),
        PNode::Dir(m) => format!("dir {m:o}"),
    };
    let show_r = |n: &Node| match n {
        Node::File(b, m) => format!(
            "{m:o} {:?}",
            String::from_utf8_lossy(b)
                .chars()
                .take(400)
                .collect::<String>()
        ),
        Node::Link(t) => format!("link {}", t.display()),
        Node::EmptyDir(m) => format!("dir {m:o}"),
    };
    format!(
        "the preview gives {:?}, the run left {:?}",
        p.iter().map(|n| show_p(n)).collect::<Vec<_>>(),
        r.iter().map(|n| show_r(n)).collect::<Vec<_>>()
    )
}
