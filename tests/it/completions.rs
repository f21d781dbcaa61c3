//! The committed completion scripts, run by the real shells: each is loaded the way a user's
//! shell loads it (bash `source`, zsh from `$fpath`, fish `source`), asked for the candidates of
//! a command line, and must answer from the device under `--root`: `mcp remove <TAB>` offers the
//! servers that are in the runtime's file at that moment, `channel remove <TAB>` the configured
//! channels, `switch <TAB>` the runtimes.
//!
//! The shells are Debian's bash, zsh and fish (`.ci/run` installs them). Without `CI=true` a
//! missing zsh or fish skips its test with a note; under CI it fails.

use crate::reliability_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `PATH` with the osctl under test first: the scripts call `osctl` by name, as an installed
/// package's do.
fn path_with_osctl() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_osctl")).parent().unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A device with hermes active and its MCP file holding one server (`docs`).
fn device() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("device");
    reliability_support::copy_tree(&repo().join("tests/cli/mcp/_installed"), &root);
    (dir, root)
}

fn osctl(root: &Path, args: &[&str], stdin: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "osctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn shell_available(shell: &str) -> bool {
    let found = Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{shell} is missing: .ci/run installs it"
        );
        eprintln!("note: {shell} is not installed here; skipped (CI installs it)");
    }
    found
}

fn run(mut cmd: Command) -> Vec<String> {
    let out: Output = cmd
        .env("PATH", path_with_osctl())
        .env_remove("OSCTL_ROOT")
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(['\t', ':']).next().unwrap().trim().to_string())
        .filter(|w| !w.is_empty())
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The candidates bash's programmable completion gets for `line` (the last word is the one
/// being completed): the function the script registered, called as bash calls it.
fn bash(line: &[&str]) -> Vec<String> {
    let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "source completions/osctl.bash\n\
         complete -p osctl >/dev/null || exit 9\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={cword}\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; COMP_TYPE=9\n\
         _clap_complete_osctl osctl '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        words = words.join(" "),
        cword = line.len() - 1,
        cur = line[line.len() - 1],
        prev = line[line.len() - 2],
    );
    let mut cmd = Command::new("bash");
    cmd.arg("--norc").arg("-c").arg(script);
    run(cmd)
}

/// zsh: `completions/_osctl` autoloaded from `$fpath` as the package installs it, called as
/// zsh calls a completion function; `_describe` (the completion system's, which needs a live
/// line editor) is replaced by one that prints what it was given.
fn zsh(line: &[&str]) -> Vec<String> {
    let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "fpath=(completions $fpath)\n\
         compdef() {{ : }}\n\
         _describe() {{ print -rl -- \"${{(@P)${{@[-1]}}}}\" }}\n\
         autoload -Uz _osctl\n\
         words=({words})\n\
         CURRENT={current}\n\
         _osctl\n",
        words = words.join(" "),
        current = line.len(),
    );
    let mut cmd = Command::new("zsh");
    cmd.arg("-f").arg("-c").arg(script);
    run(cmd)
}

/// fish: the script sourced, then fish's own `complete -C` for the line.
fn fish(line: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = line.iter().map(|w| w.to_string()).collect();
    let script = format!(
        "source completions/osctl.fish; complete -C '{}'",
        quoted.join(" ")
    );
    let mut cmd = Command::new("fish");
    cmd.arg("--no-config").arg("-c").arg(script);
    run(cmd)
}

fn has(words: &[String], want: &[&str], not: &[&str]) {
    for w in want {
        assert!(words.iter().any(|x| x == w), "{w:?} missing from {words:?}");
    }
    for w in not {
        assert!(!words.iter().any(|x| x == w), "{w:?} offered in {words:?}");
    }
}

/// One device's life as a shell sees it, in each shell: the servers offered follow the file.
fn mcp_names_follow_the_device(complete: fn(&[&str]) -> Vec<String>) {
    let (_dir, root) = device();
    let r = root.to_str().unwrap();
    has(
        &complete(&["osctl", "--root", r, "mcp", "remove", ""]),
        &["docs"],
        &["search"],
    );
    osctl(
        &root,
        &[
            "mcp",
            "add",
            "search",
            "--url",
            "https://search.example.com/mcp",
        ],
        "",
    );
    has(
        &complete(&["osctl", "--root", r, "mcp", "remove", ""]),
        &["docs", "search"],
        &[],
    );
    // What is typed filters.
    has(
        &complete(&["osctl", "--root", r, "mcp", "remove", "s"]),
        &["search"],
        &["docs"],
    );
    osctl(&root, &["mcp", "remove", "docs"], "");
    has(
        &complete(&["osctl", "--root", r, "mcp", "remove", ""]),
        &["search"],
        &["docs"],
    );
    // Another runtime's file, named with --runtime on the line.
    has(
        &complete(&[
            "osctl",
            "--root",
            r,
            "mcp",
            "remove",
            "--runtime",
            "codex",
            "",
        ]),
        &["docs"],
        &["search"],
    );
    // Channels: the configured ones.
    has(
        &complete(&["osctl", "--root", r, "channel", "remove", ""]),
        &[],
        &["telegram"],
    );
    osctl(
        &root,
        &[
            "channel",
            "add",
            "telegram",
            "--token-file",
            "-",
            "--user-id",
            "4242",
        ],
        "222222:BBNewTokenNewTokenNewTokenNew\n",
    );
    has(
        &complete(&["osctl", "--root", r, "channel", "remove", ""]),
        &["telegram"],
        &["slack"],
    );
    // Static candidates still come from the clap types.
    has(
        &complete(&["osctl", "switch", ""]),
        &[
            "openclaw",
            "hermes",
            "picoclaw",
            "codex",
            "claudecode",
            "opencode",
        ],
        &[],
    );
    has(&complete(&["osctl", "mc"]), &["mcp"], &["status"]);
}

#[test]
fn bash_completes_from_the_device() {
    mcp_names_follow_the_device(bash);
}

#[test]
fn zsh_completes_from_the_device() {
    if shell_available("zsh") {
        mcp_names_follow_the_device(zsh);
    }
}

#[test]
fn fish_completes_from_the_device() {
    if shell_available("fish") {
        mcp_names_follow_the_device(fish);
    }
}

/// Completion answers only to osctl's own variable: clap's default `COMPLETE`, exported by
/// something else, must not turn a run into a completion request.
#[test]
fn only_osctl_complete_asks_for_completions() {
    let (_dir, root) = device();
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .env("COMPLETE", "bash")
        .env_remove("OSCTL_COMPLETE")
        .arg("--root")
        .arg(&root)
        .args(["mcp", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("docs"), "{stdout}");
    // And asking for completions writes nothing, not even the lock.
    let before = snapshot(&root);
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .env("OSCTL_COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "5")
        .args([
            "--",
            "osctl",
            "--root",
            root.to_str().unwrap(),
            "mcp",
            "remove",
            "",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("docs"));
    assert_eq!(before, snapshot(&root), "completing changed the device");
}

fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let data = if e.file_type().is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (e.path().to_path_buf(), data)
        })
        .collect()
}
