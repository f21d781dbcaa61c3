//! The real agent runtimes on a booted device: a real systemd (the lab's rootfs with Debian's
//! python3, `tests/it/support/systemd_lab.rs`, on a persistent disk so a reboot is a real one)
//! runs the real `openclaw gateway` and `hermes gateway` from the oracle installs
//! (`tests/oracles/install.sh`, bind-mounted read-only at the same path, so nothing is installed
//! twice), with osctl installed from its own package (`target/debian/`, `scripts/build-deb`).
//! No API key and no network: each gateway starts, passes readiness and answers its own status
//! calls without an LLM.
//!
//! One device lives one life, step by step: boot (the boot pass, then presync before the
//! gateway) → `mcp add` → `channel add telegram --token-file` → `switch hermes --wait-ready` →
//! `switch openclaw --wait-ready` → `migrate` both ways → `reset --yes` → reboot; then the
//! failures: a switch whose gateway cannot start (its port taken, which only hermes itself
//! finds out) is rolled back with exit 4; `kill -9` of osctl at points of a real switch, then
//! `osctl recover`; a gateway that crashes after the switch is left to systemd's restart policy.
//! After every step: the active runtime's unit is active and enabled and the other's stopped and
//! disabled, the gateway answers its own health call, `osctl doctor` reports no error, and the
//! runtime's own view (its CLI, or its gateway over RPC) of its MCP servers and channels equals
//! what `osctl status` and `osctl channel list` say. The counts are printed as one `REAL:` line.
//!
//! Skipped outside CI (it boots a container and starts node and python gateways: minutes), run
//! with `OSCTL_LAB=1`; under `CI=true` a missing lab, package or oracle is a failure.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::package_lab::text;
use crate::support::systemd_lab::{Boot, Lab, lab_gate, lab_required};

/// The two runtimes whose gateways the oracle installs can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rt {
    name: &'static str,
    unit: &'static str,
    /// The gateway's own health call: port and path on 127.0.0.1.
    health: (u16, &'static str),
}

const OPENCLAW: Rt = Rt {
    name: "openclaw",
    unit: "openclaw.service",
    health: (18789, "/healthz"),
};
const HERMES: Rt = Rt {
    name: "hermes",
    unit: "hermes-gateway.service",
    health: (8642, "/health"),
};
const BOTH: [Rt; 2] = [OPENCLAW, HERMES];

/// openclaw's unit as the image bakes it (the device contract names it, upstream's imager writes
/// it; its text is not in the contract). `TimeoutStopSec=20`: openclaw sizes its shutdown budget
/// from the unit's stop timeout, and offline with a telegram channel it spends all of it (85 s
/// of systemd's default 90, measured here), which every switch away from it would wait for.
const OPENCLAW_UNIT: &str = "[Unit]
Description=OpenClaw gateway
After=network-online.target
[Service]
Environment=HOME=/root
WorkingDirectory=/root
ExecStart=/usr/local/bin/openclaw gateway
Restart=always
RestartSec=5
TimeoutStopSec=20
[Install]
WantedBy=multi-user.target
";

const CONFIG: &str = r#"{
  "httpPort": 5000,
  "agent_runtime": "openclaw",
  "llm_api_key": "sk-lab-0000000000000000000000000000c0de",
  "llm_model": "Auto-AI"
}
"#;

/// What one life counted; printed as the `REAL:` line.
#[derive(Default)]
struct Tally {
    switches: u32,
    rollbacks: u32,
    kills: u32,
    ready: u32,
    mismatches: Vec<String>,
    doctor_errors: Vec<String>,
    figures: Vec<String>,
}

/// A runtime's MCP servers and the channels it runs itself.
#[derive(Debug, PartialEq, Eq)]
struct View {
    mcp: BTreeSet<String>,
    channels: BTreeSet<String>,
}

struct Device {
    lab: Lab,
    oracles: PathBuf,
    tally: Tally,
}

