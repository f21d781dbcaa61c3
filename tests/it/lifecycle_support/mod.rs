//! The lifecycle suite's machinery (the suite `lifecycle`): a device walked through a whole life
//! by the real osctl binary, a model of what must hold after every step, and the invariants.
//!
//! - [`ops`]: the operations, their text form, the seeded generator;
//! - [`device`]: the device tree, the stateful fake systemd (`tests/support/fake-systemd`), the
//!   virtual clock, runs bounded by a timeout;
//! - [`preview`]: the applier that checks preview = run;
//! - this file: [`Life`] (one sequence on one device: each step, then the invariants), the
//!   [`Model`] it keeps, the list of known open defects, and the shrinker.

pub mod device;
pub mod links_out;
pub mod ops;
pub mod preview;
mod trees;
pub mod wrong_type;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::reliability_support::{self as rs, Node, Rng, Tree};
use crate::skills_support::Cdn;
use crate::support::registry;
use device::{Dev, Outcome, unit_of};
use ops::{CHANNELS, Kill, MCP_NAMES, Op, OwnerKind, RUNTIMES, Sequence, UnitFault};
use trees::{empty_folders, torn, visible};

/// One broken promise.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The invariant: `operable`, `preview=run`, `convergence`, `own-edit-kept`, `owner-text-kept`,
    /// `crash`, `no-hang`, `no-internal-error`, `exit-code`, `all-or-nothing`, `model`,
    /// `independent-steps`.
    pub invariant: &'static str,
    /// The step (1-based) and operation it broke at.
    pub step: usize,
    pub op: String,
    /// What the check ran or compared (a command, a probe).
    pub context: String,
    pub detail: String,
}

impl Violation {
    /// What shrinking keeps: the invariant, the kind of operation, and the context's first
    /// words (the probe or command).
    pub fn signature(&self) -> String {
        let kind = self.op.split_whitespace().next().unwrap_or("");
        let ctx: Vec<&str> = self.context.split_whitespace().take(2).collect();
        format!("{} at {kind} ({})", self.invariant, ctx.join(" "))
    }

    pub fn report(&self) -> String {
        format!(
            "[{}] step {} `{}`: {}\n  {}",
            self.invariant,
            self.step,
            self.op,
            self.context,
            self.detail.replace('\n', "\n  ")
        )
    }
}

/// A known open defect: the violations it explains are counted, not failed. Each entry names
/// the defect (as the lead's brief names it); the lead removes the entry when its fix lands.
pub struct Known {
    pub id: &'static str,
    pub defect: &'static str,
    pub matches: fn(&Violation) -> bool,
}

/// The defects other engineers are fixing in parallel, as this suite finds them.
/// **Temporary**: remove an entry when its fix is on main (and the suite then fails if it
/// still finds the violation).
pub const KNOWN_OPEN_DEFECTS: &[Known] = &[
    Known {
        id: "killed-boot-then-switch-diverges",
        defect: "a boot killed at a reconcile step's try-restart, then a switch: the persona history \
                 and the carried files end in neither the killed nor the uninterrupted state \
                 (tests/lifecycle_support/FOUND.md)",
        matches: |v| {
            v.invariant == "crash"
                && v.context
                    .starts_with("osctl reconcile killed at kill-on:try-restart, then `switch ")
        },
    },
    Known {
        id: "killed-post-commit-restart-converges-running",
        defect: "a switch killed after its commit point (at a post-commit try-restart or write) \
                 whose uninterrupted run fails the restart: the convergence starts the new unit, \
                 which the uninterrupted run left failed (tests/lifecycle_support/FOUND.md)",
        matches: |v| {
            v.invariant == "crash"
                && v.context.starts_with("osctl switch ")
                && v.op.contains("restart-fails")
                && v.detail.starts_with("the units converged to neither state")
        },
    },
];

pub fn known(v: &Violation) -> Option<&'static Known> {
    KNOWN_OPEN_DEFECTS.iter().find(|k| (k.matches)(v))
}

/// What a life walks and finds, for the figures line.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub sequences: usize,
    pub steps: usize,
    pub runs: usize,
    pub probes: usize,
    pub previews_compared: usize,
    /// `--json` documents validated against docs/schema/.
    pub documents: usize,
    /// Previews not compared: a journal was pending (the run restores it first).
    pub previews_after_crash: usize,
    pub convergence_checked: usize,
    /// crash point (`abort-write`, `kill-after`, `kill-on:try-restart`, …) × command kind.
    pub crash_points: BTreeMap<String, usize>,
    pub crashes_mid_run: usize,
    pub crashes_after_run: usize,
    pub fifos: usize,
    pub violations: BTreeMap<String, usize>,
    pub known: BTreeMap<String, usize>,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.sequences += o.sequences;
        self.steps += o.steps;
        self.runs += o.runs;
        self.probes += o.probes;
        self.previews_compared += o.previews_compared;
        self.documents += o.documents;
        self.previews_after_crash += o.previews_after_crash;
        self.convergence_checked += o.convergence_checked;
        self.crashes_mid_run += o.crashes_mid_run;
        self.crashes_after_run += o.crashes_after_run;
        self.fifos += o.fifos;
        for (k, v) in &o.crash_points {
            *self.crash_points.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.violations {
            *self.violations.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.known {
            *self.known.entry(k.clone()).or_default() += v;
        }
    }
}

/// How much to check.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Every operability probe after every step (else `status` plus one drawn probe, three after
    /// a crash, a FIFO or a provision, four after the last step, and all of them after a reset).
    pub full_operability: bool,
}

/// What the suite expects of the device, kept alongside it.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The active runtime as `status` reports it.
    pub active: Option<String>,
    /// A runtime's own edits: (file, marker, runtime).
    pub edits: Vec<(String, String, String)>,
    /// Owner text: (file, line).
    pub owner: Vec<(String, String)>,
    /// MCP servers `osctl mcp add` reported added, per runtime.
    pub mcp: BTreeMap<String, BTreeSet<String>>,
    /// Channels whose credentials config.json holds.
    pub channels: BTreeSet<String>,
}

