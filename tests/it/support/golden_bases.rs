//! The shared start trees of the golden cases and the choice of a case's base: a case's input
//! tree is stored in its smallest form, a whole shared tree (`in =`), a delta from the shared tree
//! nearest to it (`base =` with `in/` and `in-deleted`), or its own whole `in/`. Used by the golden
//! binary (`tests/golden.rs`), which checks the form of each case and writes it (`OSCTL_REBASE=1`,
//! and a bless); building a case's input is `golden_tree::input_tree`, shared with `tests/it/`.

use crate::golden_tree::{
    Delta, IN_DELETED, Source, Tree, delta, describe_tree_diff, input_tree, read_input_delta, repo,
    source, tree_with_modes, write_delta_as,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Cases whose `in/` other suites read by path (besides those another case names with `in =`) (`tests/cli/reset/active-<rt>/in`, the presync
/// trees `tests/cli/presync/make-trees.py` writes, …): kept whole, and shared trees themselves.
pub fn whole_input(case: &str) -> bool {
    case.starts_with("reset/active-")
        || case == "migrate/openclaw-to-codex"
        || case.strip_prefix("presync/").is_some_and(|c| {
            ["-legacy", "-os", "-runtime"]
                .iter()
                .any(|m| c.ends_with(m) && !c.contains("reconcile") && !c.contains("wrong-type"))
        })
}

/// The shared start trees, by path from the repository: every folder of `tests/trees/`, every
/// tree a case names with `in =` or `base =`, and the `in/` of the cases other suites read whole.
pub fn shared_trees() -> Vec<(String, Tree)> {
    let mut paths = BTreeSet::new();
    if let Ok(dirs) = std::fs::read_dir(repo().join("tests/trees")) {
        for d in dirs {
            let d = d.unwrap();
            if d.file_type().unwrap().is_dir() {
                paths.insert(format!("tests/trees/{}", d.file_name().to_string_lossy()));
            }
        }
    }
    for (name, dir) in case_dirs() {
        match source(&dir) {
            Ok(Source::Named(p) | Source::Base(p)) => {
                paths.insert(p);
            }
            _ if whole_input(&name) => {
                paths.insert(format!("tests/cli/{name}/in"));
            }
            _ => {}
        }
    }
    paths
        .into_iter()
        .map(|p| {
            let t = tree_with_modes(&repo().join(&p));
            (p, t)
        })
        .collect()
}

/// Every golden case: its name `<group>/<case>` and its folder.
pub fn case_dirs() -> Vec<(String, PathBuf)> {
    let root = repo().join("tests/cli");
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_name() == "cmd.toml" {
            let dir = entry.path().parent().unwrap();
            let name = dir
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((name, dir.to_path_buf()));
        }
    }
    out
}

/// The size of a delta as the choice of a base counts it: the entries `in/` holds and the paths
/// `in-deleted` lists.
pub fn cost(d: &Delta) -> usize {
    d.out.len() + d.deleted.len()
}

/// The smallest way to store `input`: the shared tree (other than `own`) with the smallest delta
/// to it, ties to the first by path; that tree named whole when the delta is empty; the case's own
/// whole `in/` when no base gives a delta smaller than the tree itself.
pub fn best_source(input: &Tree, shared: &[(String, Tree)], own: &str) -> (Source, Delta) {
    let mut best: Option<(usize, &str, Delta)> = None;
    for (path, base) in shared {
        if path == own {
            continue;
        }
        let d = delta(base, input);
        if best.as_ref().is_none_or(|(c, _, _)| cost(&d) < *c) {
            best = Some((cost(&d), path, d));
        }
    }
    match best {
        Some((0, path, d)) => (Source::Named(path.to_string()), d),
        Some((c, path, d)) if c < input.len() => (Source::Base(path.to_string()), d),
        _ => (
            Source::Own,
            Delta {
                out: input.clone(),
                deleted: vec![],
            },
        ),
    }
}

/// An error when a case's input is not stored in its smallest form (`best_source`): another base
/// is smaller, the stored `in/`/`in-deleted` is not the smallest delta from its base, or a whole
/// `in/` could be a delta.
pub fn check_source(name: &str, case_dir: &Path, shared: &[(String, Tree)]) -> Result<(), String> {
    let stored = source(case_dir)?;
    let own = format!("tests/cli/{name}/in");
    if whole_input(name) || shared.iter().any(|(p, _)| *p == own) {
        return match stored {
            Source::Own => Ok(()),
            _ => Err(format!(
                "{own} is read whole by other suites: keep it whole\n"
            )),
        };
    }
    let input = input_tree(case_dir)?;
    let (best, best_delta) = best_source(&input, shared, &own);
    let fix = "(store it so: OSCTL_REBASE=1 cargo test --test golden)";
    if stored != best {
        return Err(format!(
            "the input is stored as {stored:?}, its smallest form is {best:?} {fix}\n"
        ));
    }
    if let Source::Base(_) = best {
        let d = read_input_delta(case_dir)?;
        if d != best_delta {
            return Err(format!(
                "in/ and {IN_DELETED} are not the smallest delta from the base {fix}\n"
            ));
        }
    }
    Ok(())
}

/// Stores a case's input in its smallest form (`best_source`): rewrites `in/`, `in-deleted` and
/// the `in`/`base` keys of `cmd.toml` (its comments and other keys kept), touching nothing
/// already so. Cases read whole by other suites are left as they are.
pub fn rebase(name: &str, case_dir: &Path, shared: &[(String, Tree)]) -> Result<(), String> {
    let own = format!("tests/cli/{name}/in");
    if whole_input(name) || shared.iter().any(|(p, _)| *p == own) {
        return Ok(());
    }
    let input = input_tree(case_dir)?;
    let (best, d) = best_source(&input, shared, &own);
    let file = case_dir.join("cmd.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
    if source(case_dir)? != best {
        doc.remove("in");
        doc.remove("base");
        match &best {
            Source::Named(p) => doc["in"] = toml_edit::value(p.as_str()),
            Source::Base(p) => doc["base"] = toml_edit::value(p.as_str()),
            Source::Own => {}
        }
    }
    match &best {
        Source::Named(_) => write_delta_as(case_dir, &Delta::default(), "in", IN_DELETED),
        Source::Base(_) | Source::Own => write_delta_as(case_dir, &d, "in", IN_DELETED),
    }
    let text2 = doc.to_string();
    if text2 != text {
        std::fs::write(&file, text2).unwrap();
    }
    let now = input_tree(case_dir)?;
    if now != input {
        return Err(format!(
            "{name}: rebased, the input tree changed:\n{}",
            describe_tree_diff(&input, &now)
        ));
    }
    Ok(())
}
