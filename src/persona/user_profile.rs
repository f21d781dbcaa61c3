//! USER.md as a form (docs/device-contract.md §5.4; upstream `user_profile.go`).
//!
//! USER.md is half record, half form. Its four singular fields (`Name`, `What to call them`,
//! `Pronouns`, `Timezone`, matched case-insensitively on entries shaped `**Field:** value`) are
//! replace-or-append: one bullet each, the incoming value wins, an empty or placeholder incoming
//! value never blanks a filled one, and a later duplicate bullet of a field is dropped (that is how
//! a retired name leaves). Everything else, the template's instructions and prompts included,
//! entry-merges like memory.
//!
//! A Markdown USER.md is edited in place ([`edit_form`]): only the form's slots and the merged
//! entries change, and the template around them (its headings, guardrail paragraphs, `---`
//! rules, `## Related` links) stays line for line. Upstream rewrote the whole file from its
//! entries, which flattened the template into `- Context: ---` and `- Related: …` bullets.

use super::entries::{EntrySpan, Outline, canonical_list, is_bullet_line, outline, parse_entries};
use super::text::is_re_space;
use crate::runtime::EntryFormat;

/// The singular fields, in the order they are appended.
pub const FIELDS: [&str; 4] = ["Name", "What to call them", "Pronouns", "Timezone"];

/// A value per field of [`FIELDS`] (`None`: no filled value).
pub type FieldValues = [Option<String>; 4];

/// `^\*\*(.+?):\*\*\s*(.*)$` on a trimmed entry (one line): the name and the trimmed value.
fn field_entry(entry: &str) -> Option<(&str, &str)> {
    let t = entry.trim();
    if t.contains('\n') {
        return None;
    }
    let rest = t.strip_prefix("**")?;
    let first = rest.chars().next()?.len_utf8();
    let at = rest[first..].find(":**")? + first;
    Some((
        &rest[..at],
        rest[at + 3..].trim_start_matches(is_re_space).trim(),
    ))
}

/// Which singular field an entry carries (its index in [`FIELDS`]).
pub fn field_of(entry: &str) -> Option<usize> {
    let (name, _) = field_entry(entry)?;
    let name = name.trim();
    FIELDS.iter().position(|f| f.eq_ignore_ascii_case(name))
}

/// A filled value: not empty and not a `_(…)`/`*(…)` template hint.
pub fn is_filled(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty() && !v.starts_with("_(") && !v.starts_with("*(")
}

/// Splits entries into the filled field values (the last filled copy wins: an appended copy is
/// newer) and the entries that are not singular fields.
pub fn partition(entries: &[String]) -> (FieldValues, Vec<String>) {
    let mut values: FieldValues = Default::default();
    let mut rest = Vec::new();
    for e in entries {
        match field_of(e) {
            None => rest.push(e.clone()),
            Some(i) => {
                let (_, v) = field_entry(e).expect("field_of matched");
                if is_filled(v) {
                    values[i] = Some(v.to_string());
                }
            }
        }
    }
    (values, rest)
}

/// Incoming values over existing ones; a missing incoming value keeps the existing one.
pub fn merge_fields(existing: &FieldValues, incoming: &FieldValues) -> FieldValues {
    std::array::from_fn(|i| incoming[i].clone().or_else(|| existing[i].clone()))
}

/// Fills each field's first entry in place with `**Field:** value`, drops its later entries,
/// leaves the entries of fields without a value as they are, and appends fields that had no
/// entry.
pub fn apply_fields(entries: &[String], fields: &FieldValues) -> Vec<String> {
    let rendered: [Option<String>; 4] = std::array::from_fn(|i| {
        fields[i]
            .as_ref()
            .map(|v| format!("**{}:** {v}", FIELDS[i]))
    });
    let mut placed = [false; 4];
    let mut out = Vec::with_capacity(entries.len() + 4);
    for e in entries {
        match field_of(e) {
            Some(i) if rendered[i].is_some() => {
                if !placed[i] {
                    out.push(rendered[i].clone().expect("checked"));
                    placed[i] = true;
                }
            }
            _ => out.push(e.clone()),
        }
    }
    for i in 0..FIELDS.len() {
        if let (Some(r), false) = (&rendered[i], placed[i]) {
            out.push(r.clone());
        }
    }
    out
}