/// A runtime's own files (path, format), the ones an [`Op::Edit`] or [`Op::Fifo`] picks from.
pub fn own_files(rt: &str) -> [(&'static str, Fmt); 2] {
    match rt {
        "openclaw" => [
            ("root/.openclaw/openclaw.json", Fmt::Json5),
            ("root/.openclaw/openclaw.json", Fmt::Json5),
        ],
        "hermes" => [
            ("root/.hermes/config.yaml", Fmt::Yaml),
            ("root/.hermes/.env", Fmt::Env),
        ],
        "picoclaw" => [
            ("root/.picoclaw/config.json", Fmt::Json),
            ("root/.picoclaw/.security.yml", Fmt::Yaml),
        ],
        "codex" => [
            ("root/.codex/config.toml", Fmt::Toml),
            ("root/.codex/.env", Fmt::Env),
        ],
        "claudecode" => [
            ("root/.claude.json", Fmt::Json),
            ("root/.claudecode/.env", Fmt::Env),
        ],
        "opencode" => [
            ("root/.config/opencode/opencode.json", Fmt::Json5),
            ("root/.opencode/.env", Fmt::Env),
        ],
        // Any other registered runtime (the test-only one): its first two native files, from
        // the registry (its only one twice, as openclaw's).
        _ => {
            let native = registry::spec(rt).native;
            let file = |i: usize| {
                let f = native[i.min(native.len() - 1)];
                (registry::dev_path_static(f.loc), Fmt::of(f.format))
            };
            [file(0), file(1)]
        }
    }
}

/// Files a reset of the active runtime keeps (the book, Factory reset); its other files go. (A
/// runtime the package does not ship keeps what its registry entry says.)
fn kept_on_reset(path: &str) -> bool {
    matches!(
        path,
        "root/.hermes/config.yaml" | "root/.hermes/.env" | "root/.claude.json"
    ) || registry::test_only().any(|rt| {
        registry::spec(rt)
            .reset
            .keep
            .iter()
            .any(|k| registry::dev_path(*k) == path)
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    Json,
    /// JSON5 / JSONC: comments allowed.
    Json5,
    Yaml,
    Toml,
    Env,
}

impl Fmt {
    /// The lifecycle's view of a native file's format (osctl's `Format`).
    fn of(f: osctl::format::Format) -> Fmt {
        use osctl::format::Format;
        match f {
            Format::Json => Fmt::Json,
            Format::Jsonc | Format::Json5 => Fmt::Json5,
            Format::Yaml => Fmt::Yaml,
            Format::Toml => Fmt::Toml,
            Format::DotEnv => Fmt::Env,
            Format::Markdown => panic!("a native config file in Markdown"),
        }
    }
}

pub fn soul_path(rt: &str) -> &'static str {
    match rt {
        "openclaw" => "root/.openclaw/workspace/SOUL.md",
        "hermes" => "root/.hermes/SOUL.md",
        "picoclaw" => "root/.picoclaw/workspace/SOUL.md",
        "codex" => "root/.codex/workspace/SOUL.md",
        "claudecode" => "root/.claudecode/workspace/SOUL.md",
        "opencode" => "root/.opencode/workspace/SOUL.md",
        _ => registry::dev_path_static(registry::spec(rt).persona.soul),
    }
}

pub fn memory_path(rt: &str) -> &'static str {
    match rt {
        "openclaw" => "root/.openclaw/workspace/MEMORY.md",
        "hermes" => "root/.hermes/memories/MEMORY.md",
        "picoclaw" => "root/.picoclaw/workspace/memory/MEMORY.md",
        "codex" => "root/.codex/workspace/MEMORY.md",
        "claudecode" => "root/.claudecode/workspace/MEMORY.md",
        "opencode" => "root/.opencode/workspace/MEMORY.md",
        _ => registry::dev_path_static(registry::spec(rt).persona.memory),
    }
}

fn channel_field(ch: &str) -> &'static str {
    match ch {
        "telegram" => "telegram_bot_token",
        "slack" => "slack_bot_token",
        "discord" => "discord_bot_token",
        _ => "whatsapp_user_id",
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// A secret-looking token, distinct per `n` (so a leak or a mix-up would show).
fn token(prefix: &str, n: u32) -> String {
    format!(
        "{prefix}{n:06}x{:016x}",
        (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    )
}

/// The skills the loopback CDN publishes, at version `v`.
pub fn publish_skills(cdn: &mut Cdn, v: u32) {
    let body = format!("# Audio v{v}\nPlay sounds.\n");
    cdn.publish(
        "audio",
        &[
            ("SKILL.md", body.as_bytes()),
            ("scripts/play.py", b"print('play')\n"),
        ],
    );
    let notes = format!("# Lamp notes v{v}\n");
    cdn.publish("lamp-notes", &[("SKILL.md", notes.as_bytes())]);
    // openclaw's OS hooks
    cdn.hook(
        "turn-gate",
        &format!("# turn-gate v{v}\n"),
        "export default () => {};\n",
    );
    cdn.hook(
        "emotion-acknowledge",
        &format!("# emotion-acknowledge v{v}\n"),
        "export default () => {};\n",
    );
}

/// One life: a device, its model, and the violations found so far.
pub struct Life<'a> {
    pub dev: Dev,
    pub model: Model,
    pub violations: Vec<Violation>,
    pub stats: Stats,
    scratch: PathBuf,
    step: usize,
    op_text: String,
    cdn: &'a mut Cdn,
    opts: Opts,
    rng: Rng,
    last: bool,
}

/// What a run's stderr must not say: a file a reset removes named as missing, a panic.
fn unclear(stderr: &str) -> Option<&'static str> {
    for bad in [
        "config.json does not exist",
        "agent_state.json does not exist",
        "panicked",
        "internal error",
        "RUST_BACKTRACE",
    ] {
        if stderr.contains(bad) {
            return Some(bad);
        }
    }
    if !stderr.contains("error") {
        return Some("no error message");
    }
    None
}

impl<'a> Life<'a> {
    pub fn new(base: &Path, seq: &Sequence, cdn: &'a mut Cdn, opts: Opts, seed: u64) -> Life<'a> {
        publish_skills(cdn, 1);
        let dev = Dev::new(&base.join("live"), &seq.start, &cdn.server.metadata_url());
        let mut life = Life {
            dev,
            model: Model::default(),
            violations: Vec::new(),
            stats: Stats::default(),
            scratch: base.to_path_buf(),
            step: 0,
            op_text: format!("start {}", seq.start),
            cdn,
            opts,
            rng: Rng(seed | 1),
            last: false,
        };
        life.model.channels = life.configured_channels();
        life.status_probe();
        life
    }

    /// Walks the whole sequence.
    pub fn walk(&mut self, seq: &Sequence) {
        self.stats.sequences += 1;
        for (i, op) in seq.ops.iter().enumerate() {
            self.last = i + 1 == seq.ops.len();
            self.step(i + 1, op);
        }
    }

    fn violate(&mut self, invariant: &'static str, context: &str, detail: String) {
        let v = Violation {
            invariant,
            step: self.step,
            op: self.op_text.clone(),
            context: context.to_string(),
            detail,
        };
        *self
            .stats
            .violations
            .entry(invariant.to_string())
            .or_default() += 1;
        if let Some(k) = known(&v) {
            *self.stats.known.entry(k.id.to_string()).or_default() += 1;
        }
        self.violations.push(v);
    }

    fn run(&mut self, args: &[String]) -> Outcome {
        self.stats.runs += 1;
        let out = self.dev.run(args);
        self.judge_run(&out);
        out
    }

    /// Every run: no hang, no internal error.
    fn judge_run(&mut self, out: &Outcome) {
        if out.timed_out {
            self.violate(
                "no-hang",
                &format!("osctl {}", out.args.join(" ")),
                format!(
                    "still running after {:?}: killed\n{}",
                    out.elapsed,
                    out.text()
                ),
            );
        } else if out.code == Some(101) {
            self.violate(
                "no-internal-error",
                &format!("osctl {}", out.args.join(" ")),
                out.text(),
            );
        }
        // A run that ended by itself under --json printed one document of the contract.
        if out.code.is_some() && !out.timed_out && out.args.iter().any(|a| a == "--json") {
            self.stats.documents += 1;
            let problems = match serde_json::from_str::<serde_json::Value>(&out.stdout) {
                Err(e) => vec![format!("stdout is not one JSON document: {e}")],
                Ok(doc) if doc["exit_code"].as_i64() != out.code.map(i64::from) => {
                    vec![format!(
                        "exit_code {} is not the process's",
                        doc["exit_code"]
                    )]
                }
                Ok(doc) => crate::support::schema::problems(&doc),
            };
            if !problems.is_empty() {
                self.violate(
                    "json-contract",
                    &format!("osctl {}", out.args.join(" ")),
                    format!("{}\n{}", problems.join("\n"), out.text()),
                );
            }
        }
    }

    pub fn step(&mut self, n: usize, op: &Op) {
        self.step = n;
        self.op_text = op.to_string();
        self.stats.steps += 1;
        let now = self.dev.now + 600;
        self.dev.set_clock(now);
        // How many operability probes to draw after this step (all of them: usize::MAX).
        let mut probes = 1;
        match op {
            Op::Provision { rt, n } => {
                self.provision(*rt, *n);
                probes = 3;
            }
            Op::CdnPublish { n } => publish_skills(self.cdn, *n),
            Op::Edit {
                rt,
                file,
                comment,
                n,
            } => self.edit(RUNTIMES[*rt], *file, *comment, *n),
            Op::Owner { kind, n } => self.owner_writes(*kind, *n),
            Op::Crash { kill, cmd, next } => {
                self.crash(kill, cmd, next);
                probes = 3;
            }
            Op::Fifo { path, cmd } => {
                self.fifo(path, cmd);
                probes = 3;
            }
            Op::Reset => {
                self.command_op(op);
                probes = usize::MAX;
            }
            _ => self.command_op(op),
        }
        if self.opts.full_operability {
            probes = usize::MAX;
        } else if self.last {
            probes = probes.max(4);
        }
        self.check_model();
        self.operability(probes);
    }

    // ---- operations that are not osctl ----

    fn provision(&mut self, rt: Option<usize>, n: u32) {
        let path = self.dev.root.join("root/config/config.json");
        let mut doc: serde_json::Value = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_else(|| {
                serde_json::json!({
                    "httpPort": 5000,
                    "device_id": "lamp-7f3a",
                    "device_type": "lamp",
                    "timezone": "Asia/Ho_Chi_Minh",
                })
            });
        let o = doc.as_object_mut().unwrap();
        let set =
            |o: &mut serde_json::Map<String, serde_json::Value>, k: &str, v: serde_json::Value| {
                o.insert(k.to_string(), v);
            };
        set(
            o,
            "agent_runtime",
            rt.map(|i| RUNTIMES[i]).unwrap_or("").into(),
        );
        set(o, "llm_config_mode", "os".into());
        set(o, "llm_api_key", token("sk-owner-", n).into());
        set(
            o,
            "llm_base_url",
            "https://campaign-api.autonomous.ai/api/v1/ai/v1".into(),
        );
        set(o, "llm_model", "Auto-AI".into());
        set(o, "channel", "telegram".into());
        set(
            o,
            "telegram_bot_token",
            format!("{n}00000:AA{}", token("tg", n)).into(),
        );
        set(o, "telegram_user_id", format!("{n}").into());
        for k in [
            "slack_bot_token",
            "slack_app_token",
            "slack_user_id",
            "discord_bot_token",
            "discord_guild_id",
            "discord_user_id",
            "whatsapp_user_id",
        ] {
            set(o, k, "".into());
        }
        set(
            o,
            "mcp_tools",
            serde_json::json!([{
                "name": format!("owner{n}"),
                "url": format!("https://mcp.example.com/owner{n}"),
                "headers": {"Authorization": format!("Bearer {}", token("tool", n))},
            }]),
        );
        rs::write(
            &self.dev.root,
            "root/config/config.json",
            format!("{}\n", serde_json::to_string_pretty(&doc).unwrap()).as_bytes(),
            0o600,
        );
        self.model.channels = ["telegram".to_string()].into();
    }

    fn edit(&mut self, rt: &str, file: usize, comment: bool, n: u32) {
        let (path, fmt) = own_files(rt)[file.min(1)];
        let Some(text) = self.dev.read(path) else {
            return; // the runtime has not written this file yet: nothing to edit
        };
        let key = format!("lifecycle_own_{n}");
        let note = format!("lifecycle-own-{n}");
        let comment = comment && fmt != Fmt::Json;
        let nl = if text.ends_with('\n') || text.is_empty() {
            ""
        } else {
            "\n"
        };
        let (new, marker) = match (fmt, comment) {
            (Fmt::Json | Fmt::Json5, false) => {
                let Some(at) = text.find('{') else { return };
                let rest = text[at + 1..].trim_start();
                let sep = if rest.starts_with('}') { "" } else { "," };
                (
                    format!(
                        "{}\n  \"{key}\": \"kept\"{sep}{}",
                        &text[..=at],
                        &text[at + 1..]
                    ),
                    format!("\"{key}\""),
                )
            }
            (Fmt::Json | Fmt::Json5, true) => {
                let Some(at) = text.find('{') else { return };
                (
                    format!("{}\n  // {note}\n{}", &text[..=at], &text[at + 1..]),
                    note.clone(),
                )
            }
            (Fmt::Yaml, false) => (format!("{text}{nl}{key}: kept\n"), format!("{key}: kept")),
            (Fmt::Yaml | Fmt::Env, true) => (format!("{text}{nl}# {note}\n"), note.clone()),
            (Fmt::Toml, false) => (
                format!("{key} = \"kept\"\n{text}"),
                format!("{key} = \"kept\""),
            ),
            (Fmt::Toml, true) => (format!("# {note}\n{text}"), note.clone()),
            (Fmt::Env, false) => {
                let k = key.to_uppercase();
                (format!("{text}{nl}{k}=kept\n"), format!("{k}=kept"))
            }
        };
        let mode = std::fs::metadata(self.dev.root.join(path))
            .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
            .unwrap_or(0o644);
        rs::write(&self.dev.root, path, new.as_bytes(), mode);
        self.model
            .edits
            .push((path.to_string(), marker, rt.to_string()));
    }

    fn owner_writes(&mut self, kind: OwnerKind, n: u32) {
        let Some(rt) = self.model.active.clone() else {
            return;
        };
        let line =
            format!("Owner line {n}: my lamp is called Pip {n} and likes tea at {n} o'clock.");
        let (path, new) = match kind {
            OwnerKind::Soul | OwnerKind::SoulHeading => {
                let path = soul_path(&rt);
                let old = self.dev.read(path).unwrap_or_default();
                let new = if kind == OwnerKind::Soul {
                    format!(
                        "{}{}\n{line}\n",
                        old,
                        if old.ends_with('\n') || old.is_empty() {
                            ""
                        } else {
                            "\n"
                        }
                    )
                } else {
                    // The owner writes a soul of their own; the OS block on top (if any) stays.
                    let marker = "<!-- OS DO NOT REMOVE -->";
                    let block = if old.starts_with(marker) {
                        old.find("\n---\n")
                            .map(|e| old[..e + 5].to_string())
                            .unwrap_or_default()
                    } else {
                        String::new()
                    };
                    let gap = if block.is_empty() { "" } else { "\n" };
                    // The owner keeps what they wrote before.
                    let earlier: String = self
                        .model
                        .owner
                        .iter()
                        .filter(|(p, _)| p == path)
                        .map(|(_, l)| format!("{l}\n"))
                        .collect();
                    format!("{block}{gap}# Soul\n\n{earlier}{line}\n")
                };
                (path, new)
            }
            OwnerKind::Memory => {
                let path = memory_path(&rt);
                let old = self.dev.read(path).unwrap_or_default();
                (
                    path,
                    format!(
                        "{}{}- {line}\n",
                        old,
                        if old.ends_with('\n') || old.is_empty() {
                            ""
                        } else {
                            "\n"
                        }
                    ),
                )
            }
        };
        rs::write(&self.dev.root, path, new.as_bytes(), 0o644);
        self.model.owner.push((path.to_string(), line));
    }

    // ---- osctl operations ----

    /// The osctl runs of an operation (a boot is two).
    fn invocations(&self, op: &Op) -> Vec<Vec<String>> {
        let rt_arg = |rt: &Option<usize>| -> Vec<String> {
            rt.map(|i| s(&["--runtime", RUNTIMES[i]]))
                .unwrap_or_default()
        };
        match op {
            Op::Boot => vec![s(&["reconcile"]), s(&["presync"])],
            Op::Status => vec![s(&["--json", "status"])],
            Op::Switch { to, .. } => vec![s(&["switch", RUNTIMES[*to], "--settle", "0"])],
            Op::ChannelAdd { ch, n } => {
                let n = *n;
                let mut a = s(&["channel", "add", CHANNELS[*ch]]);
                match CHANNELS[*ch] {
                    "telegram" => a.extend([
                        "--token".into(),
                        format!("{n}00000:AA{}", token("tg", n)),
                        "--user-id".into(),
                        format!("{n}"),
                    ]),
                    "slack" => a.extend([
                        "--token".into(),
                        token("xoxb-", n),
                        "--app-token".into(),
                        token("xapp-1-", n),
                        "--user-id".into(),
                        format!("U{n}"),
                    ]),
                    "discord" => a.extend([
                        "--token".into(),
                        token("MTE.discord.", n),
                        "--guild-id".into(),
                        format!("9{n}"),
                        "--user-id".into(),
                        format!("1{n}"),
                    ]),
                    _ => a.extend(["--user-id".into(), format!("+8490{n:07}")]),
                }
                vec![a]
            }
            Op::ChannelRemove { ch } => vec![s(&["channel", "remove", CHANNELS[*ch]])],
            Op::McpAdd {
                name,
                remote,
                rt,
                n,
            } => {
                let mut a = s(&["mcp", "add", MCP_NAMES[*name]]);
                a.extend(rt_arg(rt));
                if *remote {
                    a.extend([
                        "--url".into(),
                        format!("https://mcp.example.com/{}/{n}", MCP_NAMES[*name]),
                        "--header".into(),
                        format!("Authorization=Bearer {}", token("mcp", *n)),
                    ]);
                } else {
                    a.extend([
                        "--env".into(),
                        format!("MODE=m{n}"),
                        "--".into(),
                        "/usr/bin/python3".into(),
                        format!("/opt/mcp/{}.py", MCP_NAMES[*name]),
                    ]);
                }
                vec![a]
            }
            Op::McpRemove { name, rt } => {
                let mut a = s(&["mcp", "remove", MCP_NAMES[*name]]);
                a.extend(rt_arg(rt));
                vec![a]
            }
            Op::Migrate { from, to } => vec![s(&[
                "migrate",
                "--from",
                RUNTIMES[*from],
                "--to",
                RUNTIMES[*to],
            ])],
            Op::SkillsSync => vec![s(&["skills", "sync"])],
            Op::Reset => vec![s(&["reset", "--yes"])],
            _ => vec![],
        }
    }

    fn command_op(&mut self, op: &Op) {
        let active_before = self.model.active.clone();
        self.dev.before_op(op, active_before.as_deref());
        let planted = wrong_type::planted(&self.dev.root);
        let links = links_out::planted(&self.dev.root);
        let outside = links_out::outside(&self.dev.root);
        let mut ok = true;
        for args in self.invocations(op) {
            let code = self.checked_run(op, &args);
            ok &= code == Some(0);
            // A link out of a runtime's tree: every writer refuses the device; status reports
            // it; a reset removes the link (as a link) and resets the rest.
            let expected: &[i32] = match op {
                Op::Reset => &[0, 5],
                Op::Status => &[0],
                _ => &[1],
            };
            if !links.is_empty()
                && planted.is_none()
                && !code.is_some_and(|c| expected.contains(&c))
            {
                self.violate(
                    "link-out",
                    &format!("osctl {}", args.join(" ")),
                    format!(
                        "{} lead(s) out of a runtime's tree; the command exited {code:?}, not {expected:?}",
                        links.join(", ")
                    ),
                );
            }
            // A value of the wrong type is an error for every command that reads it, never
            // read as empty (a refused run is then held to leaving every file as it was).
            if let Some(what) = &planted
                && code != Some(1)
            {
                self.violate(
                    "wrong-type",
                    &format!("osctl {}", args.join(" ")),
                    format!("{what}, but the command exited {code:?}, not 1 (refused)"),
                );
            }
        }
        self.dev.after_op(op);
        if links_out::outside(&self.dev.root) != outside {
            self.violate(
                "link-target",
                "/outside",
                format!("what a link out of a runtime's tree points at changed during {op:?}"),
            );
        }
        if *op == Op::Reset && ok && !links_out::planted(&self.dev.root).is_empty() {
            self.violate(
                "link-out",
                "osctl reset --yes",
                "the reset succeeded and a link out of a runtime's tree is still there".into(),
            );
        }
        if *op == Op::Boot && ok {
            self.seeded_at_boot();
        }
        if ok {
            self.model_after(op, active_before.as_deref());
        }
    }

    /// An empty `agent_runtime` is seeded at boot with the resolved default
    /// (docs/device-contract.md §3.1, §3.2: `SeedAgentRuntimeFromGateway`), so the device and the
    /// app agree on what runs; only from the sources upstream seeds from (`f_r_default_agent`,
    /// ROBOT.md `gateway.default`): with neither (status resolves the built-in default) the key
    /// stays empty. (A value of the wrong type is never empty: the boot refuses it, exit 1, and
    /// this check only follows a boot that succeeded.)
    fn seeded_at_boot(&mut self) {
        let Some(text) = self.dev.read("root/config/config.json") else {
            return;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            return;
        };
        if v["agent_runtime"].as_str().is_none_or(str::is_empty) && !self.nothing_to_seed_from() {
            self.violate(
                "seed-on-empty",
                "root/config/config.json agent_runtime after a boot",
                format!(
                    "an empty agent_runtime is seeded at boot with the resolved default ({:?}); it is still {}",
                    self.model.active, v["agent_runtime"]
                ),
            );
        }
    }

    /// Whether status resolves the built-in default (no `f_r_default_agent`, no ROBOT.md
    /// `gateway.default`): then seed-on-empty has nothing to seed from.
    fn nothing_to_seed_from(&mut self) -> bool {
        self.stats.runs += 1;
        let out = self.dev.run(&s(&["--json", "status"]));
        serde_json::from_str::<serde_json::Value>(&out.stdout)
            .is_ok_and(|doc| doc["active"]["source"] == "built-in")
    }

    /// The model after `op` succeeded.
    fn model_after(&mut self, op: &Op, active: Option<&str>) {
        let target = |rt: &Option<usize>| {
            rt.map(|i| RUNTIMES[i].to_string())
                .or(active.map(str::to_string))
        };
        match op {
            Op::ChannelAdd { ch, .. } => {
                self.model.channels.insert(CHANNELS[*ch].to_string());
            }
            Op::ChannelRemove { ch } => {
                self.model.channels.remove(CHANNELS[*ch]);
            }
            Op::McpAdd { name, rt, .. } => {
                if let Some(rt) = target(rt) {
                    self.model
                        .mcp
                        .entry(rt)
                        .or_default()
                        .insert(MCP_NAMES[*name].to_string());
                }
            }
            Op::McpRemove { name, rt } => {
                if let Some(rt) = target(rt) {
                    self.model
                        .mcp
                        .entry(rt)
                        .or_default()
                        .remove(MCP_NAMES[*name]);
                }
            }
            Op::Reset => {
                self.model.owner.clear();
                self.model.channels.clear();
                if let Some(a) = active {
                    self.model
                        .edits
                        .retain(|(path, _, rt)| rt != a || kept_on_reset(path));
                }
                // Every MCP server of every runtime was the owner's (the book, Factory reset).
                self.model.mcp.clear();
            }
            _ => {}
        }
    }

    /// The dry run of `args` (a reset's with `-v`, which adds the diff to its list).
    /// A step's own run, under `--json` (its output is only judged as the contract's document).
    fn json_args(args: &[String]) -> Vec<String> {
        let mut a = s(&["--json"]);
        a.extend(args.iter().filter(|x| *x != "--json").cloned());
        a
    }

    fn preview_args(args: &[String]) -> Vec<String> {
        let mut a = if args.first().map(String::as_str) == Some("reset") {
            s(&["-v", "--dry-run"])
        } else {
            s(&["--dry-run"])
        };
        a.extend(args.iter().filter(|x| *x != "--yes").cloned());
        a
    }

    /// One osctl run of a step, with the invariants around it: the preview before it changes
    /// nothing and equals the run; a refused or failed run leaves every file as it was; a
    /// successful one converges (the same again changes nothing, `--check` exits 0).
    fn checked_run(&mut self, op: &Op, args: &[String]) -> Option<i32> {
        let writes = op.is_osctl_write();
        // A run restores an interrupted run's journal (and converges an interrupted switch)
        // first, which a preview (no lock) only warns about: preview = run is checked on whole
        // devices.
        let pending =
            self.dev.journals_pending() || self.dev.root.join("var/lib/osctl/switch.json").exists();
        let before = self.dev.snapshot();
        let units_before = self.dev.unit_states();
        let dry = if writes {
            let d = self.run(&Self::preview_args(args));
            let after_dry = self.dev.snapshot();
            if after_dry != before {
                self.violate(
                    "preview=run",
                    &format!("osctl {}", d.args.join(" ")),
                    format!(
                        "the preview changed the device\n  {}",
                        rs::describe_diff(&before, &after_dry)
                    ),
                );
            }
            Some(d)
        } else {
            None
        };
        let mark = self.dev.calls_mark();
        let failed_mark = self.dev.failed_mark();
        // The run itself under --json: its document is checked against the schemas.
        let out = self.run(&Self::json_args(args));
        let after = self.dev.snapshot();
        let calls = self.dev.calls_since(mark);
        let ctx = format!("osctl {}", args.join(" "));
        let failed = self.dev.failed_since(failed_mark);
        if let Some(d) = &dry
            && failed.iter().any(|c| c.contains("restart "))
        {
            self.independent_steps(&ctx, d, &out, &failed);
        }
        match out.code {
            Some(0) => {
                if let Some(d) = &dry {
                    if pending {
                        self.stats.previews_after_crash += 1;
                    } else {
                        self.preview_equals_run(&ctx, d, &out, &before, &after, &calls);
                    }
                }
                if writes {
                    self.converges(args, &after);
                }
            }
            // skills sync: one failed skill keeps its version, the others go on, exit 1.
            Some(1) if writes && *op != Op::SkillsSync => {
                if after != before {
                    self.violate(
                        "all-or-nothing",
                        &ctx,
                        format!(
                            "exit 1 (refused before any write) but the device changed\n  {}\n{}",
                            rs::describe_diff(&before, &after),
                            out.text()
                        ),
                    );
                }
                if let Some(bad) = unclear(&out.stderr) {
                    self.violate(
                        "operable",
                        &ctx,
                        format!("an unclear refusal ({bad})\n{}", out.text()),
                    );
                }
            }
            Some(1) => {}
            Some(4) => {
                if after != before {
                    self.violate(
                        "all-or-nothing",
                        &ctx,
                        format!(
                            "exit 4 (rolled back) but the device changed\n  {}\n{}",
                            rs::describe_diff(&before, &after),
                            out.text()
                        ),
                    );
                }
                if matches!(op, Op::Switch { .. }) {
                    let units = self.dev.unit_states();
                    if units != units_before {
                        self.violate(
                            "all-or-nothing",
                            &ctx,
                            format!(
                                "the switch rolled back but the units did not: before {units_before:?}, after {units:?}"
                            ),
                        );
                    }
                }
            }
            Some(5) => {}
            None if out.timed_out => {}
            Some(101) => {}
            code => self.violate(
                "exit-code",
                &ctx,
                format!(
                    "undocumented exit {code:?} for this command\n{}",
                    out.text()
                ),
            ),
        }
        out.code
    }

    /// A reconcile step that needs no service action (persona: its files and agent_state.json)
    /// is its own transaction: when the preview said it would reconcile (or record its
    /// baseline), a restart that fails in another step must not undo it.
    fn independent_steps(&mut self, ctx: &str, dry: &Outcome, out: &Outcome, failed: &[String]) {
        let said = dry.stdout.lines().chain(dry.stderr.lines()).any(|l| {
            let l = l.trim_start_matches([' ', '#']).trim_start();
            let l = l.strip_prefix("reconcile ").unwrap_or(l);
            l.starts_with("persona: reconciled") || l.starts_with("persona: baseline recorded")
        });
        if !said {
            return;
        }
        let Some(active) = self.dev.config_runtime() else {
            return;
        };
        let last = self
            .dev
            .read("root/config/agent_state.json")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| {
                v["history"].as_array()?.last()?["runtime"]
                    .as_str()
                    .map(str::to_string)
            });
        if last.as_deref() != Some(active.as_str()) {
            self.violate(
                "independent-steps",
                ctx,
                format!(
                    "the preview reconciles the persona (no service action), but after {failed:?} failed the run undid it too: agent_state.json's last runtime is {last:?}, config.json names {active}\n{}",
                    out.text()
                ),
            );
        }
    }

    fn preview_equals_run(
        &mut self,
        ctx: &str,
        dry: &Outcome,
        out: &Outcome,
        before: &Tree,
        after: &Tree,
        calls: &[String],
    ) {
        if dry.code != Some(0) {
            self.violate(
                "preview=run",
                ctx,
                format!(
                    "the preview failed where the run succeeded\n{}\n{}",
                    dry.text(),
                    out.text()
                ),
            );
            return;
        }
        self.stats.previews_compared += 1;
        let p = match preview::Preview::parse(&dry.stdout) {
            Ok(p) => p,
            Err(e) => {
                self.violate("preview=run", ctx, format!("unreadable preview: {e}"));
                return;
            }
        };
        // What a skills preview leaves out by design: the content of skills it would download.
        let skipped: Vec<String> = dry
            .stderr
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                l.strip_prefix("would install ")
                    .or_else(|| l.strip_prefix("would update "))
                    .and_then(|r| r.split_whitespace().next())
                    .map(str::to_string)
            })
            .collect();
        const SKILLS_STATE: &str = "var/lib/osctl/skills.json";
        let ignore = |path: &str| -> bool {
            // The lock holder's note is the lock's bookkeeping (a killed holder's stays until the
            // next holder replaces it), not a change a preview shows.
            if path == "var/lib/osctl/lock.holder" {
                return true;
            }
            // osctl's state folder always holds the lock after a run that took it: a preview
            // that empties it (a reset removing the MCP tools record) leaves it, the lock and all.
            if path == "var/lib/osctl" || path == "var/lib/osctl/lock" {
                return true;
            }
            if !skipped.is_empty() && path == SKILLS_STATE {
                return true; // compared below, without the hashes of what was not downloaded
            }
            let parts: Vec<&str> = path.split('/').collect();
            parts.iter().enumerate().any(|(i, seg)| {
                skipped.iter().any(|s| s == seg)
                    && parts[..i]
                        .iter()
                        .any(|p| p.contains("skills") || *p == "openclaw-imports")
            })
        };
        let mut tree = preview::from_snapshot(before);
        if let Err(e) = p.apply(&mut tree) {
            self.violate(
                "preview=run",
                ctx,
                format!("the preview does not apply to the device it previewed: {e}"),
            );
            return;
        }
        let mut diffs = preview::compare(&tree, after, &ignore);
        if !skipped.is_empty() {
            let previewed = match tree.get(SKILLS_STATE) {
                Some(preview::PNode::Text(lines, _)) => {
                    let text: String = lines.iter().map(preview::Line::text).collect();
                    serde_json::from_str::<serde_json::Value>(&text).ok()
                }
                _ => None,
            };
            let mut real = match after.get(SKILLS_STATE) {
                Some(Node::File(b, _)) => serde_json::from_slice::<serde_json::Value>(b).ok(),
                _ => None,
            };
            // The FolderHash of a skill is known only once its zip is unpacked (in the runtime
            // this sync is for: the active one).
            let synced = self.model.active.clone().unwrap_or_default();
            if let Some(rts) = real.as_mut().and_then(|r| r["runtimes"].as_object_mut()) {
                for (name, rt) in rts.iter_mut() {
                    if *name != synced {
                        continue;
                    }
                    if let Some(sk) = rt["skills"].as_object_mut() {
                        for (name, rec) in sk.iter_mut() {
                            if skipped.contains(name)
                                && let Some(o) = rec.as_object_mut()
                            {
                                o.remove("hash");
                            }
                        }
                    }
                }
            }
            if previewed != real {
                diffs.push(format!(
                    "{SKILLS_STATE}: the preview records {previewed:?}, the run {real:?} (hashes of downloaded skills aside)"
                ));
            }
        }
        if !diffs.is_empty() {
            self.violate(
                "preview=run",
                ctx,
                format!(
                    "the preview, applied to the tree before, is not the tree after:\n  {}",
                    diffs.join("\n  ")
                ),
            );
        }
        let mut ran: Vec<String> = calls.to_vec();
        // The announced retry of a unit that did not settle: `stop U`, `reset-failed U`, the
        // reinstall's `daemon-reload`, `enable --now U` again, right after the first start.
        if let Some(unit) = &p.retry_unit {
            let start = format!("enable --now {unit}");
            let retry = [format!("stop {unit}"), format!("reset-failed {unit}")];
            if let Some(at) = ran.iter().position(|a| *a == start)
                && ran[at + 1..].starts_with(&retry)
            {
                let mut end = at + 3;
                while ran.get(end).is_some_and(|a| a == "daemon-reload") {
                    end += 1;
                }
                if ran.get(end) == Some(&start) {
                    ran.drain(at + 1..=end);
                }
            }
        }
        if ran != p.services {
            self.violate(
                "preview=run",
                ctx,
                format!(
                    "the service actions differ: previewed {:?}, run {:?}",
                    p.services, ran
                ),
            );
        }
    }

    /// The same step again changes nothing (no file, no service action), and `--check` exits 0.
    fn converges(&mut self, args: &[String], after: &Tree) {
        self.stats.convergence_checked += 1;
        let ctx = format!("osctl {}", args.join(" "));
        let units = self.dev.unit_states();
        let mark = self.dev.calls_mark();
        let again = self.run(args);
        let twice = self.dev.snapshot();
        let calls = self.dev.calls_since(mark);
        if again.code != Some(0) {
            self.violate(
                "convergence",
                &ctx,
                format!("the same step again failed\n{}", again.text()),
            );
        } else if &twice != after || !calls.is_empty() || self.dev.unit_states() != units {
            self.violate(
                "convergence",
                &ctx,
                format!(
                    "the same step again changed the device\n  {}\n  service actions: {calls:?}\n{}",
                    rs::describe_diff(after, &twice),
                    again.text()
                ),
            );
        }
        let mut check_args = s(&["--check"]);
        check_args.extend(args.iter().cloned());
        let check = self.run(&check_args);
        // Programs (a runtime's own reset, `openclaw plugins install`) run on the live device
        // only, so under --root a check always finds them pending: not a change of the tree.
        let only_programs = check.code == Some(3)
            && check.stderr.contains("would change 0 paths")
            && !check.stderr.contains("service action")
            && !check
                .stdout
                .lines()
                .any(|l| l.starts_with("# systemctl ") || l.starts_with("diff --git"));
        if check.code != Some(0) && !only_programs {
            self.violate(
                "convergence",
                &format!("osctl {}", check_args.join(" ")),
                format!("--check after the step does not exit 0\n{}", check.text()),
            );
        }
    }

    // ---- crashes and FIFOs ----

    fn crash(&mut self, kill: &Kill, cmd: &Op, next: &Op) {
        let key = match kill {
            Kill::AbortWrite(_) => "abort-write".to_string(),
            Kill::After(_) => "kill-after".to_string(),
            Kill::On(v) => format!("kill-on:{v}"),
        };
        *self
            .stats
            .crash_points
            .entry(format!("{key} {}", cmd.kind()))
            .or_default() += 1;
        let active_before = self.model.active.clone();
        self.dev.before_op(cmd, active_before.as_deref());
        let Some(args) = self.invocations(cmd).into_iter().next() else {
            return;
        };
        // References: the device before (B), and after the command ran uninterrupted (R).
        let b = self.dev.copy_to(&self.scratch.join("crash-before"));
        let r = self.dev.copy_to(&self.scratch.join("crash-ran"));
        let r_out = r.run(&args);
        self.stats.runs += 1;
        let before = b.snapshot();
        let ran = r.snapshot();
        let links_before = links_out::planted(&self.dev.root);
        let ctx = format!("osctl {} killed at {kill}", args.join(" "));
        // The kill.
        self.stats.runs += 1;
        let out = match kill {
            Kill::AbortWrite(n) => self.dev.run_with(
                &args,
                Some(&format!("abort-write:{n}")),
                None,
                device::RUN_TIMEOUT,
            ),
            Kill::After(us) => self.dev.run_with(
                &args,
                None,
                Some(Duration::from_micros(*us as u64)),
                device::RUN_TIMEOUT,
            ),
            Kill::On(verb) => {
                std::fs::write(self.dev.units.join("kill-on"), format!("{verb} *\n")).unwrap();
                let o = self.dev.run(&args);
                let _ = std::fs::remove_file(self.dev.units.join("kill-on"));
                o
            }
        };
        if out.code == Some(101) || out.timed_out {
            self.judge_run(&out);
        }
        self.dev.after_op(cmd);
        b.after_op(cmd);
        r.after_op(cmd);
        let killed = out.code.is_none();
        let after_kill = self.dev.snapshot();
        if killed {
            self.stats.crashes_mid_run += 1;
        } else {
            self.stats.crashes_after_run += 1;
        }
        // A switch is several plans (its files, presync, then after the commit point config.json
        // and the reconcile steps), each whole: killed between two, a file may hold the state one
        // phase left, which the next run restores from that phase's journal. A boot (`osctl
        // reconcile`) is one plan per step: killed in a later step, config.json holds the
        // markers the earlier steps advanced. Every other command is one plan: each file wholly
        // old or wholly new.
        let torn = if matches!(cmd, Op::Switch { .. } | Op::Boot) {
            Vec::new()
        } else {
            torn(&after_kill, &before, &ran)
        };
        if !torn.is_empty() {
            self.violate(
                "crash",
                &ctx,
                format!("after the kill, files neither wholly old nor wholly new: {torn:?}"),
            );
        }
        let completed = visible(&after_kill) == visible(&ran) && visible(&ran) != visible(&before);
        // The next command, on the killed device and on both references.
        let next_args = self.invocations(next);
        let active_now = self.resolved_runtime();
        // A reset removes the links out of a runtime's tree in a plan of its own, committed
        // first (the book, Reset): killed after it, the device is the old one without those
        // links, on which the next command may do more than on the old one (a writer no longer
        // refuses it). A third reference: the old device without the links.
        let unlinked = (*cmd == Op::Reset && !links_before.is_empty()).then(|| {
            let u = b.copy_to(&self.scratch.join("crash-unlinked"));
            for l in &links_before {
                std::fs::remove_file(u.root.join(l)).unwrap();
            }
            u
        });
        let refs: Vec<&Dev> = [&b, &r].into_iter().chain(unlinked.as_ref()).collect();
        for d in refs.iter().copied().chain([&self.dev]) {
            d.before_op(next, active_now.as_deref());
        }
        let mut next_ok = true;
        for a in &next_args {
            self.stats.runs += refs.len();
            for d in &refs {
                d.run(a);
            }
            next_ok &= self.run(a).code == Some(0);
        }
        for d in refs.iter().copied().chain([&self.dev]) {
            d.after_op(next);
        }
        // A read-only next command leaves an interrupted run's journal for the next command
        // that changes the device, which restores it first: do that now (`osctl recover`), so
        // what the restore does is judged here, at the kill that left the journal.
        if self.dev.journals_pending() && !next.is_osctl_write() {
            self.stats.runs += 1 + refs.len();
            for d in &refs {
                d.run(&s(&["recover"]));
            }
            self.run(&s(&["recover"]));
        }
        let (mut nb, mut nr, mut got) = (b.snapshot(), r.snapshot(), self.dev.snapshot());
        if *cmd == Op::SkillsSync {
            // A sync swaps each downloaded skill in whole, outside its plan (the book, Skills),
            // and records it last: a kill can leave some skills swapped in and unrecorded,
            // which the next sync installs again. Compared without the skill folders.
            let skill = |k: &String| {
                let parts: Vec<&str> = k.split('/').collect();
                parts.iter().enumerate().any(|(i, seg)| {
                    ["audio", "lamp-notes"].contains(seg)
                        && parts[..i]
                            .iter()
                            .any(|p| p.contains("skills") || *p == "openclaw-imports")
                })
            };
            for t in [&mut nb, &mut nr, &mut got] {
                t.retain(|k, _| !skill(k));
            }
        }
        // A switch killed after its commit point has committed, and a boot's reconcile steps are
        // each their own transaction: the steps a killed one left are run by the next
        // `osctl reconcile` (the next boot), as the book promises. Judge the device after that
        // boot, on all three.
        if matches!(cmd, Op::Switch { .. } | Op::Boot)
            && !completed
            && visible(&got) != visible(&nb)
            && visible(&got) != visible(&nr)
        {
            self.stats.runs += 3;
            for d in [&b, &r] {
                d.run(&s(&["reconcile"]));
            }
            self.run(&s(&["reconcile"]));
            (nb, nr, got) = (b.snapshot(), r.snapshot(), self.dev.snapshot());
        }
        let (ub, ur, ug) = (b.unit_states(), r.unit_states(), self.dev.unit_states());
        let next_ctx = format!("{ctx}, then `{next}`");
        if completed && visible(&got) != visible(&nr) {
            let undone = visible(&got) == visible(&nb);
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "the killed command had completed its change{}; the next command {}\n  against the completed run: {}",
                    if r_out.code == Some(0) { "" } else { " (its uninterrupted run failed)" },
                    if undone { "reverted it" } else { "left neither state" },
                    rs::describe_diff(&visible(&nr), &visible(&got))
                ),
            );
        } else if !completed
            && visible(&got) != visible(&nb)
            && visible(&got) != visible(&nr)
            && !unlinked
                .as_ref()
                .is_some_and(|u| visible(&got) == visible(&u.snapshot()))
        {
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "after the kill, the next command did not converge to either the old or the new state\n  against old: {}\n  against new: {}",
                    rs::describe_diff(&visible(&nb), &visible(&got)),
                    rs::describe_diff(&visible(&nr), &visible(&got))
                ),
            );
        }
        let stray: Vec<String> = empty_folders(&got)
            .into_iter()
            .filter(|d| !empty_folders(&nb).contains(d) && !empty_folders(&nr).contains(d))
            .filter(|d| {
                !nb.keys()
                    .chain(nr.keys())
                    .any(|k| k.starts_with(&format!("{d}/")))
            })
            .collect();
        if !stray.is_empty() {
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "folders the killed run created are left empty after the restore: {stray:?}"
                ),
            );
        }
        if ug != ub && ug != ur {
            self.violate(
                "crash",
                &next_ctx,
                format!(
                    "the units converged to neither state: {ug:?}\n  old: {ub:?}\n  new: {ur:?}"
                ),
            );
        }
        if self.dev.journals_pending() && next.is_osctl_write() {
            self.violate(
                "crash",
                &next_ctx,
                "a journal is still pending after the next command".into(),
            );
        }
        // The model follows whichever state the device reached.
        if visible(&got) == visible(&nr) && r_out.code == Some(0) {
            self.model_after(cmd, active_before.as_deref());
        }
        if next_ok {
            // The runtime that was active when the next command ran (a reset resolves another
            // one after it: the model must forget the edits of the runtime it reset).
            self.model_after(next, active_now.as_deref());
        }
    }

    /// The runtime the next command resolves, as osctl resolves it (`status`): config.json's,
    /// else the image default, which is what a reset leaves. With a journal pending the next
    /// command restores it first, so config.json as the killed run left it says little: the
    /// model's runtime stands unless config.json names one.
    fn resolved_runtime(&mut self) -> Option<String> {
        if self.dev.journals_pending() {
            return self.dev.config_runtime().or(self.model.active.clone());
        }
        self.stats.runs += 1;
        let out = self.dev.run(&s(&["--json", "status"]));
        serde_json::from_str::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|doc| doc["active"]["runtime"].as_str().map(str::to_string))
            .or(self.model.active.clone())
    }

    fn fifo(&mut self, path: &str, cmd: &Op) {
        let full = self.dev.root.join(path);
        let Ok(original) = std::fs::read(&full) else {
            // Nothing to plant over: the command runs as usual.
            self.command_op(cmd);
            return;
        };
        self.stats.fifos += 1;
        let mode = std::fs::metadata(&full)
            .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
            .unwrap();
        std::fs::remove_file(&full).unwrap();
        let c = std::ffi::CString::new(full.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(
            unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
            0,
            "mkfifo {path}"
        );
        let active = self.model.active.clone();
        self.dev.before_op(cmd, active.as_deref());
        let mut ok = true;
        for args in self.invocations(cmd) {
            self.stats.runs += 1;
            let out = self
                .dev
                .run_watched(&args, None, None, device::RUN_TIMEOUT, true);
            ok &= out.code == Some(0);
            let ctx = format!("osctl {} with a FIFO at /{path}", args.join(" "));
            if out.timed_out {
                self.violate(
                    "no-hang",
                    &ctx,
                    format!(
                        "blocked opening the FIFO (or still running after {:?}): killed after {:?}\n{}",
                        device::RUN_TIMEOUT,
                        out.elapsed,
                        out.text()
                    ),
                );
            } else if out.code == Some(101) {
                self.violate("no-internal-error", &ctx, out.text());
            } else if out.code == Some(1) && unclear(&out.stderr).is_some() {
                self.violate(
                    "operable",
                    &ctx,
                    format!("an unclear refusal\n{}", out.text()),
                );
            }
        }
        self.dev.after_op(cmd);
        if ok {
            self.model_after(cmd, active.as_deref());
        }
        // The runtime puts its file back (whatever osctl left there).
        let _ = std::fs::remove_file(&full);
        let _ = std::fs::remove_dir_all(&full);
        rs::write(&self.dev.root, path, &original, mode);
        // A killed run's journal is restored by the next run: make it this one, so the FIFO
        // step ends on a whole device.
        if self.dev.journals_pending() {
            let out = self.run(&s(&["recover"]));
            if out.code != Some(0) {
                self.violate("operable", "osctl recover after a FIFO", out.text());
            }
        }
    }

    // ---- after every step ----

    fn configured_channels(&self) -> BTreeSet<String> {
        let Some(v) = self
            .dev
            .read("root/config/config.json")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        else {
            return BTreeSet::new();
        };
        CHANNELS
            .iter()
            .filter(|c| v[channel_field(c)].as_str().is_some_and(|s| !s.is_empty()))
            .map(|c| c.to_string())
            .collect()
    }

    /// The model's promises: runtimes' own edits, the owner's text, channels, MCP servers.
    fn check_model(&mut self) {
        let edits = self.model.edits.clone();
        for (path, marker, rt) in &edits {
            let ok = self
                .dev
                .read(path)
                .is_some_and(|t| t.contains(marker.as_str()));
            if !ok {
                self.violate(
                    "own-edit-kept",
                    &format!("{rt}'s /{path}"),
                    format!(
                        "the runtime's own `{marker}` is gone; the file is now:\n{}",
                        self.dev.read(path).unwrap_or_else(|| "(absent)".into())
                    ),
                );
                self.model
                    .edits
                    .retain(|(p, m, _)| !(p == path && m == marker));
            }
        }
        let owner = self.model.owner.clone();
        for (path, line) in &owner {
            if !self.owner_line_kept(path, line) {
                self.violate(
                    "owner-text-kept",
                    &format!("/{path}"),
                    format!(
                        "the owner's line {line:?} is in neither the file nor a backup of it; the file is now:\n{}",
                        self.dev.read(path).unwrap_or_else(|| "(absent)".into())
                    ),
                );
                self.model.owner.retain(|(p, l)| !(p == path && l == line));
            }
        }
        let channels = self.configured_channels();
        if channels != self.model.channels {
            self.violate(
                "model",
                "config.json channels",
                format!(
                    "config.json holds credentials for {channels:?}, expected {:?}",
                    self.model.channels
                ),
            );
            self.model.channels = channels;
        }
    }

    fn owner_line_kept(&self, path: &str, line: &str) -> bool {
        if self.dev.read(path).is_some_and(|t| t.contains(line)) {
            return true;
        }
        let full = self.dev.root.join(path);
        let (Some(dir), Some(name)) = (full.parent(), full.file_name()) else {
            return false;
        };
        let prefix = format!("{}.bak-", name.to_string_lossy());
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name().to_string_lossy().starts_with(&prefix)
                    && std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(line))
            })
    }

    /// `osctl --json status`: must work in every state; it gives the active runtime and each
    /// runtime's MCP servers, which the model checks.
    fn status_probe(&mut self) {
        self.stats.probes += 1;
        let out = self.run(&s(&["--json", "status"]));
        if out.code == Some(1) && wrong_type::refused(&out.stdout, &out.stderr) {
            // A device whose state files hold a key of the wrong type (a wrong-type start
            // tree): status refuses it, clearly, as every command does.
            return;
        }
        if out.code != Some(0) {
            self.violate("operable", "osctl --json status", out.text());
            return;
        }
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&out.stdout) else {
            self.violate(
                "operable",
                "osctl --json status",
                format!("not one JSON document\n{}", out.text()),
            );
            return;
        };
        self.model.active = doc["active"]["runtime"].as_str().map(str::to_string);
        let mcp = self.model.mcp.clone();
        for (rt, names) in &mcp {
            let Some(entry) = doc["runtimes"]
                .as_array()
                .and_then(|a| a.iter().find(|r| r["name"] == rt.as_str()))
            else {
                continue;
            };
            let listed: BTreeSet<String> = entry["mcp_servers"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let lost: Vec<&String> = names.iter().filter(|n| !listed.contains(*n)).collect();
            if !lost.is_empty() {
                self.violate(
                    "model",
                    &format!("{rt}'s MCP servers"),
                    format!(
                        "added with `osctl mcp add` and never removed, but {rt} no longer lists {lost:?} (it lists {listed:?}; error {})",
                        entry["mcp_error"]
                    ),
                );
                let keep: BTreeSet<String> = names.intersection(&listed).cloned().collect();
                self.model.mcp.insert(rt.clone(), keep);
            }
        }
    }

    /// Operability: every read-only command and preview works in this state.
    fn operability(&mut self, drawn: usize) {
        let before = self.dev.snapshot();
        self.status_probe();
        let mut probes: Vec<(Vec<String>, &[i32])> = vec![
            (s(&["--check", "presync"]), &[0, 3]),
            (s(&["mcp", "list"]), &[0]),
            (s(&["channel", "list"]), &[0]),
            (s(&["skills", "list"]), &[0]),
            (s(&["--dry-run", "reconcile"]), &[0]),
        ];
        for rt in RUNTIMES {
            probes.push((s(&["--dry-run", "switch", rt, "--settle", "0"]), &[0]));
        }
        let chosen: Vec<usize> = if drawn >= probes.len() {
            (0..probes.len()).collect()
        } else {
            let mut c: Vec<usize> = (0..drawn)
                .map(|_| self.rng.below(probes.len() as u64) as usize)
                .collect();
            c.sort();
            c.dedup();
            c
        };
        for i in chosen {
            let (args, ok) = &probes[i];
            self.stats.probes += 1;
            let out = self.run(args);
            let ctx = format!("osctl {}", args.join(" "));
            match out.code {
                Some(c) if ok.contains(&c) => {}
                Some(1) => {
                    if let Some(bad) = unclear(&out.stderr) {
                        self.violate(
                            "operable",
                            &ctx,
                            format!("refused unclearly ({bad})\n{}", out.text()),
                        );
                    }
                }
                _ if out.timed_out || out.code == Some(101) => {}
                _ => self.violate("operable", &ctx, out.text()),
            }
        }
        let after = self.dev.snapshot();
        if after != before {
            self.violate(
                "operable",
                "read-only commands and previews",
                format!(
                    "they changed the device\n  {}",
                    rs::describe_diff(&before, &after)
                ),
            );
        }
    }
}

