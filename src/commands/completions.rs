//! `osctl completions SHELL` and `osctl man`: generated from the clap types. Committed copies
//! live in `completions/` and `man/`; a test fails when they are stale.

use clap::CommandFactory;

use crate::cli::{Cli, Shell};
use crate::error::{Error, Exit, Result};

/// The completion script for `shell`.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(generator, &mut cmd, "osctl", &mut buf);
    buf
}

/// The man page, in roff.
pub fn man_page() -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    // The build facts of `--version` (the commit) would make the committed man page stale at
    // every commit: the man page carries the version alone.
    let cmd = Cli::command().long_version(clap::builder::Resettable::<clap::builder::Str>::Reset);
    clap_mangen::Man::new(cmd)
        .render(&mut buf)
        .map_err(|e| Error::internal(format!("cannot render the man page: {e}")))?;
    Ok(buf)
}

pub fn completions(shell: Shell) -> Result<Exit> {
    write_stdout(&completion_script(shell))
}

pub fn man() -> Result<Exit> {
    write_stdout(&man_page()?)
}

fn write_stdout(bytes: &[u8]) -> Result<Exit> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .map_err(|e| Error::input("io_error", "cannot write to stdout").cause(e.to_string()))?;
    Ok(Exit::Success)
}
