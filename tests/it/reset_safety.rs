//! `osctl reset` can never delete the wrong thing: links out of the root, mount points, the
//! confirmation on a real terminal, and the order of service actions around the file work.
//!
//! The mount tests mount a tmpfs and a bind mount inside a temporary device (root is needed);
//! where mounting is not permitted they say so and skip.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture(active: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/reset")
        .join(format!("active-{active}/in"))
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes, links with their targets (osctl's state excluded).
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| {
            !e.path()
                .strip_prefix(dir)
                .unwrap()
                .starts_with("var/lib/osctl")
        })
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            let v = if e.file_type().is_symlink() {
                format!("-> {}", std::fs::read_link(e.path()).unwrap().display())
            } else if e.file_type().is_file() {
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned()
            } else {
                "dir".into()
            };
            (rel, v)
        })
        .collect()
}

fn osctl(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Links out of a runtime's tree: a persona file that is an absolute link to a host file, one
/// whose relative link climbs far above the root, a memory folder linked to a host folder, and
/// links to places inside the root but outside every runtime's tree, which a walk through the
/// link would reach: a whole inactive workspace moved there (its persona files are what a
/// reset deletes in a workspace), a FIFO (a read would choke on it) and a memory folder.
fn device_with_links_out(sandbox: &Path) -> (PathBuf, PathBuf) {
    let root = sandbox.join("device");
    let outside = sandbox.join("outside");
    copy_tree(&fixture("hermes"), &root);
    std::fs::create_dir_all(outside.join("ws/memory")).unwrap();
    std::fs::write(outside.join("USER.md"), "someone else's profile\n").unwrap();
    std::fs::write(outside.join("ws/SOUL.md"), "another soul\n").unwrap();
    std::fs::write(outside.join("ws/memory/a.md"), "- kept\n").unwrap();
    let ws = root.join("root/.opencode/workspace");
    std::fs::remove_file(ws.join("USER.md")).unwrap();
    symlink(outside.join("USER.md"), ws.join("USER.md")).unwrap();
    std::fs::remove_file(ws.join("SOUL.md")).unwrap();
    let up = "../".repeat(20);
    let rel = format!("{up}{}", outside.join("USER.md").display());
    symlink(&rel, ws.join("SOUL.md")).unwrap();
    std::fs::remove_dir_all(ws.join("memory")).unwrap();
    symlink(outside.join("ws/memory"), ws.join("memory")).unwrap();
    // Inside the root, outside every runtime's tree: what a chroot-style walk would reach.
    let owner = root.join("outside");
    std::fs::create_dir_all(owner.join("claude-memory")).unwrap();
    let pico = root.join("root/.picoclaw/workspace");
    std::fs::rename(&pico, owner.join("pico-ws")).unwrap();
    symlink("/outside/pico-ws", &pico).unwrap();
    std::fs::write(owner.join("claude-memory/a.md"), "- the owner's note\n").unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(owner.join("owner-USER.md"))
            .status()
            .unwrap()
            .success()
    );
    let claude = root.join("root/.claudecode/workspace");
    std::fs::remove_file(claude.join("USER.md")).unwrap();
    symlink("/outside/owner-USER.md", claude.join("USER.md")).unwrap();
    std::fs::remove_dir_all(claude.join("memory")).unwrap();
    symlink("/outside/claude-memory", claude.join("memory")).unwrap();
    (root, outside)
}

