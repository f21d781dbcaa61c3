//! The lifecycle suite: seeded, shrinking, model-based walks of a device's whole life through
//! the real osctl binary.
//!
//! Each life starts from a real tree (`examples/device`, the reset golden devices that went
//! through all six runtimes, the channel and MCP golden devices, and devices whose config.json or
//! ROBOT.md holds a key of the wrong type: `lifecycle_support/wrong_type.rs`) and walks 5-30 operations:
//! provision (the app writes config.json for a new owner), boot (the units restart; then
//! `osctl reconcile` and `osctl presync`), `switch` to any runtime under a stateful fake systemd
//! (`tests/support/fake-systemd`: units outlive their files, `try-restart`, start limits, crash
//! loops; sometimes the new unit dies, fails, crash-loops or the old one will not stop), channel
//! and MCP add/remove, `migrate`, `skills sync` against a loopback CDN that publishes new
//! versions, `reset --yes`, a runtime editing its own file, the owner writing into the persona,
//! a crash (the debug build's `OSCTL_FAULT=abort-write:N`, a SIGKILL after a random delay, or a
//! SIGKILL at a service action) followed by the next command, and a FIFO planted in place of a
//! file osctl reads (config.json, ROBOT.md, a runtime's config or SOUL.md). After every step (`tests/it/lifecycle_support/` has each check):
//!
//! - **operable**: `status`, `presync --check`, `mcp list`, `channel list`, `skills list`,
//!   `reconcile --dry-run` and `switch --dry-run` to each runtime exit 0 (3 for a check) or
//!   refuse with a clear message; never 101, never a hang (every run is bounded; a run blocked
//!   opening a FIFO is caught within a second). `status` after every step; every other probe
//!   after a reset; four drawn ones after the last step, three after a crash, a FIFO or a
//!   provision, one after the others (`OSCTL_LIFECYCLE_FULL=1`: all of them after every step);
//! - **preview = run**: the step's `--dry-run`, applied to the tree before it, equals the tree
//!   after it, and its service actions are the ones run; a refused run (exit 1) or a rolled back
//!   one (exit 4) leaves every file as it was;
//! - **convergence**: the same step again changes nothing, and `--check` after it exits 0;
//! - **a runtime's own edit survives** every later step (but a reset of that runtime);
//! - **the owner's text stays** in its file or a backup of it (until a reset);
//! - **crash**: after a kill, every file is wholly old or wholly new, and the next command
//!   leaves the device as it leaves the old or the new state, the new one when the killed
//!   command had completed its change;
//! - **model**: the channels config.json holds, the MCP servers `mcp add` added, as the model
//!   tracks them; after a boot, `agent_runtime` is not empty (seeded with the resolved default)
//!   unless nothing names a default (no `f_r_default_agent`, no ROBOT.md `gateway.default`);
//! - **independent steps**: a restart that fails in a reconcile does not undo the persona step,
//!   which needs none.
//!
//! `OSCTL_LIFECYCLE_CASES` (default 200) lives on `OSCTL_LIFECYCLE_THREADS` (default 2)
//! workers, each on tmpfs; `OSCTL_LIFECYCLE_SEED` to replay a run (the seed is printed; with
//! `CI=true` and no seed, the fixed [`CI_SEED`]),
//! `OSCTL_LIFECYCLE_ONLY=i` one life of it, `OSCTL_LIFECYCLE_MAX_LEN` (5-30, default 30),
//! `OSCTL_LIFECYCLE_STRICT=1` to fail on known open defects too, `OSCTL_LIFECYCLE_SURVEY=1` to
//! walk every life and print each distinct violation once (no shrinking, no failure),
//! `OSCTL_LIFECYCLE_REPLAY=FILE` for a sequence file (`replay_a_sequence_file`).
//! A new violation is shrunk and printed as a sequence file to keep under
//! `tests/lifecycle_support/cases/` (replayed by a `regression_*` test below).

use crate::reliability_support;
use crate::skills_support;

