//! The operations of a device's life, their one-line text form (the replay and regression
//! format), and the seeded generator.
//!
//! A sequence is a start tree and 5-30 operations, one per line:
//!
//! ```text
//! start examples/device
//! provision codex 3
//! boot
//! switch codex ok
//! crash abort-write:2 | channel-add discord 4 | boot
//! fifo hermes 0 | boot
//! ```

use std::fmt;

use crate::reliability_support::Rng;

/// Every registered runtime: a life switches, migrates and provisions among them all (the
/// test-only seventh too, under `--features test-runtime`; the six alone in the package's build,
/// so a seed walks the same life there as before).
pub use osctl::runtime::NAMES as RUNTIMES;
pub const CHANNELS: [&str; 4] = ["telegram", "slack", "discord", "whatsapp"];
pub const MCP_NAMES: [&str; 3] = ["notes", "search", "files"];

/// The trees a life starts from: the sample device, a device that went through all six
/// runtimes (one per active runtime), the channel and MCP golden devices. (These golden trees
/// exist for the six the package ships; another runtime enters a life by a switch, a migrate
/// or a provision.) And the wrong-type trees of [`super::wrong_type`] and the links-out trees
/// of [`super::links_out`].
pub fn starts() -> Vec<String> {
    let mut v = vec![
        "examples/device".to_string(),
        "tests/cli/mcp/_device".into(),
    ];
    for rt in osctl::runtime::PACKAGED_NAMES {
        v.push(format!("tests/cli/reset/active-{rt}/in"));
        v.push(format!("tests/cli/channel/_{rt}"));
    }
    v.extend(super::wrong_type::starts());
    v.extend(super::links_out::starts());
    v
}

pub fn rt_index(name: &str) -> Option<usize> {
    RUNTIMES.iter().position(|r| *r == name)
}

/// How the target unit of a switch behaves when started (the fake systemd's `on-start`), or
/// the old unit refusing to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitFault {
    Ok,
    Dies,
    Fails,
    CrashLoop,
    OkAfterOne,
    OldRefusesStop,
    /// The new unit starts, but every later start fails (its restart after reconcile).
    RestartFails,
}

impl UnitFault {
    const ALL: [(UnitFault, &'static str); 7] = [
        (UnitFault::Ok, "ok"),
        (UnitFault::Dies, "dies"),
        (UnitFault::Fails, "fails"),
        (UnitFault::CrashLoop, "crashloop"),
        (UnitFault::OkAfterOne, "ok-after-1"),
        (UnitFault::OldRefusesStop, "old-refuses-stop"),
        (UnitFault::RestartFails, "restart-fails"),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(f, _)| *f == self).unwrap().1
    }
    fn parse(s: &str) -> Option<UnitFault> {
        Self::ALL.iter().find(|(_, n)| *n == s).map(|(f, _)| *f)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnerKind {
    /// A line appended to the active runtime's SOUL.md.
    Soul,
    /// SOUL.md rewritten by the owner, opening with a `# Soul` heading.
    SoulHeading,
    /// A bullet appended to MEMORY.md.
    Memory,
}

impl OwnerKind {
    pub fn name(self) -> &'static str {
        match self {
            OwnerKind::Soul => "soul",
            OwnerKind::SoulHeading => "soul-heading",
            OwnerKind::Memory => "memory",
        }
    }
}

/// Where a crash lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kill {
    /// The debug build's `OSCTL_FAULT=abort-write:N`: abort before the Nth file step.
    AbortWrite(u32),
    /// A real SIGKILL after this many microseconds.
    After(u32),
    /// SIGKILL from the fake systemd at the first call that starts with this verb
    /// (`try-restart`, `enable`, `disable`, `stop`): a crash at a service action.
    On(String),
}

impl fmt::Display for Kill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kill::AbortWrite(n) => write!(f, "abort-write:{n}"),
            Kill::After(us) => write!(f, "kill-after:{us}"),
            Kill::On(verb) => write!(f, "kill-on:{verb}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// The app writes config.json for a new owner: LLM key, a telegram token, an `mcp_tools`
    /// entry; `agent_runtime` set to this runtime, or left empty.
    Provision {
        rt: Option<usize>,
        n: u32,
    },
    /// A reboot: the units restart, then what they run: `osctl reconcile`, `osctl presync`.
    Boot,
    /// `osctl status --json`, a read-only command.
    Status,
    Switch {
        to: usize,
        fault: UnitFault,
    },
    ChannelAdd {
        ch: usize,
        n: u32,
    },
    ChannelRemove {
        ch: usize,
    },
    McpAdd {
        name: usize,
        remote: bool,
        rt: Option<usize>,
        n: u32,
    },
    McpRemove {
        name: usize,
        rt: Option<usize>,
    },
    Migrate {
        from: usize,
        to: usize,
    },
    SkillsSync,
    /// The skills CDN publishes new versions.
    CdnPublish {
        n: u32,
    },
    Reset,
    /// A runtime edits its own file: a key osctl does not own, or a comment.
    Edit {
        rt: usize,
        file: usize,
        comment: bool,
        n: u32,
    },
    /// The owner writes into the active runtime's persona.
    Owner {
        kind: OwnerKind,
        n: u32,
    },
    /// `cmd` killed at `kill`, then `next` (the next command, of any kind).
    Crash {
        kill: Kill,
        cmd: Box<Op>,
        next: Box<Op>,
    },
    /// A FIFO planted in place of a file osctl reads (a device file, a runtime's config or
    /// SOUL.md) while `cmd` runs; the file is put back after.
    Fifo {
        path: String,
        cmd: Box<Op>,
    },
}

