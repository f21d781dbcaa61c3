//! Global options that do not apply to a command are usage errors (exit 2) naming the option;
//! the ones that apply are accepted. Every command is tried with every global option, so a new
//! command or a new global option fails here until `cli::applicable_globals` says where it
//! applies.

use std::process::Command as Process;

use clap::CommandFactory;
use osctl::cli::{Cli, applicable_globals, global_ids, parse};

/// The smallest valid command line of every command (after `osctl`).
const COMMANDS: &[&[&str]] = &[
    &["status"],
    &["switch", "hermes"],
    &["reconcile"],
    &["presync"],
    &["migrate", "--from", "openclaw", "--to", "hermes"],
    &["reset"],
    &["setup"],
    &["mcp", "add", "x", "--url", "https://example.com/mcp"],
    &["mcp", "remove", "x"],
    &["mcp", "list"],
    &["channel", "add", "telegram"],
    &["channel", "remove", "telegram"],
    &["channel", "list"],
    &["recover"],
    &["doctor"],
    &["skills", "sync"],
    &["skills", "list"],
    &["skills", "verify"],
    &["completions", "bash"],
    &["man"],
];

/// How each global option is written with a value.
fn flag(id: &str) -> Vec<&'static str> {
    match id {
        "root" => vec!["--root", "."],
        "dry_run" => vec!["--dry-run"],
        "check" => vec!["--check"],
        "json" => vec!["--json"],
        "quiet" => vec!["--quiet"],
        "verbose" => vec!["--verbose"],
        "color" => vec!["--color", "never"],
        "yes" => vec!["--yes"],
        "lock_timeout" => vec!["--lock-timeout", "5"],
        "stat" => vec!["--stat"],
        "no_diff" => vec!["--no-diff"],
        "events" => vec!["--events", "-"],
        other => panic!("a global option this test does not know: {other}; add it to flag()"),
    }
}

/// Every leaf command of the clap tree, as a path.
fn leaves(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let subs: Vec<_> = cmd
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    if subs.is_empty() && !prefix.is_empty() {
        out.push(prefix);
        return;
    }
    for sub in subs {
        let mut p = prefix.clone();
        p.push(sub.get_name().to_string());
        leaves(sub, p, out);
    }
}

#[test]
fn every_command_is_in_the_table_and_in_this_test() {
    let mut all = Vec::new();
    leaves(&Cli::command(), Vec::new(), &mut all);
    for path in &all {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        assert!(
            applicable_globals(&path).is_some(),
            "{path:?} is not in cli::applicable_globals"
        );
        assert!(
            COMMANDS.iter().any(|c| c.starts_with(&path)),
            "{path:?} is not in this test's COMMANDS"
        );
    }
    assert_eq!(all.len(), COMMANDS.len());
}

#[test]
fn every_inapplicable_global_is_a_usage_error_naming_it() {
    let ids = global_ids();
    assert!(ids.len() >= 9, "{ids:?}");
    let mut refused = 0;
    for argv in COMMANDS {
        let path: Vec<&str> = argv
            .iter()
            .copied()
            .take_while(|a| !a.starts_with('-'))
            .take(
                if argv[0] == "mcp" || argv[0] == "channel" || argv[0] == "skills" {
                    2
                } else {
                    1
                },
            )
            .collect();
        let applicable = applicable_globals(&path).unwrap();
        for id in &ids {
            let mut line = vec!["osctl"];
            line.extend_from_slice(argv);
            line.extend(flag(id));
            let parsed = parse(&line);
            if applicable.contains(&id.as_str()) {
                assert!(parsed.is_ok(), "{line:?} refused: {}", parsed.unwrap_err());
                continue;
            }
            let err = parsed.expect_err(&format!("{line:?} accepted"));
            assert_eq!(err.exit_code(), 2, "{line:?}");
            let text = err.render().to_string();
            let written = flag(id)[0];
            assert!(
                text.contains(&format!(
                    "{written} does not apply to `osctl {}`",
                    path.join(" ")
                )),
                "{line:?}: {text}"
            );
            refused += 1;
        }
    }
    // completions and man take none of the 12; the 6 read-only commands take 5 of them; the
    // 10 that change the device (switch and reset aside) take 10 (not --yes, not --events);
    // switch and reset take 11 each (switch has no prompt, reset reports no progress events).
    assert_eq!(refused, 2 * 12 + 6 * 7 + 10 * 2 + 1 + 1);
}

