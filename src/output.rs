//! The printer: the only place osctl writes to stdout and stderr, and the run's report.
//!
//! stdout carries the product only (a diff, a table, or with `--json` the run's one JSON
//! document); status lines, warnings, errors and hints go to stderr; `--events` progress lines
//! go to their own descriptor. Everything passes through [`crate::redact`] first, so a secret
//! cannot reach a terminal, a pipe or a log by any path.
//!
//! With `--json`, commands fill a [`Report`] (their fields, warnings, the error they ended on)
//! and `lib::run` writes it once, in its envelope, when the exit code is known. A command's own
//! typed report goes through one renderer, [`Printer::render`]: its fields into that document
//! with `--json`, else its `Display` text as the product.
//!
//! Colour is decided per stream: stdout's by stdout, stderr's by stderr (`--color`, and for
//! `auto` anstream's reading of `NO_COLOR`, `CLICOLOR_FORCE` and the terminal). It never
//! carries meaning on its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use crate::error::{Error, Exit, Location};
use crate::redact::redact;

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The JSON document version every `--json` output carries as `"schema"`. Version 2: one
/// envelope for every run (`ok`, `changed`, `exit_code`, `mode`, `error`, `warnings`), see
/// `docs/schema/envelope.json`.
pub const JSON_SCHEMA: u64 = 2;

#[derive(Clone, Copy, Debug)]
pub enum Style {
    Bold,
    Good,
    Bad,
    Warn,
    Dim,
}

impl Style {
    fn anstyle(self) -> anstyle::Style {
        use anstyle::{AnsiColor, Style as S};
        match self {
            Style::Bold => S::new().bold(),
            Style::Good => S::new().fg_color(Some(AnsiColor::Green.into())),
            Style::Bad => S::new().bold().fg_color(Some(AnsiColor::Red.into())),
            Style::Warn => S::new().fg_color(Some(AnsiColor::Yellow.into())),
            Style::Dim => S::new().dimmed(),
        }
    }
}

/// What a run reports, filled by the command as it goes (its own fields, whether it changed
/// the device, its warnings, the error it ended on) and written once, as the envelope, by
/// [`Printer::write_document`] at the end of `lib::run`, when the exit code is known.
#[derive(Debug, Default)]
pub struct Report {
    /// Whether the run changed the device, as the command said (`None`: it did not say).
    pub changed: Option<bool>,
    /// Every warning shown on stderr, in order.
    pub warnings: Vec<String>,
    /// The error the run ended on (the last one recorded wins: it is the one whose exit code the
    /// run returns).
    pub error: Option<Error>,
    /// The command's own report fields (`plan`, `runtime`, `steps`, ...), in the order given.
    pub body: Map<String, Value>,
}

/// How a run was asked to change the device; `read` for commands that never change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Apply,
    DryRun,
    Check,
    Read,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Apply => "apply",
            Mode::DryRun => "dry-run",
            Mode::Check => "check",
            Mode::Read => "read",
        }
    }
}

/// Where `--events` writes its JSON lines.
type EventSink = Arc<Mutex<Box<dyn Write + Send>>>;

#[derive(Clone)]
pub struct Printer {
    pub json: bool,
    pub quiet: bool,
    pub verbose: u8,
    /// Colour on stdout (decided by stdout), and on stderr (decided by stderr).
    color_out: bool,
    color_err: bool,
    report: Arc<Mutex<Report>>,
    events: Option<EventSink>,
    /// `--root` when it is not `/`: an error's file is shown as the path the user can open.
    root: Option<PathBuf>,
}

impl std::fmt::Debug for Printer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Printer")
            .field("json", &self.json)
            .field("quiet", &self.quiet)
            .field("verbose", &self.verbose)
            .finish_non_exhaustive()
    }
}

