//! OS-managed blocks in Markdown files (docs/device-contract.md §5.6).
//!
//! osctl owns only the blocks between its marker lines; the owner's text around them is kept as
//! written. Two shapes exist:
//!
//! - **Marker blocks** (SOUL.md, AGENTS.md, HEARTBEAT.md, the legacy hermes skill block): a line
//!   exactly equal to the marker, the body, and the next line exactly equal to `---`, inclusive.
//! - **Delimited blocks** (the codex/opencode persona inline block in AGENTS.md): a line exactly
//!   equal to the start marker through the next line exactly equal to the end marker, inclusive.
//!
//! Lines are compared after dropping a trailing `\r`, so CRLF files match; text osctl inserts
//! into a CRLF file uses CRLF. A block whose end line never comes runs to the end of the file:
//! stripping it drops everything from its marker on (the marker promised osctl owns that text,
//! and a missing end cannot be told apart from an end the owner deleted). A body must not hold a
//! line that is exactly the block's end line; it would end the block early.
//!
//! Stripping drops every block with the marker (a duplicated block is a broken file, and upsert
//! must leave exactly one), plus the blank lines after each. Upserting puts the one block at the
//! very top and is idempotent: applying it twice gives the same text as applying it once.

use std::ops::Range;

/// The generic OS block marker; the block ends at the next `---` line.
pub const OS_MARKER: &str = "<!-- OS DO NOT REMOVE -->";

/// The legacy hermes SOUL skill-priority block; the block ends at the next `---` line.
pub const HERMES_SKILL_MARKER: &str = "<!-- OS HERMES SKILL PRIORITY -->";

/// First line of the persona inline block in codex and opencode AGENTS.md.
pub const PERSONA_INLINE_START: &str =
    "<!-- OS PERSONA INLINE — DO NOT EDIT (generated from SOUL.md + IDENTITY.md) -->";

/// Last line of the persona inline block.
pub const PERSONA_INLINE_END: &str = "<!-- /OS PERSONA INLINE -->";

/// The line ending a marker block.
const BLOCK_END: &str = "---";

/// Byte range of the first marker block (marker line through the `---` line and its line break;
/// to the end of the text when no `---` line follows).
pub fn find_block(text: &str, marker: &str) -> Option<Range<usize>> {
    find_delimited(text, marker, BLOCK_END)
}

/// `text` without any marker block nor the blank lines after each.
pub fn strip_block(text: &str, marker: &str) -> String {
    strip_delimited(text, marker, BLOCK_END)
}

/// `text` with exactly one marker block holding `body`, at the very top: the marker line, the
/// trimmed body, `---`, a blank line and the rest of the text (its leading blank lines dropped).
/// With no rest, the text is the block and a final line break.
pub fn upsert_top_block(text: &str, marker: &str, body: &str) -> String {
    upsert_top_delimited(text, marker, BLOCK_END, body)
}

/// Byte range of the first delimited block (start line through the end line and its line
/// break; to the end of the text when no end line follows).
pub fn find_delimited(text: &str, start: &str, end: &str) -> Option<Range<usize>> {
    let mut lines = lines_with_offsets(text);
    let (begin, _) = lines.find(|(_, line)| content(line) == start)?;
    let stop = lines
        .find(|(_, line)| content(line) == end)
        .map_or(text.len(), |(offset, line)| offset + line.len());
    Some(begin..stop)
}

/// `text` without any delimited block nor the blank lines after each.
pub fn strip_delimited(text: &str, start: &str, end: &str) -> String {
    let mut out = text.to_string();
    while let Some(range) = find_delimited(&out, start, end) {
        let mut stop = range.end;
        for (offset, line) in lines_with_offsets(&out[range.end..]) {
            if !content(line).trim().is_empty() {
                break;
            }
            stop = range.end + offset + line.len();
        }
        out.replace_range(range.start..stop, "");
    }
    out
}

/// `text` with exactly one delimited block holding `body` at the very top, then a blank line and
/// the rest (leading blank lines dropped); with no rest, the block and a final line break.
pub fn upsert_top_delimited(text: &str, start: &str, end: &str, body: &str) -> String {
    let newline = if super::is_crlf(text) { "\r\n" } else { "\n" };
    let stripped = strip_delimited(text, start, end);
    let rest = drop_leading_blank_lines(&stripped);
    let body = body.trim().replace("\r\n", "\n").replace('\n', newline);
    let mut out = String::with_capacity(start.len() + body.len() + end.len() + rest.len() + 8);
    out.push_str(start);
    out.push_str(newline);
    out.push_str(&body);
    out.push_str(newline);
    out.push_str(end);
    out.push_str(newline);
    if !rest.is_empty() {
        out.push_str(newline);
        out.push_str(rest);
    }
    out
}

