//! Shell completion: the scripts of `osctl completions SHELL` and the answers to them.
//!
//! The scripts are clap_complete's dynamic registrations: at each TAB the shell asks the installed
//! osctl (`OSCTL_COMPLETE=bash osctl -- osctl mcp remove ''`), which answers from the clap types
//! and, for the values that live on the device, from the device: the completers below read it
//! through the features (the device's configuration, a runtime's MCP file) and never change it.

use clap_complete::CompletionCandidate;

use super::Shell;

/// The variable that asks osctl for completions instead of a run. osctl's own name, not clap's
/// default `COMPLETE`: a unit or a script that happened to export `COMPLETE` would otherwise turn
/// every osctl call on the boot path into a completion request that changes nothing and exits 0.
pub const COMPLETE_VAR: &str = "OSCTL_COMPLETE";

/// The completion script for `shell`: a small registration that asks the installed `osctl`
/// for the candidates at each TAB (`OSCTL_COMPLETE=bash osctl -- osctl mcp remove ''`). The
/// candidates then come from the binary itself, so they cannot go stale, and they can come from
/// the device: `mcp remove <TAB>` offers the servers in the runtime's file, `channel remove
/// <TAB>` the configured channels, both under the `--root` and `--runtime` typed before.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    use clap_complete::env::{Bash, EnvCompleter, Fish, Zsh};
    let registration: &dyn EnvCompleter = match shell {
        Shell::Bash => &Bash,
        Shell::Zsh => &Zsh,
        Shell::Fish => &Fish,
    };
    let mut buf = Vec::new();
    registration
        .write_registration(COMPLETE_VAR, "osctl", "osctl", "osctl", &mut buf)
        .expect("writing to memory cannot fail");
    if shell == Shell::Zsh {
        buf = zsh_autoloadable(&buf);
    }
    buf
}

/// clap's zsh registration defines the completer and calls `compdef`, which serves `source
/// <(osctl completions zsh)`; installed as `_osctl` in `$fpath` (the package does), zsh runs the
/// file as the function `_osctl` at the first TAB, which must also complete that TAB (the idiom
/// of zsh's own completion files).
fn zsh_autoloadable(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let register = "compdef _clap_dynamic_completer_osctl osctl";
    let autoload = "if [ \"$funcstack[1]\" = \"_osctl\" ]; then\n    \
                    _clap_dynamic_completer_osctl \"$@\"\nelse\n    \
                    compdef _clap_dynamic_completer_osctl osctl\nfi";
    text.replacen(register, autoload, 1).into_bytes()
}

/// Answers a shell's completion request when `OSCTL_COMPLETE` names a shell: prints the
/// candidates (or, with no words after `--`, the registration script) and returns true. Reads
/// the device only, takes no lock and writes nothing; a device it cannot read gives no candidates.
pub fn complete(args: &[std::ffi::OsString], env: &dyn Fn(&str) -> Option<String>) -> bool {
    let words = args
        .iter()
        .position(|a| a == "--")
        .map(|i| args[i + 1..].to_vec())
        .unwrap_or_default();
    let _ = COMPLETING.set(Completing {
        words,
        root_env: env("OSCTL_ROOT"),
        device_env: crate::device::paths::DeviceEnv::new(true, env),
    });
    let current_dir = crate::system::fs::current_dir();
    let env = clap_complete::CompleteEnv::with_factory(crate::cli::command)
        .var(COMPLETE_VAR)
        .bin("osctl")
        .completer("osctl");
    match env.try_complete(args.iter().cloned(), current_dir.as_deref()) {
        Ok(done) => done,
        Err(e) => e.exit(),
    }
}

/// The command line being completed, for the completers that read the device.
struct Completing {
    words: Vec<std::ffi::OsString>,
    root_env: Option<String>,
    /// The device's path overrides, as a run on the live device reads them.
    device_env: crate::device::paths::DeviceEnv,
}

static COMPLETING: std::sync::OnceLock<Completing> = std::sync::OnceLock::new();

impl Completing {
    /// The value of `--NAME VALUE` or `--NAME=VALUE` typed on the line (the last one wins).
    fn option(&self, name: &str) -> Option<String> {
        let flag = format!("--{name}");
        let mut found = None;
        let mut words = self.words.iter().map(|w| w.to_string_lossy());
        while let Some(w) = words.next() {
            if w == flag {
                found = words.next().map(|v| v.into_owned());
            } else if let Some(v) = w.strip_prefix(&format!("{flag}=")) {
                found = Some(v.to_string());
            }
        }
        found
    }

    fn has(&self, flag: &str) -> bool {
        self.words.iter().any(|w| w == flag)
    }

    /// The device under `--root` (else `OSCTL_ROOT`, else `/`) and the runtime meant: `--runtime`,
    /// else the active one.
    fn device(&self) -> Option<(crate::system::fs::RootFs, crate::device::Device)> {
        let root = self
            .option("root")
            .or_else(|| self.root_env.clone())
            .unwrap_or_else(|| "/".into());
        let fs = crate::system::fs::RootFs::new(std::path::Path::new(&root)).ok()?;
        let env = if fs.is_live() {
            self.device_env.clone()
        } else {
            crate::device::paths::DeviceEnv::default()
        };
        let device = crate::device::Device::load(&fs, &env).ok()?;
        Some((fs, device))
    }

    fn runtime(&self, device: &crate::device::Device) -> Option<crate::runtime::RuntimeId> {
        match self.option("runtime") {
            Some(name) => crate::runtime::RuntimeId::parse(&name).ok(),
            None => device.active().ok(),
        }
    }
}

/// `mcp remove <TAB>`: the servers in the runtime's own file (with `--user-tool`, the user
/// tools, whose servers are `tool_NAME`), each with its transport as the description.
pub fn mcp_server_candidates(current: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    let Some(line) = COMPLETING.get() else {
        return Vec::new();
    };
    let Some((fs, device)) = line.device() else {
        return Vec::new();
    };
    let Some(rt) = line.runtime(&device) else {
        return Vec::new();
    };
    let draft = crate::plan::Draft::new(&fs);
    let Ok(servers) = crate::mcp::reader::read(&draft, &device.layout, rt.spec()) else {
        return Vec::new();
    };
    let user_tool = line.has("--user-tool");
    let typed = current.to_string_lossy();
    servers
        .servers
        .iter()
        .filter_map(|s| {
            let name = if user_tool {
                s.name.strip_prefix("tool_")?
            } else {
                s.name.as_str()
            };
            let transport = match &s.read {
                Ok(r) => r.entry.transport().to_string(),
                Err(_) => "unreadable".to_string(),
            };
            name.starts_with(typed.as_ref())
                .then(|| CompletionCandidate::new(name).help(Some(transport.into())))
        })
        .collect()
}

/// `channel remove <TAB>`: the channels configured on the device; every channel when the
/// device cannot be read (the completion then still helps to type one).
pub fn configured_channel_candidates(current: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    use clap::ValueEnum;
    let channels = match COMPLETING.get().and_then(Completing::device) {
        Some((_, device)) => device.config.configured_channels(),
        None => crate::runtime::Channel::value_variants().to_vec(),
    };
    let typed = current.to_string_lossy();
    channels
        .into_iter()
        .map(|c| c.as_str())
        .filter(|c| c.starts_with(typed.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}