use std::time::Instant;

use crate::lifecycle_support::ops::{self, Sequence};
use crate::lifecycle_support::*;
use crate::reliability_support::{Rng, budget, figures, sandbox};

fn opts() -> Opts {
    Opts {
        full_operability: std::env::var("OSCTL_LIFECYCLE_FULL").is_ok_and(|v| v == "1"),
    }
}

fn strict() -> bool {
    std::env::var("OSCTL_LIFECYCLE_STRICT").is_ok_and(|v| v == "1")
}

/// The seed CI walks when none is given: CI's verdict is reproducible, and a red run names a
/// defect, not a draw. Anywhere else an unset seed is a fresh draw (the suite explores), and
/// what a draw finds is shrunk into `lifecycle_support/cases/` or `FOUND.md`.
const CI_SEED: u64 = 1796173874582573425;

fn lifecycle_seed() -> u64 {
    std::env::var("OSCTL_LIFECYCLE_SEED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .or_else(|| {
            std::env::var("CI")
                .is_ok_and(|v| v == "true")
                .then_some(CI_SEED)
        })
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        })
}

/// What one worker found: its figures, and the first new violation, shrunk.
struct Found {
    stats: Stats,
    failure: Option<String>,
    /// With `OSCTL_LIFECYCLE_SURVEY=1`: every distinct violation (by signature), with its first
    /// occurrence and the lives that showed it (how many lives of a draw a defect needs to be
    /// seen: the book's Tests chapter sizes CI's draw by it).
    survey: std::collections::BTreeMap<String, (String, Vec<u64>)>,
}

fn survey() -> bool {
    std::env::var("OSCTL_LIFECYCLE_SURVEY").is_ok_and(|v| v == "1")
}

