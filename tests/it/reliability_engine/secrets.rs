//! Secrets in the lock and the journal: none reaches the lock note, the journal or any output,
//! an old note with secrets is emptied, and a command line is masked flag by flag.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{device, mode, names, state, stderr};
use crate::reliability_support::*;

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
    // A killed run with every secret flag its runtime takes, its journal left on disk: hermes
    // takes Slack's socket mode (the app token), openclaw its HTTP mode (the signing secret).
    let openclaw = scratch.path().join("openclaw-device");
    copy_tree(&repo().join("tests/cli/channel/_openclaw"), &openclaw);
    let killed_runs: [(&Path, &[&str]); 2] = [
        (&root, &["--app-token", secrets[1]]),
        (&openclaw, &["--signing-secret", secrets[2]]),
    ];
    for (device, mode_flags) in killed_runs {
        let mut killed = osctl(device);
        killed
            .args(["channel", "add", "slack", "--token", secrets[0]])
            .args(mode_flags)
            .env("OSCTL_FAULT", "abort-write:1");
        let out = killed.output().unwrap();
        outputs.push((format!("killed channel add {mode_flags:?}"), text(&out)));
        let journal = state(device).join("journal");
        assert!(
            !names(&journal).is_empty(),
            "the killed run left no journal: {}",
            text(&out)
        );
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
            let out = osctl(device).args(args).output().unwrap();
            outputs.push((format!("{args:?}"), text(&out)));
        }
        let restored = &outputs.last().unwrap().1;
        assert!(
            restored.contains("left by an interrupted run"),
            "{restored}"
        );
    }
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