/// Whether a stream gets colour: `always`/`never` as said; `auto` asks anstream, which reads
/// `NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR` and `TERM` and whether this stream is a terminal.
/// `no_color_env` is `NO_COLOR` as the caller's environment has it (tests pass their own).
fn stream_color<S: anstream::stream::RawStream>(
    choice: ColorChoice,
    no_color_env: bool,
    stream: &S,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            !no_color_env
                && !matches!(
                    anstream::AutoStream::choice(stream),
                    anstream::ColorChoice::Never
                )
        }
    }
}

impl Printer {
    pub fn new(
        json: bool,
        quiet: bool,
        verbose: u8,
        color: ColorChoice,
        no_color_env: bool,
    ) -> Self {
        Printer {
            json,
            quiet,
            verbose,
            color_out: stream_color(color, no_color_env, &std::io::stdout()),
            color_err: stream_color(color, no_color_env, &std::io::stderr()),
            report: Arc::default(),
            events: None,
            root: None,
        }
    }

    /// The device's `--root`: errors then name their file as it is under it.
    pub fn with_root(mut self, root: &Path) -> Self {
        self.root = (root != Path::new("/")).then(|| root.to_path_buf());
        self
    }

    /// Sends `--events` lines to this writer (a file descriptor, or stderr for `-`).
    pub fn with_events(mut self, sink: Box<dyn Write + Send>) -> Self {
        self.events = Some(Arc::new(Mutex::new(sink)));
        self
    }

    /// Whether stdout gets colour (a diff is coloured then).
    pub fn color_stdout(&self) -> bool {
        self.color_out
    }

