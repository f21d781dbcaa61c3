//! Regression tests for bugs the reliability suites found, one per bug, named after it.

use std::time::{Duration, Instant};

use crate::reliability_support::*;

/// Found by the crash suite: `osctl presync` on a device already in sync planned without the
/// lock and returned, leaving an interrupted run's journal on disk. The device stayed half
/// through that run when the runtime started, and a journal of a run killed after its last
/// write was later "restored" by whichever run took the lock next, rolling a finished change
/// back. Now a journal on disk while the lock is free makes presync take the lock and restore
/// it first; while another run holds the lock, the journal is that run's own and presync does
/// not wait for it (the switch starts the unit, whose presync runs, while it holds the lock).
#[test]
fn regression_presync_in_sync_skipped_an_interrupted_journal() {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/openclaw"), &root);
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let synced = snapshot(&root);

    // Another command killed like a power cut, after its first write.
    let out = osctl(&root)
        .args(["migrate", "--from", "openclaw", "--to", "hermes"])
        .env("OSCTL_FAULT", "abort-write:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    assert!(restorable_journal(&root));
    assert_ne!(snapshot(&root), synced, "the killed run wrote something");

    // While another run holds the lock, the journal is its own: presync does not wait.
    {
        let fs = osctl::system::fs::RootFs::new(&root).unwrap();
        let _held = osctl::apply::lock::DeviceLock::acquire(&fs, Duration::ZERO).unwrap();
        let started = Instant::now();
        let out = osctl(&root)
            .args(["--lock-timeout", "5", "presync"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "presync waited for the lock"
        );
        assert!(
            restorable_journal(&root),
            "the holder's journal is not touched"
        );
    }

    // With the lock free, presync restores the interrupted run before anything else.
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("left by an interrupted run"),
        "{}",
        text(&out)
    );
    assert!(journals(&root).is_empty(), "the journal was left behind");
    let after = snapshot(&root);
    assert_eq!(after, synced, "{}", describe_diff(&synced, &after));
}

/// Runs osctl on a fresh copy of a sample device after `plant` changed it; returns the run and
/// whether the tree is byte-identical afterwards (the lock file aside) with no journal left.
fn refused_unchanged(
    device: &str,
    plant: &dyn Fn(&std::path::Path),
    args: &[&str],
) -> (std::process::Output, bool) {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join(device), &root);
    plant(&root);
    let before = snapshot(&root);
    let out = osctl(&root).args(args).output().unwrap();
    let same = snapshot(&root) == before && journals(&root).is_empty();
    (out, same)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Found by the bad-input suite: a command-line argument that is not UTF-8 (`osctl switch
/// $'open\xffclaw'`) panicked (exit 101): the journal and the lock recorded the command line
/// with `std::env::args()`, which panics on such an argument. It is now an unknown runtime
/// named on the command line (usage, exit 2) like any other name.
#[test]
fn regression_invalid_utf8_argument_panicked() {
    use std::os::unix::ffi::OsStrExt;
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/openclaw"), &root);
    let before = snapshot(&root);
    let out = osctl(&root)
        .arg("switch")
        .arg(std::ffi::OsStr::from_bytes(b"open\xffclaw"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("is not a runtime"), "{}", text(&out));
    assert_eq!(snapshot(&root), before);
}

/// Found by the bad-input suite: a native JSON file whose top level is not an object (an
/// openclaw.json holding `[1, 2]`) was replaced by a whole new object on the first edit, so
/// presync overwrote the user's file and exited 0. It is now a parse error naming the file.
#[test]
fn regression_native_json_array_replaced_by_an_object() {
    for (device, file) in [
        ("examples/presync/openclaw", "root/.openclaw/openclaw.json"),
        ("examples/presync/picoclaw", "root/.picoclaw/config.json"),
        (
            "examples/presync/opencode",
            "root/.config/opencode/opencode.json",
        ),
        ("examples/presync/claudecode", "root/.claude/settings.json"),
    ] {
        let (out, same) = refused_unchanged(
            device,
            &|root| write(root, file, b"[1, 2]\n", 0o644),
            &["presync"],
        );
        assert_eq!(out.status.code(), Some(1), "{device}: {}", text(&out));
        assert!(
            stderr(&out).contains(&format!("/{file}:1")),
            "{device}: {}",
            text(&out)
        );
        assert!(same, "{device}: the tree changed");
    }
}

/// Found by the bad-input suite: agent_state.json holding `[]` (serde reads a struct from an
/// array) or an unknown key nested past serde_json's depth limit (skipped unchecked) was taken
/// for an empty history, and the persona reconciler overwrote it with a new baseline. Both are
/// now parse errors naming the file and line, and the file is left alone.
#[test]
fn regression_agent_state_array_taken_for_empty_history() {
    let deep = format!("{{\"a\": {}{}}}\n", "[".repeat(10_000), "]".repeat(10_000));
    for (what, content) in [("array", "[]\n".to_string()), ("deep", deep)] {
        let (out, same) = refused_unchanged(
            "examples/presync/openclaw",
            &|root| {
                write(
                    root,
                    "root/config/agent_state.json",
                    content.as_bytes(),
                    0o644,
                )
            },
            &["reconcile", "--only", "persona"],
        );
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out));
        assert!(
            stderr(&out).contains("/root/config/agent_state.json:1"),
            "{what}: {}",
            text(&out)
        );
        assert!(same, "{what}: the tree changed");
    }
}

