//! Reading: the dialects ([`Dialect`], what each runtime's own reader accepts), parsing into the
//! CST, and the checks the parser leaves to osctl (duplicate keys, numbers a JSON value cannot
//! hold exactly, what a dialect's reader refuses), each refusal in osctl's words with the line
//! and column.

use std::collections::HashMap;

use jsonc_parser::ast;
use jsonc_parser::cst::CstRootNode;
use jsonc_parser::errors::ParseError;
use jsonc_parser::tokens::{Token, TokenAndRange};
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

use super::{JsonDoc, number_value};
use crate::error::{Error, Result};
use crate::format::line_col;

/// Which JSON a file is read as. The runtime's own reader decides, so a file osctl accepts is
/// one the runtime can read, and osctl never writes into one it cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Strict JSON (RFC 8259): picoclaw (Go's encoding/json), Claude Code (JSON.parse).
    Json,
    /// JSON plus `//` and `/* */` comments and trailing commas, nothing else: opencode reads its
    /// file with jsonc-parser and refuses unquoted keys, single quotes, hex numbers, `+1`.
    Jsonc,
    /// JSON5, as openclaw reads it (the json5 package), less what a JSON value cannot hold
    /// exactly: `Infinity`, `NaN` and integers beyond 64 bits are refused.
    Json5,
}

impl Dialect {
    fn options(self) -> ParseOptions {
        let json5 = self == Dialect::Json5;
        ParseOptions {
            allow_comments: self != Dialect::Json,
            allow_loose_object_property_names: json5,
            allow_trailing_commas: self != Dialect::Json,
            // no dialect has missing commas
            allow_missing_commas: false,
            allow_single_quoted_strings: json5,
            allow_hexadecimal_numbers: json5,
            allow_unary_plus_numbers: json5,
            allow_bare_decimal_point_numbers: json5,
            // serde_json::Value cannot hold them
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: json5,
        }
    }

    /// Who reads the file so, for messages.
    fn reader(self) -> &'static str {
        match self {
            Dialect::Json => {
                "this file is strict JSON (its runtime reads it with a strict JSON parser)"
            }
            Dialect::Jsonc => {
                "this file is JSON with comments and trailing commas only (what opencode reads)"
            }
            Dialect::Json5 => "this file is JSON5 (what openclaw reads)",
        }
    }

    /// JSON5's whitespace, else JSON's.
    fn is_space(self, c: char) -> bool {
        matches!(c, ' ' | '\t' | '\n' | '\r')
            || self == Dialect::Json5
                && (matches!(
                    c,
                    '\u{0b}' | '\u{0c}' | '\u{a0}' | '\u{feff}' | '\u{2028}' | '\u{2029}'
                ) || c.is_whitespace() && !c.is_control())
    }
}

impl JsonDoc {
    /// Parses `text` as JSON5 (the most the editor reads); `origin` (the device path) names the
    /// file in errors. See [`JsonDoc::parse_as`].
    pub fn parse(text: &str, origin: &str) -> Result<JsonDoc> {
        JsonDoc::parse_as(text, origin, Dialect::Json5)
    }

    /// Parses `text` as `dialect`; `origin` (the device path) names the file in errors, which
    /// give the line and column and say what is wrong in osctl's words.
    ///
    /// An empty file (or one holding only comments and blanks) is an empty document:
    /// [`JsonDoc::value`] is `null` and the first `set` creates the root object.
    pub fn parse_as(text: &str, origin: &str, dialect: Dialect) -> Result<JsonDoc> {
        let (bom, text) = match text.strip_prefix('\u{feff}') {
            Some(rest) if dialect == Dialect::Json5 => (true, rest),
            Some(_) => {
                return Err(Error::parse(
                    origin,
                    Some(1),
                    Some(1),
                    format!("a byte order mark at the start: {}", dialect.reader()),
                ));
            }
            None => (false, text),
        };
        let options = dialect.options();
        let collect = CollectOptions {
            comments: CommentCollectionStrategy::AsTokens,
            tokens: true,
        };
        let parsed = jsonc_parser::parse_to_ast(text, &collect, &options)
            .map_err(|e| parse_error(text, origin, &e, dialect))?;
        let check = Check {
            text,
            origin,
            dialect,
        };
        check.blanks(parsed.tokens.as_deref().unwrap_or_default())?;
        if let Some(value) = &parsed.value {
            check.value(value)?;
        }
        let root = CstRootNode::parse(text, &options)
            .map_err(|e| parse_error(text, origin, &e, dialect))?;
        if root.to_string() != text {
            return Err(Error::internal(format!(
                "the JSON syntax tree of {origin} does not reproduce the file"
            )));
        }
        Ok(JsonDoc {
            root,
            origin: origin.to_string(),
            bom,
        })
    }
}

