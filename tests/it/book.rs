//! The manual: `docs/book/` (an mdBook) and the one-page README. Every chapter is listed in
//! `SUMMARY.md` and every listed chapter exists; no chapter is only a title; every relative
//! link of the book and the README leads to a file that exists, and every `#anchor` to a
//! heading of that file (anchors as mdBook makes them); the README stays one page (≤ 250
//! lines). `.ci/run` also builds the book with `mdbook build` (warnings fail it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn book() -> PathBuf {
    repo().join("docs/book/src")
}

/// A heading's id as mdBook makes it: the heading's text (code spans and links unwrapped),
/// lower case, whitespace to `-`, anything but letters, digits, `_` and `-` dropped.
fn anchor(heading: &str) -> String {
    let text = heading.replace('`', "");
    let text = regex_lite_unlink(&text);
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// `[label](target)` → `label`.
fn regex_lite_unlink(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(j), Some(k)) if j < k => {
                out.push_str(&after[..j]);
                rest = &after[k + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fence = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fence = !fence;
                return false;
            }
            !fence
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .iter()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// The targets of the inline links `[label](target)` of `text`'s prose (code spans skipped).
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        // Code spans may hold brackets that are not links.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// Every broken link of the Markdown file `file` (its text `text`), as `file: target: why`.
fn broken_links(file: &Path, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for target in links(text) {
        if target.starts_with("http://") || target.starts_with("https://") {
            continue;
        }
        let (path, frag) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target.as_str(), None),
        };
        let dest = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        let name = format!(
            "{}: {target}",
            file.strip_prefix(repo()).unwrap_or(file).display()
        );
        if !dest.exists() {
            out.push(format!("{name}: no such file"));
            continue;
        }
        if let Some(frag) = frag {
            let dest_text = if path.is_empty() {
                text.to_string()
            } else {
                std::fs::read_to_string(&dest).unwrap_or_default()
            };
            if !anchors(&dest_text).contains(frag) {
                out.push(format!("{name}: no heading with the anchor #{frag}"));
            }
        }
    }
    out
}

fn chapters() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(book())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("SUMMARY.md"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_chapter_is_in_the_summary_and_none_is_empty() {
    let summary = std::fs::read_to_string(book().join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    let mut problems = Vec::new();
    for ch in chapters() {
        let name = ch.file_name().unwrap().to_string_lossy().to_string();
        if !listed.contains(&name) {
            problems.push(format!("{name} is not in SUMMARY.md"));
        }
        let text = std::fs::read_to_string(&ch).unwrap();
        let body = text.lines().filter(|l| !l.trim().is_empty()).count();
        if !text.starts_with("# ") || body < 3 {
            problems.push(format!("{name} is empty or has no `# ` title"));
        }
    }
    for l in &listed {
        if !book().join(l).is_file() {
            problems.push(format!("SUMMARY.md lists {l}, which does not exist"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_link_of_the_book_and_the_readme_resolves() {
    let mut files = chapters();
    files.push(book().join("SUMMARY.md"));
    files.push(repo().join("README.md"));
    let broken: Vec<String> = files
        .iter()
        .flat_map(|f| broken_links(f, &std::fs::read_to_string(f).unwrap()))
        .collect();
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn the_readme_is_one_page() {
    let n = std::fs::read_to_string(repo().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        n <= 250,
        "README.md has {n} lines: the manual belongs in docs/book/"
    );
}

/// The check sees a missing file, a missing anchor and a link inside a code span (not a link);
/// and it makes anchors as mdBook does.
#[test]
fn the_link_check_catches_a_broken_link_and_a_broken_anchor() {
    let file = book().join("introduction.md");
    let text = "# T\n\nSee [a](no-such-chapter.md), [b](reset.md#no-such-heading), \
                [c](reset.md), [d](#t), `[e](not-a-link.md)`.\n\n```\n[f](in-a-fence.md)\n```\n";
    let broken = broken_links(&file, text);
    assert_eq!(broken.len(), 2, "{broken:#?}");
    assert!(broken[0].contains("no-such-chapter.md: no such file"));
    assert!(broken[1].contains("#no-such-heading"));
    assert_eq!(
        anchor(" Persona migration (`osctl migrate`)"),
        "persona-migration-osctl-migrate"
    );
    assert_eq!(anchor(" Fleet (Ansible)"), "fleet-ansible");
}

/// Every command's `--help` ends with the chapter of the book that is its manual, and its man
/// page names it too; the chapter exists (the package installs the book's Markdown).
#[test]
fn every_commands_help_and_man_page_name_its_chapter() {
    let mut cmd = osctl::cli::command();
    cmd.build();
    let mut checked = 0;
    let mut missing = Vec::new();
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let mut leaves = vec![vec![sub.get_name().to_string()]];
        leaves.extend(
            sub.get_subcommands()
                .filter(|s| !s.is_hide_set() && s.get_name() != "help")
                .map(|s| vec![sub.get_name().to_string(), s.get_name().to_string()]),
        );
        for path in leaves {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_osctl"))
                .args(&path)
                .arg("--help")
                .output()
                .unwrap();
            let help = String::from_utf8_lossy(&out.stdout);
            let man = std::process::Command::new(env!("CARGO_BIN_EXE_osctl"))
                .arg("man")
                .args(&path)
                .output()
                .unwrap();
            let man = String::from_utf8_lossy(&man.stdout);
            let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
            let Some(at) = flat.find("Manual: the book's chapter ") else {
                missing.push(format!("{path:?}: no Manual line in --help"));
                continue;
            };
            let file = flat[at..]
                .split("/usr/share/doc/osctl/book/")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .unwrap_or_default();
            if !book().join(file).is_file() || !file.ends_with(".md") {
                missing.push(format!("{path:?}: names {file:?}, no such chapter"));
            }
            if !man.contains(&format!("/usr/share/doc/osctl/book/{file}")) {
                missing.push(format!("{path:?}: the man page does not name {file}"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} commands checked");
    assert!(missing.is_empty(), "{missing:#?}");
}