/// Lines with their byte offsets; each line keeps its `\n` (the last may have none).
fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n').scan(0, |offset, line| {
        let at = *offset;
        *offset += line.len();
        Some((at, line))
    })
}

/// A line without its line break (`\n` or `\r\n`).
fn content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

fn drop_leading_blank_lines(text: &str) -> &str {
    let mut start = 0;
    for (offset, line) in lines_with_offsets(text) {
        if !content(line).trim().is_empty() || !line.ends_with('\n') {
            break;
        }
        start = offset + line.len();
    }
    let rest = &text[start..];
    if rest.trim().is_empty() { "" } else { rest }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    const SOUL_BODY: &str = "You are the device's assistant.\n\nBe kind.";

    #[test]
    fn upsert_into_an_owner_file() {
        let owner = "## Personal\n\nI like tea.\n";
        let out = upsert_top_block(owner, OS_MARKER, SOUL_BODY);
        assert_eq!(
            out,
            "<!-- OS DO NOT REMOVE -->\nYou are the device's assistant.\n\nBe kind.\n---\n\n\
             ## Personal\n\nI like tea.\n"
        );
        assert_eq!(upsert_top_block(&out, OS_MARKER, SOUL_BODY), out);
    }

    #[test]
    fn upsert_replaces_the_old_block_and_keeps_owner_text() {
        let old = "<!-- OS DO NOT REMOVE -->\nold rules\n---\n\n\n## Personal\n\nmine\n";
        let out = upsert_top_block(old, OS_MARKER, "  new rules\n");
        assert_eq!(
            out,
            "<!-- OS DO NOT REMOVE -->\nnew rules\n---\n\n## Personal\n\nmine\n"
        );
        assert_eq!(upsert_top_block(&out, OS_MARKER, "new rules"), out);
    }

    #[test]
    fn upsert_moves_a_block_found_lower_to_the_top() {
        let text =
            "# Agents\n\nowner intro\n\n<!-- OS DO NOT REMOVE -->\nrules\n---\n\nowner outro\n";
        let out = upsert_top_block(text, OS_MARKER, "rules");
        assert_eq!(
            out,
            "<!-- OS DO NOT REMOVE -->\nrules\n---\n\n# Agents\n\nowner intro\n\nowner outro\n"
        );
        assert_eq!(upsert_top_block(&out, OS_MARKER, "rules"), out);
    }

    #[test]
    fn upsert_into_an_empty_or_blank_file() {
        for text in ["", "\n\n", "<!-- OS DO NOT REMOVE -->\nold\n---\n\n"] {
            let out = upsert_top_block(text, OS_MARKER, "body");
            assert_eq!(out, "<!-- OS DO NOT REMOVE -->\nbody\n---\n", "{text:?}");
            assert_eq!(upsert_top_block(&out, OS_MARKER, "body"), out);
        }
    }

    #[test]
    fn find_and_strip() {
        let text = "intro\n<!-- OS DO NOT REMOVE -->\nbody\n---\n\nafter\n";
        let range = find_block(text, OS_MARKER).unwrap();
        assert_eq!(&text[range], "<!-- OS DO NOT REMOVE -->\nbody\n---\n");
        assert_eq!(strip_block(text, OS_MARKER), "intro\nafter\n");
        assert_eq!(find_block("no block\n", OS_MARKER), None);
        assert_eq!(strip_block("no block\n", OS_MARKER), "no block\n");
        // the marker must be the whole line
        let text = "see <!-- OS DO NOT REMOVE --> here\n---\n";
        assert_eq!(find_block(text, OS_MARKER), None);
        // a `---` inside a line does not end the block
        let text = "<!-- OS DO NOT REMOVE -->\na --- b\n---\nrest\n";
        assert_eq!(strip_block(text, OS_MARKER), "rest\n");
    }

    #[test]
    fn a_missing_end_runs_to_the_end_of_the_file() {
        let text = "owner\n\n<!-- OS DO NOT REMOVE -->\nbody never ends\nmore\n";
        let range = find_block(text, OS_MARKER).unwrap();
        assert_eq!(range.end, text.len());
        assert_eq!(strip_block(text, OS_MARKER), "owner\n\n");
        let out = upsert_top_block(text, OS_MARKER, "b");
        assert_eq!(out, "<!-- OS DO NOT REMOVE -->\nb\n---\n\nowner\n\n");
        assert_eq!(upsert_top_block(&out, OS_MARKER, "b"), out);
        // marker on the last line with no line break
        assert_eq!(
            strip_block("x\n<!-- OS DO NOT REMOVE -->", OS_MARKER),
            "x\n"
        );
    }

    #[test]
    fn duplicated_blocks_are_all_stripped() {
        let text =
            "<!-- OS DO NOT REMOVE -->\na\n---\nmid\n<!-- OS DO NOT REMOVE -->\nb\n---\nend\n";
        assert_eq!(strip_block(text, OS_MARKER), "mid\nend\n");
        let out = upsert_top_block(text, OS_MARKER, "c");
        assert_eq!(out, "<!-- OS DO NOT REMOVE -->\nc\n---\n\nmid\nend\n");
    }

    #[test]
    fn crlf_files() {
        let text = "<!-- OS DO NOT REMOVE -->\r\nold\r\n---\r\n\r\n## Personal\r\nmine\r\n";
        assert_eq!(strip_block(text, OS_MARKER), "## Personal\r\nmine\r\n");
        let out = upsert_top_block(text, OS_MARKER, "new\nrules");
        assert_eq!(
            out,
            "<!-- OS DO NOT REMOVE -->\r\nnew\r\nrules\r\n---\r\n\r\n## Personal\r\nmine\r\n"
        );
        assert_eq!(upsert_top_block(&out, OS_MARKER, "new\nrules"), out);
    }

    #[test]
    fn other_markers_do_not_interfere() {
        let text = "<!-- OS HERMES SKILL PRIORITY -->\n**Skill priority (MANDATORY):**\n---\n\n\
                    <!-- OS DO NOT REMOVE -->\nos\n---\n\nSoul text\n";
        let stripped = strip_block(text, HERMES_SKILL_MARKER);
        assert_eq!(
            stripped,
            "<!-- OS DO NOT REMOVE -->\nos\n---\n\nSoul text\n"
        );
        assert_eq!(strip_block(&stripped, OS_MARKER), "Soul text\n");
    }

    #[test]
    fn persona_inline_block() {
        let agents = "<!-- OS DO NOT REMOVE -->\nos rules\n---\n\n# Project notes\n";
        let out = upsert_top_delimited(
            agents,
            PERSONA_INLINE_START,
            PERSONA_INLINE_END,
            "Soul\n---\nId",
        );
        assert_eq!(
            out,
            format!(
                "{PERSONA_INLINE_START}\nSoul\n---\nId\n{PERSONA_INLINE_END}\n\n\
                 <!-- OS DO NOT REMOVE -->\nos rules\n---\n\n# Project notes\n"
            )
        );
        assert_eq!(
            upsert_top_delimited(
                &out,
                PERSONA_INLINE_START,
                PERSONA_INLINE_END,
                "Soul\n---\nId"
            ),
            out
        );
        let range = find_delimited(&out, PERSONA_INLINE_START, PERSONA_INLINE_END).unwrap();
        assert_eq!(range.start, 0);
        assert!(out[range].ends_with("<!-- /OS PERSONA INLINE -->\n"));
        assert_eq!(
            strip_delimited(&out, PERSONA_INLINE_START, PERSONA_INLINE_END),
            agents
        );
        // the generic block survives the persona edits, and vice versa
        assert_eq!(
            strip_block(&out, OS_MARKER)
                .matches("Project notes")
                .count(),
            1
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        for text in [
            "",
            "\n",
            "\r\n",
            "---",
            "<!-- OS DO NOT REMOVE -->",
            "\u{feff}x\r",
            "é\n---",
        ] {
            let _ = find_block(text, OS_MARKER);
            let _ = strip_block(text, OS_MARKER);
            let once = upsert_top_block(text, OS_MARKER, "b");
            assert_eq!(upsert_top_block(&once, OS_MARKER, "b"), once, "{text:?}");
            let once = upsert_top_delimited(text, PERSONA_INLINE_START, PERSONA_INLINE_END, "");
            assert_eq!(
                upsert_top_delimited(&once, PERSONA_INLINE_START, PERSONA_INLINE_END, ""),
                once
            );
        }
    }
}
