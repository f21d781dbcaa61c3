//! Installing a runtime: which installer runs, checking it, running it bounded, and its log.
//!
//! The installer osctl embeds is the default. The operator can name another one: a file
//! (`--installer FILE`) or a download (`--from-cdn`, which fetches
//! `$RUNTIMES_BASE_URL/<rt>/install.sh` as upstream's fallback does, or `--installer-url URL`).
//! Downloads are HTTPS only. With `--installer-sha256` the bytes are checked before anything
//! runs; a file or download is then staged privately (0700, under `/var/lib/osctl/`) and run
//! from there, so what runs is exactly what was checked. openclaw has no embedded installer (its
//! unit is baked into the image), so for openclaw only an installer the operator names can run.
//!
//! Installers run with a clean environment: `PATH`, `HOME`, `LANG`, what osctl tells them
//! (`OSCTL_RUNTIME`, `OSCTL_RUNTIME_DIR`, `OSCTL_RUNTIME_HOME`, `OSCTL_UNIT`) and the
//! operator's `--installer-env KEY=VALUE`. Their output goes to the runtime's install log.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::apply::lock::STATE_DIR;
use crate::apply::state;
use crate::error::{Error, Exit, Result};
use crate::output::Printer;
use crate::path::DevPath;
use crate::runtime::{Runtime, runtime_lib_dir};
use crate::system::fs::RootFs;
use crate::system::process::{self, Output, Run};

/// The upstream CDN (`RUNTIMES_BASE_URL`'s default).
pub(crate) const DEFAULT_CDN: &str = "https://cdn.autonomous.ai/os/runtimes";

/// The largest installer osctl downloads.
pub(crate) const MAX_INSTALLER_BYTES: u64 = 16 * 1024 * 1024;

/// Where the installer comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The one osctl embeds, as materialized at `/usr/local/lib/os-runtimes/<rt>/install.sh`.
    Embedded,
    /// A file on the machine osctl runs on.
    File(PathBuf),
    /// An HTTPS URL.
    Url(String),
}

/// The installer the operator chose, and the checksum it must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub source: Source,
    /// Lowercase hex SHA-256.
    pub sha256: Option<String>,
    pub env: Vec<(String, String)>,
    pub timeout: Duration,
}

impl Choice {
    /// Checks the operator's choice up front (bad input: exit 1, nothing written).
    pub fn new(
        source: Source,
        sha256: Option<&str>,
        env: &[String],
        timeout: Duration,
    ) -> Result<Choice> {
        if let Source::Url(url) = &source
            && !url.to_ascii_lowercase().starts_with("https://")
        {
            return Err(Error::input(
                "insecure_installer_url",
                format!("{url} is not an https:// URL"),
            )
            .hint("osctl downloads installers over HTTPS only (set RUNTIMES_BASE_URL or --installer-url to an https URL)"));
        }
        let sha256 = match sha256 {
            None => None,
            Some(_) if source == Source::Embedded => {
                return Err(Error::input(
                    "checksum_without_source",
                    "--installer-sha256 checks an installer named with --installer, --from-cdn or --installer-url",
                )
                .hint("the embedded installer is part of osctl itself"));
            }
            Some(h) => {
                let h = h.trim().to_ascii_lowercase();
                if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(Error::input(
                        "bad_checksum",
                        format!("--installer-sha256 `{h}` is not 64 hexadecimal digits"),
                    ));
                }
                Some(h)
            }
        };
        let mut pairs = Vec::new();
        for kv in env {
            match kv.split_once('=') {
                Some((k, v))
                    if !k.is_empty()
                        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                        && !k.as_bytes()[0].is_ascii_digit() =>
                {
                    pairs.push((k.to_string(), v.to_string()))
                }
                _ => {
                    return Err(Error::input(
                        "bad_installer_env",
                        format!("--installer-env `{kv}` is not KEY=VALUE"),
                    )
                    .hint(
                        "KEY is letters, digits and _, e.g. --installer-env PICO_VERSION=v0.3.2",
                    ));
                }
            }
        }
        Ok(Choice {
            source,
            sha256,
            env: pairs,
            timeout,
        })
    }

    /// The CDN location of `rt`'s installer under `base`.
    pub fn cdn_url(base: &str, rt: &Runtime) -> String {
        format!("{}/{}/install.sh", base.trim_end_matches('/'), rt.name)
    }

    /// Whether an installer is available for `rt` at all.
    pub fn available(&self, rt: &Runtime) -> bool {
        self.source != Source::Embedded || rt.embedded.installer.is_some()
    }

    /// How the plan names it.
    pub fn describe(&self, rt: &Runtime) -> String {
        let checked = if self.sha256.is_some() {
            ", SHA-256 checked"
        } else {
            ""
        };
        match &self.source {
            Source::Embedded => embedded_path(rt).to_string(),
            Source::File(p) => format!("{} (--installer{checked})", p.display()),
            Source::Url(u) => format!("{u} (downloaded{checked})"),
        }
    }

    /// The error when `rt` needs installing and there is no installer for it.
    pub fn unavailable(rt: &Runtime, why: &str) -> Error {
        Error::input(
            "installer_unavailable",
            format!("{} is not installed ({why}) and osctl embeds no installer for it", rt.name),
        )
        .hint(format!(
            "its unit comes with the device image; name an installer: --from-cdn (downloads $RUNTIMES_BASE_URL/{}/install.sh), --installer-url URL or --installer FILE",
            rt.name
        ))
    }
}

