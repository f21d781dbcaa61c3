//! Regressions of the owner's persona, each through the real binary on a device tree: the
//! boot-path presync that discarded the owner's soul, the USER.md template that migration
//! flattened, the stale identity placeholder, the overflow that kept the oldest memories,
//! `--no-overwrite` that still wrote, and backups that widened permissions.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::reliability_support::*;

const HERMES_SOUL: &str = "root/.hermes/SOUL.md";
const OPENCLAW_WS: &str = "root/.openclaw/workspace";

fn run(root: &Path, args: &[&str]) -> String {
    let out = osctl(root).args(args).output().unwrap();
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{shown}");
    shown
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The files in `dir` whose name starts with `prefix`.
fn named(dir: &Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn config(root: &Path, active: &str) {
    write(
        root,
        "root/config/config.json",
        format!("{{\n  \"agent_runtime\": \"{active}\",\n  \"device_type\": \"lamp\"\n}}\n")
            .as_bytes(),
        0o644,
    );
}

#[test]
fn regression_backup_widened_permissions() {
    let dir = sandbox();
    let root = dir.path();
    config(root, "hermes");
    write(
        root,
        &format!("{OPENCLAW_WS}/USER.md"),
        b"- **Name:** Ngan\n- Ngan likes tea.\n",
        0o644,
    );
    // The destination's files are private (and one holds a token): their copies must be too.
    write(
        root,
        "root/.hermes/memories/USER.md",
        b"**Name:** Leo\n\xc2\xa7\nLeo plays chess.\n",
        0o600,
    );
    write(
        root,
        "root/.hermes/memories/MEMORY.md",
        b"The desk faces the window.\n",
        0o640,
    );
    write(
        root,
        &format!("{OPENCLAW_WS}/MEMORY.md"),
        b"- Ngan wakes up at 6:30.\n",
        0o644,
    );
    run(root, &["migrate", "--from", "openclaw", "--to", "hermes"]);
    let memories = root.join("root/.hermes/memories");
    let user = named(&memories, "USER.md.bak-");
    let memory = named(&memories, "MEMORY.md.bak-");
    assert_eq!(user.len(), 1, "{user:?}");
    assert_eq!(memory.len(), 1, "{memory:?}");
    assert_eq!(mode(&user[0]), 0o600, "USER.md backup");
    assert_eq!(mode(&memory[0]), 0o640, "MEMORY.md backup");
    assert_eq!(
        std::fs::read(&user[0]).unwrap(),
        b"**Name:** Leo\n\xc2\xa7\nLeo plays chess.\n"
    );
    // The files themselves keep their modes.
    assert_eq!(mode(&memories.join("USER.md")), 0o600);
    assert_eq!(mode(&memories.join("MEMORY.md")), 0o640);
}

#[test]
fn regression_identity_kept_stale_placeholder() {
    let dir = sandbox();
    let root = dir.path();
    config(root, "openclaw");
    write(
        root,
        HERMES_SOUL,
        "You are Lumi, a friendly lamp.\n\n## Your identity card\n\nYour owner set this — it \
         overrides any default name or vibe above.\n\n- **Name:** Lumi\n- **Vibe:** warm\n"
            .as_bytes(),
        0o644,
    );
    // The owner had typed the name already; the template's hint stayed under it.
    let identity = format!("{OPENCLAW_WS}/IDENTITY.md");
    write(
        root,
        &identity,
        b"# IDENTITY.md - Who Am I?\n\n- **Name:** Lumi\n  _(pick something you like)_\n- **Vibe:**\n  _(how do you come across?)_\n",
        0o644,
    );
    run(root, &["migrate", "--from", "hermes", "--to", "openclaw"]);
    assert_eq!(
        read(root, &identity),
        "# IDENTITY.md - Who Am I?\n\n- **Name:** Lumi\n- **Vibe:** warm\n"
    );
    // and a second run has nothing left to do there
    let second = run(root, &["migrate", "--from", "hermes", "--to", "openclaw"]);
    assert!(second.contains("identity        skipped"), "{second}");
}

#[test]
fn regression_no_overwrite_appended_identity_card() {
    let dir = sandbox();
    let root = dir.path();
    config(root, "hermes");
    write(
        root,
        &format!("{OPENCLAW_WS}/SOUL.md"),
        b"You are Lumi, a friendly lamp.\n",
        0o644,
    );
    write(
        root,
        &format!("{OPENCLAW_WS}/IDENTITY.md"),
        b"- **Name:** Lumi\n- **Vibe:** warm\n",
        0o644,
    );
    let kept = b"You are Pip, the owner's own hermes persona.\n";
    write(root, HERMES_SOUL, kept, 0o600);
    let out = run(
        root,
        &[
            "migrate",
            "--from",
            "openclaw",
            "--to",
            "hermes",
            "--no-overwrite",
        ],
    );
    assert_eq!(std::fs::read(root.join(HERMES_SOUL)).unwrap(), kept);
    assert_eq!(mode(&root.join(HERMES_SOUL)), 0o600);
    assert!(named(&root.join("root/.hermes"), "SOUL.md.bak-").is_empty());
    assert!(out.contains("soul            conflict"), "{out}");
    assert!(out.contains("identity-inline conflict"), "{out}");
}

/// `YYYY-MM-DD` of a day count since 1970-01-01 (Howard Hinnant's civil_from_days).
fn date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[test]
fn regression_overflow_kept_the_oldest_memories() {
    let dir = sandbox();
    let root = dir.path();
    config(root, "hermes");
    // 5,000 daily notes, one a day from 2012-01-01 (15340 days after the epoch).
    let first = 15_340;
    assert_eq!(date(first), "2012-01-01");
    for i in 0..5_000 {
        let day = date(first + i);
        write(
            root,
            &format!("{OPENCLAW_WS}/memory/{day}.md"),
            format!("- on {day} the owner asked for warm light\n").as_bytes(),
            0o644,
        );
    }
    let newest = date(first + 4_999);
    let out = run(root, &["migrate", "--from", "openclaw", "--to", "hermes"]);
    let memory = read(root, "root/.hermes/memories/MEMORY.md");
    assert!(
        memory.contains(&format!("on {newest} the owner")),
        "{memory}"
    );
    assert!(
        !memory.contains("on 2012-"),
        "the oldest notes were kept:\n{memory}"
    );
    // what is kept is the most recent run of days, newest first
    let kept: Vec<&str> = memory.split("\n§\n").collect();
    assert_eq!(
        kept[0],
        format!("on {newest} the owner asked for warm light")
    );
    let n = kept.len() as i64;
    assert_eq!(
        kept.last().unwrap().trim(),
        format!(
            "on {} the owner asked for warm light",
            date(first + 5_000 - n)
        )
    );
    // the text report says how many were dropped and from which dates
    let dropped = 5_000 - n;
    let oldest_kept_gone = date(first + 5_000 - n - 1);
    let want = format!(
        "{dropped} entries do not fit the 2200-code-point limit and are not carried: {dropped} \
         from the daily notes of 2012-01-01 to {oldest_kept_gone} ({dropped} days)"
    );
    assert!(out.contains(&want), "{want}\n{out}");
}

/// openclaw's USER.md template as a workspace holds it (2026.2.9 to 2026.4.15), with a
/// `## Related` section of links.
const USER_TEMPLATE: &str = "# USER.md - About Your Human\n\n\
    _Learn about the person you're helping. Update this as you go._\n\n\
    - **Name:**\n- **What to call them:**\n- **Pronouns:** _(optional)_\n- **Timezone:**\n\
    - **Notes:**\n\n## Context\n\n\
    _(What do they care about? What projects are they working on? What annoys them? What makes \
    them laugh? Build this over time.)_\n\n---\n\n\
    The more you know, the better you can help. But remember — you're learning about a person, \
    not building a dossier. Respect the difference.\n\n## Related\n\n- [[IDENTITY]]\n- [[SOUL]]\n";

#[test]
fn regression_user_template_rewritten() {
    let dir = sandbox();
    let root = dir.path();
    config(root, "codex");
    write(
        root,
        &format!("{OPENCLAW_WS}/USER.md"),
        "# USER.md - About Your Human\n\n- **Name:** Nguyễn Thị Ngân\n- **What to call them:** Ngân\n\
         - **Timezone:** Asia/Ho_Chi_Minh\n\n## Context\n\nNgân is learning the guitar.\n"
            .as_bytes(),
        0o644,
    );
    let dest = "root/.codex/workspace/USER.md";
    write(root, dest, USER_TEMPLATE.as_bytes(), 0o644);
    run(root, &["migrate", "--from", "openclaw", "--to", "codex"]);
    let out = read(root, dest);
    let want = USER_TEMPLATE
        .replace("- **Name:**\n", "- **Name:** Nguyễn Thị Ngân\n")
        .replace(
            "- **What to call them:**\n",
            "- **What to call them:** Ngân\n",
        )
        .replace("- **Timezone:**\n", "- **Timezone:** Asia/Ho_Chi_Minh\n")
        .replace(
            "Respect the difference.\n",
            "Respect the difference.\n\n- Ngân is learning the guitar.\n",
        );
    assert_eq!(out, want);
    // the backup holds the template as it was
    let backups = named(&root.join("root/.codex/workspace"), "USER.md.bak-");
    assert_eq!(std::fs::read_to_string(&backups[0]).unwrap(), USER_TEMPLATE);
    let second = run(root, &["migrate", "--from", "openclaw", "--to", "codex"]);
    assert!(second.contains("user-profile    skipped"), "{second}");
    assert_eq!(read(root, dest), want);
}

/// A copy of the sample device.
fn sample_device(root: &Path) {
    copy_tree(&repo().join("examples/device"), root);
}

#[test]
fn regression_presync_discarded_owner_soul() {
    let dir = sandbox();
    let root = dir.path();
    sample_device(root);
    let soul = format!("{OPENCLAW_WS}/SOUL.md");
    assert!(read(root, &soul).starts_with("# Soul\n"));
    run(root, &["presync", "openclaw"]);
    let out = read(root, &soul);
    assert!(out.contains("You are Lumi, a friendly lamp."), "{out}");
    assert!(
        out.starts_with("<!-- OS DO NOT REMOVE -->\nYou are a desk lamp."),
        "{out}"
    );
    // nothing of the owner's went, so there is nothing to back up
    assert!(named(&root.join(OPENCLAW_WS), "SOUL.md.bak-").is_empty());
    // and the boot path's second run is quiet
    let again = run(root, &["presync", "openclaw"]);
    assert!(again.contains("nothing to do"), "{again}");
}

#[test]
fn regression_presync_discarded_migrated_persona() {
    // A switch openclaw → hermes migrates the persona; hermes' ExecStartPre= presync then ran
    // upstream's heading test on it and deleted it with its identity card.
    let dir = sandbox();
    let root = dir.path();
    sample_device(root);
    run(root, &["migrate", "--from", "openclaw", "--to", "hermes"]);
    let migrated = read(root, HERMES_SOUL);
    assert!(
        migrated.contains("You are Lumi, a friendly lamp."),
        "{migrated}"
    );
    assert!(migrated.contains("## Your identity card"), "{migrated}");
    run(root, &["presync", "hermes"]);
    let out = read(root, HERMES_SOUL);
    assert!(
        out.starts_with("<!-- OS DO NOT REMOVE -->\nYou are a desk lamp."),
        "{out}"
    );
    for kept in [
        "# Soul",
        "You are Lumi, a friendly lamp.",
        "## Your identity card",
        "- **Name:** Lumi",
        "- **Vibe:** warm",
    ] {
        assert!(out.contains(kept), "{kept:?} lost:\n{out}");
    }
    let again = run(root, &["presync", "hermes"]);
    assert!(again.contains("nothing to do"), "{again}");
}

#[test]
fn presync_backs_up_the_owners_text_below_a_broken_block() {
    let dir = sandbox();
    let root = dir.path();
    sample_device(root);
    let soul = format!("{OPENCLAW_WS}/SOUL.md");
    // the block's `---` end line was deleted: the block runs to the end of the file
    let broken = "<!-- OS DO NOT REMOVE -->\nan old device soul\n\nMy own notes.\n";
    write(root, &soul, broken.as_bytes(), 0o600);
    run(root, &["presync", "openclaw"]);
    let backups = named(&root.join(OPENCLAW_WS), "SOUL.md.bak-");
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(std::fs::read_to_string(&backups[0]).unwrap(), broken);
    assert_eq!(mode(&backups[0]), 0o600);
    // a stock default discarded is not the owner's: no backup for it
    let stock = include_str!("../../embedded/souls/openclaw-2026.9.6.md");
    let dir = sandbox();
    let root = dir.path();
    sample_device(root);
    write(
        root,
        &soul,
        format!("{stock}\n## Personal\n\nTea.\n").as_bytes(),
        0o644,
    );
    run(root, &["presync", "openclaw"]);
    assert_eq!(
        read(root, &soul),
        "<!-- OS DO NOT REMOVE -->\nYou are a desk lamp. You speak briefly, you light the way, and \
         you never pretend to be a person.\n---\n\n## Personal\n\nTea.\n"
    );
    assert!(named(&root.join(OPENCLAW_WS), "SOUL.md.bak-").is_empty());
}
