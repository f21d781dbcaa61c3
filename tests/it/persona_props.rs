//! Property tests of the persona migration, on real device trees in temporary folders, through
//! the planner and the real apply (journal, atomic writes):
//!
//! - A → hermes → A restores the identity fields into IDENTITY.md (the card is a move);
//! - A → B → A never loses a memory or user entry that fit within the limits, even when A's
//!   persona files were wiped in between (so everything comes back from B);
//! - a second identical migrate plans nothing (docs/device-contract.md §10 item 10);
//! - every file written holds exactly the planned bytes, and every backup the original's.
//!
//! `PROPTEST_CASES` raises the number of cases (default 40 per property).

use std::path::Path;

use proptest::prelude::*;

use osctl::apply::{self, Target};
use osctl::device::paths::{DeviceEnv, Layout};
use osctl::output::{ColorChoice, Printer};
use osctl::persona::entries::{normalize, outline, parse_entries};
use osctl::persona::identity::{self, IdentityField};
use osctl::persona::user_profile;
use osctl::persona::{Options, Report, run_migration};
use osctl::plan::{Draft, FileState, Plan};
use osctl::runtime::{EntryFormat, RuntimeId};
use osctl::system::fs::RootFs;
use osctl::system::services::Services;

fn layout() -> Layout {
    Layout::new(&DeviceEnv::default(), None)
}

fn plan(root: &Path, from: RuntimeId, to: RuntimeId) -> (Plan, Report) {
    let fs = RootFs::new(root).unwrap();
    let mut draft = Draft::new(&fs);
    let report = run_migration(&mut draft, &layout(), from, to, &Options::default()).unwrap();
    (draft.finish(), report)
}

/// Plans and applies a migration, and checks that every file written is whole.
fn migrate(root: &Path, from: RuntimeId, to: RuntimeId) -> Plan {
    let (plan, _) = plan(root, from, to);
    let fs = RootFs::new(root).unwrap();
    let services = Services::new(false, None, None);
    let out = Printer::new(false, true, 0, ColorChoice::Never, true);
    let target = Target {
        fs: &fs,
        services: &services,
        out: &out,
        command: "persona_props",
    };
    apply::apply(&target, &plan).unwrap();
    for change in plan.file_changes() {
        if let FileState::File { content, .. } = &change.after {
            let on_disk = std::fs::read(fs.host(&change.path).unwrap()).unwrap();
            assert_eq!(&on_disk, content, "{} is not whole", change.path);
            assert!(std::str::from_utf8(&on_disk).is_ok(), "{}", change.path);
        }
    }
    plan
}

fn write(root: &Path, dev: &osctl::path::DevPath, text: &str) {
    let p = root.join(dev.relative());
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, dev: &osctl::path::DevPath) -> String {
    std::fs::read_to_string(root.join(dev.relative())).unwrap_or_default()
}

/// Removes a runtime's persona paths (what a factory reset wipes in its tree).
fn wipe(root: &Path, rt: RuntimeId) {
    for loc in rt.spec().persona.wipe {
        let p = root.join(layout().path(*loc).relative());
        let _ = std::fs::remove_dir_all(&p);
        let _ = std::fs::remove_file(&p);
    }
}

/// A persona to lay out in a runtime's files.
#[derive(Clone, Debug)]
struct Persona {
    soul: String,
    identity: Vec<IdentityField>,
    memory: Vec<String>,
    knowledge: Vec<String>,
    daily: Vec<Vec<String>>,
    user_fields: [Option<String>; 4],
    user_free: Vec<String>,
}

fn bullets(entries: &[String]) -> String {
    entries.iter().map(|e| format!("- {e}\n")).collect()
}

fn sections(entries: &[String]) -> String {
    if entries.is_empty() {
        String::new()
    } else {
        entries.join("\n§\n") + "\n"
    }
}

