//! Real-systemd lab for osctl integration tests: one throwaway `systemd-nspawn --boot`
//! container (Debian bookworm, systemd 252) per [`Lab`], driven through
//! `tests/lab/osctl-systemd-lab.sh`.
//!
//! # How to include it
//! A module of the integration-test binary (`tests/it/`) that needs the lab says:
//! ```ignore
//! use crate::support::systemd_lab::require_lab;
//! ```
//!
//! # Gate
//! ```ignore
//! #[test]
//! fn switch_starts_the_new_runtime() {
//!     let Some(lab) = require_lab("switch") else { return };   // skip line on stderr locally
//!     lab.write("/etc/systemd/system/a.service", "[Service]\nExecStart=/bin/sleep infinity\n", 0o644);
//!     lab.systemctl(&["daemon-reload"]);
//!     assert_eq!(lab.wait_is_active("a.service", "inactive", 1), "inactive");
//! }   // Drop powers the container off
//! ```
//! When the lab cannot run here (not root, no `systemd-nspawn`, rootfs not built),
//! [`require_lab`] prints `SKIP ...` to stderr and returns `None`, unless `CI=true` or
//! `OSCTL_REQUIRE_SYSTEMD=1`, in which case it panics with the reason: CI machines can run
//! the lab (`.ci/run` does `tests/lab/osctl-systemd-lab.sh build`), so a silent skip there
//! would hide a regression.
//!
//! # Notes
//! * Needs root. Each container costs ~0.5 s to boot and ~0.25 s to power off, ~35 MB RSS.
//! * Writes land in the container's tmpfs overlay; the shared rootfs template stays untouched.
//! * Paths are written through `/proc/<leader>/root`. An *absolute* symlink inside the
//!   container would be resolved against the host's root there, so write real paths
//!   (Debian's `/bin -> usr/bin` etc. are relative and fine).
//! * `exec` runs in a clean environment (`env -i PATH=... LANG=C.UTF-8`) inside all of the
//!   container's namespaces; the exit code propagates. No D-Bus is needed for `systemctl`.
//! * A test process killed before `Drop` leaves its container running; the next
//!   [`Lab::up`] in any test process runs the script's `gc`, which powers off every
//!   `it-<pid>-*` container whose `<pid>` is gone.
//! * The suites that boot containers (switch_lab, channel_lab, package_lab, lab_selftest, and
//!   fleet_ssh through its script) share one process: a name's counter is the process's own
//!   (`SEQ`), so two containers booted at the same time never share a name, and each has its
//!   own overlay, cgroup, network namespace (but the ssh variant's) and state files.
//! * Env: `OSCTL_LAB_DIR` (cache/state dir, default `~/.cache/osctl-systemd-lab`),
//!   `OSCTL_LAB_SCRIPT` (override the script path).
//!
//! std only, no dependencies.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Path of `tests/lab/osctl-systemd-lab.sh` (or `$OSCTL_LAB_SCRIPT`).
pub fn script() -> PathBuf {
    match std::env::var_os("OSCTL_LAB_SCRIPT") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab/osctl-systemd-lab.sh"),
    }
}