/// A jsonc-parser error in osctl's words: what is wrong at that line and column.
fn parse_error(text: &str, origin: &str, err: &ParseError, dialect: Dialect) -> Error {
    use jsonc_parser::ParseStringErrorKind as S;
    use jsonc_parser::errors::ParseErrorKind as K;
    let not_here = |what: &str| format!("{what}, which is not allowed here: {}", dialect.reader());
    let cause = match err.kind() {
        K::CommentsNotAllowed => not_here("a comment"),
        K::TrailingCommasNotAllowed => not_here("a comma after the last item"),
        K::SingleQuotedStringsNotAllowed => not_here("a single-quoted string"),
        K::HexadecimalNumbersNotAllowed => not_here("a hexadecimal number"),
        K::UnaryPlusNumbersNotAllowed => not_here("a number with a leading `+`"),
        K::BareDecimalPointNumbersNotAllowed => {
            not_here("a number with no digit before or after its `.`")
        }
        K::ExpectedStringObjectProperty => match dialect {
            Dialect::Json5 => "an object key that is not a string or a name".to_string(),
            _ => not_here("an object key without double quotes"),
        },
        K::NonFiniteNumbersNotAllowed => format!(
            "`Infinity` or `NaN`, which osctl cannot keep exactly ({})",
            dialect.reader()
        ),
        K::ExpectedColonAfterObjectKey => "an object key with no `:` after it".to_string(),
        K::ExpectedObjectValue => "an object key with no value after its `:`".to_string(),
        K::ExpectedDigit
        | K::ExpectedDigitFollowingNegativeSign
        | K::ExpectedPlusMinusOrDigitInNumberLiteral => "a number with a digit missing".to_string(),
        K::ExpectedComma => "two values with no comma between them".to_string(),
        K::MultipleRootJsonValues => "more text after the end of the document".to_string(),
        K::UnexpectedCloseBrace => "a `}` that closes nothing".to_string(),
        K::UnexpectedCloseBracket => "a `]` that closes nothing".to_string(),
        K::UnexpectedColon => "a `:` where none belongs".to_string(),
        K::UnexpectedComma => "a comma where none belongs (two in a row, or one first)".to_string(),
        K::UnexpectedWord
            if matches!(
                text.get(err.range().start..err.range().end),
                Some("Infinity" | "-Infinity" | "+Infinity" | "NaN" | "-NaN" | "+NaN")
            ) =>
        {
            format!(
                "`Infinity` or `NaN`, which osctl cannot keep exactly ({})",
                dialect.reader()
            )
        }
        K::UnexpectedWord => match dialect {
            Dialect::Json5 => "a word that is not a value: text needs quotes".to_string(),
            _ => "a word that is not a value: text needs double quotes".to_string(),
        },
        K::UnexpectedToken | K::UnexpectedTokenInObject => {
            "a character that does not belong here".to_string()
        }
        K::UnterminatedArray => "an array with no closing `]`".to_string(),
        K::UnterminatedObject => "an object with no closing `}`".to_string(),
        K::UnterminatedCommentBlock => "a `/*` comment with no closing `*/`".to_string(),
        K::NestingDepthExceeded => "objects or arrays nested too deep to read".to_string(),
        K::String(S::UnterminatedStringLiteral) => {
            "a string with no closing quote on its line".to_string()
        }
        K::String(S::ExpectedFourHexDigits) => {
            "a \\u escape without four hexadecimal digits".to_string()
        }
        K::String(S::ExpectedTwoHexDigits) => {
            "a \\x escape without two hexadecimal digits".to_string()
        }
        K::String(S::InvalidUnicodeEscapeSequence(_)) => {
            "a \\u escape that is not a character (a lone surrogate)".to_string()
        }
        K::String(_) => format!(
            "a backslash that starts no valid escape (write a backslash as \\\\; {})",
            dialect.reader()
        ),
        _ => "this is not valid JSON".to_string(),
    };
    let (line, column) = line_col(text, err.range().start);
    Error::parse(origin, Some(line), Some(column), cause)
}

/// What the parser lets through but the dialect's reader refuses, or osctl could not edit
/// faithfully.
struct Check<'a> {
    text: &'a str,
    origin: &'a str,
    dialect: Dialect,
}

