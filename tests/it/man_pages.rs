//! The man pages: one per command and command group, each with every option of its command, an
//! EXIT STATUS section, examples that are valid command lines, and a SEE ALSO that names only
//! pages that exist. (Their freshness against man/ is tests/it/generated.rs.)

use std::collections::BTreeSet;
use std::process::Command as Process;

use clap::CommandFactory;
use osctl::cli::man::{examples as man_examples, man_pages};
use osctl::cli::{Cli, applicable_globals, parse};

fn text(page: &[u8]) -> String {
    String::from_utf8(page.to_vec()).unwrap()
}

/// Every command path of the clap tree, osctl's own (`[]`) first.
fn paths(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    for sub in cmd.get_subcommands().filter(|c| c.get_name() != "help") {
        let mut p = prefix.clone();
        p.push(sub.get_name().to_string());
        paths(sub, p, out);
    }
}

fn all_paths() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    paths(&Cli::command(), Vec::new(), &mut out);
    out
}

fn page_of(path: &[String]) -> String {
    std::iter::once("osctl".to_string())
        .chain(path.iter().cloned())
        .collect::<Vec<_>>()
        .join("-")
}

fn find<'a>(mut cmd: &'a clap::Command, path: &[String]) -> &'a clap::Command {
    for p in path {
        cmd = cmd.find_subcommand(p).unwrap();
    }
    cmd
}

#[test]
fn there_is_a_page_per_command_and_group() {
    let pages: BTreeSet<String> = man_pages().unwrap().into_iter().map(|(n, _)| n).collect();
    let want: BTreeSet<String> = all_paths()
        .iter()
        .map(|p| format!("{}.1", page_of(p)))
        .collect();
    assert_eq!(pages, want);
    assert!(pages.contains("osctl-switch.1") && pages.contains("osctl-mcp-add.1"));
}

#[test]
fn every_page_documents_every_option_its_exit_status_and_examples() {
    let pages = man_pages().unwrap();
    let mut root = Cli::command();
    root.build();
    for path in all_paths() {
        let name = format!("{}.1", page_of(&path));
        let page = text(&pages.iter().find(|(n, _)| *n == name).unwrap().1);
        let cmd = find(&root, &path);
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        let applicable = applicable_globals(&words);
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let flag = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
            let global_elsewhere = arg.is_global_set()
                && applicable.is_some_and(|a| !a.contains(&arg.get_id().as_str()));
            if global_elsewhere {
                assert!(
                    !page.contains(&flag),
                    "{name} documents {long}, which does not apply"
                );
            } else {
                assert!(page.contains(&flag), "{name} does not document --{long}");
            }
        }
        for section in [".SH \"EXIT STATUS\"", ".SH EXAMPLES", ".SH \"SEE ALSO\""] {
            assert!(page.contains(section), "{name} has no {section}");
        }
        assert!(!page.contains(".SH EXTRA"), "{name}");
        assert!(!man_examples(&words).is_empty(), "{name} has no example");
    }
}

#[test]
fn exit_codes_are_tagged_entries_not_wrapped_text() {
    let page = text(&man_pages().unwrap()[0].1);
    let status = &page[page.find(".SH \"EXIT STATUS\"").unwrap()..];
    let status = &status[..status[1..].find(".SH").unwrap()];
    for code in ["0", "1", "2", "3", "4", "5", "6", "101"] {
        assert!(
            status.contains(&format!(".TP\n\\fB{code}\\fR\n")),
            "exit code {code} is not an entry:\n{status}"
        );
    }
}

#[test]
fn the_synopsis_shows_each_value() {
    let page = text(&man_pages().unwrap()[0].1);
    let synopsis = &page[page.find(".SH SYNOPSIS").unwrap()..page.find(".SH DESCRIPTION").unwrap()];
    assert!(
        synopsis.contains("[\\fB\\-\\-root\\fR \\fIDIR\\fR]"),
        "{synopsis}"
    );
    assert!(
        synopsis.contains("[\\fB\\-\\-lock\\-timeout\\fR \\fISECS\\fR]"),
        "{synopsis}"
    );
}

#[test]
fn see_also_names_only_pages_that_exist_and_osctl_1_names_them_all() {
    let pages = man_pages().unwrap();
    let names: BTreeSet<String> = pages
        .iter()
        .map(|(n, _)| n.trim_end_matches(".1").to_string())
        .collect();
    for (name, page) in &pages {
        let page = text(page);
        // Every `name(1)` reference, in SEE ALSO or in the command list.
        let plain = page
            .replace("\\fB", "")
            .replace("\\fR", "")
            .replace("\\-", "-");
        for (i, _) in plain.match_indices("(1)") {
            let start = plain[..i]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(0, |s| s + 1);
            let referenced = &plain[start..i];
            assert!(
                names.contains(referenced),
                "{name} names {referenced}(1), which is not generated"
            );
        }
    }
    let main = text(&pages[0].1)
        .replace("\\-", "-")
        .replace("\\fB", "")
        .replace("\\fR", "");
    let see_also = &main[main.find(".SH \"SEE ALSO\"").unwrap()..];
    for n in names.iter().filter(|n| *n != "osctl") {
        assert!(
            see_also.contains(&format!("{n}(1)")),
            "osctl(1) does not name {n}(1)"
        );
    }
}

#[test]
fn every_example_is_a_valid_command_line() {
    for path in all_paths() {
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        for (what, line) in man_examples(&words) {
            let argv: Vec<&str> = line
                .split_whitespace()
                .take_while(|w| *w != "|" && *w != ">")
                .collect();
            assert_eq!(argv[0], "osctl", "{line}");
            let parsed = parse(&argv);
            assert!(parsed.is_ok(), "{what}: `{line}`: {}", parsed.unwrap_err());
            // An example on a command's page runs that command.
            let rest = &argv[1..];
            let cmd_words: Vec<&str> = rest
                .iter()
                .copied()
                .filter(|w| !w.starts_with('-'))
                .take(words.len())
                .collect();
            if !words.is_empty() && !line.starts_with("osctl --root") {
                assert_eq!(cmd_words, words, "`{line}` is on the page of {words:?}");
            }
        }
    }
}

#[test]
fn osctl_man_prints_the_committed_pages() {
    let bin = env!("CARGO_BIN_EXE_osctl");
    for (args, file) in [
        (&["man"][..], "osctl.1"),
        (&["man", "mcp", "add"][..], "osctl-mcp-add.1"),
        (&["man", "switch"][..], "osctl-switch.1"),
    ] {
        let out = Process::new(bin).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let committed = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("man")
                .join(file),
        )
        .unwrap();
        // The committed pages are the package's: under `--features test-runtime` the page
        // differs from them by the test-only runtime's possible-value items, and only by them.
        let page = crate::support::registry::packaged_man_page(&out.stdout);
        assert!(page == committed, "{args:?} differs from man/{file}");
    }
    let out = Process::new(bin)
        .args(["man", "mcp", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("osctl has no command `mcp nope`"));
}