/// Found by the bad-input suite: a NUL byte in a `.env` value was read as part of the value
/// and the line kept, although systemd, sh and python-dotenv read it three different ways
/// (and osctl already refused to write one). Reading one is now a parse error naming the line.
#[test]
fn regression_dotenv_nul_byte_was_read() {
    let (out, same) = refused_unchanged(
        "examples/presync/hermes",
        &|root| write(root, "root/.hermes/.env", b"A=1\nB=x\0y\n", 0o600),
        &["presync"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("/root/.hermes/.env:2"),
        "{}",
        text(&out)
    );
    assert!(same, "the tree changed");
}

/// Found by the bad-input suite: serde_json reports an error at a line's end (a string left
/// open) as column 0 of the next line, so the error named the wrong line.
#[test]
fn regression_json_error_named_the_next_line() {
    let (out, same) = refused_unchanged(
        "examples/presync/openclaw",
        &|root| {
            write(
                root,
                "root/config/config.json",
                b"{\n  \"agent_runtime\": \"openclaw\n}\n",
                0o644,
            )
        },
        &["presync"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("/root/config/config.json:2"),
        "{}",
        text(&out)
    );
    assert!(same);
}

/// Found by the bad-input suite: a `device_type` that climbs out of /opt/devices was refused
/// without naming config.json, where the value is fixed.
#[test]
fn regression_bad_device_type_did_not_name_config_json() {
    let (out, same) = refused_unchanged(
        "examples/presync/openclaw",
        &|root| {
            write(
                root,
                "root/config/config.json",
                b"{\"agent_runtime\": \"openclaw\", \"device_type\": \"../../etc\"}\n",
                0o644,
            )
        },
        &["presync"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("device_type in /root/config/config.json"),
        "{}",
        text(&out)
    );
    assert!(same);
}

/// A stored zip of `entries` (name bytes, content), written by hand so that names the zip
/// crate's writer would refuse (a NUL) or dedupe (a duplicate) reach the reader as they are.
fn raw_zip(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let mut head = Vec::new();
        head.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]); // version, flags, stored, time
        head.extend_from_slice(&crc.to_le_bytes());
        head.extend_from_slice(&(data.len() as u32).to_le_bytes());
        head.extend_from_slice(&(data.len() as u32).to_le_bytes());
        head.extend_from_slice(&(name.len() as u16).to_le_bytes());
        head.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&head);
        out.extend_from_slice(name);
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&[20, 3]);
        central.extend_from_slice(&head);
        central.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // comment, disk, internal attrs
        central.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Found by the bad-input suite: the zip reader cuts an entry name at its first NUL, so a
/// skill entry `nul\0name` was installed as `nul`, unrefused.
#[test]
fn regression_zip_entry_name_cut_at_nul() {
    use osctl::skills::archive;
    let good = raw_zip(&[(b"SKILL.md", b"# a\n")]);
    assert!(
        archive::unpack(&good, 1 << 20).is_ok(),
        "the hand-made zip reads"
    );
    let zip = raw_zip(&[(b"SKILL.md", b"# a\n"), (b"nul\0name", b"x\n")]);
    let refusal = archive::unpack(&zip, 1 << 20).unwrap_err();
    assert_eq!(refusal.code, "unsafe_path", "{refusal:?}");
    assert!(refusal.message.contains("NUL"), "{refusal:?}");
}

/// Found by the bad-input suite: the zip reader keeps one entry per name, so a skill zip
/// naming `SKILL.md` twice was installed with one of the two, although the unpacker promises
/// to refuse duplicates.
#[test]
fn regression_zip_duplicate_entry_was_installed() {
    use osctl::skills::archive;
    let zip = raw_zip(&[(b"SKILL.md", b"# a\n"), (b"SKILL.md", b"# twice\n")]);
    let refusal = archive::unpack(&zip, 1 << 20).unwrap_err();
    assert_eq!(refusal.code, "unsafe_path", "{refusal:?}");
}

