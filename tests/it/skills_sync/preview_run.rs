//! Preview = run for `osctl skills sync`: the `-v --dry-run` diff, replayed on a copy of the
//! device (`support/patch.rs`), gives byte for byte the tree the run leaves, skills folders and
//! state file included, for a first install and for an update that adds, changes and drops
//! files; and both name each skill with the same file count.

use super::*;
use crate::support::patch;

use std::path::Path;
use std::process::Command;

/// Previews a sync on a copy of `dev`, runs it on `dev`, and compares; the preview's and the
/// run's status lines.
fn preview_then_run(dev: &Device) -> (String, String) {
    let copy = tempfile::tempdir().unwrap();
    let replay = copy.path().join("device");
    let cp = Command::new("cp")
        .arg("-a")
        .arg(dev.root())
        .arg(&replay)
        .output()
        .unwrap();
    assert!(
        cp.status.success(),
        "{}",
        String::from_utf8_lossy(&cp.stderr)
    );
    let preview = dev.osctl(&["-v", "--dry-run", "skills", "sync"]);
    assert_eq!(preview.status.code(), Some(0), "{}", stderr(&preview));
    let diff = String::from_utf8_lossy(&preview.stdout).into_owned();
    let run = dev.osctl(&["skills", "sync"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let problems = patch::replay_differences(&replay, &diff, Path::new(dev.root()))
        .unwrap_or_else(|e| panic!("{e}\n{diff}"));
    assert!(
        problems.is_empty(),
        "the preview shows another change than the run makes:\n{}\n--- preview:\n{diff}\n{}",
        problems.join("\n"),
        stderr(&preview)
    );
    (stderr(&preview), stderr(&run))
}

#[test]
fn a_dry_run_shows_every_file_the_run_installs_and_updates() {
    let mut cdn = Cdn::new(false);
    publish_standard(&mut cdn);
    let dev = Device::new(&cdn.server, LAMP, None);
    let (preview, run) = preview_then_run(&dev);
    for line in ["install audio (", "install dance (", "install lamp-extra ("] {
        assert!(preview.contains(&format!("would {line}")), "{preview}");
        assert!(run.contains(line), "{run}");
    }
    assert!(
        preview.contains(", 2 files)") && run.contains(", 2 files)"),
        "{preview}\n{run}"
    );
    assert!(
        dev.path("root/.openclaw/workspace/skills/audio/scripts/play.py")
            .is_file(),
        "the run installed the skill"
    );

    // audio v2 drops scripts/ and changes SKILL.md; dance gains a file; an installed file's mode
    // was changed by hand (the swap gives it 0644 again).
    cdn.publish("audio", &[("SKILL.md", b"# Audio v2\n")]);
    cdn.publish(
        "dance",
        &[
            ("SKILL.md", b"# Dance\n"),
            ("steps/one.md", b"left, right\n"),
        ],
    );
    let dance = dev.path("root/.openclaw/workspace/skills/dance/SKILL.md");
    std::fs::set_permissions(&dance, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (preview, run) = preview_then_run(&dev);
    assert!(
        preview.contains("would update audio (") && preview.contains(", 1 file)"),
        "{preview}"
    );
    assert!(run.contains("update dance ("), "{run}");
    assert!(
        !dev.path("root/.openclaw/workspace/skills/audio/scripts")
            .exists()
    );
}