/// How many fields hold a value.
pub fn count(fields: &FieldValues) -> usize {
    fields.iter().filter(|v| v.is_some()).count()
}

/// What becomes of one line of the form.
#[derive(Clone, Debug)]
enum Edit {
    Keep,
    Replace(String),
    Remove,
}

/// A Markdown USER.md (`text`, no `§` separator) with the merge applied in place: each field
/// with a value written into its first slot (the line keeps its bullet; a later slot of the same
/// field goes), a field without a slot added after the last field line, and each `added` entry
/// put where reading the file back gives it unchanged: under the heading its context prefix
/// names (`Context: x` as `- x` below `## Context`), else among the entries that have no
/// context. Every other line stays as it was.
///
/// `expected` is the merged entry list the file must read back as (the caller's merge); when the
/// edited text would not (a slot inside a construct the parser reads differently once lines
/// move), the answer is `None` and the caller writes the entries instead.
pub fn edit_form(
    text: &str,
    fields: &FieldValues,
    added: &[String],
    expected: &[String],
) -> Option<String> {
    let form = outline(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let cr = if crate::format::is_crlf(text) {
        "\r"
    } else {
        ""
    };
    let mut edits = vec![Edit::Keep; lines.len()];
    // Lines to insert after line i (`after[i]`), and before the first line.
    let mut after: Vec<Vec<String>> = vec![Vec::new(); lines.len()];
    let mut top: Vec<String> = Vec::new();

    let mut placed = [false; 4];
    // The last field line that stays, and its section (the form).
    let mut last_field: Option<(usize, usize)> = None;
    for e in &form.entries {
        let Some(i) = field_of(&e.text) else {
            continue;
        };
        let Some(value) = &fields[i] else {
            last_field = last_field.max(Some((e.span.last, e.section)));
            continue;
        };
        if placed[i] {
            remove_span(&lines, &mut edits, &e.span);
            continue;
        }
        last_field = last_field.max(Some((e.span.last, e.section)));
        placed[i] = true;
        let rendered = format!("**{}:** {value}", FIELDS[i]);
        if e.text != rendered {
            replace_span(&lines, &mut edits, &e.span, &rendered);
        }
    }

    let free = free_anchor(&form, last_field.map(|(_, section)| section));
    for i in 0..FIELDS.len() {
        if let (Some(value), false) = (&fields[i], placed[i]) {
            let line = format!("- **{}:** {value}{cr}", FIELDS[i]);
            match last_field.map(|(line, _)| line).or(free) {
                Some(at) => after[at].push(line),
                None => top.push(line),
            }
        }
    }
    for e in added {
        let (anchor, content) = match section_for(&form, e) {
            Some((at, rest)) => (Some(at), rest),
            None => (free, e.as_str()),
        };
        let line = format!("- {content}{cr}");
        match anchor {
            Some(at) => after[at].push(line),
            None => top.push(line),
        }
    }

    let mut out =
        String::with_capacity(text.len() + added.iter().map(|e| e.len() + 4).sum::<usize>());
    let mut first = true;
    let mut push = |out: &mut String, line: &str| {
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(line);
    };
    if !top.is_empty() {
        for line in &top {
            push(&mut out, line);
        }
        if lines.first().is_some_and(|l| !l.trim().is_empty()) {
            push(&mut out, cr);
        }
    }
    for (i, line) in lines.iter().enumerate() {
        match &edits[i] {
            Edit::Keep => push(&mut out, line),
            Edit::Replace(new) => push(&mut out, new),
            Edit::Remove => {}
        }
        if after[i].is_empty() {
            continue;
        }
        // Added bullets join a list; after a paragraph or a heading they start one, set off by
        // blank lines as Markdown writes it.
        if !is_bullet_line(line) && !line.trim().is_empty() {
            push(&mut out, cr);
        }
        for inserted in &after[i] {
            push(&mut out, inserted);
        }
        if lines
            .get(i + 1)
            .is_some_and(|next| !next.trim().is_empty() && !is_bullet_line(next))
        {
            push(&mut out, cr);
        }
    }

    let mut got = canonical_list(parse_entries(&out), EntryFormat::Bullets);
    let mut want = expected.to_vec();
    got.sort_unstable();
    want.sort_unstable();
    (got == want).then_some(out)
}

/// Takes an entry's lines out. Between two lines of prose they leave one blank line, or the two
/// would read as one paragraph.
fn remove_span(lines: &[&str], edits: &mut [Edit], span: &EntrySpan) {
    let prose = |l: &str| !l.trim().is_empty() && !is_bullet_line(l);
    let before = span.first.checked_sub(1).is_some_and(|i| prose(lines[i]));
    let after = lines.get(span.last + 1).is_some_and(|l| prose(l));
    for edit in &mut edits[span.first..=span.last] {
        *edit = Edit::Remove;
    }
    if before && after {
        let cr = if lines[span.first].ends_with('\r') {
            "\r"
        } else {
            ""
        };
        edits[span.first] = Edit::Replace(cr.to_string());
    }
}

/// Writes `rendered` over an entry: a bullet keeps its marker and indent; a paragraph becomes
/// one line (its first line's indent kept).
fn replace_span(lines: &[&str], edits: &mut [Edit], span: &EntrySpan, rendered: &str) {
    let raw = lines[span.first];
    let cr = if raw.ends_with('\r') { "\r" } else { "" };
    let head = match span.bullet_at {
        Some(at) => &raw[..at],
        None => &raw[..raw.len() - raw.trim_start().len()],
    };
    edits[span.first] = Edit::Replace(format!("{head}{rendered}{cr}"));
    for edit in &mut edits[span.first + 1..=span.last] {
        *edit = Edit::Remove;
    }
}

/// The line after which an entry without a matching heading goes: after the last entry of the
/// form's section (the one holding the field lines), else of the first section without context,
/// else after the first heading without context; `None`: at the top.
fn free_anchor(form: &Outline, form_section: Option<usize>) -> Option<usize> {
    let plain = |s: usize| form.sections[s].prefix.is_empty();
    let section =
        form_section.or_else(|| form.entries.iter().map(|e| e.section).find(|&s| plain(s)));
    if let Some(section) = section {
        return form
            .entries
            .iter()
            .filter(|e| e.section == section)
            .map(|e| e.span.last)
            .max();
    }
    form.sections
        .iter()
        .filter(|s| s.prefix.is_empty())
        .find_map(|s| s.heading)
}

/// The section an entry belongs under, by its context prefix (`A > B: x` under the section
/// whose context is `A > B`, the longest that matches), with the place to add it (after the
/// section's last entry, else its heading) and the bullet's content.
fn section_for<'e>(form: &Outline, entry: &'e str) -> Option<(usize, &'e str)> {
    let (index, rest) = form
        .sections
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.prefix.is_empty())
        .filter_map(|(i, s)| {
            let rest = entry.strip_prefix(s.prefix.as_str())?.strip_prefix(": ")?;
            (!rest.is_empty() && rest.trim() == rest && !rest.contains('\n')).then_some((i, rest))
        })
        .max_by_key(|(i, _)| (form.sections[*i].prefix.len(), std::cmp::Reverse(*i)))?;
    let anchor = form
        .entries
        .iter()
        .filter(|e| e.section == index)
        .map(|e| e.span.last)
        .max()
        .or(form.sections[index].heading)?;
    Some((anchor, rest))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// A device's USER.md as entries (upstream's regression fixture, two `**Name:**` bullets).
    fn live_device() -> Vec<String> {
        s(&[
            "_Learn about the person you're helping. Update this as you go._",
            "**Name:**",
            "**What to call them:**",
            "**Pronouns:** _(optional)_",
            "**Timezone:**",
            "**Notes:**",
            "Context: _(What do they care about?)_",
            "**Name:** Leo",
            "Context: Leo speaks Vietnamese primarily (vi).",
        ])
    }

    #[test]
    fn a_new_name_replaces_the_old_in_its_slot() {
        let existing = live_device();
        let (ex, _) = partition(&existing);
        assert_eq!(ex[0].as_deref(), Some("Leo"));
        let (inc, rest) = partition(&s(&["**name:** Long", "likes tea"]));
        assert_eq!(rest, s(&["likes tea"]));
        let out = apply_fields(&existing, &merge_fields(&ex, &inc));
        assert_eq!(out[1], "**Name:** Long");
        assert_eq!(out.iter().filter(|e| e.contains("**Name:**")).count(), 1);
        assert!(out.contains(&"Context: Leo speaks Vietnamese primarily (vi).".to_string()));
        assert!(out.contains(&"**Pronouns:** _(optional)_".to_string()));
        assert!(out.contains(&"**Timezone:**".to_string()));
    }

    #[test]
    fn an_unfilled_incoming_field_never_blanks() {
        let existing = s(&["**Name:** Long"]);
        let (ex, _) = partition(&existing);
        for incoming in [
            vec![],
            s(&["**Name:**"]),
            s(&["**Name:** _(who?)_"]),
            s(&["**Name:** *(x)*"]),
        ] {
            let (inc, _) = partition(&incoming);
            assert_eq!(apply_fields(&existing, &merge_fields(&ex, &inc)), existing);
        }
    }

    #[test]
    fn fields_without_a_slot_are_appended_in_order() {
        let (inc, _) = partition(&s(&["**Timezone:** UTC+7", "**Name:** Ngân"]));
        assert_eq!(
            apply_fields(&s(&["note"]), &inc),
            s(&["note", "**Name:** Ngân", "**Timezone:** UTC+7"])
        );
    }

    /// openclaw's USER.md template (2026.2.9 to 2026.4.15), with a `## Related` section.
    const TEMPLATE: &str = "# USER.md - About Your Human\n\n\
        _Learn about the person you're helping. Update this as you go._\n\n\
        - **Name:**\n- **What to call them:**\n- **Pronouns:** _(optional)_\n- **Timezone:**\n\
        - **Notes:**\n\n## Context\n\n\
        _(What do they care about? What projects are they working on?)_\n\n---\n\n\
        The more you know, the better you can help.\n\n## Related\n\n- [[IDENTITY]]\n";

    /// The merge the migrator makes, then the form edited in place.
    fn merge_into(text: &str, incoming: &[&str]) -> Option<String> {
        let existing = canonical_list(parse_entries(text), EntryFormat::Bullets);
        let (ex, _) = partition(&existing);
        let (inc, rest) = partition(&s(incoming));
        let fields = merge_fields(&ex, &inc);
        let with_fields = apply_fields(&existing, &fields);
        let mut m = super::super::entries::Merger::new(with_fields, EntryFormat::Bullets, 1375);
        for e in &rest {
            m.offer(e);
        }
        let added = &m.entries()[m.stats().existing..];
        edit_form(text, &fields, added, m.entries())
    }

    #[test]
    fn regression_user_template_rewritten() {
        let out = merge_into(
            TEMPLATE,
            &[
                "**Name:** Nguyễn Thị Ngân",
                "**Timezone:** Asia/Ho_Chi_Minh",
                "**Pronouns:** _(optional)_",
                "Context: Ngân is learning the guitar.",
                "Likes lo-fi music.",
            ],
        )
        .expect("the template can be edited in place");
        assert_eq!(
            out,
            "# USER.md - About Your Human\n\n\
             _Learn about the person you're helping. Update this as you go._\n\n\
             - **Name:** Nguyễn Thị Ngân\n- **What to call them:**\n- **Pronouns:** _(optional)_\n\
             - **Timezone:** Asia/Ho_Chi_Minh\n- **Notes:**\n- Likes lo-fi music.\n\n## Context\n\n\
             _(What do they care about? What projects are they working on?)_\n\n---\n\n\
             The more you know, the better you can help.\n\n- Ngân is learning the guitar.\n\n\
             ## Related\n\n- [[IDENTITY]]\n"
        );
        // what it reads back as is what was merged, so a second merge changes nothing
        let again = merge_into(
            &out,
            &[
                "**Name:** Nguyễn Thị Ngân",
                "Context: Ngân is learning the guitar.",
            ],
        );
        assert_eq!(again.as_deref(), Some(out.as_str()));
    }

    #[test]
    fn the_directives_template_of_openclaw_2026_9_keeps_its_example_block() {
        // openclaw 2026.9.6's USER.md: no form slots, an example in a fence, comments.
        let template = "# USER.md - User Model\n\nStore stable user preferences and profile facts as directives that can guide future sessions.\n\nUse one directive per entry:\n\n```md\n<!-- observed: YYYY-MM-DD | status: active -->\n\n- Prefer concise progress updates during implementation work.\n```\n\n- Begin each directive with an imperative such as `Always`, `Never`, or `Prefer`.\n- Record the observation date and either `active` or `superseded` on the metadata line.\n- When a preference changes, mark the old entry `superseded` and rewrite the active directive in place. Never append a contradictory active directive.\n- Keep stable communication style, relationships, and active-project context here. Put durable non-profile facts and decisions in `MEMORY.md`.\n- Save this file at the workspace root as `USER.md`. It loads every session with a separate 4,000-character budget.\n\n## Directives\n\nReplace the example below with a real directive and a real observation date before you save this file. Never leave a placeholder directive `active`.\n\n<!-- observed: YYYY-MM-DD | status: active -->\n\n- Prefer ...\n\n## Related\n\n- [Agent workspace](/concepts/agent-workspace)\n";
        let out = merge_into(
            template,
            &["**Name:** Ngân", "Directives: Prefer short answers."],
        )
        .expect("edited in place");
        let lines: Vec<&str> = template.lines().collect();
        let got: Vec<&str> = out.lines().collect();
        let mut it = got.iter();
        for line in &lines {
            assert!(it.any(|g| g == line), "{line:?} gone:\n{out}");
        }
        assert!(
            out.contains("- Prefer ...\n- Prefer short answers.\n\n## Related"),
            "{out}"
        );
        assert!(out.contains("`USER.md`. It loads every session with a separate 4,000-character budget.\n- **Name:** Ngân\n"), "{out}");
    }

    #[test]
    fn a_later_slot_goes_and_a_missing_field_joins_the_form() {
        let text = "# USER.md\n\n- **Name:**\n- **Notes:** calm\n\nSome prose.\n- **Name:** Leo\n\n## Context\n\nLeo plays chess.\n";
        let out = merge_into(text, &["**name:** Long", "**Timezone:** UTC+7"]).unwrap();
        assert_eq!(
            out,
            "# USER.md\n\n- **Name:** Long\n- **Timezone:** UTC+7\n- **Notes:** calm\n\nSome prose.\n\n## Context\n\nLeo plays chess.\n"
        );
    }

    #[test]
    fn crlf_forms_stay_crlf_and_a_bare_file_gets_its_entries_on_top() {
        let text = "# USER.md\r\n\r\n- **Name:**\r\n";
        let out = merge_into(text, &["**Name:** Ngân", "likes tea"]).unwrap();
        assert_eq!(out, "# USER.md\r\n\r\n- **Name:** Ngân\r\n- likes tea\r\n");
        let text = "## Context\n\nLeo plays chess.\n";
        let out = merge_into(text, &["likes tea", "Context: Leo reads."]).unwrap();
        assert_eq!(
            out,
            "- likes tea\n\n## Context\n\nLeo plays chess.\n\n- Leo reads.\n"
        );
    }

    #[test]
    fn only_the_four_fields_are_singular() {
        assert_eq!(field_of("**Notes:** x"), None);
        assert_eq!(field_of("** pronouns :** they"), Some(2));
        assert_eq!(field_of("**Name:** a\nb"), None);
        assert_eq!(field_of("- **Name:** a"), None);
    }
}
