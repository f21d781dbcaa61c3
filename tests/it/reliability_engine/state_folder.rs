//! The state folder is root's alone whatever the umask, and a planted journal or a linked lock
//! is refused and never followed.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use super::{device, mode, names, state, stderr};
use crate::reliability_support::*;

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