fn lay_out(root: &Path, rt: RuntimeId, p: &Persona) {
    let l = layout();
    let spec = rt.spec().persona;
    let user: Vec<String> = user_profile::FIELDS
        .iter()
        .zip(&p.user_fields)
        .filter_map(|(f, v)| v.as_ref().map(|v| format!("**{f}:** {v}")))
        .chain(p.user_free.iter().cloned())
        .collect();
    match spec.format {
        EntryFormat::Sections => {
            let card = identity::card_block(&p.identity, |t| std::borrow::Cow::Borrowed(t));
            write(
                root,
                &l.path(spec.soul),
                &identity::inline_card(&p.soul, &card),
            );
            let all: Vec<String> = p
                .memory
                .iter()
                .chain(&p.knowledge)
                .chain(p.daily.iter().flatten())
                .cloned()
                .collect();
            write(root, &l.path(spec.memory), &sections(&all));
            write(root, &l.path(spec.user), &sections(&user));
        }
        EntryFormat::Bullets => {
            write(root, &l.path(spec.soul), &p.soul);
            let id: String = p
                .identity
                .iter()
                .map(|f| format!("- **{}:** {}\n", f.name, f.value))
                .collect();
            write(
                root,
                &l.path(spec.identity.unwrap()),
                &format!("# IDENTITY.md\n\n{id}"),
            );
            write(root, &l.path(spec.memory), &bullets(&p.memory));
            write(
                root,
                &l.path(spec.knowledge.unwrap()),
                &bullets(&p.knowledge),
            );
            let dir = l.path(spec.daily_dir.unwrap());
            for (i, day) in p.daily.iter().enumerate() {
                write(
                    root,
                    &dir.join(format!("2026-01-{:02}.md", i + 1)),
                    &bullets(day),
                );
            }
            write(root, &l.path(spec.user), &bullets(&user));
        }
    }
}

/// Words without the letters o, c, m, h, p, which start every brand name, so no text here is
/// rebranded and round trips can be compared exactly.
fn text(max_words: usize) -> impl Strategy<Value = String> {
    prop::collection::vec("[abdefgijklnqrstuvwxyzĐđéàư0-9,.!?]{1,8}", 1..=max_words)
        .prop_map(|w| w.join(" "))
}

fn persona(max_entries: usize) -> impl Strategy<Value = Persona> {
    let names =
        prop::sample::subsequence(vec!["Name", "Creature", "Vibe", "Emoji", "Avatar"], 0..=5);
    (
        text(12),
        names,
        prop::collection::vec(text(4), 5),
        prop::collection::vec(text(10), 0..max_entries),
        prop::collection::vec(text(10), 0..3),
        prop::collection::vec(prop::collection::vec(text(10), 0..4), 0..3),
        prop::collection::vec(prop::option::of(text(3)), 4),
        prop::collection::vec(text(10), 0..4),
    )
        .prop_map(
            |(soul, names, values, memory, knowledge, daily, fields, user_free)| Persona {
                soul: format!("# Soul\n\n{soul}\n"),
                identity: names
                    .into_iter()
                    .zip(values)
                    .map(|(n, v)| IdentityField::new(n, v))
                    .collect(),
                memory,
                knowledge,
                daily,
                user_fields: [
                    fields[0].clone(),
                    fields[1].clone(),
                    fields[2].clone(),
                    fields[3].clone(),
                ],
                user_free,
            },
        )
}

fn runtime() -> impl Strategy<Value = RuntimeId> {
    prop::sample::select(RuntimeId::ALL.to_vec())
}