fn worker(w: usize, lives: Vec<u64>, seed: u64, max_len: usize) -> Found {
    let tmp = sandbox();
    let base = worker_base(tmp.path(), w);
    let mut cdn = skills_support::Cdn::new(false);
    let opts = opts();
    let strict = strict();
    let mut stats = Stats::default();
    let mut surveyed = std::collections::BTreeMap::new();
    for i in lives {
        let s = mix(seed, i);
        let seq = ops::generate(&mut Rng(s), max_len);
        let (violations, st) = run_sequence(&base, &seq, &mut cdn, &opts, s);
        stats.add(&st);
        let new = new_violations(&violations, strict);
        if survey() {
            for v in &violations {
                let e = surveyed.entry(v.signature()).or_insert_with(|| {
                    (
                        format!(
                            "life {i}{}:\n{}\n{}",
                            known(v)
                                .map(|k| format!(" (known: {})", k.id))
                                .unwrap_or_default(),
                            indent(&seq.to_string()),
                            v.report()
                        ),
                        Vec::new(),
                    )
                });
                if e.1.last() != Some(&i) {
                    e.1.push(i);
                }
            }
            continue;
        }
        let Some(first) = new.first() else { continue };
        let signature = first.signature();
        let (shrunk, tries) = {
            let mut still = |cand: &Sequence| {
                let (v, _) = run_sequence(&base, cand, &mut cdn, &opts, s);
                new_violations(&v, strict)
                    .iter()
                    .any(|v| v.signature() == signature)
            };
            shrink(&seq, &mut still, 80)
        };
        let (v, _) = run_sequence(&base, &shrunk, &mut cdn, &opts, s);
        let shown: Vec<String> = new_violations(&v, strict)
            .iter()
            .filter(|v| v.signature() == signature)
            .take(1)
            .map(Violation::report)
            .collect();
        return Found {
            stats,
            survey: surveyed,
            failure: Some(format!(
                "life {i}: {signature}\n\
                 replay: OSCTL_LIFECYCLE_SEED={seed} OSCTL_LIFECYCLE_ONLY={i} cargo test --test it lifecycle::lifecycle_sequences\n\
                 original ({} operations):\n{}\n\
                 shrunk in {tries} replays to ({} operations; keep it as tests/lifecycle_support/cases/<what broke>.seq):\n{}\n{}\n\
                 all new violations of the original life:\n{}",
                seq.ops.len(),
                indent(&seq.to_string()),
                shrunk.ops.len(),
                indent(&shrunk.to_string()),
                shown.join("\n"),
                new.iter()
                    .map(Violation::report)
                    .collect::<Vec<_>>()
                    .join("\n")
            )),
        };
    }
    Found {
        stats,
        failure: None,
        survey: surveyed,
    }
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn lifecycle_sequences() {
    let seed = lifecycle_seed();
    let cases = budget("OSCTL_LIFECYCLE_CASES", 200);
    let threads = budget("OSCTL_LIFECYCLE_THREADS", 2).max(1) as usize;
    let max_len = budget("OSCTL_LIFECYCLE_MAX_LEN", 30).clamp(5, 30) as usize;
    let lives: Vec<u64> = match std::env::var("OSCTL_LIFECYCLE_ONLY")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(i) => vec![i],
        None => (0..cases).collect(),
    };
    eprintln!(
        "lifecycle: {} lives, OSCTL_LIFECYCLE_SEED={seed}{}",
        lives.len(),
        if strict() { " (strict)" } else { "" }
    );
    let started = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|w| {
            let mine: Vec<u64> = lives.iter().copied().skip(w).step_by(threads).collect();
            std::thread::spawn(move || worker(w, mine, seed, max_len))
        })
        .collect();
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    let mut surveyed: std::collections::BTreeMap<String, (String, Vec<u64>)> = Default::default();
    for h in handles {
        let f = h.join().unwrap();
        stats.add(&f.stats);
        failures.extend(f.failure);
        for (k, (ex, lives)) in f.survey {
            let e = surveyed.entry(k).or_insert((ex, Vec::new()));
            e.1.extend(lives);
        }
    }
    for (k, (ex, lives)) in &mut surveyed {
        lives.sort_unstable();
        let listed: Vec<String> = lives.iter().map(u64::to_string).collect();
        eprintln!(
            "=== {k}: in {} lives ({}); one:\n{ex}\n",
            lives.len(),
            listed.join(",")
        );
    }
    print_figures(&stats, started.elapsed().as_secs_f64(), seed);
    assert!(
        failures.is_empty(),
        "new violations (not on KNOWN_OPEN_DEFECTS):\n{}",
        failures.join("\n\n")
    );
}

fn print_figures(stats: &Stats, seconds: f64, seed: u64) {
    let join = |m: &std::collections::BTreeMap<String, usize>| {
        if m.is_empty() {
            "none".to_string()
        } else {
            m.iter()
                .map(|(k, v)| format!("{}:{v}", k.replace(' ', "/")))
                .collect::<Vec<_>>()
                .join(",")
        }
    };
    figures(
        "lifecycle",
        &[
            ("sequences", stats.sequences.to_string()),
            ("steps", stats.steps.to_string()),
            ("osctl_runs", stats.runs.to_string()),
            ("probes", stats.probes.to_string()),
            ("previews_compared", stats.previews_compared.to_string()),
            ("json_documents_validated", stats.documents.to_string()),
            ("convergence_checked", stats.convergence_checked.to_string()),
            (
                "crashes",
                format!(
                    "{}(mid_run:{},after_run:{})",
                    stats.crashes_mid_run + stats.crashes_after_run,
                    stats.crashes_mid_run,
                    stats.crashes_after_run
                ),
            ),
            ("crash_points", join(&stats.crash_points)),
            ("fifos", stats.fifos.to_string()),
            ("violations", join(&stats.violations)),
            ("known_open", join(&stats.known)),
            ("seconds", format!("{seconds:.1}")),
            ("seed", seed.to_string()),
        ],
    );
}