fn rt_or_dash(rt: &Option<usize>) -> &'static str {
    rt.map(|i| RUNTIMES[i]).unwrap_or("-")
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Provision { rt, n } => write!(f, "provision {} {n}", rt_or_dash(rt)),
            Op::Boot => write!(f, "boot"),
            Op::Status => write!(f, "status"),
            Op::Switch { to, fault } => write!(f, "switch {} {}", RUNTIMES[*to], fault.name()),
            Op::ChannelAdd { ch, n } => write!(f, "channel-add {} {n}", CHANNELS[*ch]),
            Op::ChannelRemove { ch } => write!(f, "channel-remove {}", CHANNELS[*ch]),
            Op::McpAdd {
                name,
                remote,
                rt,
                n,
            } => write!(
                f,
                "mcp-add {} {} {} {n}",
                MCP_NAMES[*name],
                if *remote { "remote" } else { "stdio" },
                rt_or_dash(rt)
            ),
            Op::McpRemove { name, rt } => {
                write!(f, "mcp-remove {} {}", MCP_NAMES[*name], rt_or_dash(rt))
            }
            Op::Migrate { from, to } => {
                write!(f, "migrate {} {}", RUNTIMES[*from], RUNTIMES[*to])
            }
            Op::SkillsSync => write!(f, "skills-sync"),
            Op::CdnPublish { n } => write!(f, "cdn-publish {n}"),
            Op::Reset => write!(f, "reset"),
            Op::Edit {
                rt,
                file,
                comment,
                n,
            } => write!(
                f,
                "edit {} {file} {} {n}",
                RUNTIMES[*rt],
                if *comment { "comment" } else { "key" }
            ),
            Op::Owner { kind, n } => write!(f, "owner {} {n}", kind.name()),
            Op::Crash { kill, cmd, next } => write!(f, "crash {kill} | {cmd} | {next}"),
            Op::Fifo { path, cmd } => write!(f, "fifo {path} | {cmd}"),
        }
    }
}

impl Op {
    /// The kind of operation (its first word), for signatures and figures.
    pub fn kind(&self) -> String {
        self.to_string()
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string()
    }

