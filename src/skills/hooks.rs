//! openclaw's OS hooks: `<cdn>/hooks/<name>/{HOOK.md,handler.ts}`, installed under the
//! workspace `hooks/` folder and registered in openclaw.json (upstream `EnsureOnboarding` and
//! `ensureHooksRegistered`).
//!
//! A supported hook is fetched whole (both files, each size-capped and package-checked) by
//! [`fetch`], before the device lock is taken and before anything is planned, so a failed download
//! leaves the installed hook as it was. When the metadata is signed, each file's sha256 must be
//! the one the signed payload gives (`hooks.<name>.files.<file>`): `handler.ts` is code the agent
//! runs, so a hook the signature does not cover is not installed. [`plan`] then plans its two
//! files together: the plan engine writes them atomically under the journal, so a crash is rolled
//! back by the next run. An unsupported hook's folder is removed and its entry unregistered.
//!
//! Registration, exactly upstream's shape: `hooks.internal.enabled` is set to `true` only when
//! absent (an owner's explicit `false` stays), `hooks.internal.entries.<name> = {"enabled": true}`
//! is added only when the entry is absent (an owner's settings inside it stay), and the entries of
//! published hooks the device does not support are removed. openclaw.json is edited with the
//! comment-preserving [`JsonDoc`], keeping its mode (0600). When a hook file or the
//! registration changes, openclaw is restarted if it is running (`systemctl try-restart`), as
//! upstream's onboarding restarts the gateway; on an offline root the action is only printed.

use std::collections::BTreeMap;

use serde_json::json;

use crate::error::Result;
use crate::format::json::JsonDoc;
use crate::path::DevPath;
use crate::plan::{Draft, ServiceAction};
use crate::system::http::Http;

use super::Problem;
use super::archive::sha256_hex;
use super::catalog::catalog;
use super::hash::tree_hash;
use super::metadata::HookFiles;
use super::package;
use super::state::{HookRecord, RuntimeState};

/// The files of a hook, in the order they are fetched.
pub(crate) const HOOK_FILES: [&str; 2] = ["HOOK.md", "handler.ts"];
/// Most bytes one hook file may have.
pub(crate) const MAX_HOOK_FILE: u64 = 1024 * 1024;

/// What happened to one hook.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct HookReport {
    pub name: String,
    /// `install`, `update`, `up-to-date`, `remove`, `absent`, `failed`.
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<super::Problem>,
}

/// Where the hooks go.
pub(crate) struct HookTarget<'a> {
    pub hooks_dir: DevPath,
    pub openclaw_json: DevPath,
    /// The unit restarted when a hook changes (`openclaw`).
    pub unit: &'a str,
}

/// One published hook, as [`fetch`] found it.
pub(crate) struct Fetched {
    pub name: String,
    /// The device supports it (else it is removed, and nothing was downloaded).
    pub supported: bool,
    /// Its two files ([`HOOK_FILES`] order), downloaded and checked.
    pub files: std::result::Result<[Vec<u8>; 2], Problem>,
}

/// Downloads every supported hook, checking each file against `signed` (the hooks the signed
/// metadata vouches for; `None` when the metadata is not signed).
pub(crate) fn fetch(
    http: &Http,
    cdn: &str,
    caps: &[String],
    signed: Option<&BTreeMap<String, std::result::Result<HookFiles, String>>>,
) -> Vec<Fetched> {
    catalog()
        .hooks(caps)
        .into_iter()
        .map(|(name, supported)| Fetched {
            name: name.to_string(),
            supported,
            files: if supported {
                fetch_one(http, cdn, name, signed)
            } else {
                Err(Problem::new("unsupported", "not downloaded"))
            },
        })
        .collect()
}

/// Plans every published hook from what [`fetch`] found: install/update the supported ones,
/// remove the others, and register them in openclaw.json.
pub(crate) fn plan(
    draft: &mut Draft<'_>,
    target: &HookTarget<'_>,
    fetched: &[Fetched],
    state: &mut RuntimeState,
) -> Result<Vec<HookReport>> {
    let mut touched = false;
    let mut reports = Vec::new();
    let mut registered = Vec::new();
    let mut unregistered = Vec::new();
    for hook in fetched {
        let name = hook.name.as_str();
        let dir = target.hooks_dir.join(name);
        if !hook.supported {
            unregistered.push(name);
            state.hooks.remove(name);
            let action = if draft.exists(&dir)? {
                touched |= draft.remove(&dir, "remove a hook this device does not support")?;
                "remove"
            } else {
                "absent"
            };
            reports.push(HookReport {
                name: name.into(),
                action,
                error: None,
            });
            continue;
        }
        match &hook.files {
            Err(problem) => {
                if draft.exists(&dir.join(HOOK_FILES[1]))? {
                    registered.push(name);
                }
                reports.push(HookReport {
                    name: name.into(),
                    action: "failed",
                    error: Some(problem.clone()),
                });
            }
            Ok(files) => {
                let existed = draft.exists(&dir)?;
                let mut changed = false;
                for (file, bytes) in HOOK_FILES.iter().zip(files.iter()) {
                    changed |= draft.write(
                        &dir.join(file),
                        bytes.clone(),
                        Some(0o644),
                        "install an OS hook",
                    )?;
                }
                let hash = tree_hash(&[
                    (HOOK_FILES[0], Some(files[0].as_slice())),
                    (HOOK_FILES[1], Some(files[1].as_slice())),
                ]);
                touched |= changed;
                state.hooks.insert(name.into(), HookRecord { hash });
                registered.push(name);
                let action = match (existed, changed) {
                    (false, _) => "install",
                    (true, true) => "update",
                    (true, false) => "up-to-date",
                };
                reports.push(HookReport {
                    name: name.into(),
                    action,
                    error: None,
                });
            }
        }
    }
    // openclaw.json is the owner's file: one that cannot be read safely fails the registration
    // (reported, retried by the next sync) without holding back the skills.
    match register(draft, &target.openclaw_json, &registered, &unregistered) {
        Ok(changed) => touched |= changed,
        Err(e) => reports.push(HookReport {
            name: "registration".into(),
            action: "failed",
            error: Some(Problem::new(e.code, e.to_string())),
        }),
    }
    if touched {
        draft.service(ServiceAction::RestartIfActive(target.unit.to_string()));
    }
    Ok(reports)
}