#[test]
fn the_short_form_is_refused_too() {
    let err = parse(["osctl", "man", "-n"]).unwrap_err();
    assert!(
        err.render()
            .to_string()
            .contains("--dry-run does not apply to `osctl man`")
    );
    let err = parse(["osctl", "-q", "completions", "zsh"]).unwrap_err();
    assert!(err.render().to_string().contains("--quiet does not apply"));
}

#[test]
fn the_binary_exits_2_and_names_the_flag() {
    for (args, flag) in [
        (&["completions", "bash", "--json"][..], "--json"),
        (&["status", "--check"][..], "--check"),
        (&["status", "--dry-run"][..], "--dry-run"),
        (&["man", "--dry-run"][..], "--dry-run"),
        (&["mcp", "list", "--yes"][..], "--yes"),
    ] {
        let out = Process::new(env!("CARGO_BIN_EXE_osctl"))
            .args(args)
            .env_remove("OSCTL_ROOT")
            .env_remove("OSCTL_YES")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("error: {flag} does not apply")),
            "{args:?}: {stderr}"
        );
        if args.contains(&"--json") {
            // Under --json a usage error is still one document on stdout (the JSON contract).
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one document");
            assert_eq!(doc["exit_code"], 2, "{args:?}");
            assert_eq!(doc["error"]["code"], "usage", "{args:?}");
        } else {
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
}

/// `OSCTL_ROOT` and `OSCTL_YES` set in the operator's shell are defaults, not requests: `osctl
/// man` and `osctl completions` still work under them.
#[test]
fn globals_from_the_environment_are_not_refused() {
    for args in [&["man"][..], &["completions", "fish"][..]] {
        let out = Process::new(env!("CARGO_BIN_EXE_osctl"))
            .args(args)
            .env("OSCTL_ROOT", "/nonexistent")
            .env("OSCTL_YES", "1")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every command's `--help` puts its own options under "Options" and the globals that apply to
/// it under "Global options", and shows none that does not apply.
#[test]
fn help_lists_the_applicable_globals_under_their_own_heading() {
    let mut root = osctl::cli::command();
    for argv in COMMANDS {
        let path: Vec<&str> = argv
            .iter()
            .copied()
            .take_while(|a| !a.starts_with('-'))
            .take(if matches!(argv[0], "mcp" | "channel" | "skills") {
                2
            } else {
                1
            })
            .collect();
        let mut cmd = &mut root;
        for p in &path {
            cmd = cmd.find_subcommand_mut(p).unwrap();
        }
        let help = cmd.render_long_help().to_string();
        let applicable = applicable_globals(&path).unwrap();
        let globals = help.find("Global options:");
        assert_eq!(
            globals.is_some(),
            !applicable.is_empty(),
            "{path:?}:\n{help}"
        );
        let options = help.find("Options:").expect("an Options heading");
        // The option lists only (a description may mention a global, as reset's does --yes).
        let lists = &help[options..];
        for id in global_ids() {
            let written = flag(&id)[0];
            let at = lists
                .match_indices(written)
                .map(|(i, _)| options + i)
                .find(|&i| help[i + written.len()..].starts_with([' ', '\n', '.', '=']));
            if applicable.contains(&id.as_str()) {
                let at = at.unwrap_or_else(|| panic!("{path:?} --help lacks {written}"));
                assert!(
                    at > globals.unwrap(),
                    "{path:?}: {written} is not under Global options"
                );
            } else {
                assert!(
                    at.is_none(),
                    "{path:?} --help shows {written}, which does not apply"
                );
            }
        }
    }
}
