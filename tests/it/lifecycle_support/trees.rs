//! How the crash checks compare device trees: what counts as visible, which files a kill left
//! torn, and which temporaries a kill may leave.

use std::collections::BTreeSet;

use crate::reliability_support::{Node, Tree};

/// The device's config.json, whose new keys [`new_keys_in_any_order`] compares in any order.
pub(super) const CONFIG_JSON: &str = "root/config/config.json";

/// Rewrites the JSON object at `path` in `t` so that the top-level keys it had in `before` come
/// first, in the order `t` has them, and the keys `before` did not have follow, sorted: two
/// trees then compare equal when they differ only in the order their new keys were added.
/// A file that is not a JSON object is left as it is.
pub(super) fn new_keys_in_any_order(t: &mut Tree, before: &Tree, path: &str) {
    let object = |tree: &Tree| match tree.get(path) {
        Some(Node::File(bytes, _)) => {
            serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(bytes).ok()
        }
        _ => None,
    };
    let old: BTreeSet<String> = object(before)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let Some(map) = object(t) else { return };
    let (kept, mut added): (Vec<_>, Vec<_>) = map.into_iter().partition(|(k, _)| old.contains(k));
    added.sort_by(|a, b| a.0.cmp(&b.0));
    let ordered: serde_json::Map<String, serde_json::Value> =
        kept.into_iter().chain(added).collect();
    if let Some(Node::File(bytes, _)) = t.get_mut(path) {
        *bytes = serde_json::to_vec_pretty(&ordered).unwrap();
    }
}

/// A tree without osctl's records of a run in progress (the switch record, with the
/// temporary a write of it killed before its rename leaves: `switch_fake` checks that the next
/// switch removes it), the lock's holder note and empty folders.
pub(super) fn visible(t: &Tree) -> Tree {
    t.iter()
        .filter(|(k, v)| {
            !k.starts_with("var/lib/osctl/switch.json")
                && *k != "var/lib/osctl/.switch.json.osctl-tmp"
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
