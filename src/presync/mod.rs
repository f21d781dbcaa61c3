//! Presync: heal a runtime's native configuration before it starts (docs/device-contract.md §2,
//! each runtime's "Presync" and the file work of its boot onboarding), in native Rust.
//!
//! `osctl presync <rt>` runs it on its own (systemd `ExecStartPre=`, the hook shim
//! `/usr/local/bin/runtime-<rt>-presync`); the switch and `channel add` plan it inside their own
//! plans after they planned config.json edits. Each runtime's presync is its own file
//! (`src/runtime/<rt>/presync.rs`, reached through `Runtime::presync`) written on the shared core
//! in `runtime::kit` (`Cx`, `blocks`, `llm`): config.json is read **through the draft**, every edit goes
//! through the format-preserving editors, so keys osctl does not own survive with their comments,
//! and a file is written only when its text changes (a second run plans nothing).
//!
//! Rules every runtime follows:
//! - `llm_config_mode` (docs/device-contract.md §3.1) is honoured by all six: `runtime` leaves the
//!   native LLM provider, model and key alone (upstream's claudecode and opencode ignored it; osctl
//!   does not, docs/device-contract.md §10 item 4); `os` always applies the OS values; legacy
//!   (`""`) keeps the subscription detection of codex and claudecode.
//! - An empty config.json field never overwrites a value already in place.
//! - `.env` and other secret files are written 0600.
//! - A malformed native file is an error naming the file and line; the caller's plan is not
//!   applied, so nothing is written. A missing optional input (a soul file, a LAN address) is a
//!   warning.
//! - Programs (hermes' skills restore, picoclaw's one-time migrate and onboard) are commands of
//!   the plan, placed after presync's file changes, run only on the live device, and their
//!   failure is a warning (as upstream). Presync itself restarts nothing: its callers restart a
//!   runtime whose files changed ([`Report::changed`]).
//! - The installed runtime is the final authority (docs/device-contract.md §10 item 11): keys the
//!   current release rejects are not written (openclaw: `compaction.reserveTokensFloor`,
//!   `gateway.controlUi.allowInsecureAuth`), and Claude Code's MCP approval is written at user
//!   level where it takes effect.
//!
//! Not here, on purpose: skills download and prune, openclaw hook registration (`skills sync`
//! owns them), MCP entries (the `mcp` commands and reconciler), persona migration (the persona
//! reconciler).

use crate::device::Device;
use crate::error::Result;
use crate::plan::Draft;
use crate::runtime::RuntimeId;
pub(crate) use crate::runtime::kit::Scope;
use crate::runtime::kit::cx::Cx;

/// What a presync planned.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Report {
    pub runtime: RuntimeId,
    /// False when this build has no presync for the runtime (all six have one).
    pub available: bool,
    /// `llm_config_mode` as presync read it (`legacy`, `os`, `runtime`).
    pub llm_config_mode: &'static str,
    /// Whether presync planned a change to a file (callers restart the runtime then).
    pub changed: bool,
    /// The programs presync planned to run (labels), after its file changes.
    pub commands: Vec<String>,
}

/// Plans the presync of `rt` into `draft`. On error the draft is left as it was.
pub(crate) fn plan(draft: &mut Draft<'_>, device: &Device, rt: RuntimeId) -> Result<Report> {
    plan_with(draft, device, rt, Scope::All, true)
}

/// Plans only the LLM wiring of `rt` (the LLM carry-over writes the key and base URL it saved
/// into config.json this way).
pub(crate) fn plan_llm(draft: &mut Draft<'_>, device: &Device, rt: RuntimeId) -> Result<Report> {
    plan_with(draft, device, rt, Scope::Llm, false)
}

/// Plans presync with `scope`; `commands: false` plans no program (the settle pass that follows
/// a run whose programs may have rewritten files).
pub(crate) fn plan_with(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    scope: Scope,
    commands: bool,
) -> Result<Report> {
    let checkpoint = draft.checkpoint();
    let result = run(draft, device, rt, scope, commands);
    if result.is_err() {
        draft.rollback_to(checkpoint);
    }
    result
}