fn pair() -> impl Strategy<Value = (RuntimeId, RuntimeId)> {
    (runtime(), runtime()).prop_filter("two runtimes", |(a, b)| a != b)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(40),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn keys(entries: impl IntoIterator<Item = String>) -> std::collections::BTreeSet<String> {
    entries.into_iter().map(|e| normalize(&e)).collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn identity_comes_back_from_hermes(
        a in runtime().prop_filter("not hermes", |r| *r != RuntimeId::Hermes),
        p in persona(4),
        wipe_between in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        lay_out(root, a, &p);
        migrate(root, a, RuntimeId::Hermes);
        if wipe_between {
            wipe(root, a);
        }
        migrate(root, RuntimeId::Hermes, a);
        let id = read(root, &layout().path(a.spec().persona.identity.unwrap()));
        prop_assert_eq!(identity::parse_identity_lines(&id), p.identity.clone());
    }

    #[test]
    fn a_round_trip_loses_no_entry_that_fit(
        (a, b) in pair(),
        p in persona(6),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        lay_out(root, a, &p);
        let l = layout();
        let spec = a.spec().persona;
        // What A holds, as the parser reads it.
        let mut memory: Vec<String> = parse_entries(&read(root, &l.path(spec.memory)));
        if let Some(k) = spec.knowledge {
            memory.extend(parse_entries(&read(root, &l.path(k))));
        }
        for day in p.daily.iter() {
            memory.extend(day.iter().cloned());
        }
        let user = parse_entries(&read(root, &l.path(spec.user)));
        let (fields, free) = user_profile::partition(&user);
        // The generated persona fits both limits, so "fit within the limits" is all of it.
        let total: usize = memory.iter().map(|e| e.chars().count() + 3).sum();
        prop_assume!(total <= 2200);

        migrate(root, a, b);
        wipe(root, a);
        migrate(root, b, a);

        let mut back = parse_entries(&read(root, &l.path(spec.memory)));
        if let Some(k) = spec.knowledge {
            back.extend(parse_entries(&read(root, &l.path(k))));
        }
        let back = keys(back);
        for e in keys(memory) {
            prop_assert!(back.contains(&e), "memory entry {:?} lost; {:?}", e, back);
        }
        let user_back = parse_entries(&read(root, &l.path(spec.user)));
        let (fields_back, free_back) = user_profile::partition(&user_back);
        prop_assert_eq!(fields_back, fields);
        let free_back = keys(free_back);
        for e in keys(free) {
            prop_assert!(free_back.contains(&e), "user entry {:?} lost", e);
        }
    }
}

/// Lines of Markdown-ish text with everything the parsers treat specially.
fn markdownish() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        4 => "[ a-zA-Z0-9éĐ.,:!]{0,24}",
        1 => Just("```".to_string()),
        1 => Just("---".to_string()),
        1 => Just("§".to_string()),
        1 => Just(String::new()),
        1 => "#{1,7} [a-zA-Z ]{0,10}(MEMORY\\.md)?",
        2 => "[-*] [a-zA-Z0-9 éĐ]{0,20}",
        1 => "  [0-9]\\. [a-z ]{0,10}",
        1 => "<!-- [a-z ]{0,8}( -->)?",
        1 => Just("-->".to_string()),
        1 => "\\| [a-z]{1,4} \\|",
        1 => "- \\*\\*(Name|name|Timezone|Pronouns|What to call them|Creature|Vibe):\\*\\* ?[a-zA-Zé ]{0,10}",
        1 => " {0,4}(_\\([a-z ?]{0,8}\\)_|\\*\\([a-z]{0,5}\\)\\*)",
        1 => "(I run on |the )(OpenClaw|Open Claw|hermes|PicoClaw|codex|Claude Code|OpenCode|ClawdBot) [a-z]{0,6}",
        1 => Just("<!-- OS DO NOT REMOVE -->".to_string()),
        1 => Just("<!-- OS HERMES SKILL PRIORITY -->".to_string()),
        1 => Just("## Your identity card".to_string()),
        1 => "[a-z]{1,5}\r",
        1 => "\t[a-z]{1,5}\t",
    ];
    prop::collection::vec(line, 0..14).prop_map(|l| l.join("\n"))
}

/// Any of a runtime's persona files, filled with [`markdownish`] text (or left absent).
fn files() -> impl Strategy<Value = Vec<Option<String>>> {
    prop::collection::vec(prop::option::of(markdownish()), 8)
}

