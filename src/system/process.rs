//! Running other programs: bounded in time, output captured, data passed through environment
//! variables (never by formatting it into script text).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::system::interrupt;

/// What a finished program left behind.
#[derive(Clone, Debug)]
pub struct Output {
    /// Exit code; `None` when it was killed (by a signal or by the timeout).
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
}

impl Output {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// One line about how it ended, for error messages.
    pub fn describe(&self) -> String {
        if self.timed_out {
            format!("timed out after {} s", self.elapsed.as_secs())
        } else {
            match self.code {
                Some(c) => format!("exit status {c}"),
                None => "killed by a signal".to_string(),
            }
        }
    }
}

/// A program to run.
#[derive(Clone, Debug)]
pub(crate) struct Run<'a> {
    pub argv: &'a [String],
    pub env: &'a [(String, String)],
    /// Start from an empty environment plus `PATH`, `HOME` and `LANG` (true for hooks and
    /// installers, so the caller's secrets and overrides never leak into them).
    pub clean_env: bool,
    pub cwd: Option<&'a Path>,
    pub stdin: Option<&'a [u8]>,
    pub timeout: Duration,
    /// Stopped (its process group killed) when an interrupt arrives while it runs: for
    /// programs a change waits for before its commit point (an installer, a ready hook). The
    /// group is its own, so the terminal's Ctrl-C does not reach it otherwise.
    pub interruptible: bool,
}

impl<'a> Run<'a> {
    pub(crate) fn new(argv: &'a [String], timeout: Duration) -> Self {
        Run {
            argv,
            env: &[],
            clean_env: false,
            cwd: None,
            stdin: None,
            timeout,
            interruptible: false,
        }
    }
}

/// Runs a program to completion or until its timeout (then it is killed).
pub(crate) fn run(spec: &Run<'_>) -> Result<Output> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(Error::internal("empty command line"));
    };
    let mut cmd = Command::new(program);
    cmd.args(args);
    if spec.clean_env {
        cmd.env_clear();
        cmd.env(
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        );
        cmd.env("HOME", "/root");
        cmd.env("LANG", "C.UTF-8");
    }
    for (k, v) in spec.env {
        cmd.env(k, v);
    }
    if let Some(dir) = spec.cwd {
        cmd.current_dir(dir);
    }
    cmd.stdin(if spec.stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    // Its own process group, so a timeout kills the whole tree (an installer's curl, a hook's
    // children), not just the shell that started them.
    cmd.process_group(0);
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(|e| {
        Error::input("spawn_failed", format!("cannot run {program}")).cause(e.to_string())
    })?;
    if let (Some(input), Some(mut stdin)) = (spec.stdin, child.stdin.take()) {
        let input = input.to_vec();
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&input);
        });
    }
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let mut timed_out = false;
    let mut interrupted = None;
    let kill_group = |child: &mut std::process::Child| {
        // SAFETY: kill(2) with a negative pid signals the process group we created above.
        unsafe {
            libc::kill(-(child.id() as i32), libc::SIGKILL);
        }
        let _ = child.kill();
        child.wait().ok()
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= spec.timeout => {
                timed_out = true;
                break kill_group(&mut child);
            }
            Ok(None) if spec.interruptible && interrupt::pending().is_some() => {
                interrupted = interrupt::pending();
                break kill_group(&mut child);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                return Err(
                    Error::input("spawn_failed", format!("cannot wait for {program}"))
                        .cause(e.to_string()),
                );
            }
        }
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    if let Some(sig) = interrupted {
        return Err(interrupt::interrupted(sig).cause(format!("{program} was stopped")));
    }
    Ok(Output {
        code: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        timed_out,
        stdout,
        stderr,
        elapsed: started.elapsed(),
    })
}

/// A file descriptor this process inherited from its caller, opened again for appending (the
/// same pipe or file, through `/proc/self/fd`, which keeps osctl free of `unsafe` here); fails
/// when the descriptor is not open. For `--events FD`.
pub(crate) fn inherited_writer(fd: u32) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .append(true)
        .open(format!("/proc/self/fd/{fd}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_code() {
        let argv: Vec<String> = ["sh", "-c", "echo out; echo err >&2; exit 3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run(&Run::new(&argv, Duration::from_secs(5))).unwrap();
        assert_eq!(out.code, Some(3));
        assert_eq!(out.stdout_text(), "out\n");
        assert_eq!(out.stderr_text(), "err\n");
    }

    #[test]
    fn kills_on_timeout() {
        let argv: Vec<String> = ["sh", "-c", "sleep 5; echo never"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run(&Run::new(&argv, Duration::from_millis(100))).unwrap();
        assert!(out.timed_out);
        assert!(out.elapsed < Duration::from_secs(2));
    }
}