fn oracles() -> Option<PathBuf> {
    let dir = std::env::var_os("OSCTL_ORACLES_DIR").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/osctl-oracles"),
        PathBuf::from,
    );
    let out = std::process::Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/oracles/oracle.sh"
        ))
        .arg("available")
        .env("ORACLES", &dir)
        .output()
        .expect("run oracle.sh");
    if out.status.success() && dir.join("venv/bin/python").is_file() {
        return Some(dir);
    }
    let why = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        !lab_required(),
        "the real runtimes are required here (CI=true) but the oracles are missing: {why}"
    );
    eprintln!("SKIP real_runtimes: {why} (tests/oracles/install.sh installs them)");
    None
}

impl Device {
    /// A booted device: the lab container with the oracle installs bound in, the runtimes'
    /// entry points and units in place, osctl's package installed, then a reboot, so the first
    /// thing that runs osctl is the boot pass.
    fn boot() -> Option<Device> {
        if !lab_gate() {
            return None;
        }
        let deb = crate::package_lab::deb()?;
        let oracles = oracles()?;
        let bind = format!("--bind-ro={}", oracles.display());
        let lab = Lab::boot(
            "real",
            Boot {
                variant: Some("ssh"),
                disk: true,
                nspawn_args: vec!["--private-network".into(), bind],
            },
        );
        let mut d = Device {
            lab,
            oracles,
            tally: Tally::default(),
        };
        d.install(&deb);
        let took = d.lab.reboot();
        d.figure(format!("reboot: systemd up in {:.1} s", took.as_secs_f64()));
        d.boot_figures();
        Some(d)
    }

    fn install(&self, deb: &std::path::Path) {
        let p = self.oracles.display();
        // The CLIs where the device has them (openclaw's ready hook calls /usr/bin/openclaw).
        let openclaw = format!(
            "#!/bin/sh\nPATH={p}/node24/bin:$PATH exec {p}/npm/openclaw/node_modules/.bin/openclaw \"$@\"\n"
        );
        self.lab.write("/usr/local/bin/openclaw", &openclaw, 0o755);
        self.lab.write("/usr/bin/openclaw", &openclaw, 0o755);
        let hermes = format!("#!/bin/sh\nexec {p}/venv/bin/hermes \"$@\"\n");
        self.lab.write("/usr/local/bin/hermes", hermes, 0o755);
        self.lab
            .write("/etc/systemd/system/openclaw.service", OPENCLAW_UNIT, 0o644);
        // hermes as its installer leaves it (embedded/hermes/install.sh): the API server's
        // settings in .env, and the unit hermes itself writes.
        self.lab.write(
            "/root/.hermes/.env",
            "API_SERVER_ENABLED=true\nAPI_SERVER_KEY=hermes-local-api-key\nAPI_SERVER_CORS_ORIGINS=http://localhost:3000\n",
            0o600,
        );
        self.ok(&[
            "sh",
            "-c",
            "printf 'n\\n' | HOME=/root hermes gateway install --system --run-as-user root",
        ]);
        self.ok(&["systemctl", "disable", "--now", HERMES.unit]);
        self.ok(&["systemctl", "enable", OPENCLAW.unit]);
        self.lab.write("/root/config/config.json", CONFIG, 0o600);
        self.lab
            .write("/root/config/f_r_default_agent", "openclaw\n", 0o644);
        self.lab.copy_in(deb, "/tmp/osctl.deb", 0o644);
        self.ok(&["dpkg", "-i", "/tmp/osctl.deb"]);
        self.ok(&["osctl", "setup"]);
    }

    /// The boot pass's time, and when the gateway started after it, from systemd's own clock.
    fn boot_figures(&mut self) {
        let us = |unit: &str, prop: &str| -> f64 {
            self.prop(unit, prop).parse::<f64>().unwrap_or(0.0) / 1e6
        };
        let pass_start = us("osctl-boot.service", "ExecMainStartTimestampMonotonic");
        let pass_end = us("osctl-boot.service", "ExecMainExitTimestampMonotonic");
        let gateway = us(OPENCLAW.unit, "ExecMainStartTimestampMonotonic");
        self.figure(format!(
            "boot pass (osctl reconcile) {:.2} s; openclaw's ExecStart {:.2} s after the pass began (its presync included)",
            pass_end - pass_start,
            gateway - pass_start
        ));
    }

    fn exec(&self, argv: &[&str]) -> Output {
        self.lab.exec(argv)
    }

