//! What the golden cases cannot show: file modes, and that a secret given to `mcp add` appears in
//! no output (text, diff or JSON) while the file holds it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn device() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("device");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/mcp/_installed"),
        &root,
    );
    (dir, root)
}

fn osctl(root: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn files_that_hold_a_token_become_0600_and_others_keep_their_mode() {
    let (_d, root) = device();
    let toml = root.join("root/.codex/config.toml");
    std::fs::set_permissions(&toml, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = osctl(
        &root,
        &[
            "mcp",
            "add",
            "web",
            "--runtime",
            "codex",
            "--url",
            "https://x.example/mcp",
            "--header-file",
            "-",
        ],
        "Authorization: Bearer sk_live_0123456789abcdefghij\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mode(&toml), 0o600);

    let oc = root.join("root/.config/opencode/opencode.json");
    std::fs::set_permissions(&oc, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = osctl(
        &root,
        &["mcp", "add", "fs", "--runtime", "opencode", "--", "cat"],
        "",
    );
    assert!(out.status.success());
    assert_eq!(mode(&oc), 0o644, "no token: the mode stays");

    // Claude Code's .mcp.json is a secret file (runtime data): created 0600 even without a token.
    let mcp = root.join("root/.claudecode/workspace/.mcp.json");
    std::fs::remove_file(&mcp).unwrap();
    let out = osctl(
        &root,
        &["mcp", "add", "fs", "--runtime", "claudecode", "--", "cat"],
        "",
    );
    assert!(out.status.success());
    assert_eq!(mode(&mcp), 0o600);
    assert_eq!(
        std::fs::read_to_string(&mcp).unwrap(),
        "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"cat\"\n    }\n  }\n}\n"
    );
}

#[test]
fn a_secret_from_stdin_is_in_the_file_and_in_no_output() {
    let secret = "ntn_live_ZYXWVUTSRQ9876543210";
    for runtime in [
        "openclaw",
        "hermes",
        "picoclaw",
        "codex",
        "claudecode",
        "opencode",
    ] {
        for extra in [
            &["--dry-run"][..],
            &["--json", "--dry-run"],
            &["--json"],
            &["-v"],
        ] {
            let (_d, root) = device();
            let mut args: Vec<&str> = extra.to_vec();
            args.extend([
                "mcp",
                "add",
                "notion",
                "--runtime",
                runtime,
                "--url",
                "https://mcp.notion.com/mcp",
                "--header-file",
                "-",
            ]);
            let out = osctl(&root, &args, &format!("Authorization: Bearer {secret}\n"));
            assert!(out.status.success(), "{runtime} {extra:?}");
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                !all.contains(&secret[4..]),
                "{runtime} {extra:?} leaked:\n{all}"
            );
            if extra.contains(&"--json") {
                let _: serde_json::Value = serde_json::from_slice(&out.stdout)
                    .unwrap_or_else(|e| panic!("{runtime} {extra:?}: not JSON ({e}):\n{all}"));
            }
            // `mcp list` shows the server, not the token.
            let out = osctl(&root, &["--json", "mcp", "list", "--runtime", runtime], "");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                !text.contains(&secret[4..]),
                "{runtime}: list leaked:\n{text}"
            );
        }
    }
}
