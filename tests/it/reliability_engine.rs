//! The engine's promises, each checked against the defect that broke it (found by trying osctl
//! as a new user and as an attacker): a finished change is never undone by a failed cleanup or
//! a kill, recovery never overwrites what something else wrote since, one undeletable file never
//! wedges the device, special files never hang a read, two switches at once end 0 and 6, the
//! state folder is root's alone, and no secret reaches the lock, the journal or a busy message.
//! A plan that changes one file keeps no journal and costs at most 3 fsync-class calls.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::reliability_support::*;

/// Runs `cmd` and waits at most `limit`; a run still going then is killed and the test fails
/// (the defects here were hangs).
fn bounded(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("osctl hung for {limit:?}: {}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

fn device(from: &str) -> (tempfile::TempDir, PathBuf) {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join(from), &root);
    (sandbox, root)
}

fn state(root: &Path) -> PathBuf {
    root.join("var/lib/osctl")
}

/// The names in a folder (none when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

// --- 1. A failure after the last write ------------------------------------------------------

/// Discarding the journal failed (EIO, EMFILE, EPERM) after the last write: osctl exited 1
/// ("failed before any write") although the change was live, and the next run restored the
/// journal blindly, reverting the change.
#[test]
fn regression_a_journal_cleanup_failure_after_the_last_write_reports_success_and_is_never_undone() {
    let (_s, reference) = device("examples/presync/hermes");
    let out = osctl(&reference).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let (_s2, root) = device("examples/presync/hermes");
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "fail-cleanup")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the change is live: {}",
        text(&out)
    );
    assert!(
        stderr(&out)
            .contains("is finished (nothing in it will be restored) but could not be removed"),
        "{}",
        text(&out)
    );
    assert_eq!(
        snapshot(&root),
        snapshot(&reference),
        "the whole change landed"
    );
    let journal = state(&root).join("journal");
    let left = names(&journal);
    assert_eq!(left.len(), 1, "the finished journal waits for its cleanup");
    assert!(journal.join(&left[0]).join("done.json").exists());
    assert!(!journal.join(&left[0]).join("manifest.json").exists());

    // The runtime saves its config meanwhile; the next run finishes the cleanup and keeps it.
    write(
        &root,
        "root/.hermes/config.yaml",
        b"model: the runtime's own\n",
        0o600,
    );
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        std::fs::read(root.join("root/.hermes/config.yaml")).unwrap(),
        b"model: the runtime's own\n"
    );
    assert!(names(&journal).is_empty(), "the cleanup was finished");
    assert!(!state(&root).join("kept").exists());
}

/// osctl was killed just after its last write: the next run restored the journal blindly, so
/// what a runtime wrote to one of those files in between was lost.
#[test]
fn regression_a_run_killed_after_its_last_write_leaves_a_later_rewrite_alone() {
    let (_s, root) = device("examples/presync/hermes");
    let before = snapshot(&root);
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "abort-before-done")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    let journal = state(&root).join("journal");
    let id = names(&journal).pop().expect("the open journal");
    assert!(journal.join(&id).join("manifest.json").exists());

    // The runtime rewrites one of the files the killed run wrote.
    let mine = b"model: the runtime wrote this after the kill\n";
    write(&root, "root/.hermes/config.yaml", mine, 0o600);
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = stderr(&out);
    assert!(
        err.contains("/root/.hermes/config.yaml: changed by something else after the interrupted run wrote it; left as it is"),
        "{err}"
    );
    assert!(
        err.contains(&format!("kept in /var/lib/osctl/kept/{id}")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(root.join("root/.hermes/config.yaml")).unwrap(),
        mine
    );
    // Everything else the killed run wrote went back.
    let mut after = snapshot(&root);
    let mut expected = before.clone();
    after.remove("root/.hermes/config.yaml");
    expected.remove("root/.hermes/config.yaml");
    after.retain(|k, _| !k.starts_with("var/lib/osctl/kept"));
    assert_eq!(after, expected, "{}", describe_diff(&expected, &after));
    // The original of the file left alone is kept where a person can find it.
    let kept = state(&root).join("kept").join(&id);
    assert!(kept.join("manifest.json").exists());
    assert_eq!(mode(&state(&root).join("kept")), 0o700);
    assert!(names(&journal).is_empty());
    // And the device stays operable.
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(stderr(&out).contains("nothing to do"), "{}", text(&out));
}