    pub fn parse(line: &str) -> Result<Op, String> {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("crash ") {
            let parts: Vec<&str> = rest.splitn(3, " | ").collect();
            let [kill, cmd, next] = parts[..] else {
                return Err(format!("crash needs `KILL | CMD | NEXT`: {line}"));
            };
            let kill = if let Some(n) = kill.strip_prefix("abort-write:") {
                Kill::AbortWrite(n.parse().map_err(|_| format!("bad kill: {kill}"))?)
            } else if let Some(n) = kill.strip_prefix("kill-after:") {
                Kill::After(n.parse().map_err(|_| format!("bad kill: {kill}"))?)
            } else if let Some(v) = kill.strip_prefix("kill-on:") {
                Kill::On(v.to_string())
            } else {
                return Err(format!("bad kill: {kill}"));
            };
            return Ok(Op::Crash {
                kill,
                cmd: Box::new(Op::parse(cmd)?),
                next: Box::new(Op::parse(next)?),
            });
        }
        if let Some(rest) = line.strip_prefix("fifo ") {
            let (path, cmd) = rest
                .split_once(" | ")
                .ok_or_else(|| format!("fifo needs `PATH | CMD`: {line}"))?;
            return Ok(Op::Fifo {
                path: path.trim().to_string(),
                cmd: Box::new(Op::parse(cmd)?),
            });
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let rt = |s: &str| rt_index(s).ok_or(format!("unknown runtime {s}"));
        let opt_rt = |s: &str| -> Result<Option<usize>, String> {
            if s == "-" { Ok(None) } else { rt(s).map(Some) }
        };
        let num = |s: &str| s.parse::<u32>().map_err(|_| format!("bad number {s}"));
        let idx = |list: &[&str], s: &str| {
            list.iter()
                .position(|x| *x == s)
                .ok_or(format!("unknown name {s}"))
        };
        Ok(match w[..] {
            ["provision", r, n] => Op::Provision {
                rt: opt_rt(r)?,
                n: num(n)?,
            },
            ["boot"] => Op::Boot,
            ["status"] => Op::Status,
            ["switch", r, fault] => Op::Switch {
                to: rt(r)?,
                fault: UnitFault::parse(fault).ok_or(format!("bad unit fault {fault}"))?,
            },
            ["channel-add", c, n] => Op::ChannelAdd {
                ch: idx(&CHANNELS, c)?,
                n: num(n)?,
            },
            ["channel-remove", c] => Op::ChannelRemove {
                ch: idx(&CHANNELS, c)?,
            },
            ["mcp-add", name, kind, r, n] => Op::McpAdd {
                name: idx(&MCP_NAMES, name)?,
                remote: kind == "remote",
                rt: opt_rt(r)?,
                n: num(n)?,
            },
            ["mcp-remove", name, r] => Op::McpRemove {
                name: idx(&MCP_NAMES, name)?,
                rt: opt_rt(r)?,
            },
            ["migrate", a, b] => Op::Migrate {
                from: rt(a)?,
                to: rt(b)?,
            },
            ["skills-sync"] => Op::SkillsSync,
            ["cdn-publish", n] => Op::CdnPublish { n: num(n)? },
            ["reset"] => Op::Reset,
            ["edit", r, file, what, n] => Op::Edit {
                rt: rt(r)?,
                file: num(file)? as usize,
                comment: what == "comment",
                n: num(n)?,
            },
            ["owner", kind, n] => Op::Owner {
                kind: match kind {
                    "soul" => OwnerKind::Soul,
                    "soul-heading" => OwnerKind::SoulHeading,
                    "memory" => OwnerKind::Memory,
                    _ => return Err(format!("bad owner kind {kind}")),
                },
                n: num(n)?,
            },
            _ => return Err(format!("unknown operation: {line}")),
        })
    }

    /// Simpler forms of this operation, for shrinking (a crash without its kill, …).
    pub fn simpler(&self) -> Vec<Vec<Op>> {
        match self {
            Op::Crash { kill, cmd, next } => {
                let mut v = vec![
                    vec![(**cmd).clone(), (**next).clone()],
                    vec![(**cmd).clone()],
                    vec![(**next).clone()],
                ];
                if **next != Op::Status {
                    v.push(vec![Op::Crash {
                        kill: kill.clone(),
                        cmd: cmd.clone(),
                        next: Box::new(Op::Status),
                    }]);
                }
                v
            }
            Op::Fifo { cmd, .. } => vec![vec![(**cmd).clone()]],
            Op::Switch { to, fault } if *fault != UnitFault::Ok => vec![vec![Op::Switch {
                to: *to,
                fault: UnitFault::Ok,
            }]],
            _ => vec![],
        }
    }
}

/// A whole life: where it starts, and what happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    pub start: String,
    pub ops: Vec<Op>,
}

impl fmt::Display for Sequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "start {}", self.start)?;
        for op in &self.ops {
            writeln!(f, "{op}")?;
        }
        Ok(())
    }
}

impl Sequence {
    /// Reads the text form; `#` lines are comments.
    pub fn parse(text: &str) -> Result<Sequence, String> {
        let mut start = None;
        let mut ops = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(s) = line.strip_prefix("start ") {
                start = Some(s.trim().to_string());
            } else {
                ops.push(Op::parse(line)?);
            }
        }
        Ok(Sequence {
            start: start.ok_or("no `start TREE` line")?,
            ops,
        })
    }
}

/// Files osctl reads that a FIFO can stand in for: the device's own, each runtime's main config
/// and SOUL.md.
pub fn fifo_targets() -> Vec<String> {
    let mut v: Vec<String> = [
        "root/config/config.json",
        "root/config/agent_state.json",
        "root/config/bootstrap.json",
        "opt/devices/lamp/ROBOT.md",
    ]
    .map(String::from)
    .to_vec();
    for rt in RUNTIMES {
        v.push(crate::lifecycle_support::own_files(rt)[0].0.to_string());
        v.push(crate::lifecycle_support::soul_path(rt).to_string());
    }
    v
}

/// The crash points a generated crash can use for `cmd`.
fn kill_for(rng: &mut Rng, cmd: &Op) -> Kill {
    let service_verbs: &[&str] = match cmd {
        Op::Switch { .. } => &["enable", "disable", "try-restart"],
        Op::Boot | Op::McpAdd { .. } | Op::McpRemove { .. } | Op::ChannelAdd { .. } => {
            &["try-restart"]
        }
        Op::Reset => &["stop", "disable"],
        _ => &[],
    };
    match rng.below(if service_verbs.is_empty() { 2 } else { 3 }) {
        0 => Kill::AbortWrite(1 + rng.below(12) as u32),
        1 => Kill::After(rng.below(120_000) as u32),
        _ => Kill::On(service_verbs[rng.below(service_verbs.len() as u64) as usize].into()),
    }
}

