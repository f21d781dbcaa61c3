//! The owner's identity fields (docs/device-contract.md §5.3 and §5.4).
//!
//! Every runtime but hermes keeps them in `IDENTITY.md` as `- **Field:** value` lines under a
//! template; hermes has no such slot, so they travel as an *identity card* appended to its
//! SOUL.md. The card is a move, not a fold: a migration out of hermes reads the card, strips it
//! from the soul, and restores the fields into the destination's IDENTITY.md line by line
//! ([`set_identity_field`]), keeping the template around them.

use std::borrow::Cow;

use super::text::is_re_space;

/// The heading that starts the identity card in a hermes SOUL.md; it runs to the end of the
/// file, and its presence also means "already inlined".
pub const CARD_HEADING: &str = "## Your identity card";
const CARD_INTRO: &str = "Your owner set this — it overrides any default name or vibe above.";

/// One `- **Name:** value` line of the owner's identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentityField {
    pub name: String,
    pub value: String,
}

impl IdentityField {
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        IdentityField {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// `^- \*\*(.+?):\*\*\s*(\S.*)$` on a trimmed line: the name and the trimmed value.
fn field_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("- **")?;
    let first = rest.chars().next()?.len_utf8();
    let at = rest[first..].find(":**")? + first;
    let value = rest[at + 3..].trim_start_matches(is_re_space);
    if value.is_empty() {
        return None;
    }
    Some((&rest[..at], value.trim()))
}

/// The filled fields of a text: a value that is empty or starts with `_(` (a template
/// placeholder) is not filled.
pub fn parse_identity_lines(text: &str) -> Vec<IdentityField> {
    text.split('\n')
        .filter_map(|line| field_line(line.trim()))
        .filter(|(_, v)| !v.is_empty() && !v.starts_with("_("))
        .map(|(n, v)| IdentityField::new(n, v))
        .collect()
}

/// The filled fields of a SOUL.md's identity card (from its heading to the end).
pub fn card_fields(soul: &str) -> Vec<IdentityField> {
    match soul.find(CARD_HEADING) {
        Some(i) => parse_identity_lines(&soul[i..]),
        None => Vec::new(),
    }
}

/// A SOUL.md without its identity card.
pub fn strip_card(text: &str) -> Cow<'_, str> {
    match text.find(CARD_HEADING) {
        Some(i) => {
            let mut s = text[..i]
                .trim_end_matches([' ', '\t', '\r', '\n'])
                .to_string();
            s.push('\n');
            Cow::Owned(s)
        }
        None => Cow::Borrowed(text),
    }
}

/// The card appended to a soul for `fields` (the field lines passed through `brand`); empty
/// when there are no fields.
pub fn card_block(fields: &[IdentityField], brand: impl Fn(&str) -> Cow<'_, str>) -> String {
    if fields.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = fields
        .iter()
        .map(|f| format!("- **{}:** {}", f.name, f.value))
        .collect();
    let body = lines.join("\n");
    format!("\n\n{CARD_HEADING}\n\n{CARD_INTRO}\n\n{}\n", brand(&body))
}

/// `soul` with `block` appended (upstream `TrimRight(soul, "\n") + block`).
pub fn inline_card(soul: &str, block: &str) -> String {
    format!("{}{block}", soul.trim_end_matches('\n'))
}

/// Replace-or-append one field: the first line holding `**<field>:**` (any case) gets
/// `**Field:** value` from there to its end, keeping what stands before it (the bullet), and the
/// template hint lines right below it (`_(…)_` or `*(…)*`) go: once the field holds a value,
/// its "(pick something you like)" is stale. With no such line, `- **Field:** value` is appended.
///
/// The hints go also when the value is already there (upstream rewrote the line and dropped one
/// hint only when the value changed, so an owner who had filled the field by hand kept the stale
/// hint for good), and all of them, not one per run: a second run finds nothing to change.
pub fn set_identity_field(content: &str, field: &str, value: &str) -> String {
    let needle: Vec<char> = format!("**{field}:**")
        .chars()
        .flat_map(char::to_lowercase)
        .collect();
    let mut lines: Vec<&str> = content.split('\n').collect();
    for i in 0..lines.len() {
        let Some(at) = find_lowercase(lines[i], &needle) else {
            continue;
        };
        let replaced = format!("{}**{field}:** {value}", &lines[i][..at]);
        let hints = lines[i + 1..]
            .iter()
            .take_while(|l| is_placeholder_line(l))
            .count();
        if replaced == lines[i] && hints == 0 {
            return content.to_string();
        }
        lines.drain(i + 1..i + 1 + hints);
        let mut out = String::with_capacity(content.len() + value.len());
        for (j, line) in lines.iter().enumerate() {
            if j > 0 {
                out.push('\n');
            }
            out.push_str(if j == i { &replaced } else { line });
        }
        return out;
    }
    let mut out = content.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("- **{field}:** {value}\n"));
    out
}

