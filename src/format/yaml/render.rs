//! YAML text osctl writes: when a string needs quotes (YAML 1.1 and 1.2 readers alike), and new
//! block content laid out under its key.

use super::*;

/// Whether a string must be quoted so that YAML 1.1 (PyYAML) and YAML 1.2 readers, in block and
/// flow context, read it back as that string.
///
/// Quoted: the empty string; leading or trailing blanks; any control character; the YAML 1.1
/// booleans and nulls in any case (`y n yes no on off true false null ~`); anything that looks
/// like a number, a date or a time (a sign or digit or `.` followed only by digits, letters of
/// hex/octal/binary/exponent forms, `_ . : + -`, e.g. `0755`, `0x1F`, `1_000`, `12:30`,
/// `2026-01-01`, and `.inf` / `.nan`); strings starting with an indicator
/// (`- ? : , [ ] { } # & * ! | > ' " % @ ` < =`); strings holding `: `, ` #`, a flow indicator
/// (`, [ ] { }`) or ending with `:`; and timestamps (`2026-01-01T10:00:00Z`).
pub fn needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    if s.trim() != s || s.chars().any(|c| c.is_control() || c == '\u{feff}') {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
    ) {
        return true;
    }
    if "-?:,[]{}#&*!|>'\"%@`<=".contains(first) {
        return true;
    }
    if s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.contains([',', '[', ']', '{', '}'])
    {
        return true;
    }
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let numberish = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && unsigned
            .chars()
            .all(|c| c.is_ascii_hexdigit() || "xXoObB_.:+-".contains(c));
    if numberish {
        return true;
    }
    let lower_unsigned = unsigned.to_ascii_lowercase();
    if matches!(
        lower_unsigned.as_str(),
        ".inf" | ".nan" | "inf" | "nan" | "infinity"
    ) {
        return true;
    }
    // YAML 1.1 timestamps: 2026-01-01T10:00:00Z, 2026-1-1 10:00:00 +1
    let bytes = s.as_bytes();
    bytes.len() > 5 && bytes[..4].iter().all(u8::is_ascii_digit) && bytes[4] == b'-'
}

/// `value`, a collection, as block YAML; a sequence's `-` sits `seq_indent` columns right of its
/// key, and a sequence at the root at column `seq_indent` too (yaml-edit then lays a root-level
/// insertion out the same way). Empty collections are `{}` / `[]`.
pub(super) fn render_block(value: &Value, seq_indent: usize) -> String {
    let r = Render { seq_indent };
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => r.mapping(map, 0, &mut out),
        Value::Array(items) if !items.is_empty() => r.sequence(items, seq_indent, &mut out),
        Value::Object(_) => out.push_str("{}\n"),
        _ => out.push_str("[]\n"),
    }
    out
}

pub(super) struct Render {
    pub(super) seq_indent: usize,
}

impl Render {
    pub(super) fn mapping(&self, map: &Map<String, Value>, indent: usize, out: &mut String) {
        for (key, value) in map {
            out.push_str(&" ".repeat(indent));
            out.push_str(&scalar_text(&Value::String(key.clone())));
            out.push(':');
            match value {
                Value::Object(map) if !map.is_empty() => {
                    out.push('\n');
                    self.mapping(map, indent + 2, out);
                }
                Value::Array(items) if !items.is_empty() => {
                    out.push('\n');
                    self.sequence(items, indent + self.seq_indent, out);
                }
                _ => {
                    out.push(' ');
                    out.push_str(&scalar_text(value));
                    out.push('\n');
                }
            }
        }
    }

    pub(super) fn sequence(&self, items: &[Value], indent: usize, out: &mut String) {
        for item in items {
            out.push_str(&" ".repeat(indent));
            out.push('-');
            // a nested collection starts on the dash's line, the rest lines up under it
            let mut nested = String::new();
            match item {
                Value::Object(map) if !map.is_empty() => self.mapping(map, indent + 2, &mut nested),
                Value::Array(items) if !items.is_empty() => {
                    self.sequence(items, indent + 2, &mut nested)
                }
                _ => {
                    out.push(' ');
                    out.push_str(&scalar_text(item));
                    out.push('\n');
                    continue;
                }
            }
            out.push(' ');
            out.push_str(&nested[indent + 2..]);
        }
    }
}

/// The file's block sequence style: 0 when the first block sequence under a mapping key sits at
/// the key's column (`key:\n- a`, PyYAML's style), else 2.
pub(super) fn sequence_indent(text: &str) -> usize {
    let mut key_indent: Option<usize> = None;
    for line in text.lines() {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        if let Some(key) = key_indent
            && (content == "-" || content.starts_with("- "))
        {
            return if indent == key { 0 } else { 2 };
        }
        let without_comment = content.split(" #").next().unwrap_or(content).trim_end();
        key_indent = without_comment.ends_with(':').then_some(indent);
    }
    2
}

/// A scalar (or empty collection) as YAML text.
pub(super) fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) if needs_quotes(s) => double_quote(s),
        Value::String(s) => s.clone(),
        Value::Object(_) => "{}".to_string(),
        Value::Array(_) => "[]".to_string(),
    }
}

pub(super) fn double_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number as YAML 1.1 and 1.2 both read it: floats always carry a `.` and a signed exponent.
pub(super) fn number_text(n: &Number) -> String {
    if !n.is_f64() {
        return n.to_string();
    }
    let text = n.to_string();
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text.as_str(), None),
    };
    let mut out = mantissa.to_string();
    if !out.contains('.') {
        out.push_str(".0");
    }
    if let Some(exponent) = exponent {
        out.push('e');
        if !exponent.starts_with(['+', '-']) {
            out.push('+');
        }
        out.push_str(exponent);
    }
    out
}