/// `OSCTL_LIFECYCLE_REPLAY=FILE`: one sequence file, every violation printed.
#[test]
fn replay_a_sequence_file() {
    let Ok(file) = std::env::var("OSCTL_LIFECYCLE_REPLAY") else {
        return;
    };
    let seq = Sequence::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let tmp = sandbox();
    let mut cdn = skills_support::Cdn::new(false);
    let (v, stats) = run_sequence(tmp.path(), &seq, &mut cdn, &opts(), 1);
    for x in &v {
        eprintln!(
            "{}{}",
            x.report(),
            known(x)
                .map(|k| format!("\n  (known open defect: {}: {})", k.id, k.defect))
                .unwrap_or_default()
        );
    }
    print_figures(&stats, 0.0, 0);
    let new = new_violations(&v, strict());
    assert!(new.is_empty(), "{} new violation(s)", new.len());
}

/// Replays a kept case (`tests/lifecycle_support/cases/NAME.seq`): no violation but the known
/// open defects; and while the defect the case names (`# defect: ID`) is on the known list, the
/// case must still show it (a case that stopped reproducing proves nothing: the fix landed, so
/// take the entry off the list).
fn replay_case(name: &str) {
    let path = reliability_support::repo()
        .join("tests/lifecycle_support/cases")
        .join(format!("{name}.seq"));
    let text = std::fs::read_to_string(&path).unwrap();
    let defect = text
        .lines()
        .find_map(|l| l.strip_prefix("# defect: "))
        .map(str::trim)
        .unwrap_or_else(|| panic!("{name}: no `# defect: ID` line"));
    let seq = Sequence::parse(&text).unwrap();
    let tmp = sandbox();
    let mut cdn = skills_support::Cdn::new(false);
    let (v, _) = run_sequence(tmp.path(), &seq, &mut cdn, &opts(), 1);
    let new = new_violations(&v, strict());
    assert!(
        new.is_empty(),
        "{name}: {}",
        new.iter()
            .map(Violation::report)
            .collect::<Vec<_>>()
            .join("\n")
    );
    if KNOWN_OPEN_DEFECTS.iter().any(|k| k.id == defect) {
        assert!(
            v.iter().any(|x| known(x).is_some_and(|k| k.id == defect)),
            "{name}: {defect} is on the known list but this case no longer shows it; if its fix \
             landed, remove the entry from KNOWN_OPEN_DEFECTS. Violations now: {:?}",
            v.iter().map(Violation::signature).collect::<Vec<_>>()
        );
    }
}

macro_rules! cases {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                replay_case($file);
            }
        )*
    };
}

