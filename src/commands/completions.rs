//! `osctl completions SHELL` and `osctl man [COMMAND...]`: the completion script and the man
//! pages, generated from the clap types by the command line ([`crate::cli::complete`],
//! [`crate::cli::man`]), written to stdout.

use crate::cli::Shell;
use crate::error::{Error, Exit, Result};

pub(super) fn completions(shell: Shell) -> Result<Exit> {
    write_stdout(&crate::cli::complete::completion_script(shell))
}

pub(super) fn man(path: &[String]) -> Result<Exit> {
    write_stdout(&crate::cli::man::man_page_for(path)?)
}

fn write_stdout(bytes: &[u8]) -> Result<Exit> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .map_err(|e| Error::input("io_error", "cannot write to stdout").cause(e.to_string()))?;
    Ok(Exit::Success)
}
