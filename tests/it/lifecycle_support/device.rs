//! One device for one life: its root, the stateful fake systemd's state, a virtual clock, and
//! osctl runs bounded by a timeout.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::reliability_support::{self as rs, Tree};

use super::ops::{Op, RUNTIMES, UnitFault};

/// The fixed clock's start; every step moves it on by ten minutes.
pub const EPOCH: u64 = 1_767_225_600;

pub fn fake_systemd() -> PathBuf {
    rs::repo().join("tests/support/fake-systemd")
}

/// What one osctl run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub args: Vec<String>,
    /// `None`: killed (by us, by a fault, or by the timeout).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn text(&self) -> String {
        let cut = |s: &str| {
            if s.chars().count() > 3000 {
                let head: String = s.chars().take(3000).collect();
                format!("{head}\n[… cut]")
            } else {
                s.to_string()
            }
        };
        format!(
            "osctl {}\n  exit {:?}{}\n  stdout: {}\n  stderr: {}",
            self.args.join(" "),
            self.code,
            if self.timed_out { " (timed out)" } else { "" },
            cut(self.stdout.trim_end()),
            cut(self.stderr.trim_end())
        )
    }
}

pub struct Dev {
    pub root: PathBuf,
    pub units: PathBuf,
    /// The virtual clock (unix seconds): osctl's `OSCTL_TEST_NOW` and the fake systemd's `now`.
    pub now: u64,
    pub metadata_url: String,
}

impl Dev {
    /// A device under `base` (which is emptied) from the repository tree `start`.
    pub fn new(base: &Path, start: &str, metadata_url: &str) -> Dev {
        let _ = std::fs::remove_dir_all(base);
        let mut d = Dev {
            root: base.join("device"),
            units: base.join("systemd"),
            now: EPOCH,
            metadata_url: metadata_url.to_string(),
        };
        super::wrong_type::copy_start(start, &d.root);
        std::fs::create_dir_all(&d.units).unwrap();
        d.point_bootstrap_at_cdn();
        d.set_clock(EPOCH);
        // The runtime config.json names (else the one resolution gives) runs, enabled.
        let active = d.config_runtime().or_else(|| {
            std::fs::read_to_string(d.root.join("root/config/f_r_default_agent"))
                .ok()
                .map(|s| s.trim().to_string())
        });
        if let Some(rt) = active.filter(|r| RUNTIMES.contains(&r.as_str())) {
            let unit = unit_of(&rt);
            if d.unit_file_exists(&unit) {
                d.put_unit(&unit, "enabled", "enabled");
                d.put_unit(&unit, "active", "active");
                d.put_unit(&unit, "sub", "running");
            }
        }
        d
    }

    /// A copy of this device (tree and units) under `base`, for reference runs.
    pub fn copy_to(&self, base: &Path) -> Dev {
        let _ = std::fs::remove_dir_all(base);
        let d = Dev {
            root: base.join("device"),
            units: base.join("systemd"),
            now: self.now,
            metadata_url: self.metadata_url.clone(),
        };
        copy_all(&self.root, &d.root);
        copy_all(&self.units, &d.units);
        d
    }

    fn point_bootstrap_at_cdn(&self) {
        let p = self.root.join("root/config/bootstrap.json");
        let mut doc: serde_json::Value = std::fs::read(&p)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_else(|| serde_json::json!({}));
        doc["metadata_url"] = self.metadata_url.clone().into();
        rs::write(
            &self.root,
            "root/config/bootstrap.json",
            serde_json::to_string_pretty(&doc).unwrap().as_bytes(),
            0o644,
        );
    }

    pub fn set_clock(&mut self, now: u64) {
        self.now = now;
        std::fs::write(self.units.join("now"), format!("{}\n", now - EPOCH)).unwrap();
    }