// Shrunk lives the suite found, each named after what broke.
cases! {
    regression_reset_then_status_says_config_does_not_exist => "reset_then_status_says_config_does_not_exist",
    regression_reset_is_not_idempotent => "reset_is_not_idempotent",
    regression_empty_agent_runtime_not_seeded_at_boot => "empty_agent_runtime_not_seeded_at_boot",
    regression_completed_channel_add_undone_by_next_command => "completed_channel_add_undone_by_next_command",
    regression_switch_preview_disagrees_with_the_switch => "switch_preview_disagrees_with_the_switch",
    regression_failed_restart_undoes_every_reconcile_step => "failed_restart_undoes_every_reconcile_step",
    regression_fifo_in_place_of_config_json_hangs_status => "fifo_in_place_of_config_json_hangs_status",
    regression_presync_discards_owner_soul_opening_with_heading => "presync_discards_owner_soul_opening_with_heading",
    regression_killed_switch_restore_leaves_empty_folder => "killed_switch_restore_leaves_empty_folder",
    regression_rolled_back_switch_drops_interrupted_switch_record => "rolled_back_switch_drops_interrupted_switch_record",
    regression_interrupted_switch_without_its_old_unit_never_converges => "interrupted_switch_without_its_old_unit_never_converges",
    regression_killed_switch_then_reboot_leaves_both_runtimes_running => "killed_switch_then_reboot_leaves_both_runtimes_running",
    regression_killed_reset_leaves_the_runtime_stopped => "killed_reset_leaves_the_runtime_stopped",
    regression_rolled_back_switch_stops_a_unit_that_was_running => "rolled_back_switch_stops_a_unit_that_was_running",
    regression_rolled_back_switch_starts_an_old_unit_that_was_only_enabled => "rolled_back_switch_starts_an_old_unit_that_was_only_enabled",
    regression_killed_switch_converges_to_a_unit_that_never_ran => "killed_switch_converges_to_a_unit_that_never_ran",
    regression_recover_after_a_killed_switch_leaves_no_runtime_running => "recover_after_a_killed_switch_leaves_no_runtime_running",
    regression_killed_switch_before_any_unit_converges_to_another_runtime => "killed_switch_before_any_unit_converges_to_another_runtime",
    regression_failed_switch_drops_a_stale_switch_record => "failed_switch_drops_a_stale_switch_record",
    regression_killed_boot_then_switch_diverges => "killed_boot_then_switch_diverges",
    regression_killed_boot_then_reset_keeps_openclaws_partial_config => "killed_boot_then_reset_keeps_openclaws_partial_config",
    regression_killed_boot_then_switch_adds_the_markers_in_another_order => "killed_boot_then_switch_adds_the_markers_in_another_order",
    regression_killed_post_commit_restart_converges_running => "killed_post_commit_restart_converges_running",
    regression_killed_post_commit_write_converges_running => "killed_post_commit_write_converges_running",
    regression_link_out_of_a_runtimes_tree_refused_the_reset => "link_out_of_a_runtimes_tree_refused_the_reset",
    regression_link_out_memory_folder_reset_then_life => "link_out_memory_folder_reset_then_life",
    regression_killed_reset_then_mcp_add_is_not_listed => "killed_reset_then_mcp_add_is_not_listed",
    regression_killed_switch_then_switch_diverges => "killed_switch_then_switch_diverges",
    regression_killed_boot_then_reset_leaves_an_emptied_mcp_container => "killed_boot_then_reset_leaves_an_emptied_mcp_container",
    regression_crash_then_reset_forgets_the_reset_runtimes_edits => "crash_then_reset_forgets_the_reset_runtimes_edits",
    regression_wrong_type_agent_runtime_refused_until_provision => "wrong_type_agent_runtime_refused_until_provision",
    regression_boot_discards_owner_soul_line_after_switch_to_opencode => "boot_discards_owner_soul_line_after_switch_to_opencode",
    regression_killed_switch_stops_a_new_unit_that_already_ran => "killed_switch_stops_a_new_unit_that_already_ran",
}

// ---- the suite's own machinery: each check must be able to fail ----