impl Check<'_> {
    fn refuse(&self, offset: usize, cause: String) -> Result<()> {
        let (line, column) = line_col(self.text, offset);
        Err(Error::parse(self.origin, Some(line), Some(column), cause))
    }

    /// Only the dialect's whitespace between tokens (JSON has no vertical tab, say).
    fn blanks(&self, tokens: &[TokenAndRange<'_>]) -> Result<()> {
        if self.dialect == Dialect::Json
            && let Some(comment) = tokens
                .iter()
                .find(|t| matches!(t.token, Token::CommentLine(_) | Token::CommentBlock(_)))
        {
            return self.refuse(
                comment.range.start,
                format!(
                    "a comment, which is not allowed here: {}",
                    self.dialect.reader()
                ),
            );
        }
        let mut at = 0;
        let gaps = tokens
            .iter()
            .map(|t| (t.range.start, t.range.end))
            .chain([(self.text.len(), self.text.len())]);
        for (start, end) in gaps {
            if let Some((i, c)) = self.text[at..start]
                .char_indices()
                .find(|&(_, c)| !self.dialect.is_space(c))
            {
                let what = if c == '\u{feff}' {
                    "a byte order mark".to_string()
                } else {
                    format!("the character U+{:04X}", c as u32)
                };
                return self.refuse(
                    at + i,
                    format!("{what} between values: {}", self.dialect.reader()),
                );
            }
            at = end.max(at);
        }
        Ok(())
    }

    fn value(&self, value: &ast::Value<'_>) -> Result<()> {
        match value {
            ast::Value::Object(obj) => {
                let mut seen: HashMap<String, usize> = HashMap::new();
                for prop in &obj.properties {
                    let (name, start) = match &prop.name {
                        ast::ObjectPropName::String(s) => {
                            self.string(s)?;
                            (s.value.to_string(), s.range.start)
                        }
                        ast::ObjectPropName::Word(w) => {
                            if !is_identifier(w.value) {
                                return self.refuse(
                                    w.range.start,
                                    format!(
                                        "the key `{}` must be quoted: an unquoted key is a name \
                                         (letters, digits, `_` and `$`, not starting with a \
                                         digit)",
                                        w.value
                                    ),
                                );
                            }
                            (w.value.to_string(), w.range.start)
                        }
                    };
                    if let Some(first) = seen.insert(name.clone(), start) {
                        let (first_line, _) = line_col(self.text, first);
                        let (line, _) = line_col(self.text, start);
                        return self.refuse(
                            start,
                            format!(
                                "the key `{name}` is written twice in one object (lines \
                                 {first_line} and {line}): osctl cannot tell which one the \
                                 runtime reads; remove one of them"
                            ),
                        );
                    }
                    self.value(&prop.value)?;
                }
            }
            ast::Value::Array(arr) => {
                for element in &arr.elements {
                    self.value(element)?;
                }
            }
            ast::Value::NumberLit(n) => self.number(n.value, n.range.start)?,
            ast::Value::StringLit(s) => self.string(s)?,
            ast::Value::BooleanLit(_) | ast::Value::NullKeyword(_) => {}
        }
        Ok(())
    }

    fn number(&self, raw: &str, start: usize) -> Result<()> {
        if !number_syntax(raw, self.dialect == Dialect::Json5) {
            return self.refuse(
                start,
                format!(
                    "`{raw}` is not a number as written: {}",
                    self.dialect.reader()
                ),
            );
        }
        if number_value(raw).is_none() {
            return self.refuse(
                start,
                format!("the number `{raw}` is outside the 64-bit range osctl can keep exactly"),
            );
        }
        Ok(())
    }

    /// A string's raw text: no control character JSON needs escaped, no line break in JSON5.
    fn string(&self, s: &ast::StringLit<'_>) -> Result<()> {
        let raw = &self.text[s.range.start..s.range.end];
        let mut escaped = false;
        for (i, c) in raw.char_indices() {
            let bad = match self.dialect {
                Dialect::Json | Dialect::Jsonc => c < ' ',
                // JSON5 allows a line break only escaped (a line continuation)
                Dialect::Json5 => !escaped && matches!(c, '\n' | '\r'),
            };
            if bad {
                return self.refuse(
                    s.range.start + i,
                    format!(
                        "a raw control character (U+{:04X}) in a string: write it as an escape \
                         such as \\n or \\t",
                        c as u32
                    ),
                );
            }
            escaped = !escaped && c == '\\';
        }
        Ok(())
    }
}

/// A number literal in the dialect's grammar: JSON's `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`,
/// or JSON5's (a sign, hex, `.5` and `5.`, but no leading zero either).
fn number_syntax(raw: &str, json5: bool) -> bool {
    let body = match raw.as_bytes().first() {
        Some(b'-') => &raw[1..],
        Some(b'+') if json5 => &raw[1..],
        _ => raw,
    };
    if json5 && let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(exp) = exponent {
        let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if !digits(exp) {
            return false;
        }
    }
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let int_ok = digits(int) && (int == "0" || !int.starts_with('0'));
    match frac {
        None => int_ok,
        Some(f) if json5 => (int_ok || int.is_empty()) && (digits(f) || f.is_empty() && int_ok),
        Some(f) => int_ok && digits(f),
    }
}

/// An ECMAScript IdentifierName (without `\u` escapes), as JSON5 allows for unquoted keys.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let start = |c: char| c == '$' || c == '_' || c.is_alphabetic();
    chars.next().is_some_and(start)
        && chars.all(|c| start(c) || c.is_alphanumeric() || matches!(c, '\u{200c}' | '\u{200d}'))
}