    fn ok(&self, argv: &[&str]) -> String {
        let out = self.exec(argv);
        assert!(out.status.success(), "{argv:?}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn osctl(&self, args: &[&str]) -> Output {
        let mut argv = vec!["osctl"];
        argv.extend_from_slice(args);
        self.exec(&argv)
    }

    fn osctl_json(&self, args: &[&str]) -> Value {
        let out = self.osctl(args);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("osctl {args:?}: not JSON ({e}): {}", text(&out)))
    }

    fn prop(&self, unit: &str, prop: &str) -> String {
        self.ok(&["systemctl", "show", "-p", prop, "--value", unit])
            .trim()
            .to_string()
    }

    fn figure(&mut self, line: String) {
        eprintln!("figure: {line}");
        self.tally.figures.push(line);
    }

    /// The HTTP status line of `GET path` on 127.0.0.1:`port` inside the device, if it answers.
    fn http_status(&self, port: u16, path: &str) -> Option<String> {
        let script = format!(
            "exec 3<>/dev/tcp/127.0.0.1/{port} || exit 1; printf 'GET {path} HTTP/1.0\\r\\nHost: 127.0.0.1\\r\\n\\r\\n' >&3; IFS= read -r -t 5 line <&3; printf '%s' \"$line\""
        );
        let out = self.exec(&["bash", "-c", &script]);
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Waits until the gateway answers its health call with 200; the time it took.
    fn wait_serving(&self, rt: Rt, timeout: Duration) -> Option<Duration> {
        let t0 = Instant::now();
        while t0.elapsed() < timeout {
            if self
                .http_status(rt.health.0, rt.health.1)
                .is_some_and(|s| s.split(' ').nth(1) == Some("200"))
            {
                return Some(t0.elapsed());
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        None
    }

    /// What the runtime itself says: openclaw's MCP servers from its CLI and its channels from
    /// the running gateway (RPC); hermes' from its CLI (`mcp list`, `status`).
    fn runtime_view(&self, rt: Rt) -> View {
        let home = [
            "env",
            "HOME=/root",
            "NO_COLOR=1",
            "OPENCLAW_NO_AUTO_UPDATE=1",
        ];
        let run = |args: &[&str]| {
            let argv: Vec<&str> = home.iter().chain(args).copied().collect();
            self.ok(&argv)
        };
        if rt == OPENCLAW {
            let mcp: Value = serde_json::from_str(&run(&["openclaw", "mcp", "list", "--json"]))
                .expect("openclaw mcp list --json");
            let status: Value =
                serde_json::from_str(&run(&["openclaw", "channels", "status", "--json"]))
                    .expect("openclaw channels status --json");
            View {
                mcp: mcp
                    .as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default(),
                channels: status["channels"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .filter(|(_, v)| v["configured"] == true)
                            .map(|(k, _)| k.clone())
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        } else {
            let mcp = run(&["hermes", "mcp", "list"]);
            let status = run(&["hermes", "status"]);
            View {
                mcp: mcp
                    .lines()
                    .filter(|l| l.contains("enabled") || l.contains("disabled"))
                    .filter_map(|l| l.split_whitespace().next())
                    .map(str::to_string)
                    .collect(),
                channels: status
                    .lines()
                    .skip_while(|l| !l.contains("Messaging Platforms"))
                    .skip(1)
                    .take_while(|l| !l.trim().is_empty() && !l.contains('◆'))
                    .filter(|l| l.contains("✓"))
                    .filter_map(|l| l.split_whitespace().next())
                    .map(str::to_lowercase)
                    .collect(),
            }
        }
    }

    /// What osctl says of the active runtime: `status`'s MCP servers and the configured channels
    /// `channel list` says it runs itself.
    fn osctl_view(&self, rt: Rt) -> View {
        let status = self.osctl_json(&["status", "--json"]);
        let entry = status["runtimes"]
            .as_array()
            .and_then(|a| a.iter().find(|r| r["name"] == rt.name))
            .cloned()
            .unwrap_or_default();
        let names = |v: &Value| -> BTreeSet<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let list = self.osctl_json(&["channel", "list", "--json", "--runtime", rt.name]);
        View {
            mcp: names(&entry["mcp_servers"]),
            channels: list["configured"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|c| c["run_by"] == "runtime")
                        .filter_map(|c| c["channel"].as_str())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Counts the checks `osctl doctor --json` reports as errors, each named with `step`.
    fn count_doctor_errors(&mut self, step: &str) {
        let doctor = self.osctl_json(&["doctor", "--json"]);
        for c in doctor["checks"].as_array().into_iter().flatten() {
            if c["status"] == "error" {
                self.tally
                    .doctor_errors
                    .push(format!("{step}: {} {}", c["check"], c["summary"]));
            }
        }
    }

    /// The checks after every step: `active` runs and serves, the other is stopped and
    /// disabled, doctor has no error, the runtime's view equals osctl's.
    fn check(&mut self, step: &str, active: Rt) {
        let status = self.osctl_json(&["status", "--json"]);
        assert_eq!(
            status["active"]["runtime"], active.name,
            "{step}: osctl status names another active runtime"
        );
        for rt in BOTH {
            let (state, file) = (
                self.prop(rt.unit, "ActiveState"),
                self.prop(rt.unit, "UnitFileState"),
            );
            if rt == active {
                assert_eq!(
                    (state.as_str(), file.as_str()),
                    ("active", "enabled"),
                    "{step}: {}",
                    rt.unit
                );
            } else {
                assert!(
                    matches!(state.as_str(), "inactive" | "failed") && file == "disabled",
                    "{step}: {} should be stopped and disabled: {state} {file}",
                    rt.unit
                );
            }
        }
        let waited = self.wait_serving(active, Duration::from_secs(120));
        assert!(
            waited.is_some(),
            "{step}: {} does not answer {}:{}",
            active.name,
            active.health.0,
            active.health.1
        );
        self.tally.ready += 1;
        self.count_doctor_errors(step);
        let (theirs, ours) = (self.runtime_view(active), self.osctl_view(active));
        eprintln!("{step}: {} says {theirs:?}", active.name);
        if theirs != ours {
            self.tally.mismatches.push(format!(
                "{step}: {} says {theirs:?}, osctl says {ours:?}",
                active.name
            ));
        }
    }

    /// After `reset --yes`: no gateway runs until the next boot, the image default's unit
    /// (openclaw) stays enabled so that boot starts it, the other is disabled, the owner's MCP
    /// servers and channels are gone from osctl's view, and doctor has no error.
    fn check_reset(&mut self) {
        for (rt, enabled) in [(OPENCLAW, "enabled"), (HERMES, "disabled")] {
            let (state, file) = (
                self.prop(rt.unit, "ActiveState"),
                self.prop(rt.unit, "UnitFileState"),
            );
            assert!(
                matches!(state.as_str(), "inactive" | "failed") && file == enabled,
                "reset: {} should be stopped and {enabled}: {state} {file}",
                rt.unit
            );
        }
        let ours = self.osctl_view(OPENCLAW);
        assert!(
            ours.mcp.is_empty() && ours.channels.is_empty(),
            "reset left {ours:?}"
        );
        self.count_doctor_errors("reset");
    }

    /// Starts `osctl switch TO --wait-ready ARGS` in the background; its exit code lands in
    /// /tmp/switch.rc, its output in /tmp/switch.log. Returns its pid.
    fn start_switch(&self, to: Rt, args: &str) -> String {
        let _ = self.exec(&["rm", "-f", "/tmp/switch.rc"]);
        let script = format!(
            "(osctl switch {} --wait-ready {args} >/tmp/switch.log 2>&1; echo $? >/tmp/switch.rc) </dev/null >/dev/null 2>&1 & echo $!",
            to.name
        );
        self.ok(&["sh", "-c", &script]).trim().to_string()
    }

    /// `osctl switch TO --wait-ready`, timed while it runs: until the new unit is active
    /// (osctl's own work, the unit's presync included), until the gateway answers its health
    /// call (its cold start), and the rest (the ready hook, the settle, the old unit's stop,
    /// the commit and the reconcilers). Returns the exit code.
    fn switch_with(&mut self, from: Rt, to: Rt, args: &str) -> i32 {
        let t0 = Instant::now();
        self.start_switch(to, args);
        let (mut active, mut serving) = (None, None);
        let rc = loop {
            if let Some(rc) = self
                .lab
                .read("/tmp/switch.rc")
                .filter(|s| s.ends_with('\n'))
            {
                break rc.trim().parse::<i32>().unwrap_or(-1);
            }
            if active.is_none() && self.lab.is_active(to.unit) == "active" {
                active = Some(t0.elapsed());
            }
            if active.is_some()
                && serving.is_none()
                && self
                    .http_status(to.health.0, to.health.1)
                    .is_some_and(|s| s.split(' ').nth(1) == Some("200"))
            {
                serving = Some(t0.elapsed());
            }
            assert!(
                t0.elapsed() < Duration::from_secs(600),
                "switch {} hangs",
                to.name
            );
            std::thread::sleep(Duration::from_millis(200));
        };
        let total = t0.elapsed().as_secs_f64();
        let log = self.lab.read("/tmp/switch.log").unwrap_or_default();
        eprintln!("switch {} -> {} (exit {rc}):\n{log}", from.name, to.name);
        if rc == 0 {
            self.tally.switches += 1;
            let s =
                |d: Option<Duration>| d.map_or("-".into(), |d| format!("{:.1}", d.as_secs_f64()));
            // The reconcilers may have restarted the gateway (an MCP server carried over):
            // measured once it serves again.
            let _ = self.wait_serving(to, Duration::from_secs(120));
            let memory = self.memory_mb(to);
            self.figure(format!(
                "switch {} -> {}: {total:.1} s; {} unit active at {} s, serving at {} s; {} gateway {memory} MB",
                from.name,
                to.name,
                to.name,
                s(active),
                s(serving),
                to.name,
            ));
        }
        rc
    }

    fn switch(&mut self, from: Rt, to: Rt) {
        let rc = self.switch_with(from, to, "");
        assert_eq!(rc, 0, "switch {} -> {}", from.name, to.name);
    }

    /// The resident memory of every process of `rt`'s unit, in MB (its cgroup, on a unified or
    /// a hybrid cgroup host).
    fn memory_mb(&self, rt: Rt) -> String {
        let cg = self.prop(rt.unit, "ControlGroup");
        let script = format!(
            "kb=0; for f in /sys/fs/cgroup/unified{cg} /sys/fs/cgroup/systemd{cg} /sys/fs/cgroup{cg}; do [ -r $f/cgroup.procs ] || continue; for p in $(cat $f/cgroup.procs); do k=$(awk '/^VmRSS/{{print $2}}' /proc/$p/status 2>/dev/null); kb=$((kb + ${{k:-0}})); done; break; done; echo $((kb / 1024))"
        );
        self.ok(&["bash", "-c", &script]).trim().to_string()
    }

    /// Starts a switch to `to` and kills osctl with SIGKILL after `after`, then runs
    /// `osctl recover`; returns the runtime the device converged to.
    fn killed_switch(&mut self, to: Rt, after: Duration) -> Rt {
        let pid = self.start_switch(to, "");
        std::thread::sleep(after);
        // The subshell's child: osctl itself.
        let kill = format!("kill -KILL $(cat /proc/{pid}/task/{pid}/children)");
        let _ = self.exec(&["sh", "-c", &kill]);
        self.tally.kills += 1;
        let out = self.osctl(&["recover"]);
        assert!(
            out.status.success(),
            "recover after a kill at {after:?}: {}",
            text(&out)
        );
        let status = self.osctl_json(&["status", "--json"]);
        let name = status["active"]["runtime"].as_str().unwrap_or_default();
        *BOTH
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("after a kill at {after:?}: active runtime {name:?}"))
    }

    fn real_line(&self) -> String {
        format!(
            "REAL: switches={} rollbacks={} kills={} runtimes=openclaw,hermes ready={} mismatches={} doctor_errors={}",
            self.tally.switches,
            self.tally.rollbacks,
            self.tally.kills,
            self.tally.ready,
            self.tally.mismatches.len(),
            self.tally.doctor_errors.len()
        )
    }
}

#[test]
fn a_device_lives_a_life_on_the_real_gateways() {
    let Some(mut d) = Device::boot() else { return };
    d.check("boot", OPENCLAW);

    d.ok(&[
        "osctl",
        "mcp",
        "add",
        "search",
        "--url",
        "https://search.example/mcp/",
    ]);
    d.check("mcp add", OPENCLAW);
    d.lab.write(
        "/root/telegram.token",
        "123456:ABCdefGHIjklMNOpqrSTUvwxYZ\n",
        0o600,
    );
    d.ok(&[
        "osctl",
        "channel",
        "add",
        "telegram",
        "--token-file",
        "/root/telegram.token",
        "--user-id",
        "42",
    ]);
    d.check("channel add", OPENCLAW);

    d.switch(OPENCLAW, HERMES);
    d.check("switch hermes", HERMES);
    d.switch(HERMES, OPENCLAW);
    d.check("switch openclaw", OPENCLAW);

    d.lab.write(
        "/root/.openclaw/workspace/SOUL.md",
        "# Soul\n\nI am the lab's lamp.\n",
        0o644,
    );
    d.ok(&["osctl", "migrate", "--from", "openclaw", "--to", "hermes"]);
    d.check("migrate openclaw -> hermes", OPENCLAW);
    let soul = d.lab.read("/root/.hermes/SOUL.md").unwrap_or_default();
    assert!(
        soul.contains("I am the lab's lamp."),
        "hermes' SOUL.md: {soul}"
    );
    d.ok(&["osctl", "migrate", "--from", "hermes", "--to", "openclaw"]);
    d.check("migrate hermes -> openclaw", OPENCLAW);

    d.ok(&["osctl", "reset", "--yes"]);
    d.check_reset();
    let took = d.lab.reboot();
    d.figure(format!(
        "reboot after reset: systemd up in {:.1} s",
        took.as_secs_f64()
    ));
    d.check("reboot", OPENCLAW);

    // A gateway that cannot start: hermes' port is taken, which only hermes finds out (it
    // exits 78, its unit's RestartPreventExitStatus). The switch rolls back, exit 4.
    d.ok(&[
        "systemd-run",
        "--unit=squatter",
        "python3",
        "-m",
        "http.server",
        "8642",
        "--bind",
        "127.0.0.1",
    ]);
    let rc = d.switch_with(OPENCLAW, HERMES, "--ready-tries 4 --ready-interval 2");
    assert_eq!(rc, 4, "a switch onto a taken port");
    d.tally.rollbacks += 1;
    d.check("rolled back", OPENCLAW);
    let doctor = String::from_utf8_lossy(&d.osctl(&["doctor"]).stdout).into_owned()
        + &String::from_utf8_lossy(&d.osctl(&["doctor"]).stderr);
    assert!(
        doctor.contains("journalctl") && doctor.contains(HERMES.unit),
        "doctor does not point at hermes' journal: {doctor}"
    );
    d.ok(&["systemctl", "stop", "squatter"]);

    // kill -9 of osctl during real switches, then recover: one gateway runs, the one
    // config.json names.
    let mut on = OPENCLAW;
    for after in [500, 3000, 8000] {
        let to = if on == OPENCLAW { HERMES } else { OPENCLAW };
        on = d.killed_switch(to, Duration::from_millis(after));
        d.check(&format!("kill -9 at {after} ms, recover"), on);
    }

    // A crash after the switch is systemd's to handle: osctl undoes nothing.
    if on == OPENCLAW {
        d.switch(OPENCLAW, HERMES);
        d.check("switch hermes", HERMES);
    }
    let restarts = d.prop(HERMES.unit, "NRestarts");
    d.ok(&["systemctl", "kill", "-s", "KILL", HERMES.unit]);
    // Restart=always, RestartSec=5 (the unit hermes writes): activating, then active.
    assert_eq!(d.lab.wait_is_active(HERMES.unit, "active", 60), "active");
    d.check("gateway crashed, restarted by systemd", HERMES);
    assert_ne!(
        d.prop(HERMES.unit, "NRestarts"),
        restarts,
        "systemd did not restart hermes"
    );

    let line = d.real_line();
    eprintln!("{line}");
    for f in &d.tally.figures {
        eprintln!("  {f}");
    }
    assert!(
        d.tally.mismatches.is_empty() && d.tally.doctor_errors.is_empty(),
        "{line}\nmismatches: {:#?}\ndoctor errors: {:#?}",
        d.tally.mismatches,
        d.tally.doctor_errors
    );
}