    /// Product text on stdout (a diff, a table). Nothing is added: the caller ends lines.
    /// With `--json` stdout is the document's, so product text is not printed.
    pub fn product(&self, text: &str) {
        if self.json {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(redact(text).as_bytes());
        let _ = out.flush();
    }

    /// The one renderer of a command's typed report: with `--json` its fields join the run's
    /// document ([`Printer::report_of`]); otherwise its text ([`Display`]) is the product on
    /// stdout. When stdout's colour is on the text is its alternate form (`{:#}`), which a
    /// report paints with [`paint`]`(f.alternate(), ..)`: the report decides what is emphasised,
    /// the printer whether this stream may show it.
    ///
    /// [`Display`]: std::fmt::Display
    pub fn render<R: serde::Serialize + std::fmt::Display>(
        &self,
        report: &R,
    ) -> crate::error::Result<()> {
        if self.json {
            return self.report_of(report);
        }
        let text = if self.color_out {
            format!("{report:#}")
        } else {
            report.to_string()
        };
        self.product(&text);
        Ok(())
    }

    /// [`Printer::report`] for a typed report (a struct of the command's fields).
    pub fn report_of(&self, fields: &impl serde::Serialize) -> crate::error::Result<()> {
        let fields = serde_json::to_value(fields)
            .map_err(|e| crate::error::Error::internal(format!("the report: {e}")))?;
        self.report(fields);
        Ok(())
    }

    /// Adds the command's own fields to the run's report. `changed` is taken as the run's
    /// `changed`; the envelope's other keys (`ok`, `schema`, ...) are the envelope's alone and
    /// are dropped here.
    pub fn report(&self, fields: Value) {
        let Value::Object(fields) = fields else {
            return;
        };
        let mut report = self.lock_report();
        for (k, v) in fields {
            match k.as_str() {
                "changed" => report.changed = v.as_bool(),
                k if ENVELOPE_KEYS.contains(&k) => {}
                _ => {
                    report.body.insert(k, v);
                }
            }
        }
    }

    /// One `--events` line: `{"schema":2,"event":EVENT,"command":COMMAND, ...fields}`. Nothing
    /// without `--events`.
    pub fn event(&self, command: &str, event: &str, fields: Value) {
        let Some(sink) = &self.events else {
            return;
        };
        let mut line = Map::new();
        line.insert("schema".into(), JSON_SCHEMA.into());
        line.insert("event".into(), event.into());
        line.insert("command".into(), command.into());
        if let Value::Object(m) = fields {
            line.extend(m);
        }
        let text = serde_json::to_string(&redact_json(Value::Object(line))).unwrap_or_default();
        if let Ok(mut w) = sink.lock() {
            let _ = writeln!(w, "{text}");
            let _ = w.flush();
        }
    }

    /// A status line on stderr (suppressed by `--quiet`).
    pub fn status(&self, text: &str) {
        if !self.quiet {
            self.stderr(text);
        }
    }

    /// A titled block of someone else's lines on stderr (a unit's journal), each indented, shown
    /// even with `--quiet` (like an error, it says why something failed) and not recorded: the
    /// command's report carries them for `--json`.
    pub fn excerpt(&self, title: &str, lines: &[String]) {
        let mut text = title.to_string();
        if lines.is_empty() {
            text.push_str("\n  (no lines)");
        }
        for line in lines {
            text.push_str("\n  ");
            text.push_str(line);
        }
        self.stderr(&text);
    }

    /// A detail line on stderr, only with `-v`.
    pub fn detail(&self, text: &str) {
        if self.verbose > 0 && !self.quiet {
            self.stderr(text);
        }
    }

    /// A warning on stderr (shown even with `--quiet`: it is about the device, not progress),
    /// and in the document's `warnings`.
    pub fn warn(&self, text: &str) {
        self.lock_report().warnings.push(redact(text).into_owned());
        let label = self.paint_err("warning:", Style::Warn);
        self.stderr(&format!("{label} {text}"));
    }

    /// Renders an error on stderr (message, location, causes, hint) and records it as the run's
    /// error, for the document's `error`.
    pub fn error(&self, err: &Error) {
        let mut text = format!("{} {}", self.paint_err("error:", Style::Bad), err.message);
        if let Some(loc) = &err.location {
            // The message speaks of the device's paths; under `--root` the file is also shown
            // where the user can open it.
            match &self.root {
                Some(root) => {
                    let host = Location {
                        file: host_path(root, &loc.file),
                        ..loc.clone()
                    };
                    text.push_str(&format!("\n  at {host}"));
                }
                None if loc.line.is_some() => text.push_str(&format!("\n  at {loc}")),
                None => {}
            }
        }
        for cause in &err.causes {
            if !cause.is_empty() {
                text.push_str(&format!("\n  caused by: {cause}"));
            }
        }
        if let Some(hint) = &err.hint {
            text.push_str(&format!(
                "\n\n{} {hint}",
                self.paint_err("hint:", Style::Bold)
            ));
        }
        self.stderr(&text);
        self.lock_report().error = Some(err.clone());
    }

    /// Records an error as the run's error without printing it (clap printed it already).
    pub fn record_error(&self, err: Error) {
        self.lock_report().error = Some(err);
    }

    /// Writes the run's one JSON document on stdout (with `--json`; nothing otherwise).
    /// `root` is `--root`, under which an error's device path is the file the user can open.
    pub fn write_document(&self, command: &str, mode: Mode, exit: i32, root: &Path) {
        if !self.json {
            return;
        }
        let doc = self.document(command, mode, exit, root);
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    /// The envelope of this run, with its report (secrets masked).
    pub fn document(&self, command: &str, mode: Mode, exit: i32, root: &Path) -> Value {
        let report = self.lock_report();
        let error = report.error.clone().or_else(|| {
            // A run that ends on a failing code has an error to show, even if no code path
            // recorded one (a safety net: every such path should).
            (exit != Exit::Success.code() && exit != Exit::Pending.code())
                .then(|| Error::new(Exit::Failed, "failed", format!("failed (exit {exit})")))
        });
        let changed = match mode {
            Mode::Apply => match exit {
                0 | 3 => report.changed.unwrap_or(false),
                // Partly applied: something landed unless the command says otherwise.
                5 => report.changed.unwrap_or(true),
                // A bug, or an interrupt: what had landed before it (a switch past its commit
                // point, the reconcile steps before the one stopped) stands, as the command says.
                101 | 130 => report.changed.unwrap_or(false),
                // Refused, usage, rolled back, busy: nothing changed, by those codes' meaning.
                _ => false,
            },
            _ => false,
        };
        let mut doc = Map::new();
        doc.insert("schema".into(), JSON_SCHEMA.into());
        doc.insert("command".into(), command.into());
        doc.insert("ok".into(), error.is_none().into());
        doc.insert("changed".into(), changed.into());
        doc.insert("exit_code".into(), exit.into());
        doc.insert("mode".into(), mode.as_str().into());
        doc.insert(
            "error".into(),
            error.as_ref().map_or(Value::Null, |e| error_json(e, root)),
        );
        doc.insert("warnings".into(), report.warnings.clone().into());
        for (k, v) in &report.body {
            doc.insert(k.clone(), v.clone());
        }
        redact_json(Value::Object(doc))
    }

    /// Wraps text in a colour when stdout's colour is on.
    pub fn paint(&self, text: &str, style: Style) -> String {
        paint(self.color_out, text, style)
    }

    /// Wraps text in a colour when stderr's colour is on.
    pub fn paint_err(&self, text: &str, style: Style) -> String {
        paint(self.color_err, text, style)
    }

    fn stderr(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", redact(text));
    }

    fn lock_report(&self) -> std::sync::MutexGuard<'_, Report> {
        // A poisoned report is still the report: a panic elsewhere must not hide it.
        self.report.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The envelope's own keys: a command's report cannot set them.
pub const ENVELOPE_KEYS: &[&str] = &[
    "schema",
    "command",
    "ok",
    "changed",
    "exit_code",
    "mode",
    "error",
    "warnings",
];

/// `text` in `style` when `on` (a stream's colour, or a report's alternate form), else as it is.
pub fn paint(on: bool, text: &str, style: Style) -> String {
    if !on {
        return text.to_string();
    }
    let s = style.anstyle();
    format!("{}{text}{}", s.render(), s.render_reset())
}

/// A report's text table: each column as wide as its widest cell (in characters), two spaces
/// between columns, no blanks at the end of a line. The first row is the header.
pub fn table<Row: AsRef<[String]>>(rows: &[Row]) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (i, cell) in row.as_ref().iter().enumerate() {
            let n = cell.chars().count();
            match widths.get_mut(i) {
                Some(w) => *w = (*w).max(n),
                None => widths.push(n),
            }
        }
    }
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .as_ref()
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// An error as the envelope's `error`: its path as the user can open it (the device path
/// under `--root`), line and column when known.
pub fn error_json(e: &Error, root: &Path) -> Value {
    let loc = e.location.as_ref();
    serde_json::json!({
        "code": e.code,
        "message": e.message,
        "hint": e.hint,
        "path": loc.map(|l| host_path(root, &l.file)),
        "line": loc.and_then(|l| l.line),
        "column": loc.and_then(|l| l.column),
        "causes": e.causes,
    })
}

/// A device path (absolute) as the host path under `root`; anything else as it is.
pub fn host_path(root: &Path, file: &str) -> String {
    match file.strip_prefix('/') {
        Some(rel) if root != Path::new("/") => root.join(rel).display().to_string(),
        _ => file.to_string(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_pads_each_column_to_its_widest_cell_and_trims_each_line() {
        let rows = [
            ["name", "url", ""].map(String::from),
            ["ünï", "https://x", ""].map(String::from),
            ["notion", "-", "a"].map(String::from),
        ];
        assert_eq!(
            table(&rows),
            "name    url\nünï     https://x\nnotion  -          a\n"
        );
    }

    #[test]
    fn paint_adds_nothing_when_off() {
        assert_eq!(paint(false, "active", Style::Bold), "active");
        assert_ne!(paint(true, "active", Style::Bold), "active");
    }
}
