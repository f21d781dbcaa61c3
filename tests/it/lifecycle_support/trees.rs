//! How the crash checks compare device trees: what counts as visible, which files a kill left
//! torn, and which temporaries a kill may leave.

use std::collections::BTreeSet;

use crate::reliability_support::{Node, Tree};

pub(super) fn visible(t: &Tree) -> Tree {
    t.iter()
        .filter(|(k, v)| {
            !k.starts_with("var/lib/osctl/switch.json")
                && *k != "var/lib/osctl/lock.holder"
                && !matches!(v, Node::EmptyDir(_))
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

pub(super) fn empty_folders(t: &Tree) -> BTreeSet<String> {
    t.iter()
        .filter(|(_, v)| matches!(v, Node::EmptyDir(_)))
        .map(|(k, _)| k.clone())
        .collect()
}

/// Paths whose state after a kill is neither the old nor the new one (a named temporary of an
/// atomic write, `.<name>.XXXXXX` holding the whole new content, is not torn: the next run's
/// journal restore removes it).
pub(super) fn torn(after: &Tree, before: &Tree, ran: &Tree) -> Vec<String> {
    let mut bad = Vec::new();
    for (path, node) in after {
        if matches!(node, Node::EmptyDir(_)) || path.starts_with("var/lib/osctl/") {
            continue;
        }
        if before.get(path) == Some(node) || ran.get(path) == Some(node) {
            continue;
        }
        if pending_temporary(path, node, ran) {
            continue;
        }
        bad.push(format!(
            "{path} ({})",
            if before.contains_key(path) || ran.contains_key(path) {
                "torn or mixed"
            } else {
                "stray"
            }
        ));
    }
    bad
}

pub(super) fn pending_temporary(path: &str, node: &Node, ran: &Tree) -> bool {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let Some(rest) = file.strip_prefix('.') else {
        return false;
    };
    let Some((name, suffix)) = rest.rsplit_once('.') else {
        return false;
    };
    if suffix.len() != 6 || !suffix.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let target = if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    };
    matches!((node, ran.get(&target)), (Node::File(b, _), Some(Node::File(r, _))) if b == r)
}

// ---- running lives, shrinking ----