/// `Ok(())` when a container can be booted here: running as root, `systemd-nspawn` and
/// `nsenter` on PATH, and the rootfs built with the script's current recipe.
pub fn lab_available() -> Result<(), String> {
    if effective_uid() != Some(0) {
        return Err("not running as root".into());
    }
    for bin in ["systemd-nspawn", "nsenter"] {
        if !on_path(bin) {
            return Err(format!(
                "{bin} not found (apt-get install --no-install-recommends systemd-container)"
            ));
        }
    }
    let s = script();
    if !s.is_file() {
        return Err(format!("lab script {} not found", s.display()));
    }
    let out = Command::new("bash")
        .arg(&s)
        .arg("check")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", s.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// True when a missing lab must fail the test instead of skipping it:
/// `CI=true` (any value but empty/`0`/`false`) or `OSCTL_REQUIRE_SYSTEMD=1`.
pub fn lab_required() -> bool {
    let ci = std::env::var("CI").unwrap_or_default();
    let ci = !ci.is_empty() && ci != "0" && !ci.eq_ignore_ascii_case("false");
    ci || std::env::var("OSCTL_REQUIRE_SYSTEMD").is_ok_and(|v| v == "1")
}

/// Whether the lab suites run in this `cargo test`: always under [`lab_required`] (CI), and
/// otherwise only when asked (`OSCTL_LAB=1`). They boot containers and take minutes (the fleet
/// over SSH alone about five on 2 cores), which the developer's loop should not wait for on
/// every change; CI runs them all, and fails where the lab is missing.
pub fn lab_wanted() -> Result<(), String> {
    if lab_required() || std::env::var("OSCTL_LAB").is_ok_and(|v| v == "1") {
        Ok(())
    } else {
        Err(
            "the real-systemd lab suites run under CI=true or with OSCTL_LAB=1 (they take minutes)"
                .into(),
        )
    }
}

/// Gate without booting: `true` if the lab is wanted ([`lab_wanted`]) and available; otherwise
/// panics when [`lab_required`], else prints a `SKIP` line to stderr and returns `false`.
pub fn lab_gate() -> bool {
    match lab_wanted().and_then(|()| lab_available()) {
        Ok(()) => true,
        Err(reason) => {
            if lab_required() {
                panic!(
                    "real-systemd lab required (CI=true or OSCTL_REQUIRE_SYSTEMD=1) but unavailable: {reason}"
                );
            }
            let test = std::thread::current().name().unwrap_or("?").to_string();
            // io::stderr() directly, not eprintln!: libtest captures the macros, and a skip
            // must stay visible in a passing run.
            let _ = writeln!(
                std::io::stderr(),
                "SKIP {test}: real-systemd lab unavailable: {reason} (OSCTL_REQUIRE_SYSTEMD=1 makes this a failure)"
            );
            false
        }
    }
}

/// The gate tests use: `Some(booted lab)` or `None` (skipped, see [`lab_gate`]).
pub fn require_lab(name_hint: &str) -> Option<Lab> {
    if lab_gate() {
        Some(Lab::up(name_hint))
    } else {
        None
    }
}

/// One booted container. Powered off (idempotently) on [`Lab::down`] or drop; a persistent
/// disk ([`Boot::disk`]) is removed on drop too.
#[derive(Debug)]
pub struct Lab {
    name: String,
    leader: u32,
    up: bool,
    boot: Boot,
}

/// How a container boots (the default: the plain rootfs on a volatile overlay).
#[derive(Debug, Clone, Default)]
pub struct Boot {
    /// `OSCTL_LAB_VARIANT` of the rootfs: `None` for the plain one, `Some("ssh")` for the one
    /// with openssh-server and Debian's python3 (which shares the host's network unless
    /// `--private-network` is among [`Boot::nspawn_args`]).
    pub variant: Option<&'static str>,
    /// A persistent copy of the rootfs instead of the volatile overlay, so [`Lab::reboot`] is a
    /// real power-off and boot that keeps what was written.
    pub disk: bool,
    /// Extra `systemd-nspawn` arguments, e.g. `--bind-ro=SRC:DST` to make a host directory
    /// (the real runtimes' oracle installs) visible inside at the same path.
    pub nspawn_args: Vec<String>,
}

static SEQ: AtomicU32 = AtomicU32::new(0);
static GC: Once = Once::new();

impl Lab {
    /// Boot a fresh container named `it-<pid>-<n>[-<hint>]` (<= 64 chars of `[a-z0-9-]`).
    /// Returns once `systemctl is-system-running` says running/degraded. Panics on failure.
    pub fn up(name_hint: &str) -> Lab {
        Lab::boot(name_hint, Boot::default())
    }

    /// [`Lab::up`] booted as `boot` says.
    pub fn boot(name_hint: &str, boot: Boot) -> Lab {
        GC.call_once(|| {
            let _ = run_script(&["gc"]);
        });
        let name = machine_name(
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst),
            name_hint,
        );
        let mut lab = Lab {
            name,
            leader: 0,
            up: false,
            boot,
        };
        lab.power_on();
        lab
    }

    fn power_on(&mut self) {
        let mut args = vec!["up", self.name.as_str()];
        args.extend(self.boot.nspawn_args.iter().map(String::as_str));
        let mut cmd = script_command(&args);
        if let Some(variant) = self.boot.variant {
            cmd.env("OSCTL_LAB_VARIANT", variant);
        }
        if self.boot.disk {
            cmd.env("OSCTL_LAB_DISK", "1");
        }
        let out = output(cmd);
        if !out.status.success() {
            panic!("lab up {} failed: {}", self.name, describe(&out));
        }
        self.up = true;
        let out = run_script(&["leader", &self.name]);
        self.leader = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("lab leader {}: {}", self.name, describe(&out)));
    }

    /// Power off and boot again. On a persistent disk ([`Boot::disk`]) this is a device's
    /// reboot: every unit stops, systemd boots from what is on the disk. Returns the time the
    /// boot took (power-on until `is-system-running` answers).
    pub fn reboot(&mut self) -> Duration {
        assert!(
            self.boot.disk,
            "a reboot without a persistent disk loses everything written"
        );
        self.down();
        let t0 = Instant::now();
        self.power_on();
        t0.elapsed()
    }

    /// Machine name (also the container's hostname).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Host PID of the container's systemd (PID 1 inside).
    pub fn leader(&self) -> u32 {
        self.leader
    }

    /// Host-side view of the container's filesystem: `/proc/<leader>/root`.
    pub fn root_path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/{}/root", self.leader))
    }

    /// Host-side path of an absolute path inside the container.
    pub fn path(&self, device_path: &str) -> PathBuf {
        assert!(
            device_path.starts_with('/'),
            "device path must be absolute: {device_path}"
        );
        self.root_path().join(device_path.trim_start_matches('/'))
    }

    /// Write a file inside the container (parents created, mode set). Panics on error.
    pub fn write(&self, device_path: &str, contents: impl AsRef<[u8]>, mode: u32) {
        let p = self.path(device_path);
        if let Some(dir) = p.parent() {
            fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir -p {}: {e}", dir.display()));
        }
        let mut f = fs::File::create(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
        f.write_all(contents.as_ref())
            .unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        fs::set_permissions(&p, fs::Permissions::from_mode(mode))
            .unwrap_or_else(|e| panic!("chmod {}: {e}", p.display()));
    }

    /// Read a file inside the container; `None` if it does not exist or is not UTF-8.
    pub fn read(&self, device_path: &str) -> Option<String> {
        fs::read_to_string(self.path(device_path)).ok()
    }

    /// Copy a host file into the container with `mode` (e.g. the osctl binary to
    /// `/usr/local/bin/osctl`, 0o755). Panics on error.
    pub fn copy_in(&self, host_file: impl AsRef<Path>, device_path: &str, mode: u32) {
        let host_file = host_file.as_ref();
        let data =
            fs::read(host_file).unwrap_or_else(|e| panic!("read {}: {e}", host_file.display()));
        self.write(device_path, data, mode);
    }

    /// Run `argv` inside the container (all namespaces, clean env). The exit code propagates.
    pub fn exec(&self, argv: &[&str]) -> Output {
        assert!(!argv.is_empty(), "exec needs a command");
        let mut args = vec!["exec", self.name.as_str()];
        args.extend_from_slice(argv);
        run_script(&args)
    }

    /// `systemctl ARGS...` inside the container.
    pub fn systemctl(&self, args: &[&str]) -> Output {
        let mut argv = vec!["systemctl"];
        argv.extend_from_slice(args);
        self.exec(&argv)
    }

    /// `systemctl is-active UNIT`, trimmed (`active`, `inactive`, `failed`, `activating`, ...).
    pub fn is_active(&self, unit: &str) -> String {
        String::from_utf8_lossy(&self.systemctl(&["is-active", unit]).stdout)
            .trim()
            .to_string()
    }

    /// Poll `is-active` every 50 ms until it equals `want` or `timeout_s` passes; returns the
    /// last state. (A Type=simple unit whose binary is missing starts "successfully" and only
    /// then turns `failed`, so one read right after `start` is a race.)
    pub fn wait_is_active(&self, unit: &str, want: &str, timeout_s: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(timeout_s);
        loop {
            let st = self.is_active(unit);
            if st == want || Instant::now() >= deadline {
                return st;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Power the container off and clean up. Idempotent; also called by `Drop`.
    pub fn down(&mut self) {
        if std::mem::take(&mut self.up) {
            let out = run_script(&["down", &self.name]);
            if !out.status.success() {
                eprintln!("lab down {} failed: {}", self.name, describe(&out));
            }
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        self.down();
        if self.boot.disk {
            let _ = run_script(&["forget", &self.name]);
        }
    }
}

/// `it-<pid>-<n>` plus `-<hint>` reduced to `[a-z0-9-]`, capped at 64 chars.
pub fn machine_name(pid: u32, n: u32, hint: &str) -> String {
    let mut name = format!("it-{pid}-{n}");
    let hint: String = hint
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let hint = hint.trim_matches('-');
    if !hint.is_empty() {
        name.push('-');
        name.push_str(hint);
    }
    name.truncate(64);
    name.trim_end_matches('-').to_string()
}

fn script_command(args: &[&str]) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(script()).args(args).stdin(Stdio::null());
    cmd
}

fn output(mut cmd: Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script().display()))
}

fn run_script(args: &[&str]) -> Output {
    output(script_command(args))
}

fn describe(out: &Output) -> String {
    format!(
        "{} stdout={:?} stderr={:?}",
        out.status,
        String::from_utf8_lossy(&out.stdout).trim(),
        String::from_utf8_lossy(&out.stderr).trim()
    )
}

fn effective_uid() -> Option<u32> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

fn on_path(bin: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(PathBuf::from))
        .any(|d| {
            fs::metadata(d.join(bin))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
