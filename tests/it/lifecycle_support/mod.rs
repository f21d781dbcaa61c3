//! The lifecycle suite's machinery (the suite `lifecycle`): a device walked through a whole life
//! by the real osctl binary, a model of what must hold after every step, and the invariants.
//!
//! - [`ops`]: the operations, their text form, the seeded generator;
//! - [`device`]: the device tree, the stateful fake systemd (`tests/support/fake-systemd`), the
//!   virtual clock, runs bounded by a timeout;
//! - [`preview`]: the applier that checks preview = run;
//! - this file: [`Life`] (one sequence on one device: each step, then the invariants), the
//!   [`Model`] it keeps, and the osctl runs of each operation; the invariants around a run
//!   ([`checked`]), crashes and FIFOs ([`crash`]), the checks after every step ([`judge`]),
//!   the operations that are not osctl ([`owner_ops`]), the known open defects ([`known`]) and
//!   the shrinker ([`shrink`]) each in a file of their own.

mod checked;
mod crash;
pub mod device;
mod judge;
mod known;
pub mod links_out;
pub mod ops;
mod owner_ops;
pub mod preview;
mod shrink;
mod trees;
pub mod wrong_type;

pub use known::{KNOWN_OPEN_DEFECTS, known};
pub use shrink::shrink;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::reliability_support::{self as rs, Rng, Tree};
use crate::skills_support::Cdn;
use crate::support::registry;
use device::{Dev, Outcome};
use ops::{CHANNELS, Kill, MCP_NAMES, Op, OwnerKind, RUNTIMES, Sequence};
use trees::{CONFIG_JSON, empty_folders, new_keys_in_any_order, torn, visible};

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

    /// A step's own run, under `--json` (its output is only judged as the contract's document).
    fn json_args(args: &[String]) -> Vec<String> {
        let mut a = s(&["--json"]);
        a.extend(args.iter().filter(|x| *x != "--json").cloned());
        a
    }

    /// The dry run of `args` (a reset's with `-v`, which adds the diff to its list).
    fn preview_args(args: &[String]) -> Vec<String> {
        let mut a = if args.first().map(String::as_str) == Some("reset") {
            s(&["-v", "--dry-run"])
        } else {
            s(&["--dry-run"])
        };
        a.extend(args.iter().filter(|x| *x != "--yes").cloned());
        a
    }
}

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