/// `/usr/local/lib/os-runtimes/<rt>/install.sh`.
pub(crate) fn embedded_path(rt: &Runtime) -> DevPath {
    DevPath::new(runtime_lib_dir(rt.id)).join("install.sh")
}

/// An installer ready to run.
#[derive(Clone, Debug)]
pub(crate) enum Prepared {
    /// Run this device path (the materialized embedded installer).
    Path(DevPath),
    /// These checked bytes, staged before they run.
    Bytes { bytes: Vec<u8>, origin: String },
}

/// Reads or downloads the chosen installer and checks its SHA-256. `fetch` is the HTTP door.
pub(crate) fn prepare(
    choice: &Choice,
    rt: &Runtime,
    fetch: &dyn Fn(&str) -> Result<Vec<u8>>,
) -> Result<Prepared> {
    let (bytes, origin) = match &choice.source {
        Source::Embedded => {
            if rt.embedded.installer.is_none() {
                return Err(Choice::unavailable(rt, "no installer"));
            }
            return Ok(Prepared::Path(embedded_path(rt)));
        }
        Source::File(p) => {
            let bytes = crate::system::fs::read_operator_bytes(p).map_err(|e| {
                Error::input(
                    "io_error",
                    format!("cannot read the installer {}", p.display()),
                )
                .cause(e.to_string())
            })?;
            (bytes, p.display().to_string())
        }
        Source::Url(url) => (fetch(url)?, url.clone()),
    };
    if let Some(want) = &choice.sha256 {
        let got = hex::encode(Sha256::digest(&bytes));
        if &got != want {
            return Err(Error::input(
                "installer_checksum_mismatch",
                format!(
                    "the installer {origin} does not have the SHA-256 given with --installer-sha256"
                ),
            )
            .cause(format!("expected {want}, got {got}"))
            .hint("nothing ran; check the installer's source and its published checksum"));
        }
    }
    Ok(Prepared::Bytes { bytes, origin })
}

/// What an installer run left.
#[derive(Clone, Debug)]
pub(crate) struct InstallRun {
    pub output: Output,
    pub log: DevPath,
}

impl InstallRun {
    /// The error for a failed run: the last lines of its output, and where the rest is.
    pub(crate) fn failure(&self, rt: &Runtime) -> Error {
        let mut err = Error::new(
            Exit::RolledBack,
            "install_failed",
            format!(
                "the {} installer failed ({})",
                rt.name,
                self.output.describe()
            ),
        );
        let mut text = self.output.stdout_text();
        text.push_str(&self.output.stderr_text());
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        for line in &lines[lines.len().saturating_sub(5)..] {
            err = err.cause(line.to_string());
        }
        err.hint(format!("its whole output is in {}", self.log))
    }
}

/// Runs a prepared installer (the caller checked that the root is the live device), appending
/// its output to `log`. On a terminal, a line every 10 s says it is still running.
pub(crate) fn run(
    fs: &RootFs,
    out: &Printer,
    prepared: &Prepared,
    rt: &Runtime,
    env: Vec<(String, String)>,
    timeout: Duration,
    log: &DevPath,
) -> Result<InstallRun> {
    let staged = DevPath::new(STATE_DIR).join(format!("installer-{}.sh", rt.name));
    let (argv, what) = match prepared {
        Prepared::Path(p) => (vec![fs.host(p)?.display().to_string()], p.to_string()),
        Prepared::Bytes { bytes, origin } => {
            state::write(fs, &staged, bytes, 0o700)?;
            (
                vec!["bash".to_string(), fs.host(&staged)?.display().to_string()],
                origin.clone(),
            )
        }
    };
    let mut spec = Run::new(&argv, timeout);
    spec.env = &env;
    spec.clean_env = true;
    spec.interruptible = true;
    let ticker = Ticker::start(out, format!("installing {} with {what}", rt.name));
    let started = log_time();
    let result = process::run(&spec);
    drop(ticker);
    if matches!(prepared, Prepared::Bytes { .. }) {
        let _ = state::remove(fs, &staged);
    }
    let output = result?;
    append_log(fs, log, &started, &what, &output)?;
    Ok(InstallRun {
        output,
        log: log.clone(),
    })
}