fn run(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    scope: Scope,
    commands: bool,
) -> Result<Report> {
    let mut cx = Cx::new(draft, device, rt.spec(), scope, commands)?;
    (rt.spec().presync)(&mut cx)?;
    let labels = cx.queue_commands();
    Ok(Report {
        runtime: rt,
        available: true,
        llm_config_mode: cx.mode.label(),
        changed: cx.changed,
        commands: labels,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::config;
    use crate::device::paths::DeviceEnv;
    use crate::path::DevPath;
    use crate::system::fs::RootFs;

    fn device_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    const CONFIG: &str = "root/config/config.json";

    #[test]
    fn config_json_is_read_through_the_draft() {
        let dir = device_tree(&[(CONFIG, "{\"agent_runtime\": \"hermes\"}\n")]);
        let fs = RootFs::new(dir.path()).unwrap();
        let device = Device::load(&fs, &DeviceEnv::default()).unwrap();
        let mut draft = Draft::new(&fs);
        // What `channel add` does first: persist the credentials...
        config::edit(
            &mut draft,
            &DevPath::new("/root/config/config.json"),
            &[("telegram_bot_token", Some("9:tok-abcdef".into()))],
            "channel add",
        )
        .unwrap();
        // ...then presync applies them, although `device` was read before the edit.
        let report = plan(&mut draft, &device, RuntimeId::Hermes).unwrap();
        assert!(report.changed);
        let env = draft
            .read_text(&DevPath::new("/root/.hermes/.env"))
            .unwrap()
            .unwrap();
        assert!(env.contains("TELEGRAM_BOT_TOKEN=9:tok-abcdef\n"), "{env}");
    }

    #[test]
    fn a_malformed_native_file_names_its_line_and_plans_nothing() {
        let dir = device_tree(&[
            (
                CONFIG,
                "{\"agent_runtime\": \"hermes\", \"telegram_bot_token\": \"9:t\"}\n",
            ),
            (
                "root/.hermes/config.yaml",
                "model:\n  default: x\n  provider: [unclosed\nterminal: {}\n",
            ),
        ]);
        let fs = RootFs::new(dir.path()).unwrap();
        let device = Device::load(&fs, &DeviceEnv::default()).unwrap();
        let mut draft = Draft::new(&fs);
        draft.warn("earlier part of the caller's plan");
        let err = plan(&mut draft, &device, RuntimeId::Hermes).unwrap_err();
        assert_eq!(err.code, "parse_error");
        let loc = err.location.clone().unwrap();
        assert_eq!(loc.file, "/root/.hermes/config.yaml");
        assert!(loc.line.is_some());
        let plan = draft.finish();
        assert!(plan.is_empty(), "{plan:?}");
        assert_eq!(plan.warnings, ["earlier part of the caller's plan"]);
    }

    #[test]
    fn the_llm_scope_touches_only_llm_settings() {
        let dir = device_tree(&[(
            CONFIG,
            "{\"agent_runtime\": \"codex\", \"llm_config_mode\": \"os\", \"llm_api_key\": \"sk-new-0123456789\", \"telegram_bot_token\": \"9:t\"}\n",
        )]);
        let fs = RootFs::new(dir.path()).unwrap();
        let device = Device::load(&fs, &DeviceEnv::default()).unwrap();
        let mut draft = Draft::new(&fs);
        plan_llm(&mut draft, &device, RuntimeId::Codex).unwrap();
        let plan = draft.finish();
        let paths: Vec<String> = plan.file_changes().map(|c| c.path.to_string()).collect();
        assert_eq!(paths, ["/root/.codex/config.toml", "/root/.codex/.env"]);
        let env = String::from_utf8(
            plan.planned_content(&DevPath::new("/root/.codex/.env"))
                .unwrap()
                .to_vec(),
        )
        .unwrap();
        assert!(env.contains("OPENAI_API_KEY=sk-new-0123456789"), "{env}");
        assert!(!env.contains("CODEX_PORT"), "{env}");
    }
}