    pub fn config_runtime(&self) -> Option<String> {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(self.root.join("root/config/config.json")).ok()?)
                .ok()?;
        v["agent_runtime"]
            .as_str()
            .map(str::to_string)
            .filter(|s| !s.is_empty())
    }

    pub fn unit_file_exists(&self, unit: &str) -> bool {
        ["etc", "lib", "usr/lib"]
            .iter()
            .any(|d| self.root.join(d).join("systemd/system").join(unit).exists())
    }

    pub fn put_unit(&self, unit: &str, key: &str, value: &str) {
        std::fs::write(
            self.units.join(format!("{unit}.{key}")),
            format!("{value}\n"),
        )
        .unwrap();
    }

    pub fn clear_unit(&self, unit: &str, key: &str) {
        let _ = std::fs::remove_file(self.units.join(format!("{unit}.{key}")));
    }

    /// A reboot, as the fake systemd sees it.
    pub fn reboot(&self) {
        let out = Command::new(fake_systemd())
            .arg("__boot")
            .env("FAKE_SYSTEMD_DIR", &self.units)
            .env("FAKE_SYSTEMD_ROOT", &self.root)
            .output()
            .unwrap();
        assert!(out.status.success(), "fake-systemd __boot: {out:?}");
    }

    /// osctl on this device: a clean environment, the fake systemd, the virtual clock.
    pub fn command(&self, args: &[String]) -> Command {
        let mut cmd = rs::osctl(&self.root);
        cmd.args(args)
            .env("OSCTL_SYSTEMCTL", fake_systemd())
            .env("FAKE_SYSTEMD_DIR", &self.units)
            .env("FAKE_SYSTEMD_ROOT", &self.root)
            .env("OSCTL_TEST_NOW", self.now.to_string());
        cmd
    }

    /// Runs osctl, bounded by `timeout` (killed past it); `fault` sets `OSCTL_FAULT`;
    /// `kill_after` sends SIGKILL after that long.
    pub fn run_with(
        &self,
        args: &[String],
        fault: Option<&str>,
        kill_after: Option<Duration>,
        timeout: Duration,
    ) -> Outcome {
        self.run_watched(args, fault, kill_after, timeout, false)
    }

    /// [`Dev::run_with`]; with `fifo_watch`, a run that stays blocked opening a FIFO (the
    /// kernel's `wait_for_partner`, which only a writer ends) for a second counts as hung at
    /// once, so a hang costs a second instead of the whole timeout, on a loaded machine too.
    pub fn run_watched(
        &self,
        args: &[String],
        fault: Option<&str>,
        kill_after: Option<Duration>,
        timeout: Duration,
        fifo_watch: bool,
    ) -> Outcome {
        let mut cmd = self.command(args);
        if let Some(f) = fault {
            cmd.env("OSCTL_FAULT", f);
        }
        cmd.stdin(Stdio::null());
        let started = Instant::now();
        let mut child = cmd.spawn().unwrap();
        let mut out_pipe = child.stdout.take().unwrap();
        let mut err_pipe = child.stderr.take().unwrap();
        let out_t = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = out_pipe.read_to_end(&mut v);
            v
        });
        let err_t = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err_pipe.read_to_end(&mut v);
            v
        });
        let limit = kill_after.map_or(timeout, |k| k.min(timeout));
        let mut timed_out = false;
        let mut blocked_since: Option<Instant> = None;
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if fifo_watch {
                if blocked_on_fifo(child.id()) {
                    let since = *blocked_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= Duration::from_secs(1) {
                        timed_out = true;
                        // SAFETY: kill(2) on our own child's pid, which we have not reaped yet.
                        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
                        break child.wait().unwrap();
                    }
                } else {
                    blocked_since = None;
                }
            }
            if started.elapsed() >= limit {
                timed_out = kill_after.is_none_or(|k| k >= timeout);
                // SAFETY: kill(2) on our own child's pid, which we have not reaped yet.
                unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_micros(500));
        };
        let elapsed = started.elapsed();
        Outcome {
            args: args.to_vec(),
            code: status.code(),
            stdout: String::from_utf8_lossy(&out_t.join().unwrap()).into_owned(),
            stderr: String::from_utf8_lossy(&err_t.join().unwrap()).into_owned(),
            timed_out,
            elapsed,
        }
    }

    pub fn run(&self, args: &[String]) -> Outcome {
        self.run_with(args, None, None, RUN_TIMEOUT)
    }

    /// The device as a runtime sees it (osctl's lock, journal and staging left out).
    pub fn snapshot(&self) -> Tree {
        rs::snapshot(&self.root)
    }

    /// The units' state that matters across runs: running and enabled, one line per unit (a unit
    /// systemd never saw, and one that is stopped or failed and disabled, are left out).
    pub fn unit_states(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.units)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".active") || n.ends_with(".enabled"))
            .map(|n| {
                let value = std::fs::read_to_string(self.units.join(&n)).unwrap_or_default();
                format!("{n}={}", value.trim())
            })
            // A failed unit is not running either (it stays `failed` until reset-failed).
            .filter(|l| {
                !l.ends_with(".active=inactive")
                    && !l.ends_with(".active=failed")
                    && !l.ends_with(".enabled=disabled")
            })
            .collect();
        v.sort();
        v
    }

    /// How many systemctl calls the fake has seen (a mark for [`Dev::calls_since`]).
    pub fn calls_mark(&self) -> usize {
        std::fs::read_to_string(self.units.join("calls"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// The calls since `mark` that change something (reads left out).
    pub fn calls_since(&self, mark: usize) -> Vec<String> {
        std::fs::read_to_string(self.units.join("calls"))
            .unwrap_or_default()
            .lines()
            .skip(mark)
            .filter(|l| !l.starts_with("show ") && !l.starts_with("is-active "))
            .map(str::to_string)
            .collect()
    }

    /// How many calls have failed so far (a mark for [`Dev::failed_since`]).
    pub fn failed_mark(&self) -> usize {
        std::fs::read_to_string(self.units.join("failed"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// The calls that failed since `mark`.
    pub fn failed_since(&self, mark: usize) -> Vec<String> {
        std::fs::read_to_string(self.units.join("failed"))
            .unwrap_or_default()
            .lines()
            .skip(mark)
            .map(str::to_string)
            .collect()
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(rel)).ok()
    }

    pub fn journals_pending(&self) -> bool {
        rs::restorable_journal(&self.root)
    }
}

/// Whether a thread of `pid` waits in open(2) of a FIFO for the other end.
fn blocked_on_fifo(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|t| {
            std::fs::read_to_string(t.path().join("wchan"))
                .is_ok_and(|w| w.trim() == "wait_for_partner")
        })
}

/// How long one osctl run may take before it counts as a hang (a run takes well under a second).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// The unit file name of a runtime.
pub fn unit_of(rt: &str) -> String {
    if rt == "hermes" {
        "hermes-gateway.service".into()
    } else {
        format!("{rt}.service")
    }
}

/// Copies a folder exactly (modes, links, empty folders; `.keep` files too).
pub fn copy_all(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            let mode = std::fs::symlink_metadata(entry.path())
                .unwrap()
                .permissions();
            std::fs::set_permissions(&dest, mode).unwrap();
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else if ft.is_file() {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

impl Dev {
    /// What happens before an operation's runs: a reboot, a unit's fault (`active` is the
    /// runtime whose unit refuses to stop).
    pub(super) fn before_op(&self, op: &Op, active: Option<&str>) {
        match op {
            Op::Boot => self.reboot(),
            Op::Switch { to, fault } => {
                let unit = unit_of(RUNTIMES[*to]);
                match fault {
                    UnitFault::Ok | UnitFault::OldRefusesStop => {}
                    UnitFault::Dies => self.put_unit(&unit, "on-start", "dies"),
                    UnitFault::Fails => self.put_unit(&unit, "on-start", "fail"),
                    UnitFault::CrashLoop => self.put_unit(&unit, "on-start", "crashloop"),
                    UnitFault::OkAfterOne | UnitFault::RestartFails => {
                        let starts: u32 =
                            std::fs::read_to_string(self.units.join(format!("{unit}.starts")))
                                .ok()
                                .and_then(|s| s.trim().parse().ok())
                                .unwrap_or(0);
                        let how = if *fault == UnitFault::OkAfterOne {
                            "ok-after"
                        } else {
                            "fail-after"
                        };
                        self.put_unit(&unit, "on-start", &format!("{how}:{}", starts + 1))
                    }
                }
                if *fault == UnitFault::OldRefusesStop
                    && let Some(old) = active
                {
                    self.put_unit(&unit_of(old), "on-stop", "refuse");
                }
            }
            _ => {}
        }
    }

    /// The fault was transient: the unit's binary is fixed after the step.
    pub(super) fn after_op(&self, op: &Op) {
        if let Op::Switch { .. } = op {
            for rt in RUNTIMES {
                let u = unit_of(rt);
                self.clear_unit(&u, "on-start");
                self.clear_unit(&u, "on-stop");
            }
        }
    }
}