/// When the installer ran, for the log header (unix seconds: no time-zone database needed).
fn log_time() -> String {
    format!("unix time {}", crate::clock::now_secs())
}

fn append_log(fs: &RootFs, log: &DevPath, when: &str, what: &str, output: &Output) -> Result<()> {
    let mut text = format!("== osctl switch ran {what} ({when})\n").into_bytes();
    text.extend_from_slice(&output.stdout);
    if !output.stderr.is_empty() {
        text.extend_from_slice(b"== stderr\n");
        text.extend_from_slice(&output.stderr);
    }
    text.extend_from_slice(
        format!(
            "== {} after {} s\n",
            output.describe(),
            output.elapsed.as_secs()
        )
        .as_bytes(),
    );
    state::append(fs, log, &text)
}

/// Prints "still installing" every 10 s on a terminal, until dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start(out: &Printer, what: String) -> Ticker {
        out.status(&format!("{what}…"));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = if !out.quiet && !out.json && std::io::stderr().is_terminal() {
            let out = out.clone();
            let stop = stop.clone();
            Some(std::thread::spawn(move || {
                let started = crate::clock::monotonic();
                let mut next = 10;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    if started.elapsed().as_secs() >= next {
                        out.status(&format!("  … still running ({next} s)"));
                        next += 10;
                    }
                }
            }))
        } else {
            None
        };
        Ticker { stop, thread }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::runtime::RuntimeId;

    fn no_fetch(_: &str) -> Result<Vec<u8>> {
        panic!("no download expected")
    }

    #[test]
    fn downloads_are_https_only_and_checksums_are_hex() {
        let t = Duration::from_secs(1);
        let err = Choice::new(Source::Url("http://cdn/x".into()), None, &[], t).unwrap_err();
        assert_eq!(err.code, "insecure_installer_url");
        assert!(Choice::new(Source::Url("HTTPS://cdn/x".into()), None, &[], t).is_ok());
        let err = Choice::new(Source::File("/x".into()), Some("abc"), &[], t).unwrap_err();
        assert_eq!(err.code, "bad_checksum");
        let err = Choice::new(Source::Embedded, Some(&"a".repeat(64)), &[], t).unwrap_err();
        assert_eq!(err.code, "checksum_without_source");
        let err = Choice::new(Source::Embedded, None, &["1X=y".into()], t).unwrap_err();
        assert_eq!(err.code, "bad_installer_env");
        let c = Choice::new(Source::Embedded, None, &["PICO_VERSION=v1=2".into()], t).unwrap();
        assert_eq!(
            c.env,
            vec![("PICO_VERSION".to_string(), "v1=2".to_string())]
        );
        assert_eq!(
            Choice::cdn_url("https://cdn.example/rt/", RuntimeId::Hermes.spec()),
            "https://cdn.example/rt/hermes/install.sh"
        );
    }

    #[test]
    fn a_file_runs_only_with_the_right_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("install.sh");
        std::fs::write(&file, "#!/bin/sh\necho hi\n").unwrap();
        let sum = hex::encode(Sha256::digest(b"#!/bin/sh\necho hi\n"));
        let rt = RuntimeId::Hermes.spec();
        let t = Duration::from_secs(1);
        let good = Choice::new(
            Source::File(file.clone()),
            Some(&sum.to_uppercase()),
            &[],
            t,
        )
        .unwrap();
        assert!(matches!(
            prepare(&good, rt, &no_fetch).unwrap(),
            Prepared::Bytes { .. }
        ));
        let bad = Choice::new(Source::File(file), Some(&"0".repeat(64)), &[], t).unwrap();
        let err = prepare(&bad, rt, &no_fetch).unwrap_err();
        assert_eq!(err.code, "installer_checksum_mismatch");
        assert_eq!(err.exit, Exit::Failed);
    }

    #[test]
    fn openclaw_has_no_embedded_installer() {
        let t = Duration::from_secs(1);
        let c = Choice::new(Source::Embedded, None, &[], t).unwrap();
        assert!(!c.available(RuntimeId::Openclaw.spec()));
        assert!(c.available(RuntimeId::Picoclaw.spec()));
        let err = prepare(&c, RuntimeId::Openclaw.spec(), &no_fetch).unwrap_err();
        assert_eq!(err.code, "installer_unavailable");
        let url = Choice::new(
            Source::Url("https://cdn/openclaw/install.sh".into()),
            None,
            &[],
            t,
        )
        .unwrap();
        let fetched = |u: &str| -> Result<Vec<u8>> {
            assert_eq!(u, "https://cdn/openclaw/install.sh");
            Ok(b"echo".to_vec())
        };
        assert!(matches!(
            prepare(&url, RuntimeId::Openclaw.spec(), &fetched).unwrap(),
            Prepared::Bytes { .. }
        ));
    }
}
