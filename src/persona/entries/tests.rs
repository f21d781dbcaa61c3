use super::*;

#[test]
fn markdown_is_flattened_with_heading_context() {
    let text = "# MEMORY.md - Long-term\n\n## Hardware\n\n<!-- Lessons about the body. -->\n\n\
                - Servo elbow jitters above 60 degrees.\n\n### Fixes\n\nRecalibrate\nmonthly.\n\n\
                ## Mistakes Made\n\n1. Said NO_REPLY once.\n* starred\n\n```\n- not an entry\n```\n\
                | a | b |\n|---|---|\n";
    assert_eq!(
        parse_entries(text),
        vec![
            "Hardware: Servo elbow jitters above 60 degrees.",
            "Hardware > Fixes: Recalibrate monthly.",
            "Mistakes Made: Said NO_REPLY once.",
            "Mistakes Made: starred",
        ]
    );
}

#[test]
fn sections_split_on_the_separator_without_dedupe() {
    assert_eq!(
        parse_entries("a\n§\n b \n§\n\n§\na\n"),
        vec!["a", "b", "a"],
        "an empty part is dropped, a repeated one kept"
    );
    // a lone `§` line that is not the separator (CRLF) is Markdown
    assert_eq!(parse_entries("a\r\n§\r\nb"), vec!["a § b"]);
    assert!(parse_entries(" \n\t\n").is_empty());
}

#[test]
fn dedupe_is_whitespace_normalised() {
    assert_eq!(
        parse_entries("- likes  tea\n- likes tea\n-\tlikes\ttea\n"),
        vec!["likes  tea"]
    );
    assert_eq!(normalize("  a \n\t b\u{b}c  "), "a b\u{b}c");
}

#[test]
fn comments_and_fences_follow_upstream_order() {
    // a fence line inside a comment still toggles code (the fence check comes first), so
    // the comment's end is skipped as code and the comment runs on
    let text = "<!-- start\n```\n-->\nhidden\n```\nstill comment\n";
    assert!(parse_entries(text).is_empty());
    let text = "<!-- start\n```\n```\n-->\nshown\n";
    assert_eq!(parse_entries(text), vec!["shown"]);
    assert_eq!(
        parse_entries("<!-- one line --> text\nnext\n"),
        vec!["next"]
    );
}

#[test]
fn headings_and_bullets_use_go_whitespace_classes() {
    assert_eq!(heading("## A  "), Some((2, "A")));
    assert_eq!(heading("####### seven"), None);
    assert_eq!(heading("#\u{a0}nbsp"), None, "NBSP is not \\s");
    assert_eq!(heading("#x"), None);
    assert_eq!(bullet("  12. twelve "), Some("twelve"));
    assert_eq!(bullet("-x"), None);
    assert_eq!(bullet("**bold** para"), None);
    assert_eq!(bullet("-\u{b}x"), None, "\\v is not \\s in Go");
    assert!(names_persona_file("USER.md — About your human"));
    assert!(names_persona_file("see memory.MD"));
    assert!(!names_persona_file("MYUSER.md"));
    assert!(!names_persona_file("USER.mdx"));
}

#[test]
fn merge_keeps_existing_then_fits_incoming_within_the_limit() {
    let mut m = Merger::new(vec!["a".into(), "b".into()], EntryFormat::Sections, 10);
    for e in ["a", "ccc", " b ", "dddd", "e"] {
        m.offer(e);
    }
    // "a\n§\nb" = 5, + ccc = 11 > 10 overflow, dddd overflow, e = 9 fits
    assert_eq!(m.entries(), ["a", "b", "e"]);
    assert_eq!(
        m.stats(),
        MergeStats {
            existing: 2,
            added: 1,
            duplicates: 2,
            overflowed: 2,
            incoming: 5
        }
    );
}

#[test]
fn regression_overflow_kept_the_oldest_memories() {
    // Daily notes come newest first; the first that does not fit closes the merge to every
    // older one, even one short enough to fill the gap.
    let mut m = Merger::new(vec![], EntryFormat::Bullets, 20);
    m.source("MEMORY.md", false);
    m.offer("curated");
    for (day, entry) in [
        ("2026-11-03", "newest"),
        ("2026-11-02", "a long middle entry"),
        ("2026-11-01", "o"),
    ] {
        m.source(day, true);
        m.offer(entry);
    }
    assert_eq!(m.entries(), ["curated", "newest"]);
    assert_eq!(m.stats().overflowed, 2);
    assert_eq!(
        m.overflow(),
        [
            Overflow {
                source: "2026-11-02".into(),
                daily: true,
                entries: 1
            },
            Overflow {
                source: "2026-11-01".into(),
                daily: true,
                entries: 1
            },
        ]
    );
    // a duplicate of a kept entry stays a duplicate after the close
    m.source("2026-10-31", true);
    m.offer("newest");
    assert_eq!(m.stats().duplicates, 1);
}

#[test]
fn limits_count_code_points() {
    let mut m = Merger::new(vec![], EntryFormat::Bullets, 4);
    m.offer("Ngân");
    m.offer("x");
    assert_eq!(m.entries(), ["Ngân"]);
    assert_eq!(m.stats().overflowed, 1);
}

#[test]
fn canonical_entries_read_back_unchanged() {
    let multi = "## Prefs\n- likes tea\n\nmore";
    for format in [EntryFormat::Bullets, EntryFormat::Sections] {
        for set in [
            vec![multi.to_string()],
            vec!["a".into(), multi.into()],
            vec!["x\n§".into(), "y".into()],
            vec!["# heading".into()],
            vec!["plain".into()],
        ] {
            let canon = canonical_list(set.clone(), format);
            let text = serialize(&canon, format);
            assert_eq!(
                parse_entries(&text),
                canon,
                "{format:?} {set:?} -> {text:?}"
            );
            for (c, o) in canon.iter().zip(&set) {
                assert_eq!(normalize(c), normalize(o));
            }
        }
    }
    assert_eq!(
        serialize(&["plain".to_string()], EntryFormat::Sections),
        "plain\n"
    );
    assert_eq!(
        serialize(&["# h".to_string()], EntryFormat::Sections),
        "# h\n§\n"
    );
}