impl Dev {
    /// What happens before an operation's runs: a reboot, a unit's fault (`active` is the
    /// runtime whose unit refuses to stop).
    fn before_op(&self, op: &Op, active: Option<&str>) {
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
    fn after_op(&self, op: &Op) {
        if let Op::Switch { .. } = op {
            for rt in RUNTIMES {
                let u = unit_of(rt);
                self.clear_unit(&u, "on-start");
                self.clear_unit(&u, "on-stop");
            }
        }
    }
}

/// The device's files and links without osctl's own crash record and the lock holder's note
/// (read by osctl only; a killed holder's note stays until the next holder, and counts only
/// while that process lives); empty folders are compared apart ([`empty_folders`]).
/// Runs one sequence on a fresh device; its violations and figures.
pub fn run_sequence(
    base: &Path,
    seq: &Sequence,
    cdn: &mut Cdn,
    opts: &Opts,
    seed: u64,
) -> (Vec<Violation>, Stats) {
    let mut life = Life::new(base, seq, cdn, opts.clone(), seed);
    life.walk(seq);
    (life.violations, life.stats)
}

/// The violations no known open defect explains (all of them with `strict`).
pub fn new_violations(v: &[Violation], strict: bool) -> Vec<Violation> {
    v.iter()
        .filter(|v| strict || known(v).is_none())
        .cloned()
        .collect()
}

/// Shrinks `seq` while it still shows a violation with `signature`: drops chunks of
/// operations (halves, quarters, … single ones), then simplifies single operations (a crash
/// without its kill, a switch without its fault). At most `budget` replays.
pub fn shrink(
    seq: &Sequence,
    still: &mut dyn FnMut(&Sequence) -> bool,
    budget: usize,
) -> (Sequence, usize) {
    let mut best = seq.clone();
    let mut tries = 0;
    let mut chunks = 2usize;
    while best.ops.len() > 1 && tries < budget {
        let len = best.ops.len();
        let size = len.div_ceil(chunks);
        let mut improved = false;
        let mut start = 0;
        while start < len && tries < budget {
            let mut cand = best.clone();
            cand.ops.drain(start..(start + size).min(len));
            tries += 1;
            if !cand.ops.is_empty() && still(&cand) {
                best = cand;
                improved = true;
                break;
            }
            start += size;
        }
        if improved {
            chunks = chunks.saturating_sub(1).max(2);
        } else if size == 1 {
            break;
        } else {
            chunks = (chunks * 2).min(len);
        }
    }
    // Simplify single operations.
    let mut i = 0;
    while i < best.ops.len() && tries < budget {
        let mut replaced = false;
        for alt in best.ops[i].simpler() {
            if tries >= budget {
                break;
            }
            let mut cand = best.clone();
            cand.ops.splice(i..=i, alt);
            tries += 1;
            if still(&cand) {
                best = cand;
                replaced = true;
                break;
            }
        }
        if !replaced {
            i += 1;
        }
    }
    (best, tries)
}

/// The scratch folder of a worker.
pub fn worker_base(root: &Path, worker: usize) -> PathBuf {
    root.join(format!("w{worker}"))
}

pub fn mix(seed: u64, i: u64) -> u64 {
    let mut x = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x | 1
}
