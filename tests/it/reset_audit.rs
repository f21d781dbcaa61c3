//! Reset audit: after a reset, nothing of the previous owner is anywhere on the device.
//!
//! For every golden device (the `in/` trees of `tests/cli/*`, each once), distinct values are
//! planted as the owner would have set them: every channel credential and user id, the LLM key
//! and a BYO endpoint, the Claude subscription token, the remote-runtime and backend keys, a
//! user MCP tool (its URL and headers) in config.json; then the device is used as a device
//! would be: `presync` of every runtime (the owner's values land in each runtime's own files)
//! and `mcp add` of a server with a bearer header and a URL with credentials into every runtime.
//! Then `reset --yes`; then a new owner provisions the device (a fresh config.json with values
//! of their own) and `presync` runs for every runtime again. No byte of any planted value may be
//! left anywhere under the root: files, backups, osctl's journal and state (a 12-character run
//! of a value counts; masking keeps at most 7 characters of one). Trees the reset refuses (a
//! configured path outside its tree) are counted apart: they must come out unchanged.
//!
//! `OSCTL_CASE=<substring>` limits the trees to the cases whose `<group>/<case>` holds it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::reliability_support::*;
use crate::support::leaks::Leaks;
use serde_json::{Value, json};

/// Every registered runtime (the test-only seventh too, under `--features test-runtime`).
use osctl::runtime::NAMES as RUNTIMES;

struct Planter {
    rng: Rng,
    values: Vec<(String, String)>,
}

impl Planter {
    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
        (0..n)
            .map(|_| A[self.rng.below(A.len() as u64) as usize] as char)
            .collect()
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'1' + self.rng.below(9) as u8))
            .collect()
    }

    fn plant(&mut self, field: &str, value: String) -> String {
        self.values.push((field.to_string(), value.clone()));
        value
    }
}

/// The owner's config.json fields, shaped like the real thing.
fn owner_config(p: &mut Planter, base: &Value) -> Value {
    let mut m = match base {
        Value::Object(m) => m.clone(),
        _ => serde_json::Map::new(),
    };
    let telegram = format!("{}:AA{}", p.digits(10), p.alnum(33));
    let slack_bot = format!("xoxb-{}-{}", p.digits(12), p.alnum(24));
    let slack_app = format!("xapp-1-{}-{}", p.alnum(11), p.alnum(40));
    let discord = format!("{}.{}.{}", p.alnum(24), p.alnum(6), p.alnum(27));
    let fields: Vec<(&str, String)> = vec![
        ("llm_config_mode", "os".into()),
        ("llm_api_key", format!("sk-ant-api03-{}", p.alnum(40))),
        (
            "llm_base_url",
            format!(
                "https://llm-{}.owner.example/v1",
                p.alnum(12).to_lowercase()
            ),
        ),
        ("channel", "telegram".into()),
        ("telegram_bot_token", telegram),
        ("telegram_user_id", p.digits(12)),
        ("slack_bot_token", slack_bot),
        ("slack_app_token", slack_app),
        ("slack_user_id", format!("U{}", p.alnum(12).to_uppercase())),
        ("discord_bot_token", discord),
        ("discord_guild_id", p.digits(18)),
        ("discord_user_id", p.digits(18)),
        ("whatsapp_user_id", format!("+84{}", p.digits(10))),
        (
            "bluebubbles_server_url",
            format!("https://mac-{}.owner.example", p.alnum(12).to_lowercase()),
        ),
        ("bluebubbles_password", format!("bb-{}", p.alnum(24))),
        (
            "bluebubbles_user_address",
            format!("owner-{}@icloud.example", p.alnum(12).to_lowercase()),
        ),
        (
            "bluebubbles_caller_context",
            format!("The owner is {} and likes tea.", p.alnum(16)),
        ),
        (
            "claude_code_oauth_token",
            format!("sk-ant-oat01-{}", p.alnum(40)),
        ),
        ("agent_remote_token", format!("rt-{}", p.alnum(32))),
        ("backend_api_key", format!("bk-{}", p.alnum(32))),
    ];
    for (k, v) in fields {
        let v = if matches!(k, "llm_config_mode" | "channel") {
            v
        } else {
            p.plant(k, v)
        };
        m.insert(k.into(), v.into());
    }
    let tool_url = {
        let v = format!(
            "https://tools-{}.owner.example/mcp",
            p.alnum(12).to_lowercase()
        );
        p.plant("mcp_tools.url", v)
    };
    let bearer = {
        let v = format!("tok-{}", p.alnum(32));
        p.plant("mcp_tools.Authorization", v)
    };
    let key = {
        let v = format!("key-{}", p.alnum(32));
        p.plant("mcp_tools.X-Api-Key", v)
    };
    m.insert(
        "mcp_tools".into(),
        json!([{"name": "owner", "url": tool_url,
                "headers": {"Authorization": format!("Bearer {bearer}"), "X-Api-Key": key}}]),
    );
    Value::Object(m)
}