/// Found by the bad-input suite: a skills metadata URL from bootstrap.json that cannot be
/// fetched (`ftp://…`) was reported without naming bootstrap.json, where it is fixed.
#[test]
fn regression_metadata_url_error_did_not_name_bootstrap_json() {
    let (out, same) = refused_unchanged(
        "examples/presync/openclaw",
        &|root| {
            write(
                root,
                "root/config/bootstrap.json",
                b"{\"metadata_url\": \"ftp://example.invalid/m.json\"}\n",
                0o644,
            )
        },
        &["skills", "sync"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("/root/config/bootstrap.json"),
        "{}",
        text(&out)
    );
    assert!(same);
}

/// Found by the secrets audit: a `.env` line with no `=` (often a token pasted on a line of
/// its own) was quoted whole in the parse error, showing the secret on stderr and in `--json`.
#[test]
fn regression_dotenv_error_quoted_a_pasted_secret() {
    let secret = "plPastedSecretValue0123456789abcd";
    let (out, same) = refused_unchanged(
        "examples/presync/hermes",
        &|root| {
            write(
                root,
                "root/.hermes/.env",
                format!("A=1\n{secret}\n").as_bytes(),
                0o600,
            )
        },
        &["--json", "presync"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains("/root/.hermes/.env:2"),
        "{}",
        text(&out)
    );
    assert!(
        !text(&out).contains(&secret[3..secret.len() - 4]),
        "{}",
        text(&out)
    );
    assert!(same);
}

/// Found by the secrets audit: a file osctl rewrote kept its mode even when it held a secret:
/// codex's config.toml with a user's MCP bearer header (or config.json, with the LLM key,
/// rewritten by a switch) stayed world-readable at 0644. New content that holds a secret is now
/// written without group and other bits; content osctl leaves alone keeps its mode.
#[test]
fn regression_secret_file_written_world_readable() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/codex"), &root);
    let rel = "root/.codex/config.toml";
    let mut toml = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
    toml.push_str(
        "\n[mcp_servers.tools]\nurl = \"https://mcp.example.invalid/t\"\n\
         http_headers = { Authorization = \"Bearer plHeaderSecret0123456789abcdef\" }\n",
    );
    write(&root, rel, toml.as_bytes(), 0o644);
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let after = std::fs::read_to_string(root.join(rel)).unwrap();
    assert_ne!(
        after, toml,
        "presync rewrote config.toml (the case needs it to)"
    );
    assert!(
        after.contains("plHeaderSecret0123456789abcdef"),
        "the header is kept"
    );
    let mode = std::fs::metadata(root.join(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "config.toml holds a bearer token");
}

/// Found by the secrets audit: the journal folder was created 0755 and a removed file is moved
/// into it with its own mode, so a reset killed mid-way left a 0644 copy of a secret file
/// (claudecode's `.mcp.json`, say) readable by every user. The journal is now 0700.
#[test]
fn regression_journal_was_world_readable() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/openclaw"), &root);
    let out = osctl(&root)
        .args(["migrate", "--from", "openclaw", "--to", "hermes"])
        .env("OSCTL_FAULT", "abort-write:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    let ids = journals(&root);
    assert_eq!(ids.len(), 1, "one journal left: {ids:?}");
    let dir = root.join("var/lib/osctl/journal").join(&ids[0]);
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the journal folder");
}

/// Found by the concurrency suite: with `mcp add` and `presync` running at once, an MCP server
/// that `mcp add` reported added was missing at the end. presync plans without the lock, and
/// apply re-checks each file against the plan's `before`, but the draft took `before` from the
/// disk at the time of the write, not from what the planner had read: a file rewritten between
/// the read and the write passed the check and the stale content overwrote the other run's
/// change. A draft now remembers what it first read of each path and refuses a write over a
/// path that has changed since.
#[test]
fn regression_presync_plan_overwrote_a_concurrent_mcp_add() {
    use osctl::plan::{Draft, Step};
    use osctl::{path::DevPath, system::fs::RootFs};
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    write(&root, "root/.hermes/config.yaml", b"a: 1\n", 0o644);
    let fs = RootFs::new(&root).unwrap();
    let path = DevPath::new("/root/.hermes/config.yaml");
    let mut draft = Draft::new(&fs);
    let read = draft.read_text(&path).unwrap().unwrap();
    // Another run (holding the lock) adds its entry after this planner read the file...
    write(
        &root,
        "root/.hermes/config.yaml",
        b"a: 1\nmcp: added\n",
        0o644,
    );
    // ...and the planner writes what it made of its own read: refused, the file is not the
    // one it read.
    let err = draft
        .write(&path, format!("{read}b: 2\n"), None, "test")
        .unwrap_err();
    assert_eq!(err.code, "changed_underfoot", "{err}");
    assert!(draft.finish().is_empty());
    // A change after the plan was made is caught by apply's own re-check.
    let mut draft = Draft::new(&fs);
    let read = draft.read_text(&path).unwrap().unwrap();
    draft
        .write(&path, format!("{read}b: 2\n"), None, "test")
        .unwrap();
    let plan = draft.finish();
    write(&root, "root/.hermes/config.yaml", b"a: 3\n", 0o644);
    assert!(
        matches!(plan.steps.as_slice(), [Step::File(_)]),
        "one file step: {:?}",
        plan.steps.len()
    );
    let services = osctl::system::services::Services::Offline;
    let out = osctl::output::Printer::new(false, true, 0, osctl::output::ColorChoice::Never, true);
    let target = osctl::apply::Target {
        fs: &fs,
        services: &services,
        out: &out,
        command: "test",
    };
    let err = osctl::apply::apply(&target, &plan).unwrap_err();
    assert_eq!(err.code, "changed_underfoot", "{err}");
    assert_eq!(
        std::fs::read_to_string(root.join("root/.hermes/config.yaml")).unwrap(),
        "a: 3\n",
        "the other run's change is kept"
    );
}

/// Found by the crash suite: a run killed inside an atomic write, after the synced new file was
/// linked as `.<name>.XXXXXX` and before it was renamed over `<name>` (here `channel add discord`
/// on openclaw, at `.openclaw.json.oxJGoq`), left that file for good: the next run restored the
/// journal but the temporary stayed next to the runtime's config. Restoring a journal now removes
/// such temporaries of every path it lists (and nothing else). osctl's own atomic write names its
/// temporary `.<name>.osctl-tmp` now; the crate's `.<name>.XXXXXX` pattern also matched a user's
/// `.<name>.backup`, which the old sweep would have removed.
#[test]
fn regression_killed_atomic_write_left_its_temporary() {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/openclaw"), &root);
    let out = osctl(&root)
        .args(["migrate", "--from", "openclaw", "--to", "hermes"])
        .env("OSCTL_FAULT", "abort-write:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "aborted: {}", text(&out));
    // A file the journal lists, and a temporary of it as the kill leaves it.
    let id = &journals(&root)[0];
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            root.join("var/lib/osctl/journal")
                .join(id)
                .join("manifest.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let path = manifest["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_string())
        .find(|p| root.join(p.trim_start_matches('/')).is_file())
        .expect("a journaled file");
    let (dir, name) = path.rsplit_once('/').unwrap();
    let temp = format!("{}/.{name}.osctl-tmp", dir.trim_start_matches('/'));
    let keep = format!("{}/.{name}.backup", dir.trim_start_matches('/'));
    write(&root, &temp, b"the new content\n", 0o600);
    write(&root, &keep, b"the owner's own file\n", 0o644);
    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("left by an interrupted run"),
        "{}",
        text(&out)
    );
    assert!(!root.join(&temp).exists(), "{temp} was left");
    assert!(root.join(&keep).exists(), "{keep} is not a temporary");
}

/// Found by the crash suite (CI, seed 1796292930997990117): a presync killed after its journal
/// was marked done, while it removed it, left the finished journal (with the originals it saved)
/// on disk; the next presync was in sync, took no lock, and so never removed it, boot after
/// boot. Now a finished journal on disk makes presync take the lock, which removes it.
/// (`fail-cleanup` leaves the same state as that kill: the run succeeds, its journal stays.)
#[test]
fn regression_presync_in_sync_left_a_finished_journal_on_disk() {
    let sandbox = sandbox();
    let root = sandbox.path().join("device");
    copy_tree(&repo().join("examples/presync/claudecode"), &root);
    let out = osctl(&root)
        .arg("presync")
        .env("OSCTL_FAULT", "fail-cleanup")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(journals(&root).len(), 1, "the finished journal stays");
    assert!(!restorable_journal(&root), "it is finished, never restored");
    let synced = snapshot(&root);

    let out = osctl(&root).arg("presync").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(journals(&root), Vec::<String>::new(), "{}", text(&out));
    assert_eq!(snapshot(&root), synced, "nothing else changed");
}