/// Generates one life from `rng`: 5-30 operations.
pub fn generate(rng: &mut Rng, max_len: usize) -> Sequence {
    let starts = starts();
    let start = starts[rng.below(starts.len() as u64) as usize].clone();
    // Most lives short (5-8 operations, the CI budget), one in seven up to `max_len`.
    let len = if rng.below(7) == 0 {
        5 + rng.below((max_len.max(5) - 4) as u64) as usize
    } else {
        5 + rng.below((max_len.clamp(5, 8) - 4) as u64) as usize
    };
    let mut counter = 0u32;
    let mut ops = Vec::with_capacity(len);
    for _ in 0..len {
        ops.push(gen_op(rng, &mut counter, 0));
    }
    Sequence { start, ops }
}

fn gen_op(rng: &mut Rng, counter: &mut u32, depth: u32) -> Op {
    *counter += 1;
    let n = *counter;
    // Any registered runtime (in the package's build the six, drawn as before).
    let n_rt = RUNTIMES.len() as u64;
    let rt = |rng: &mut Rng| rng.below(n_rt) as usize;
    let pick = rng.below(100);
    match pick {
        0..=7 => Op::Provision {
            rt: if rng.below(4) == 0 {
                None
            } else {
                Some(rt(rng))
            },
            n,
        },
        8..=21 => Op::Boot,
        22..=35 => {
            let fault = match rng.below(12) {
                0 => UnitFault::Dies,
                1 => UnitFault::Fails,
                2 => UnitFault::CrashLoop,
                3 => UnitFault::OkAfterOne,
                4 => UnitFault::OldRefusesStop,
                5 | 6 => UnitFault::RestartFails,
                _ => UnitFault::Ok,
            };
            Op::Switch { to: rt(rng), fault }
        }
        36..=42 => Op::ChannelAdd {
            ch: rng.below(4) as usize,
            n,
        },
        43..=45 => Op::ChannelRemove {
            ch: rng.below(4) as usize,
        },
        46..=52 => Op::McpAdd {
            name: rng.below(3) as usize,
            remote: rng.below(2) == 0,
            rt: if rng.below(3) == 0 {
                Some(rt(rng))
            } else {
                None
            },
            n,
        },
        53..=55 => Op::McpRemove {
            name: rng.below(3) as usize,
            rt: if rng.below(3) == 0 {
                Some(rt(rng))
            } else {
                None
            },
        },
        56..=59 => {
            let from = rt(rng);
            let to = (from + 1 + rng.below(n_rt - 1) as usize) % RUNTIMES.len();
            Op::Migrate { from, to }
        }
        60..=63 => Op::SkillsSync,
        64..=65 => Op::CdnPublish { n },
        66..=70 => Op::Reset,
        71..=78 => Op::Edit {
            rt: rt(rng),
            file: rng.below(2) as usize,
            comment: rng.below(2) == 0,
            n,
        },
        79..=86 => Op::Owner {
            kind: match rng.below(3) {
                0 => OwnerKind::Soul,
                1 => OwnerKind::SoulHeading,
                _ => OwnerKind::Memory,
            },
            n,
        },
        87..=96 if depth == 0 => {
            let cmd = loop {
                let c = gen_op(rng, counter, 1);
                if c.is_osctl_write() {
                    break c;
                }
            };
            let next = loop {
                let c = gen_op(rng, counter, 1);
                if c.is_osctl() {
                    break c;
                }
            };
            Op::Crash {
                kill: kill_for(rng, &cmd),
                cmd: Box::new(cmd),
                next: Box::new(next),
            }
        }
        _ if depth == 0 => {
            let cmd = loop {
                let c = gen_op(rng, counter, 1);
                if c.is_osctl() {
                    break c;
                }
            };
            let targets = fifo_targets();
            Op::Fifo {
                path: targets[rng.below(targets.len() as u64) as usize].clone(),
                cmd: Box::new(cmd),
            }
        }
        _ => Op::Status,
    }
}

impl Op {
    /// Whether osctl runs for this operation.
    pub fn is_osctl(&self) -> bool {
        !matches!(
            self,
            Op::Provision { .. }
                | Op::CdnPublish { .. }
                | Op::Edit { .. }
                | Op::Owner { .. }
                | Op::Crash { .. }
                | Op::Fifo { .. }
        )
    }

    /// Whether the operation is an osctl command that changes the device.
    pub fn is_osctl_write(&self) -> bool {
        self.is_osctl() && *self != Op::Status
    }
}
