//! Streams and terminals: stdout carries the product, stderr the status; colour is decided per
//! stream (`--color`, `NO_COLOR`, `CLICOLOR_FORCE`); `-q`, `--stat` and `--no-diff` size a
//! preview. No pty is needed: without a terminal, `auto` means no colour, and `--color always`
//! and `CLICOLOR_FORCE` turn it on.

use std::path::Path;
use std::process::{Command, Output};

/// A copy of the sample device.
fn sample() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/device");
    for entry in walkdir::WalkDir::new(&src).min_depth(1) {
        let entry = entry.unwrap();
        let dest = dir.path().join(entry.path().strip_prefix(&src).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
    dir
}

fn osctl(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("OSCTL_TEST_NOW", "1767225600");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const ESC: char = '\x1b';

#[test]
fn status_into_a_file_has_no_escape_codes() {
    let d = sample();
    // stdout is a pipe here (as `status > file` makes it a file): auto means no colour, even
    // with TERM set as on a terminal.
    let out = osctl(d.path(), &["status"], &[("TERM", "xterm-256color")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout(&out).is_empty());
    assert!(!stdout(&out).contains(ESC), "{:?}", stdout(&out));
}

#[test]
fn color_always_colours_the_diff_and_never_or_no_color_do_not() {
    let d = sample();
    let out = osctl(
        d.path(),
        &["--color", "always", "presync", "--dry-run"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("\x1b[32m+"), "added lines green: {text}");
    assert!(text.contains("\x1b[36m@@"), "hunk headers cyan: {text}");
    for (args, env) in [
        (&["--color", "never", "presync", "--dry-run"][..], &[][..]),
        (
            &["presync", "--dry-run"][..],
            &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")][..],
        ),
    ] {
        let out = osctl(d.path(), args, env);
        assert!(
            !stdout(&out).contains(ESC),
            "{args:?} {env:?}: {}",
            stdout(&out)
        );
        assert!(stdout(&out).contains("\n+"), "still the diff: {args:?}");
    }
}

#[test]
fn clicolor_force_colours_each_stream_it_reaches() {
    let d = sample();
    let out = osctl(
        d.path(),
        &["presync", "--dry-run"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(stdout(&out).contains("\x1b[32m+"), "{}", stdout(&out));
}

#[test]
fn quiet_check_prints_nothing_on_stdout_and_keeps_the_exit() {
    let d = sample();
    let loud = osctl(d.path(), &["presync", "--check"], &[]);
    assert_eq!(loud.status.code(), Some(3));
    assert!(!loud.stdout.is_empty(), "without -q the diff is shown");
    let out = osctl(d.path(), &["presync", "--check", "-q"], &[]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        stdout(&out),
        "",
        "presync --check -q prints nothing on stdout"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("would change"), "no status line: {stderr}");
    // -q keeps a read command's table.
    let out = osctl(d.path(), &["status", "-q"], &[]);
    assert!(stdout(&out).contains("runtime"), "{}", stdout(&out));
}

#[test]
fn stat_shows_per_file_counts_and_no_diff_only_the_summary() {
    let d = sample();
    let diff = stdout(&osctl(d.path(), &["presync", "--dry-run"], &[]));
    let stat = osctl(d.path(), &["presync", "--dry-run", "--stat"], &[]);
    assert_eq!(stat.status.code(), Some(0));
    let stat = stdout(&stat);
    assert!(!stat.contains("@@"), "no hunks: {stat}");
    let files: Vec<&str> = diff
        .lines()
        .filter_map(|l| l.strip_prefix("diff --git a/"))
        .map(|l| l.split(" b/").next().unwrap())
        .collect();
    assert!(!files.is_empty());
    for f in &files {
        let line = stat
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{f} ")))
            .unwrap_or_else(|| panic!("{f} missing from --stat: {stat}"));
        assert!(line.contains(" | +"), "{line}");
    }
    assert!(
        stat.trim_end().lines().last().unwrap().contains("path"),
        "ends with the summary: {stat}"
    );
    let none = osctl(d.path(), &["presync", "--dry-run", "--no-diff"], &[]);
    assert_eq!(stdout(&none), "");
    assert!(String::from_utf8_lossy(&none.stderr).contains("dry-run: would change"));
}

#[test]
fn the_unit_state_note_goes_to_stderr_and_the_migrate_report_to_stdout() {
    let d = sample();
    let out = osctl(d.path(), &["status"], &[]);
    assert!(!stdout(&out).contains("unit states are not available"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unit states are not available"));
    let out = osctl(
        d.path(),
        &[
            "migrate",
            "--from",
            "openclaw",
            "--to",
            "hermes",
            "--dry-run",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout(&out).contains("openclaw → hermes:"),
        "{}",
        stdout(&out)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("openclaw → hermes:"));
}

#[test]
fn json_stdout_carries_only_the_document() {
    let d = sample();
    // recover --dry-run used to print its listing on stdout beside the document.
    let out = osctl(d.path(), &["--json", "presync", "--dry-run", "-v"], &[]);
    let _: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one document");
}
