//! Error kinds, hints and exit codes.
//!
//! osctl has one error type. Every error carries the exit code it maps to (the book's "Exit codes"),
//! a stable machine code for `--json` (`error.code`), a message that names the file (and line) it
//! is about, optional causes, and an optional hint that tells the operator what to do next.
//! Rendering lives in `output.rs`; secrets are redacted there, so an error may quote a value.

use std::fmt;
use std::path::Path;

/// The documented process exit codes (the book's "Exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success, including "nothing to do" and a dry run.
    Success = 0,
    /// Failed before any write: bad input, parse error, unknown or unsupported runtime/channel.
    Failed = 1,
    /// Usage error (clap).
    Usage = 2,
    /// `--check`: changes are pending.
    Pending = 3,
    /// Failed while applying; everything was rolled back.
    RolledBack = 4,
    /// Partly applied: some steps landed and some did not, or a rollback could not finish; the
    /// message and the JSON list which.
    PartlyApplied = 5,
    /// Another osctl run holds the device lock.
    Busy = 6,
    /// Internal error (a bug).
    Internal = 101,
    /// Interrupted (SIGINT, SIGTERM, SIGHUP) during a change, which was rolled back.
    Interrupted = 130,
}

/// Every exit code osctl produces, in the order of the `--help` table.
pub const ALL: &[Exit] = &[
    Exit::Success,
    Exit::Failed,
    Exit::Usage,
    Exit::Pending,
    Exit::RolledBack,
    Exit::PartlyApplied,
    Exit::Busy,
    Exit::Internal,
    Exit::Interrupted,
];

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// Where in a file an error was found (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        Ok(())
    }
}

/// The one error type of osctl. Boxed, so a `Result` stays one word wide; fields are reached
/// through `Deref` (`err.code`, `err.hint`).
#[derive(Debug, Clone)]
pub struct Error(Box<Details>);

/// What an [`Error`] carries.
#[derive(Debug, Clone)]
pub struct Details {
    pub exit: Exit,
    /// Stable machine-readable code, e.g. `parse_error`, `unknown_runtime`, `busy`.
    pub code: &'static str,
    pub message: String,
    pub location: Option<Location>,
    pub causes: Vec<String>,
    pub hint: Option<String>,
}

impl std::ops::Deref for Error {
    type Target = Details;
    fn deref(&self) -> &Details {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut Details {
        &mut self.0
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(exit: Exit, code: &'static str, message: impl Into<String>) -> Self {
        Error(Box::new(Details {
            exit,
            code,
            message: message.into(),
            location: None,
            causes: Vec::new(),
            hint: None,
        }))
    }

    /// Bad input found before anything was written (exit 1).
    pub fn input(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(Exit::Failed, code, message)
    }

    /// A bug in osctl (exit 101).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Exit::Internal, "internal", message)
    }

    /// A file could not be read, listed or inspected (exit 1: nothing was written yet).
    pub fn io(action: &str, device_path: impl fmt::Display, err: &std::io::Error) -> Self {
        let file = device_path.to_string();
        Self::input("io_error", format!("cannot {action} {file}"))
            .at(Location {
                file,
                line: None,
                column: None,
            })
            .cause(err.to_string())
    }

    /// A file could not be parsed. `line`/`column` are 1-based when known.
    pub fn parse(
        device_path: impl fmt::Display,
        line: Option<usize>,
        column: Option<usize>,
        cause: impl Into<String>,
    ) -> Self {
        let file = device_path.to_string();
        Self::input("parse_error", format!("cannot parse {file}"))
            .at(Location { file, line, column })
            .cause(cause)
    }

    /// A serde_json error about a file, with its line and column (not repeated in the cause).
    pub fn json(device_path: impl fmt::Display, err: &serde_json::Error) -> Self {
        let text = err.to_string();
        let cause = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        // serde_json reports an error at a line's newline (a string left open, say) as column 0
        // of the next line; the fault is on the line that ends there.
        // (An unexpected end of file is reported where the file ends, which is right.)
        let eof = err.classify() == serde_json::error::Category::Eof;
        let (line, column) = match (err.line(), err.column()) {
            (0, _) => (None, None),
            (l, 0) if l > 1 && !eof => (Some(l - 1), None),
            (l, c) => (Some(l), Some(c)),
        };
        Self::parse(device_path, line, column, cause)
    }

    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    pub fn cause(mut self, cause: impl Into<String>) -> Self {
        self.causes.push(cause.into());
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_exit(mut self, exit: Exit) -> Self {
        self.exit = exit;
        self
    }

    /// Adds a hint only when none was given yet (commands add their default hint last).
    pub fn or_hint(mut self, hint: impl Into<String>) -> Self {
        if self.hint.is_none() {
            self.hint = Some(hint.into());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for cause in &self.causes {
            write!(f, ": {cause}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Shows a host path for messages when no device path is at hand.
pub fn show(path: &Path) -> String {
    path.display().to_string()
}