/// The input trees of the golden cases, each once.
fn trees() -> Vec<(String, PathBuf)> {
    let filter = std::env::var("OSCTL_CASE").unwrap_or_default();
    let base = repo().join("tests/cli");
    let mut seen: BTreeSet<u64> = BTreeSet::new();
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = walkdir::WalkDir::new(&base)
        .min_depth(2)
        .max_depth(2)
        .into_iter()
        .flatten()
        .filter(|e| e.path().join("cmd.toml").exists())
        .map(|e| e.path().to_path_buf())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.strip_prefix(&base).unwrap().display().to_string();
        if !name.contains(&filter) {
            continue;
        }
        // Built whole when the case stores it as a delta (tests/it/support/golden_tree.rs).
        let input = crate::support::golden_tree::input_path(&dir).unwrap();
        // Many cases share a tree (or a copy of one): each distinct tree once.
        if input.join("root/config").is_dir() && seen.insert(fingerprint(&input)) {
            out.push((name, input));
        }
    }
    out
}

/// The paths and bytes of a tree, hashed.
fn fingerprint(dir: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        e.path().strip_prefix(dir).unwrap().hash(&mut h);
        if e.file_type().is_file() {
            std::fs::read(e.path()).unwrap_or_default().hash(&mut h);
        }
    }
    h.finish()
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    osctl(root).args(args).output().unwrap()
}

#[test]
fn no_owner_value_survives_a_reset_and_a_new_owner() {
    let scratch = sandbox();
    let seed = seed();
    eprintln!("reset audit seed {seed}");
    let mut p = Planter {
        rng: Rng(seed),
        values: Vec::new(),
    };
    let (mut audited, mut refused, mut planted, mut scanned) = (0, 0, 0, 0);
    let mut leaks = Vec::new();
    let all = trees();
    assert!(!all.is_empty());
    for (name, input) in &all {
        let root = scratch.path().join("device");
        let _ = std::fs::remove_dir_all(&root);
        copy_tree(input, &root);
        p.values.clear();
        let cfg_path = root.join("root/config/config.json");
        let base = std::fs::read_to_string(&cfg_path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .unwrap_or(json!({}));
        if !base.is_object() {
            continue;
        }
        let cfg = owner_config(&mut p, &base);
        write(
            &root,
            "root/config/config.json",
            (serde_json::to_string_pretty(&cfg).unwrap() + "\n").as_bytes(),
            0o600,
        );
        // The device in use: the owner's values in every runtime's own files.
        for rt in RUNTIMES {
            let _ = run(&root, &["presync", rt]);
            let user = {
                let v = format!("u{}:pw{}", p.alnum(8), p.alnum(16));
                p.plant("mcp url userinfo", v)
            };
            let tok = {
                let v = format!("tok-{}", p.alnum(32));
                p.plant("mcp header", v)
            };
            let _ = run(
                &root,
                &[
                    "mcp",
                    "add",
                    "owner-srv",
                    "--runtime",
                    rt,
                    "--url",
                    &format!("https://{user}@mcp.owner.example/x"),
                    "--header",
                    &format!("Authorization=Bearer {tok}"),
                ],
            );
        }
        let before = snapshot_all(&root);
        let out = run(&root, &["reset", "--yes"]);
        if !out.status.success() {
            // Refused: it must not have touched anything.
            refused += 1;
            if snapshot_all(&root) != before {
                leaks.push(format!(
                    "{name}: a refused reset changed the device: {}",
                    text(&out)
                ));
            }
            continue;
        }
        audited += 1;
        planted += p.values.len();
        // A new owner sets the device up.
        let mut fresh = serde_json::Map::new();
        for key in ["device_type", "agent_runtime"] {
            if let Some(v) = base.get(key) {
                fresh.insert(key.into(), v.clone());
            }
        }
        fresh.insert("llm_config_mode".into(), "os".into());
        fresh.insert(
            "llm_api_key".into(),
            format!("sk-new-{}", p.alnum(32)).into(),
        );
        fresh.insert(
            "telegram_bot_token".into(),
            format!("999:BB{}", p.alnum(33)).into(),
        );
        fresh.insert("telegram_user_id".into(), "77".into());
        write(
            &root,
            "root/config/config.json",
            (serde_json::to_string_pretty(&Value::Object(fresh)).unwrap() + "\n").as_bytes(),
            0o600,
        );
        for rt in RUNTIMES {
            let _ = run(&root, &["presync", rt]);
        }
        // A value counts as left when a run of 12 of its characters (or the whole value, when
        // shorter) is in a file.
        let owner_values = Leaks::new(p.values.iter().map(|(_, v)| v.as_str()));
        for entry in walkdir::WalkDir::new(&root).into_iter().flatten() {
            if !entry.file_type().is_file() {
                continue;
            }
            scanned += 1;
            let bytes = std::fs::read(entry.path()).unwrap();
            if let Some((field, value)) = owner_values.first(&bytes).map(|i| &p.values[i]) {
                leaks.push(format!(
                    "{name}: {} still holds the previous owner's {field} ({value})",
                    entry.path().strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    figures(
        "reset-audit",
        &[
            ("trees", all.len().to_string()),
            ("audited", audited.to_string()),
            ("refused", refused.to_string()),
            ("planted", planted.to_string()),
            ("files_scanned", scanned.to_string()),
            ("leaks", leaks.len().to_string()),
        ],
    );
    if std::env::var("OSCTL_CASE").is_err() {
        assert!(audited > 50, "only {audited} trees audited");
    }
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}
