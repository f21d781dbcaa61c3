//! The printer: the only place osctl writes to stdout and stderr.
//!
//! stdout carries the product only (a diff, a table, one JSON document with `--json`); status
//! lines, warnings, errors and hints go to stderr. Everything passes through
//! [`crate::redact`] first, so a secret cannot reach a terminal, a pipe or a log by any path.
//! Colour is used only on a terminal (or with `--color always`), never when `NO_COLOR` is set,
//! and never carries meaning on its own.

use std::io::{IsTerminal, Write};

use serde_json::Value;

use crate::error::Error;
use crate::redact::redact;

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The JSON document version every `--json` output carries as `"schema"`.
pub const JSON_SCHEMA: u64 = 1;

#[derive(Clone, Copy, Debug)]
pub enum Style {
    Bold,
    Good,
    Bad,
    Warn,
    Dim,
}

#[derive(Clone, Debug)]
pub struct Printer {
    pub json: bool,
    pub quiet: bool,
    pub verbose: u8,
    color: bool,
}

impl Printer {
    pub fn new(
        json: bool,
        quiet: bool,
        verbose: u8,
        color: ColorChoice,
        no_color_env: bool,
    ) -> Self {
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                !no_color_env
                    && std::io::stderr().is_terminal()
                    && std::env::var("TERM").map(|t| t != "dumb").unwrap_or(false)
            }
        };
        Printer {
            json,
            quiet,
            verbose,
            color,
        }
    }

    /// Product text on stdout (a diff, a table). Nothing is added: the caller ends lines.
    pub fn product(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(redact(text).as_bytes());
        let _ = out.flush();
    }

    /// The one JSON document of a `--json` run, with `"schema"` first, on stdout.
    pub fn json_doc(&self, command: &str, body: Value) {
        let doc = with_schema(command, body);
        let text = serde_json::to_string_pretty(&redact_json(doc)).unwrap_or_default();
        self.product(&format!("{text}\n"));
    }

    /// One compact JSON line on stdout (for commands that stream phases, like `switch --json`).
    pub fn json_line(&self, command: &str, body: Value) {
        let doc = with_schema(command, body);
        let text = serde_json::to_string(&redact_json(doc)).unwrap_or_default();
        self.product(&format!("{text}\n"));
    }

    /// A status line on stderr (suppressed by `--quiet`).
    pub fn status(&self, text: &str) {
        if !self.quiet {
            self.stderr(text);
        }
    }

    /// A detail line on stderr, only with `-v`.
    pub fn detail(&self, text: &str) {
        if self.verbose > 0 && !self.quiet {
            self.stderr(text);
        }
    }

    /// A warning on stderr (shown even with `--quiet`: it is about the device, not progress).
    pub fn warn(&self, text: &str) {
        let label = self.paint("warning:", Style::Warn);
        self.stderr(&format!("{label} {text}"));
    }

    /// Renders an error: message, location, causes, hint on stderr; with `--json` also the JSON
    /// document (with `error.code`) on stdout.
    pub fn error(&self, command: &str, err: &Error) {
        let mut text = format!("{} {}", self.paint("error:", Style::Bad), err.message);
        if let Some(loc) = &err.location
            && loc.line.is_some()
        {
            text.push_str(&format!("\n  at {loc}"));
        }
        for cause in &err.causes {
            if !cause.is_empty() {
                text.push_str(&format!("\n  caused by: {cause}"));
            }
        }
        if let Some(hint) = &err.hint {
            text.push_str(&format!("\n\n{} {hint}", self.paint("hint:", Style::Bold)));
        }
        self.stderr(&text);
        if self.json {
            let mut e = serde_json::json!({
                "code": err.code,
                "exit": err.exit.code(),
                "message": err.message,
                "causes": err.causes,
            });
            if let Some(loc) = &err.location {
                e["file"] = loc.file.clone().into();
                e["line"] = loc.line.into();
                e["column"] = loc.column.into();
            }
            if let Some(h) = &err.hint {
                e["hint"] = h.clone().into();
            }
            self.json_doc(command, serde_json::json!({ "ok": false, "error": e }));
        }
    }

    /// Wraps text in a colour when colour is on.
    pub fn paint(&self, text: &str, style: Style) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match style {
            Style::Bold => "1",
            Style::Good => "32",
            Style::Bad => "1;31",
            Style::Warn => "33",
            Style::Dim => "2",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }

    fn stderr(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", redact(text));
    }
}

fn with_schema(command: &str, body: Value) -> Value {
    let mut doc = serde_json::Map::new();
    doc.insert("schema".into(), JSON_SCHEMA.into());
    doc.insert("command".into(), command.into());
    if let Value::Object(m) = body {
        for (k, v) in m {
            doc.insert(k, v);
        }
    }
    Value::Object(doc)
}

/// Masks secrets in every string of a JSON value (keys that name secrets included).
pub fn redact_json(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(redact(&s).into_owned()),
        Value::Array(a) => Value::Array(a.into_iter().map(redact_json).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) if crate::redact::is_secret_key(&k) => {
                            Value::String(crate::redact::mask_secret_value(&s).into_owned())
                        }
                        other => redact_json(other),
                    };
                    (k, v)
                })
                .collect(),
        ),
        other => other,
    }
}