/// Marking the journal done can fail too: then the change is not recorded as made, so it is
/// rolled back at once (exit 4) rather than left for the next run to undo.
#[test]
fn regression_a_journal_that_cannot_be_marked_done_is_rolled_back_now() {
    let (_s, root) = device("examples/presync/hermes");
    let before = snapshot(&root);
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "fail-done")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        stderr(&out).contains("cannot mark as done the journal"),
        "{}",
        text(&out)
    );
    assert!(
        stderr(&out).contains("every file osctl had changed was restored"),
        "{}",
        text(&out)
    );
    assert_eq!(snapshot(&root), before);
    // Every original is back. The journal could not be marked done after the rollback either
    // (the fault stays), so it may stay open: the next run restores it, which changes nothing.
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(snapshot(&root), before);
    assert!(names(&state(&root).join("journal")).is_empty());
}

// --- 2. One undeletable file -----------------------------------------------------------------

/// Makes `path` immutable with chattr when this machine allows it.
fn chattr(flag: &str, path: &Path) -> bool {
    Command::new("chattr")
        .args([flag, path.to_str().unwrap()])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The reset moves the previous owner's memories into its journal and then cannot delete one
/// immutable file there: every later mutating command, `recover` included, exited 1 until the
/// file was fixed by hand.
fn undeletable_file_in_a_removed_folder(via_chattr: bool) {
    let (_s, root) = device("tests/cli/reset/active-hermes/in");
    // A name of its own, so the fault injection (by file name) hits this file only.
    let memory = root.join("root/.hermes/memories/2026-01-01-undeletable.md");
    std::fs::write(&memory, "- the previous owner's note\n").unwrap();
    let cmd = |args: &[&str]| {
        let mut c = osctl(&root);
        c.args(args);
        if !via_chattr {
            c.env("OSCTL_FAULT", "immutable:2026-01-01-undeletable.md");
        }
        bounded(c, Duration::from_secs(60))
    };
    if via_chattr {
        assert!(chattr("+i", &memory));
    }
    let out = cmd(&["reset", "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the reset is done: {}",
        text(&out)
    );
    assert!(
        stderr(&out).contains("could not be removed")
            && stderr(&out).contains("2026-01-01-undeletable.md"),
        "the file is named: {}",
        text(&out)
    );
    assert!(
        !root.join("root/.hermes/memories").exists(),
        "the reset stands"
    );
    // The next run finishes what it can and moves the rest aside, naming it.
    let out = cmd(&["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        stderr(&out).contains("is kept in /var/lib/osctl/kept/"),
        "{}",
        text(&out)
    );
    // From then on the device is as operable as any.
    for args in [&["recover"][..], &["reset", "--yes"][..], &["recover"][..]] {
        let out = cmd(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        assert!(
            !stderr(&out).contains("could not be removed"),
            "{}",
            text(&out)
        );
    }
    assert!(names(&state(&root).join("journal")).is_empty());
    if via_chattr {
        let kept = state(&root).join("kept");
        for e in walkdir::WalkDir::new(&kept).into_iter().flatten() {
            chattr("-i", e.path());
        }
    }
}

#[test]
fn regression_an_undeletable_file_in_a_removed_folder_never_wedges_the_device() {
    undeletable_file_in_a_removed_folder(false);
    let probe = tempfile::NamedTempFile::new_in(sandbox().path()).unwrap();
    if chattr("+i", probe.path()) {
        chattr("-i", probe.path());
        undeletable_file_in_a_removed_folder(true);
    } else {
        eprintln!("note: chattr +i is not available here; the fault injection stood in for it");
    }
}

/// A persona file the reset cannot remove is left and named (exit 5, partly applied), the rest
/// of the reset lands, and nothing is left behind that stops the next command.
#[test]
fn regression_an_undeletable_persona_file_fails_the_reset_alone() {
    let (_s, root) = device("tests/cli/reset/active-hermes/in");
    let souls: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "SOUL.md")
        .map(|e| e.path().to_path_buf())
        .collect();
    assert!(!souls.is_empty());
    let run = |args: &[&str]| {
        let mut c = osctl(&root);
        c.args(args).env("OSCTL_FAULT", "immutable:SOUL.md");
        bounded(c, Duration::from_secs(60))
    };
    let out = run(&["reset", "--yes"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    assert!(stderr(&out).contains("could not remove"), "{}", text(&out));
    for soul in &souls {
        assert!(
            soul.exists(),
            "{} was removed: {}",
            soul.display(),
            text(&out)
        );
    }
    assert!(
        !root.join("root/config/config.json").exists(),
        "the rest of the reset landed: {}",
        text(&out)
    );
    assert!(names(&state(&root).join("journal")).is_empty());
    let out = run(&["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(stderr(&out).contains("nothing to do"), "{}", text(&out));
    let out = run(&[
        "mcp",
        "add",
        "probe",
        "--runtime",
        "codex",
        "--allow-uninstalled",
        "--",
        "/bin/true",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

// --- 3. Special files --------------------------------------------------------------------------

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path in our sandbox.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A FIFO at openclaw.json blocked `status`, `presync` (the boot path) and `mcp add` forever,
/// the last two holding the device lock.
#[test]
fn regression_a_fifo_at_a_runtime_config_is_an_error_at_once() {
    let (_s, root) = device("examples/presync/openclaw");
    mkfifo(&root.join("root/.openclaw/openclaw.json"));
    let limit = Duration::from_secs(20);
    let mut status = osctl(&root);
    status.arg("status");
    let out = bounded(status, limit);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("unreadable: /root/.openclaw/openclaw.json"),
        "{}",
        text(&out)
    );
    for args in [
        &["presync", "openclaw"][..],
        &[
            "mcp",
            "add",
            "probe",
            "--runtime",
            "openclaw",
            "--",
            "/bin/true",
        ][..],
    ] {
        let mut c = osctl(&root);
        c.args(args);
        let out = bounded(c, limit);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(
            stderr(&out).contains(
                "cannot read /root/.openclaw/openclaw.json: it is a FIFO (named pipe), not a regular file"
            ),
            "{}",
            text(&out)
        );
    }
    // Nothing holds the lock afterwards.
    let mut c = osctl(&root);
    c.args(["--lock-timeout", "0", "recover"]);
    assert_eq!(bounded(c, limit).status.code(), Some(0));
}

/// A FIFO daily note blocked `migrate`.
#[test]
fn regression_a_fifo_daily_note_fails_migrate_at_once() {
    let (_s, root) = device("tests/cli/migrate/openclaw-to-codex/in");
    mkfifo(&root.join("root/.openclaw/workspace/memory/2026-07-02.md"));
    let mut c = osctl(&root);
    c.args(["migrate", "--from", "openclaw", "--to", "codex"]);
    let out = bounded(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("/root/.openclaw/workspace/memory/2026-07-02.md: it is a FIFO"),
        "{}",
        text(&out)
    );
}

/// A character device was read without bound, and a 1 GB sparse config.json was read whole to
/// show `status`.
#[test]
fn regression_a_device_node_or_a_huge_sparse_file_is_refused_by_name() {
    let (_s, root) = device("examples/presync/openclaw");
    let config = root.join("root/config/config.json");
    let original = std::fs::read(&config).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&config)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let mut c = osctl(&root);
    c.arg("status");
    let out = bounded(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("cannot read /root/config/config.json: it is 1073741824 bytes"),
        "{}",
        text(&out)
    );
    std::fs::write(&config, &original).unwrap();

    let node = root.join("root/.openclaw/openclaw.json");
    std::fs::remove_file(&node).unwrap();
    let c_path = std::ffi::CString::new(node.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mknod on a NUL-terminated path in our sandbox (1,5 is /dev/zero).
    if unsafe { libc::mknod(c_path.as_ptr(), libc::S_IFCHR | 0o644, libc::makedev(1, 5)) } != 0 {
        eprintln!("note: mknod is not permitted here; the character device case is skipped");
        return;
    }
    let mut c = osctl(&root);
    c.args(["presync", "openclaw"]);
    let out = bounded(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("openclaw.json: it is a character device"),
        "{}",
        text(&out)
    );
}

// --- 4. Two switches at once -------------------------------------------------------------------

/// openclaw active and enabled; hermes installed (unit file and binary) but stopped.
fn switch_device(root: &Path, units: &Path) {
    write(
        root,
        "root/config/config.json",
        b"{\n  \"httpPort\": 5000,\n  \"agent_runtime\": \"openclaw\",\n  \"llm_model\": \"Auto-AI\"\n}\n",
        0o644,
    );
    write(
        root,
        "etc/systemd/system/openclaw.service",
        b"[Service]\n",
        0o644,
    );
    write(
        root,
        "etc/systemd/system/hermes-gateway.service",
        b"[Service]\n",
        0o644,
    );
    write(root, "usr/local/bin/hermes", b"#!/bin/sh\n", 0o755);
    std::fs::create_dir_all(units).unwrap();
    std::fs::write(units.join("openclaw.service.active"), "active\n").unwrap();
    std::fs::write(units.join("openclaw.service.enabled"), "enabled\n").unwrap();
}

/// On a real systemd, `switch hermes` and `switch picoclaw` started together ended 0 and 4 (the
/// second waited, then ran and was rolled back) instead of 0 and 6: the busy check read the
/// lock holder's note, which a new holder could still be writing. Every round must end {0, 6}.
#[test]
fn regression_two_switches_started_together_end_0_and_6() {
    let rounds = budget("OSCTL_SWITCH_RACE_ROUNDS", 6);
    let sandbox = sandbox();
    let mut seen = Vec::new();
    for round in 0..rounds {
        let base = sandbox.path().join(format!("round-{round}"));
        let (root, units) = (base.join("device"), base.join("systemd"));
        switch_device(&root, &units);
        let start = |to: &str| {
            let mut c = osctl(&root);
            // The settle window keeps the first switch holding the lock while the second looks.
            c.args(["switch", to, "--settle", "1", "--no-reconcile"])
                .env("OSCTL_SYSTEMCTL", fake_systemctl())
                .env("FAKE_SYSTEMCTL_DIR", &units)
                .env("FAKE_SYSTEMCTL_ROOT", &root);
            c.spawn().unwrap()
        };
        let (a, b) = if round % 2 == 0 {
            (start("hermes"), start("picoclaw"))
        } else {
            (start("picoclaw"), start("hermes"))
        };
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let mut codes = vec![a.status.code(), b.status.code()];
        codes.sort();
        assert_eq!(
            codes,
            vec![Some(0), Some(6)],
            "round {round}:\n{}\n{}",
            text(&a),
            text(&b)
        );
        let busy = if a.status.code() == Some(6) { &a } else { &b };
        // Refused by the holder's note, or by its switch record once it has written one.
        assert!(
            stderr(busy).contains("another osctl switch is in progress (")
                || stderr(busy).contains("is in progress (pid"),
            "{}",
            text(busy)
        );
        seen.push(codes);
    }
    figures(
        "engine-switch-race",
        &[
            ("rounds", rounds.to_string()),
            ("all_0_and_6", "true".into()),
        ],
    );
}

// --- 5. The state folder is root's alone -------------------------------------------------------

fn with_umask(mut cmd: Command, mask: libc::mode_t) -> Command {
    // SAFETY: umask is async-signal-safe and only changes the child's file-creation mask.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(mask);
            Ok(())
        });
    }
    cmd
}

/// Under umask 000, `/var/lib/osctl`, its journal folder and the lock were created
/// world-writable.
#[test]
fn regression_the_state_folder_is_private_whatever_the_umask() {
    let (_s, root) = device("examples/presync/hermes");
    let mut c = osctl(&root);
    c.arg("presync").env("OSCTL_FAULT", "abort-write:2");
    let out = with_umask(c, 0).output().unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    let st = state(&root);
    let id = names(&st.join("journal")).pop().unwrap();
    let journal = st.join("journal").join(&id);
    for (p, want) in [
        (st.clone(), 0o700),
        (st.join("journal"), 0o700),
        (journal.clone(), 0o700),
        (journal.join("manifest.json"), 0o600),
        (journal.join("originals"), 0o600),
        (st.join("lock"), 0o600),
        (st.join("lock.holder"), 0o600),
    ] {
        assert_eq!(mode(&p), want, "{}", p.display());
    }
    let out = with_umask(osctl(&root), 0).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for p in [st.clone(), st.join("journal")] {
        assert_eq!(mode(&p), 0o700, "{}", p.display());
    }
}

/// A journal planted by a local user (any journal found was restored without checking who
/// wrote it): the next root `mcp add` wrote the attacker's key into authorized_keys, with the
/// manifest's mode and owner, setuid included.
#[test]
fn regression_a_planted_journal_is_refused_and_never_restored() {
    let (_s, root) = device("tests/cli/mcp/_device");
    let plant = |root: &Path, id: &str, path: &str, saved: &str| {
        let dir = state(root).join("journal").join(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("0000"), "ssh-ed25519 AAAA attacker\n").unwrap();
        let manifest = serde_json::json!({
            "schema": 1, "id": id, "command": "osctl presync", "pid": 1, "started": 1,
            "entries": [{"path": path, "original": {"kind": "file", "mode": 0o4755, "uid": 0,
                         "gid": 0}, "follow": true, "saved": saved}]
        });
        std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
        dir
    };
    let keys = root.join("root/.ssh/authorized_keys");
    let refused = |root: &Path, why: &str| {
        for args in [
            &["recover"][..],
            &[
                "mcp",
                "add",
                "probe",
                "--runtime",
                "codex",
                "--",
                "/bin/true",
            ][..],
        ] {
            let out = osctl(root).args(args).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{why}: {args:?}: {}",
                text(&out)
            );
            assert!(stderr(&out).contains("refusing"), "{why}: {}", text(&out));
            assert!(!keys.exists(), "{why}: the planted journal was restored");
        }
    };
    std::fs::create_dir_all(state(&root).join("journal")).unwrap();
    for d in [state(&root), state(&root).join("journal")] {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
    }

    // Another user's journal.
    let dir = plant(&root, "1-1", "/root/.ssh/authorized_keys", "0000");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        for f in [dir.join("manifest.json"), dir.join("0000"), dir.clone()] {
            std::os::unix::fs::lchown(&f, Some(4242), Some(4242)).unwrap();
        }
        refused(&root, "owned by uid 4242");
        for f in [dir.join("manifest.json"), dir.join("0000"), dir.clone()] {
            std::os::unix::fs::lchown(&f, Some(0), Some(0)).unwrap();
        }
    } else {
        eprintln!("note: not root: the foreign-owner case needs chown");
    }
    // A manifest that others may write, in a folder that others may write.
    std::fs::set_permissions(
        dir.join("manifest.json"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    refused(&root, "a manifest others may write");
    std::fs::set_permissions(
        dir.join("manifest.json"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    refused(&root, "a journal folder others may write");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(
        state(&root).join("journal"),
        std::fs::Permissions::from_mode(0o733),
    )
    .unwrap();
    refused(&root, "a journals folder others may write");
    std::fs::set_permissions(
        state(&root).join("journal"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    std::fs::set_permissions(state(&root), std::fs::Permissions::from_mode(0o777)).unwrap();
    refused(&root, "a state folder others may write");
    std::fs::set_permissions(state(&root), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    // Entries that reach outside their journal, and a manifest copied from another journal.
    for (id, path, saved, why) in [
        (
            "2-1",
            "/root/../root/.ssh/authorized_keys",
            "0000",
            "a path with ..",
        ),
        (
            "3-1",
            "root/.ssh/authorized_keys",
            "0000",
            "a relative path",
        ),
        (
            "4-1",
            "/root/.ssh/authorized_keys",
            "../../../../outside",
            "a saved copy outside",
        ),
    ] {
        let dir = plant(&root, id, path, saved);
        refused(&root, why);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let dir = plant(&root, "5-1", "/root/.ssh/authorized_keys", "0000");
    let renamed = state(&root).join("journal/6-1");
    std::fs::rename(&dir, &renamed).unwrap();
    refused(&root, "a manifest from another journal");
    std::fs::remove_dir_all(&renamed).unwrap();
    // With the plants gone, the device works again.
    let out = osctl(&root).arg("recover").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// A hard link at `var/lib/osctl/lock` to a file elsewhere got that file truncated by the next
/// run (the holder's note was written into the lock file).
#[test]
fn regression_a_linked_lock_is_refused_and_its_target_left_alone() {
    for kind in ["hard link", "symbolic link"] {
        let (s, root) = device("tests/cli/mcp/_device");
        let victim = s.path().join("victim");
        std::fs::write(&victim, "precious\n").unwrap();
        std::fs::create_dir_all(state(&root)).unwrap();
        std::fs::set_permissions(state(&root), std::fs::Permissions::from_mode(0o700)).unwrap();
        let lock = state(&root).join("lock");
        match kind {
            "hard link" => std::fs::hard_link(&victim, &lock).unwrap(),
            _ => std::os::unix::fs::symlink(&victim, &lock).unwrap(),
        }
        let out = osctl(&root)
            .args([
                "mcp",
                "add",
                "probe",
                "--runtime",
                "codex",
                "--",
                "/bin/true",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{kind}: {}", text(&out));
        assert!(
            stderr(&out).contains("refusing to use /var/lib/osctl/lock"),
            "{kind}: {}",
            text(&out)
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "precious\n",
            "{kind}"
        );
    }
}

// --- 6. Secrets in the lock and the journal ----------------------------------------------------

/// A systemctl that hangs, recording its pid (so the test can end it).
fn hanging_systemctl(dir: &Path) -> PathBuf {
    let p = dir.join("systemctl");
    let script = format!(
        "#!/bin/sh\necho $$ >> '{}'\nexec sleep 120\n",
        dir.join("pids").display()
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// Whether any 12 characters of a planted value are in `haystack`.
fn leaks(haystack: &str, secrets: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for s in secrets {
        let chars: Vec<char> = s.chars().collect();
        for w in chars.windows(12) {
            let w: String = w.iter().collect();
            if haystack.contains(&w) {
                found.push(format!("{s} (as {w})"));
                break;
            }
        }
    }
    found
}

/// The lock file (0644) kept the full command line, `--token`, `--app-token` and
/// `--signing-secret` included; a run that found the lock busy printed it; a killed run's
/// journal printed its command line in the `restored …` warning; `status` showed
/// `--signing-secret` in clear.
#[test]
fn regression_no_secret_reaches_the_lock_the_journal_or_any_output() {
    let secrets = [
        "xoxb-PLANTED0token0000000000001",
        "xapp-PLANTED0apptoken000000002",
        "PLANTEDsigningsecret0000000003",
        "PLANTEDbearer0000000000000000004",
        "PLANTEDenvvalue00000000000000005",
        "PLANTEDuserinfo000000000000006",
        "PLANTEDquerytoken00000000000007",
        "PLANTEDserverkey00000000000008",
    ];
    let scratch = sandbox();
    let root = scratch.path().join("device");
    copy_tree(&repo().join("tests/cli/channel/_hermes"), &root);
    let systemctl = hanging_systemctl(scratch.path());
    let mut outputs = Vec::new();
    let holder_args = vec![
        "mcp".to_string(),
        "add".into(),
        "leak".into(),
        "--runtime".into(),
        "hermes".into(),
        "--url".into(),
        format!(
            "https://me:{}@mcp.example.com/x?token={}",
            secrets[5], secrets[6]
        ),
        "--header".into(),
        format!("Authorization=Bearer {}", secrets[3]),
    ];
    let mut holder = osctl(&root);
    holder.args(&holder_args).env("OSCTL_SYSTEMCTL", &systemctl);
    let mut holder = holder.spawn().unwrap();
    let started = Instant::now();
    while !state(&root).join("lock.holder").exists() {
        assert!(
            holder.try_wait().unwrap().is_none(),
            "the holder ended early"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Wait until it runs its (hanging) systemctl, with its journal on disk.
    while !scratch.path().join("pids").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never ran systemctl"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let busy = osctl(&root)
        .args([
            "--lock-timeout",
            "0",
            "channel",
            "add",
            "slack",
            "--token",
            secrets[0],
            "--app-token",
            secrets[1],
            &format!("--signing-secret={}", secrets[2]),
        ])
        .output()
        .unwrap();
    assert_eq!(busy.status.code(), Some(6), "{}", text(&busy));
    assert!(
        stderr(&busy).contains("held by pid") && stderr(&busy).contains("Authorization=***"),
        "{}",
        text(&busy)
    );
    outputs.push(("busy run".to_string(), text(&busy)));
    let status = osctl(&root).arg("status").output().unwrap();
    outputs.push(("status while held".into(), text(&status)));
    for f in ["lock", "lock.holder"] {
        let p = state(&root).join(f);
        assert_eq!(mode(&p), 0o600, "{f}");
        outputs.push((f.into(), std::fs::read_to_string(&p).unwrap()));
    }
    holder.kill().unwrap();
    let _ = holder.wait();
    let pids = std::fs::read_to_string(scratch.path().join("pids")).unwrap_or_default();
    for pid in pids.split_whitespace() {
        let _ = Command::new("kill").args(["-KILL", pid]).status();
    }
    // A killed run with every secret flag, its journal left on disk.
    let mut killed = osctl(&root);
    killed
        .args([
            "channel",
            "add",
            "slack",
            "--token",
            secrets[0],
            "--app-token",
            secrets[1],
            "--signing-secret",
            secrets[2],
        ])
        .env("OSCTL_FAULT", "abort-write:1");
    let out = killed.output().unwrap();
    outputs.push(("killed channel add".into(), text(&out)));
    let journal = state(&root).join("journal");
    assert!(!names(&journal).is_empty(), "the killed runs left journals");
    for id in names(&journal) {
        let m = journal.join(&id).join("manifest.json");
        let manifest = std::fs::read_to_string(&m).unwrap();
        assert!(manifest.contains("***"), "{manifest}");
        outputs.push((format!("manifest {id}"), manifest));
    }
    for args in [
        &["status"][..],
        &["--json", "status"][..],
        &["recover", "--dry-run"][..],
        &["recover"][..],
    ] {
        let out = osctl(&root).args(args).output().unwrap();
        outputs.push((format!("{args:?}"), text(&out)));
    }
    let restored = &outputs.last().unwrap().1;
    assert!(
        restored.contains("left by an interrupted run"),
        "{restored}"
    );
    let mut found = Vec::new();
    for (what, s) in &outputs {
        for l in leaks(s, &secrets) {
            found.push(format!("{what}: {l}"));
        }
    }
    figures(
        "engine-secrets",
        &[
            ("planted", secrets.len().to_string()),
            ("outputs_checked", outputs.len().to_string()),
            ("leaks", found.len().to_string()),
        ],
    );
    assert!(found.is_empty(), "{found:#?}\n{outputs:#?}");
}

/// An older osctl kept its note, unmasked, in the lock file itself: the next holder empties it.
#[test]
fn regression_an_old_lock_note_with_secrets_is_emptied() {
    let (_s, root) = device("examples/presync/hermes");
    std::fs::create_dir_all(state(&root)).unwrap();
    let lock = state(&root).join("lock");
    std::fs::write(
        &lock,
        "pid 1 (osctl channel add slack --token xoxb-OLD-SECRET)",
    )
    .unwrap();
    std::fs::set_permissions(&lock, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(std::fs::metadata(&lock).unwrap().len(), 0);
    assert_eq!(mode(&lock), 0o600);
    assert_eq!(mode(&state(&root)), 0o700);
}

// --- 7. The fast path --------------------------------------------------------------------------

/// fsync-class calls of one osctl run, by strace (None when strace cannot trace here).
fn sync_calls(root: &Path, args: &[&str]) -> Option<u64> {
    let log = root.parent().unwrap().join("strace.log");
    let mut c = Command::new("strace");
    c.args([
        "-f",
        "-c",
        "-e",
        "trace=fsync,fdatasync,syncfs,sync_file_range",
        "-o",
    ])
    .arg(&log)
    .arg(env!("CARGO_BIN_EXE_osctl"))
    .arg("--root")
    .arg(root)
    .args(args)
    .env_clear()
    .env("PATH", std::env::var("PATH").unwrap_or_default())
    .env("OSCTL_TEST_NOW", TEST_NOW);
    let out = c.output().ok()?;
    if !out.status.success() {
        return None;
    }
    let table = std::fs::read_to_string(&log).ok()?;
    let total = table
        .lines()
        .find(|l| l.trim_end().ends_with("total"))
        .and_then(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            cols.get(cols.len().checked_sub(2)?)
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0);
    Some(total)
}

/// `osctl mcp add` made 12 fsync-class calls (journal copy, manifest, journal folder, the file,
/// cleanup, and one more per write from atomic-write-file): a plan that changes one file and
/// runs nothing needs no journal, and one write costs the file's fsync and its folder's.
#[test]
fn regression_a_one_file_plan_keeps_no_journal_and_syncs_at_most_three_times() {
    let (_s, root) = device("tests/cli/mcp/_installed");
    let out = osctl(&root)
        .args([
            "mcp",
            "add",
            "probe",
            "--runtime",
            "codex",
            "--",
            "/bin/true",
        ])
        .env("OSCTL_FAULT", "abort-write:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "one step only: {}", text(&out));
    assert!(
        !state(&root).join("journal").exists(),
        "no journal was made: {:?}",
        names(&state(&root))
    );
    let (_s, root) = device("tests/cli/mcp/_device");
    match sync_calls(
        &root,
        &[
            "mcp",
            "add",
            "probe",
            "--runtime",
            "codex",
            "--",
            "/bin/true",
        ],
    ) {
        Some(n) => assert!(n <= 3, "{n} fsync-class calls"),
        None => eprintln!("note: strace cannot trace here; the sync count is not checked"),
    }
    // A journaled plan: the journal costs 4 syncs to begin and 1 to finish, each file 1, each
    // distinct folder 1 (presync hermes: 4 files in 3 folders).
    let (_s, root) = device("examples/presync/hermes");
    let plan = osctl(&root)
        .args(["--json", "--dry-run", "presync"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let summary = &doc["plan"]["summary"];
    let files = summary["files"].as_u64().unwrap() + summary["folders"].as_u64().unwrap_or(0);
    let mut folders: Vec<String> = doc["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "file")
        .filter_map(|c| c["path"].as_str())
        .map(|p| p.rsplit_once('/').unwrap().0.to_string())
        .collect();
    folders.sort();
    folders.dedup();
    if let Some(n) = sync_calls(&root, &["presync"]) {
        let most = files + folders.len().max(1) as u64 + 5;
        assert!(
            n <= most,
            "{n} fsync-class calls for {files} files (at most {most})"
        );
    }
}

/// What `mask_command_line` shows of each kind of secret flag and URL.
#[test]
fn the_command_line_is_masked_flag_by_flag() {
    let args: Vec<String> = [
        "osctl",
        "channel",
        "add",
        "slack",
        "--token",
        "xoxb-1",
        "--app-token=xapp-2",
        "--signing-secret",
        "sig-3",
        "--token-file",
        "/run/secrets/token",
        "--user-id",
        "U42",
        "--header",
        "Authorization=Bearer tok-4",
        "--env",
        "API_TOKEN=tok-5",
        "--installer-env",
        "CODEX_VERSION=1.2.3",
        "--password",
        "pw-6",
        "--api-key=key-7",
        "--metadata-url",
        "https://user:pw-8@cdn.example.com/ota/metadata.json?sig=abc9&v=2&access_token=tok10#top",
        "--",
        "npx",
        "server",
        "--api-key",
        "key-11",
        "GITHUB_TOKEN=tok-12",
    ]
    .map(String::from)
    .to_vec();
    let shown = osctl::redact::mask_command_line(&args);
    assert_eq!(
        shown,
        "osctl channel add slack --token *** --app-token=*** --signing-secret *** \
         --token-file /run/secrets/token --user-id U42 --header Authorization=*** \
         --env API_TOKEN=*** --installer-env CODEX_VERSION=*** --password *** --api-key=*** \
         --metadata-url https://***@cdn.example.com/ota/metadata.json?sig=***&v=2&access_token=***#top \
         -- npx server --api-key *** GITHUB_TOKEN=***"
    );
}

/// presync planned two changes for one file reached by two names (a workspace AGENTS.md linked
/// to the global one; a workspace `.claude` linked to `~/.claude`): the file was written twice,
/// and the second write found it changed by the first, so the run failed (exit 4) on every boot.
#[test]
fn regression_a_file_reached_by_two_names_is_written_once() {
    let (_s, root) = device("examples/presync/codex");
    std::fs::rename(
        root.join("root/.codex/workspace/AGENTS.md"),
        root.join("root/.codex/AGENTS.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../AGENTS.md", root.join("root/.codex/workspace/AGENTS.md"))
        .unwrap();
    let (_s2, claude) = device("examples/presync/claudecode");
    std::os::unix::fs::symlink(
        "/root/.claude",
        claude.join("root/.claudecode/workspace/.claude"),
    )
    .unwrap();
    for (root, shared) in [
        (&root, "root/.codex/AGENTS.md"),
        (&claude, "root/.claude/settings.json"),
    ] {
        let plan = osctl(root)
            .args(["--json", "--dry-run", "presync"])
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
        let resolved: Vec<String> = doc["plan"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["path"].as_str())
            .map(|p| {
                let host = root.join(p.trim_start_matches('/'));
                std::fs::canonicalize(&host)
                    .unwrap_or(host)
                    .display()
                    .to_string()
            })
            .collect();
        let mut unique = resolved.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            resolved.len(),
            unique.len(),
            "one change per file: {resolved:?}"
        );
        let out = osctl(root).arg("presync").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let again = osctl(root).arg("presync").output().unwrap();
        assert_eq!(again.status.code(), Some(0), "{}", text(&again));
        assert!(stderr(&again).contains("nothing to do"), "{}", text(&again));
        assert!(root.join(shared).is_file());
    }
    // Both blocks live in the one shared AGENTS.md.
    let agents = std::fs::read_to_string(root.join("root/.codex/AGENTS.md")).unwrap();
    assert!(agents.contains("OS PERSONA INLINE"), "{agents}");
    assert!(
        agents.contains("This machine is an Autonomous device"),
        "{agents}"
    );
}
