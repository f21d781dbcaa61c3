//! USER.md as a form (device contract, section 5.4; upstream `user_profile.go`).
//!
//! USER.md is half record, half form. Its four singular fields (`Name`, `What to call them`,
//! `Pronouns`, `Timezone`, matched case-insensitively on entries shaped `**Field:** value`) are
//! replace-or-append: one bullet each, the incoming value wins, an empty or placeholder incoming
//! value never blanks a filled one, and a later duplicate bullet of a field is dropped (that is how
//! a retired name leaves). Everything else, the template's instructions and prompts included,
//! entry-merges like memory, so the template survives as its entries.

use super::entries::is_re_space;

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

#[cfg(test)]
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

    #[test]
    fn only_the_four_fields_are_singular() {
        assert_eq!(field_of("**Notes:** x"), None);
        assert_eq!(field_of("** pronouns :** they"), Some(2));
        assert_eq!(field_of("**Name:** a\nb"), None);
        assert_eq!(field_of("- **Name:** a"), None);
    }
}