#[test]
fn the_preview_applier_rejects_a_wrong_preview_and_accepts_a_right_one() {
    use crate::lifecycle_support::preview::{Preview, compare, from_snapshot};
    use crate::reliability_support::Node;
    let mut before = reliability_support::Tree::new();
    before.insert(
        "a.txt".into(),
        Node::File(
            b"one\nkey=sk-live-0123456789abcdef\nthree\n".to_vec(),
            0o644,
        ),
    );
    let mut after = before.clone();
    after.insert(
        "a.txt".into(),
        Node::File(b"one\nkey=sk-live-0123456789abcdef\n3\n".to_vec(), 0o600),
    );
    after.insert("d/b.bak-17".into(), Node::File(b"x\n".to_vec(), 0o644));
    let right = "diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100600\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n key=sk-…cdef\n-three\n+3\ndiff --git a/d/b.bak-99 b/d/b.bak-99\nnew file mode 100644\n--- /dev/null\n+++ b/d/b.bak-99\n@@ -0,0 +1 @@\n+x\n# systemctl try-restart x.service\n";
    let p = Preview::parse(right).unwrap();
    assert_eq!(p.services, vec!["try-restart x.service"]);
    let mut t = from_snapshot(&before);
    p.apply(&mut t).unwrap();
    assert_eq!(compare(&t, &after, &|_| false), Vec::<String>::new());
    // A preview that misses a change, one that names a wrong old line, one that creates a file
    // that exists: each is caught.
    let missing = right.replace("+3\n", "+three\n");
    let mut t = from_snapshot(&before);
    Preview::parse(&missing).unwrap().apply(&mut t).unwrap();
    assert!(!compare(&t, &after, &|_| false).is_empty());
    let wrong_old = right.replace("-three\n", "-two\n");
    let mut t = from_snapshot(&before);
    assert!(Preview::parse(&wrong_old).unwrap().apply(&mut t).is_err());
    let create_existing = "diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n";
    let mut t = from_snapshot(&before);
    assert!(
        Preview::parse(create_existing)
            .unwrap()
            .apply(&mut t)
            .is_err()
    );
    // A masked line does not match a different shape.
    assert!(preview::glob(
        "key=sk-…cdef\n",
        "key=sk-live-0123456789abcdef\n"
    ));
    assert!(!preview::glob(
        "key=sk-…cdef\n",
        "key=sk-live-0123456789abcdeX\n"
    ));
    assert!(preview::glob("pw: ***\n", "pw: hunter2\n"));
    assert!(!preview::glob("pw: ***\n", "pw: \n"));
}

#[test]
fn sequences_read_back_as_written_and_generation_is_replayable() {
    for i in 0..200 {
        let a = ops::generate(&mut Rng(mix(7, i)), 30);
        let b = ops::generate(&mut Rng(mix(7, i)), 30);
        assert_eq!(a, b, "the same seed gives the same life");
        assert!((5..=30).contains(&a.ops.len()));
        assert_eq!(Sequence::parse(&a.to_string()).unwrap(), a, "{a}");
    }
}

#[test]
fn the_shrinker_finds_a_minimal_failing_sequence() {
    let seq = ops::generate(&mut Rng(mix(11, 3)), 30);
    let mut long = seq.clone();
    while long.ops.len() < 20 {
        long.ops.extend(seq.ops.clone());
    }
    long.ops.insert(7, ops::Op::Reset);
    long.ops.insert(15, ops::Op::SkillsSync);
    // "Fails" when a reset comes before a skills sync.
    let mut still = |s: &Sequence| {
        let r = s.ops.iter().position(|o| *o == ops::Op::Reset);
        let k = s.ops.iter().rposition(|o| *o == ops::Op::SkillsSync);
        matches!((r, k), (Some(r), Some(k)) if r < k)
    };
    let (shrunk, _) = shrink(&long, &mut still, 500);
    assert_eq!(shrunk.ops, vec![ops::Op::Reset, ops::Op::SkillsSync]);
}