/// Byte offset of the first place where `line`, lowercased, reads `needle` (already lowercase).
fn find_lowercase(line: &str, needle: &[char]) -> Option<usize> {
    'start: for (at, _) in line.char_indices() {
        let mut want = needle.iter();
        for c in line[at..].chars() {
            for lc in c.to_lowercase() {
                match want.next() {
                    Some(w) if *w == lc => {}
                    Some(_) => continue 'start,
                    None => continue 'start,
                }
            }
            if want.len() == 0 {
                return Some(at);
            }
        }
    }
    None
}

/// A template hint line: `_(…)_` or `*(…)*`.
pub fn is_placeholder_line(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 4
        && ((t.starts_with("_(") && t.ends_with(")_"))
            || (t.starts_with("*(") && t.ends_with(")*")))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    const TEMPLATE: &str = "# IDENTITY.md - Who Am I?\n\n_Fill this in._\n\n- **Name:** Ngân\n\
                            - **Creature:**\n  _(AI? robot?)_\n- **Vibe:**\n  _(warm? calm?)_\n\
                            - **Emoji:** _(pick one)_\n";

    #[test]
    fn only_filled_fields_are_read() {
        assert_eq!(
            parse_identity_lines(TEMPLATE),
            vec![IdentityField::new("Name", "Ngân")]
        );
        assert_eq!(
            parse_identity_lines("  - **A: B:**   x y  \n- **:** z\n- **:**:** w\n-  **N:** v\n"),
            vec![
                IdentityField::new("A: B", "x y"),
                IdentityField::new(":**", "w"),
            ]
        );
    }

    #[test]
    fn card_round_trip() {
        let soul = "# Soul\n\nYou are **Lamp**.\n\n\n";
        let fields = vec![
            IdentityField::new("Name", "Ngân"),
            IdentityField::new("Vibe", "OpenClaw calm"),
        ];
        let block = card_block(&fields, |s| Cow::Owned(s.replace("OpenClaw", "Hermes")));
        let inlined = inline_card(soul, &block);
        assert_eq!(
            inlined,
            "# Soul\n\nYou are **Lamp**.\n\n## Your identity card\n\nYour owner set this — it \
             overrides any default name or vibe above.\n\n- **Name:** Ngân\n- **Vibe:** Hermes calm\n"
        );
        assert_eq!(
            card_fields(&inlined)[1],
            IdentityField::new("Vibe", "Hermes calm")
        );
        assert_eq!(strip_card(&inlined), "# Soul\n\nYou are **Lamp**.\n");
        assert_eq!(card_block(&[], |s| Cow::Borrowed(s)), "");
    }

    #[test]
    fn set_field_fills_the_slot_and_drops_the_hint() {
        let t = "# IDENTITY.md\n\n- **Name:**\n  _(pick something you like)_\n- **Vibe:** calm\n";
        let out = set_identity_field(t, "Name", "Ngân");
        assert_eq!(out, "# IDENTITY.md\n\n- **Name:** Ngân\n- **Vibe:** calm\n");
        assert_eq!(set_identity_field(&out, "Name", "Ngân"), out);
        let two_hints = "- **Name:**\n  _(a)_\n  *(b)*\n- **Vibe:** calm\n";
        let once = set_identity_field(two_hints, "Name", "Ngân");
        assert_eq!(once, "- **Name:** Ngân\n- **Vibe:** calm\n");
        assert_eq!(set_identity_field(&once, "Name", "Ngân"), once);
        assert_eq!(
            set_identity_field("- **NAME:** old", "Name", "new"),
            "- **Name:** new"
        );
        assert_eq!(set_identity_field("", "Name", "x"), "- **Name:** x\n");
        assert_eq!(
            set_identity_field("intro", "Vibe", "x"),
            "intro\n- **Vibe:** x\n"
        );
        // a non-ASCII line before the match keeps its bytes
        assert_eq!(
            set_identity_field("* İ **Tên:** a", "tên", "b"),
            "* İ **tên:** b"
        );
    }

    #[test]
    fn regression_identity_kept_stale_placeholder() {
        // The owner had already filled the field by hand; the template's hint stayed below it.
        let t =
            "# IDENTITY.md\n\n- **Name:** Lumi\n  _(pick something you like)_\n- **Vibe:** warm\n";
        let out = set_identity_field(t, "Name", "Lumi");
        assert_eq!(out, "# IDENTITY.md\n\n- **Name:** Lumi\n- **Vibe:** warm\n");
        assert_eq!(set_identity_field(&out, "Name", "Lumi"), out);
        // a hint further down, under another field, is that field's and stays
        let t = "- **Name:** Lumi\n- **Vibe:**\n  _(warm? calm?)_\n";
        assert_eq!(set_identity_field(t, "Name", "Lumi"), t);
    }

    #[test]
    fn placeholders() {
        assert!(is_placeholder_line("  _(AI? robot?)_ "));
        assert!(is_placeholder_line("*(x)*"));
        assert!(!is_placeholder_line("_()"));
        assert!(!is_placeholder_line("_(x)"));
    }
}