fn lay_out_raw(root: &Path, rt: RuntimeId, files: &[Option<String>]) {
    let l = layout();
    let p = rt.spec().persona;
    let mut slots = [
        Some(p.soul),
        p.identity,
        Some(p.memory),
        Some(p.user),
        p.knowledge,
    ];
    let daily = p.daily_dir.map(|d| l.path(d));
    for (i, text) in files.iter().enumerate() {
        let Some(text) = text else { continue };
        match slots.get_mut(i) {
            Some(Some(loc)) => write(root, &l.path(*loc), text),
            Some(None) => {}
            None => {
                if let Some(d) = &daily {
                    write(root, &d.join(format!("2026-02-{i:02}.md")), text);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_second_identical_migrate_plans_nothing(
        (a, b) in pair(),
        src in files(),
        dst in files(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        lay_out_raw(root, b, &dst);
        lay_out_raw(root, a, &src);
        let first = migrate(root, a, b);
        for change in first.file_changes() {
            if let (Some(name), FileState::File { content, .. }) =
                (change.path.file_name(), &change.after)
                && name.contains(".bak-")
            {
                let original = change.path.to_string();
                let original = &original[..original.rfind(".bak-").unwrap()];
                let was = first
                    .file_changes()
                    .find(|c| c.path.to_string() == original)
                    .map(|c| c.before.content().unwrap_or_default().to_vec());
                prop_assert_eq!(Some(content.clone()), was, "backup of {} differs", original);
            }
        }
        let (second, report) = plan(root, a, b);
        prop_assert!(
            second.is_empty(),
            "second run of {a} → {b} would change:\n{}\n{:?}",
            osctl::plan::render::diff(&second),
            report.items
        );
    }
}

/// Whether `want` appears in `got` in order (other lines may stand between).
fn subsequence<'a>(want: &[&'a str], got: &[&'a str]) -> Result<(), &'a str> {
    let mut it = got.iter();
    for w in want {
        if !it.any(|g| g == w) {
            return Err(w);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// A Markdown USER.md is a form: after a migration into it, every line it held is still
    /// there in order, but the lines of the slots a field value went into (docs/device-contract.md
    /// §5.4: "the template survives verbatim"); and it reads back as the merge.
    #[test]
    fn a_user_form_keeps_every_line_but_its_filled_slots(
        (a, b) in pair().prop_filter("a Markdown destination", |(_, b)| *b != RuntimeId::Hermes),
        p in persona(4),
        // A form holding a bare `§` line is on its way to hermes' entry format (a line added
        // next to it would make a separator), and is written whole.
        form in markdownish().prop_filter("no § line", |t| !t.split('\n').any(|l| l == "§")),
        word in text(3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let l = layout();
        let mut p = p;
        // Entries that belong under the form's own headings, so they are added there.
        let shape = outline(&form);
        for s in shape.sections.iter().filter(|s| !s.prefix.is_empty()) {
            p.user_free.push(format!("{}: {word}", s.prefix));
        }
        lay_out(root, a, &p);
        let dest = l.path(b.spec().persona.user);
        write(root, &dest, &form);
        migrate(root, a, b);
        let out = read(root, &dest);

        // The slots of every field that has a value, coming in or already there.
        let (incoming, _) = user_profile::partition(&parse_entries(&read(root, &l.path(a.spec().persona.user))));
        let (existing, _) = user_profile::partition(&parse_entries(&form));
        let filled: Vec<usize> =
            (0..4).filter(|&i| incoming[i].is_some() || existing[i].is_some()).collect();
        let mut slot_lines = std::collections::BTreeSet::new();
        for e in &shape.entries {
            if user_profile::field_of(&e.text).is_some_and(|i| filled.contains(&i)) {
                slot_lines.extend(e.span.first..=e.span.last);
            }
        }
        // A form of blank lines holds nothing anyone wrote: the migration may write it anew
        // (a random draw found "\n" into picoclaw losing its one blank line).
        let kept: Vec<&str> = if form.trim().is_empty() {
            Vec::new()
        } else {
            form.split('\n')
                .enumerate()
                .filter(|(i, _)| !slot_lines.contains(i))
                .map(|(_, line)| line)
                .collect()
        };
        let got: Vec<&str> = out.split('\n').collect();
        if let Err(line) = subsequence(&kept, &got) {
            prop_assert!(false, "line {line:?} of the form is gone:\n--- form\n{form}\n--- after\n{out}");
        }
    }
}