#[test]
fn the_fake_systemd_keeps_systemd_semantics() {
    use crate::lifecycle_support::device::{Dev, fake_systemd};
    let tmp = sandbox();
    let dev = Dev::new(
        tmp.path(),
        "tests/cli/reset/active-codex/in",
        "http://127.0.0.1:9/x",
    );
    let sc = |args: &[&str]| {
        std::process::Command::new(fake_systemd())
            .args(args)
            .env("FAKE_SYSTEMD_DIR", &dev.units)
            .env("FAKE_SYSTEMD_ROOT", &dev.root)
            .output()
            .unwrap()
    };
    let state = |u: &str| {
        std::fs::read_to_string(dev.units.join(format!("{u}.active")))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    assert_eq!(state("codex.service"), "active", "the active runtime runs");
    // A running unit keeps running when its file is deleted; it can still be stopped.
    std::fs::remove_file(dev.root.join("etc/systemd/system/codex.service")).unwrap();
    let show = String::from_utf8(sc(&["show", "codex.service"]).stdout).unwrap();
    assert!(
        show.contains("LoadState=not-found") && show.contains("ActiveState=active"),
        "{show}"
    );
    assert!(!sc(&["restart", "codex.service"]).status.success());
    assert!(sc(&["stop", "codex.service"]).status.success());
    assert_eq!(state("codex.service"), "inactive");
    // try-restart leaves a stopped unit alone.
    assert!(
        sc(&["try-restart", "hermes-gateway.service"])
            .status
            .success()
    );
    assert_eq!(state("hermes-gateway.service"), "");
    // Start limits: the sixth start within ten seconds is refused until reset-failed.
    for _ in 0..5 {
        assert!(sc(&["restart", "hermes-gateway.service"]).status.success());
    }
    assert!(!sc(&["restart", "hermes-gateway.service"]).status.success());
    assert!(!sc(&["start", "hermes-gateway.service"]).status.success());
    assert!(
        sc(&["reset-failed", "hermes-gateway.service"])
            .status
            .success()
    );
    assert!(sc(&["start", "hermes-gateway.service"]).status.success());
    // A crash loop counts restarts while watched, then fails at its start limit.
    std::fs::write(dev.units.join("now"), "100\n").unwrap();
    std::fs::write(dev.units.join("picoclaw.service.on-start"), "crashloop\n").unwrap();
    assert!(
        sc(&["enable", "--now", "picoclaw.service"])
            .status
            .success()
    );
    let mut last = String::new();
    for _ in 0..6 {
        last = String::from_utf8(sc(&["show", "picoclaw.service"]).stdout).unwrap();
    }
    assert!(
        last.contains("ActiveState=failed") && last.contains("Result=start-limit-hit"),
        "{last}"
    );
    // A reboot starts what is enabled.
    dev.reboot();
    assert_eq!(state("picoclaw.service"), "activating");
    assert_eq!(state("hermes-gateway.service"), "inactive");
}

#[test]
fn the_model_checks_catch_a_lost_edit_owner_line_channel_and_mcp_server() {
    use ops::{Op, OwnerKind};
    let tmp = sandbox();
    let mut cdn = skills_support::Cdn::new(false);
    let seq = Sequence::parse("start examples/device\n").unwrap();
    let mut life = Life::new(tmp.path(), &seq, &mut cdn, opts(), 1);
    let hermes = ops::rt_index("hermes").unwrap();
    life.step(
        1,
        &Op::Edit {
            rt: hermes,
            file: 0,
            comment: false,
            n: 1,
        },
    );
    life.step(
        2,
        &Op::Owner {
            kind: OwnerKind::Soul,
            n: 2,
        },
    );
    life.step(
        3,
        &Op::McpAdd {
            name: 0,
            remote: false,
            rt: None,
            n: 3,
        },
    );
    let clean: Vec<&str> = life.violations.iter().map(|v| v.invariant).collect();
    assert!(
        !clean.contains(&"own-edit-kept") && !clean.contains(&"owner-text-kept"),
        "{clean:?}"
    );
    // Someone (a broken osctl, here the test) puts hermes' config.yaml and SOUL.md back as they
    // were, and drops the telegram token: the runtime's key, the MCP server, the owner's line
    // and the channel are gone.
    let root = life.dev.root.clone();
    for f in ["root/.hermes/config.yaml", "root/.hermes/SOUL.md"] {
        std::fs::copy(
            reliability_support::repo().join("examples/device").join(f),
            root.join(f),
        )
        .unwrap();
    }
    let cfg = root.join("root/config/config.json");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        text.replace("123456789:AAExampleExampleExampleExample", ""),
    )
    .unwrap();
    life.step(4, &Op::Status);
    let found: Vec<&str> = life
        .violations
        .iter()
        .filter(|v| v.step == 4)
        .map(|v| v.invariant)
        .collect();
    for inv in ["own-edit-kept", "owner-text-kept", "model"] {
        assert!(found.contains(&inv), "{inv} not caught: {found:?}");
    }
    assert!(
        life.violations
            .iter()
            .any(|v| v.step == 4 && v.context.contains("MCP servers")),
        "the lost MCP server is not caught"
    );
}