/// Every writer refuses a device with a link out of a runtime's tree (exit 1) before anything
/// is planned, and its hint names the link, not an unrelated setting; nothing outside or
/// inside changes.
#[test]
fn links_out_of_a_runtimes_tree_refuse_every_writer_with_a_hint_that_names_the_link() {
    let sandbox = tempfile::tempdir().unwrap();
    let (root, outside) = device_with_links_out(sandbox.path());
    let outside_before = snapshot(&outside);
    let inside_before = snapshot(&root);
    for args in [
        &["presync", "opencode"][..],
        &["presync", "picoclaw"],
        &["mcp", "add", "x", "--runtime", "opencode", "--", "cat"],
        &[
            "channel",
            "add",
            "telegram",
            "--token",
            "1:abcdefgh",
            "--user-id",
            "7",
        ],
        &["reconcile"],
    ] {
        let out = osctl(&root, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("configured paths lead out"), "{args:?}: {err}");
        assert!(
            err.contains("opencode's /root/.opencode/workspace/USER.md (at "),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("picoclaw's /root/.picoclaw/workspace"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("remove or replace the symbolic links ")
                && err.contains("/root/.claudecode/workspace/memory")
                && !err.contains("openclaw_config_dir"),
            "{args:?}: the hint names the links: {err}"
        );
        assert_eq!(
            snapshot(&outside),
            outside_before,
            "{args:?}: outside changed"
        );
        assert_eq!(
            snapshot(&root),
            inside_before,
            "{args:?}: the device changed"
        );
    }
    // status still reports, naming the link and that a reset removes it.
    let out = osctl(&root, &["status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a reset removes it as a link"),
        "{}",
        stderr(&out)
    );
}

/// The reset refused the whole device (exit 1) when a persona file or memory folder of some
/// runtime was a link out of its tree: a device that could not be reset. Now the reset removes
/// each such link itself, as a link, says so in its preview and report, never reads or deletes
/// what it points at (one target is a FIFO: a read would fail the run), and resets the rest;
/// afterwards every writer works again and a second reset changes nothing.
#[test]
fn regression_a_link_out_of_a_runtimes_tree_refused_the_factory_reset() {
    let sandbox = tempfile::tempdir().unwrap();
    let (root, outside) = device_with_links_out(sandbox.path());
    let outside_before = snapshot(&outside);
    let owner_before = snapshot(&root.join("outside"));
    let links = [
        "/root/.claudecode/workspace/USER.md",
        "/root/.claudecode/workspace/memory",
        "/root/.opencode/workspace/SOUL.md",
        "/root/.opencode/workspace/USER.md",
        "/root/.opencode/workspace/memory",
        "/root/.picoclaw/workspace",
    ];
    let before = snapshot(&root);
    let preview = osctl(&root, &["--dry-run", "reset", "--yes"]);
    assert_eq!(preview.status.code(), Some(0), "{}", stderr(&preview));
    let listing = String::from_utf8_lossy(&preview.stdout).into_owned();
    for l in links {
        assert!(
            listing.contains(&format!("  delete  {l}  (symbolic link to ")),
            "{l}: {listing}"
        );
        assert!(
            stderr(&preview).contains(&format!("{l} is a symbolic link to ")),
            "{l}: {}",
            stderr(&preview)
        );
    }
    assert_eq!(snapshot(&root), before, "the preview changed the device");
    let json = osctl(&root, &["--json", "--dry-run", "reset", "--yes"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let shown: Vec<&str> = doc["links_removed"]
        .as_array()
        .expect("links_removed")
        .iter()
        .map(|l| l["link"].as_str().unwrap())
        .collect();
    assert_eq!(shown, links);

    // As a factory-reset script runs it: no terminal, --yes.
    let out = osctl(&root, &["reset", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "removed the link /root/.claudecode/workspace/USER.md (it led to /outside/owner-USER.md, left untouched)"
        ),
        "{}",
        stderr(&out)
    );
    for l in links {
        let at = root.join(l.trim_start_matches('/'));
        assert!(
            std::fs::symlink_metadata(&at).is_err(),
            "{l} is still there"
        );
    }
    assert_eq!(
        snapshot(&outside),
        outside_before,
        "outside the root changed"
    );
    assert_eq!(
        snapshot(&root.join("outside")),
        owner_before,
        "the links' targets inside the root changed"
    );
    // The rest of the reset happened.
    assert!(!root.join("root/config/config.json").exists());
    assert!(!root.join("root/.openclaw/workspace/SOUL.md").exists());
    assert!(!root.join("root/.opencode/workspace/IDENTITY.md").exists());
    // Every writer works again, and a second reset finds nothing to remove.
    for args in [
        &["presync", "hermes"][..],
        &["presync", "opencode"],
        &["reconcile"],
    ] {
        let out = osctl(&root, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let again = osctl(&root, &["--json", "--dry-run", "reset", "--yes"]);
    let doc: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(doc.get("links_removed").is_none(), "{doc}");
}

/// Unmounts on drop, so a failed assertion leaves no mount behind.
struct Mount(PathBuf);
impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn mount(args: &[&str], at: &Path) -> Option<Mount> {
    let ok = Command::new("mount")
        .args(args)
        .arg(at)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mount(at.to_path_buf()))
}

#[test]
fn a_mount_point_in_the_way_refuses_the_reset_before_anything_is_deleted() {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().join("device");
    copy_tree(&fixture("hermes"), &root);
    // A tmpfs on a persona folder of an inactive runtime.
    let memory = root.join("root/.codex/workspace/memory");
    let Some(tmpfs) = mount(&["-t", "tmpfs", "tmpfs"], &memory) else {
        eprintln!("skipped: mounting a tmpfs is not permitted here (needs root)");
        return;
    };
    std::fs::write(
        memory.join("on-tmpfs.md"),
        "- lives on another filesystem\n",
    )
    .unwrap();
    // A bind mount (same filesystem, same device id) deep inside a folder the reset removes.
    let elsewhere = sandbox.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("precious.txt"), "not the device's\n").unwrap();
    let inner = root.join("root/.hermes/sessions/inner");
    std::fs::create_dir_all(&inner).unwrap();
    let bind = mount(&["--bind", elsewhere.to_str().unwrap()], &inner)
        .expect("a bind mount works where a tmpfs does");
    let before = snapshot(&root);

    let out = osctl(&root, &["reset", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("refuses to run: 2 paths"), "{err}");
    assert!(
        err.contains("/root/.codex/workspace/memory is a mount point"),
        "{err}"
    );
    assert!(
        err.contains("/root/.hermes/sessions holds the mount point /root/.hermes/sessions/inner"),
        "{err}"
    );
    assert!(err.contains("nothing was deleted"), "{err}");
    assert_eq!(
        snapshot(&root),
        before,
        "the refused reset changed the device"
    );
    assert!(elsewhere.join("precious.txt").exists());
    // The dry run shows the same refusal.
    let out = osctl(&root, &["reset", "--dry-run"]);
    assert_eq!(out.status.code(), Some(1));
    drop(bind);
    drop(tmpfs);
    // Unmounted, the same reset goes through.
    let out = osctl(&root, &["reset", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(elsewhere.join("precious.txt").exists());
}

/// Runs `osctl --root ROOT reset` on a pseudo-terminal (util-linux `script`), answering `answer`.
fn on_terminal(root: &Path, answer: &str) -> Option<Output> {
    on_terminal_with(root, "", answer)
}

/// [`on_terminal`] with global flags (`--json`) before `reset`.
fn on_terminal_with(root: &Path, flags: &str, answer: &str) -> Option<Output> {
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_script {
        return None;
    }
    let cmd = format!(
        "{} --root {} {flags} reset",
        env!("CARGO_BIN_EXE_osctl"),
        root.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("NO_COLOR", "1")
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let the prompt come up before answering, as a person would.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answer.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    Some(out)
}

#[test]
fn on_a_terminal_it_shows_the_plan_and_asks() {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().join("device");
    copy_tree(&fixture("codex"), &root);
    let before = snapshot(&root);
    let Some(out) = on_terminal(&root, "n\n") else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("delete  /root/.codex/sessions/  (1 file, 12 B)"),
        "{text}"
    );
    assert!(text.contains("paths to delete ("), "{text}");
    assert!(text.contains("Reset this device?"), "{text}");
    // A "no" is an answer, not an error: a status line, exit 1 (nothing was reset).
    assert!(text.contains("reset cancelled; nothing changed"), "{text}");
    assert!(!text.contains("error:"), "{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        snapshot(&root),
        before,
        "a declined reset changed the device"
    );
    let out = on_terminal_with(&root, "--json", "n\n").unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("\"ok\": false"), "{text}");
    assert!(text.contains("\"code\": \"cancelled\""), "{text}");
    assert!(!text.contains("error:"), "{text}");
    assert_eq!(snapshot(&root), before);

    let out = on_terminal(&root, "y\n").unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("changed "), "{text}");
    assert!(!root.join("root/.codex/sessions").exists(), "{text}");
    assert!(root.join("root/config/bootstrap.json").exists());
}

#[test]
fn services_stop_before_the_files_go_and_the_reboot_comes_after_the_commit() {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().join("device");
    copy_tree(&fixture("hermes"), &root);
    let log = sandbox.path().join("systemctl.log");
    let fake = sandbox.path().join("systemctl");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\n\
             sessions=gone; [ -e '{root}/root/.hermes/sessions' ] && sessions=present\n\
             journals=$(ls '{root}/var/lib/osctl/journal' 2>/dev/null | wc -l)\n\
             echo \"$* sessions=$sessions journals=$journals\" >> '{log}'\n\
             [ \"$1\" = show ] && printf 'Id=hermes-gateway.service\\nLoadState=loaded\\nActiveState=active\\nSubState=running\\nUnitFileState=enabled\\nNRestarts=0\\n'\n\
             exit 0\n",
            root = root.display(),
            log = log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
        .arg("--root")
        .arg(&root)
        .args(["reset", "--yes", "--reboot"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("OSCTL_SYSTEMCTL", &fake)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The unit's state is read before the stop, and the stop runs under a journal that puts it
    // back (enabled, then started) should the reset be killed or fail.
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "show --property=Id,LoadState,ActiveState,SubState,UnitFileState,NRestarts hermes-gateway.service sessions=present journals=0\n\
         stop hermes-gateway.service sessions=present journals=1\n\
         disable hermes-gateway.service sessions=present journals=1\n\
         reboot sessions=gone journals=0\n"
    );
    // The runtime's own commands run only on the live device.
    assert!(
        stderr(&out).contains("not run (only on the live device): run /usr/local/bin/hermes setup --reset --non-interactive"),
        "{}",
        stderr(&out)
    );
}

/// A reset that cannot remove one file (here `auth.json`, as `chattr +i` leaves it; the debug
/// build's `OSCTL_FAULT=immutable:NAME` stands in where chattr cannot) removes everything else
/// and exits 5 (partly applied), naming the file, in text and in `--json`.
#[test]
fn a_file_the_reset_cannot_remove_is_named_and_the_rest_is_reset() {
    for json in [false, true] {
        let sandbox = tempfile::tempdir().unwrap();
        let root = sandbox.path().join("device");
        copy_tree(&fixture("codex"), &root);
        let mut args = vec!["reset", "--yes"];
        if json {
            args.insert(0, "--json");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(&root)
            .args(&args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .env("OSCTL_FAULT", "immutable:auth.json")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(5), "{err}");
        // Two files of that name: codex's and opencode's.
        assert!(
            err.contains("could not remove 2 path(s): /root/.codex/auth.json, /root/.local/share/opencode/auth.json"),
            "{err}"
        );
        // The file is left; the owner's other data is gone, and no journal stays behind.
        assert!(root.join("root/.codex/auth.json").exists());
        assert!(!root.join("root/config/config.json").exists(), "{err}");
        assert!(!root.join("root/.codex/sessions").exists(), "{err}");
        let journals = root.join("var/lib/osctl/journal");
        assert!(
            !journals.exists() || std::fs::read_dir(&journals).unwrap().next().is_none(),
            "{err}"
        );
        if json {
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(doc["ok"], false);
            assert_eq!(doc["exit_code"], 5);
            assert_eq!(doc["error"]["code"], "reset_partly_applied");
            assert_eq!(
                doc["not_removed"],
                serde_json::json!([
                    "/root/.codex/auth.json",
                    "/root/.local/share/opencode/auth.json"
                ])
            );
        }
    }
}