/// Downloads both files of a hook and checks them (against the signed hashes when signed).
fn fetch_one(
    http: &Http,
    cdn: &str,
    name: &str,
    signed: Option<&BTreeMap<String, std::result::Result<HookFiles, String>>>,
) -> std::result::Result<[Vec<u8>; 2], Problem> {
    let vouched = match signed {
        None => None,
        Some(hooks) => match hooks.get(name) {
            Some(Ok(files)) => Some(files),
            Some(Err(why)) => {
                return Err(Problem::new(
                    "bad_metadata_entry",
                    format!("the signed metadata's entry for hook {name} is not usable: {why}"),
                ));
            }
            None => {
                return Err(Problem::new(
                    "hook_not_signed",
                    format!(
                        "the signed metadata does not vouch for hook {name} (no hooks.{name}.files), so it is not installed"
                    ),
                ));
            }
        },
    };
    let mut files: [Vec<u8>; 2] = Default::default();
    for (slot, file) in files.iter_mut().zip(HOOK_FILES) {
        let expected = match vouched {
            None => None,
            Some(v) => Some(v.get(file).ok_or_else(|| {
                Problem::new(
                    "hook_not_signed",
                    format!("the signed metadata gives no sha256 for hooks/{name}/{file}"),
                )
            })?),
        };
        let url = format!("{cdn}/hooks/{name}/{file}");
        let bytes = http
            .get(&url, MAX_HOOK_FILE, &mut |_, _| {})
            .map_err(|e| Problem::new(e.code(), e.describe()))?;
        if let Some(expected) = expected {
            let actual = sha256_hex(&bytes);
            if &actual != expected {
                return Err(Problem::new(
                    "hash_mismatch",
                    format!(
                        "{url}: its sha256 is {actual}, but the signed metadata says {expected}"
                    ),
                ));
            }
        }
        if let Some(f) = package::scan(file, &bytes) {
            return Err(Problem::new("package_secret", format!("refused: {f}")));
        }
        *slot = bytes;
    }
    Ok(files)
}

/// Registers `on` and unregisters `off` in openclaw.json `hooks.internal.entries`.
fn register(draft: &mut Draft<'_>, path: &DevPath, on: &[&str], off: &[&str]) -> Result<bool> {
    let Some(text) = draft.read_text(path)? else {
        if !on.is_empty() {
            draft.warn(format!(
                "{path} does not exist, so the hooks are installed but not registered; the next sync registers them once openclaw has written it"
            ));
        }
        return Ok(false);
    };
    let mut doc = JsonDoc::parse(&text, &path.to_string())?;
    let mut changed = false;
    if !on.is_empty() && doc.get(&["hooks", "internal", "enabled"]).is_none() {
        changed |= doc.set(&["hooks", "internal", "enabled"], json!(true));
    }
    for name in on {
        if doc.get(&["hooks", "internal", "entries", name]).is_none() {
            changed |= doc.set(
                &["hooks", "internal", "entries", name],
                json!({"enabled": true}),
            );
        }
    }
    for name in off {
        changed |= doc.remove(&["hooks", "internal", "entries", name]);
    }
    if changed {
        draft.write(path, doc.to_string(), None, "register OS hooks")?;
    }
    Ok(changed)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::system::fs::RootFs;

    #[test]
    fn registration_adds_only_what_is_missing_and_keeps_comments() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("openclaw.json");
        std::fs::write(
            &p,
            "{\n  // gateway first\n  \"gateway\": {\"port\": 18789},\n  \"hooks\": {\"internal\": {\"enabled\": false, \"entries\": {\"turn-gate\": {\"enabled\": false}, \"emotion-acknowledge\": {\"enabled\": true}}}}\n}\n",
        )
        .unwrap();
        let fs = RootFs::new(dir.path()).unwrap();
        let mut d = Draft::new(&fs);
        let path = DevPath::new("/openclaw.json");
        register(&mut d, &path, &["turn-gate"], &["emotion-acknowledge"]).unwrap();
        let text = d.read_text(&path).unwrap().unwrap();
        assert!(text.contains("// gateway first"));
        let doc = JsonDoc::parse(&text, "x").unwrap();
        assert_eq!(
            doc.get(&["hooks", "internal", "enabled"]),
            Some(json!(false))
        );
        assert_eq!(
            doc.get(&["hooks", "internal", "entries"]),
            Some(json!({"turn-gate": {"enabled": false}}))
        );
        // Once in place, a second pass changes nothing.
        let mut d2 = Draft::new(&fs);
        std::fs::write(&p, &text).unwrap();
        register(&mut d2, &path, &["turn-gate"], &["emotion-acknowledge"]).unwrap();
        assert!(d2.finish().is_empty());
    }
}
