//! Secrets audit: distinct secret values are planted in every secret field a device can hold,
//! every golden case's command is run over the planted tree in several output modes, and no
//! planted value may show in any output, log or journal text; every file osctl writes that holds
//! one must be mode 0600.
//!
//! Plants, per case tree (each value distinct, random, in the field's own format):
//! - config.json (when it parses): the LLM key, every channel credential (Telegram, Slack bot
//!   and app tokens and signing secret, Discord, BlueBubbles password and caller context), the
//!   Claude subscription token, the remote-runtime and backend keys, the admin password hash,
//!   the session secret, and an `mcp_tools` entry with a bearer `Authorization`, an API-key
//!   header and a URL with credentials (user, password, `?token=`);
//! - bootstrap.json (when there is one): a `metadata_url` with credentials (user, password,
//!   `?sig=`);
//! - every `.env` file: two more secret variables and a database URL with credentials under a
//!   name that does not look secret;
//! - every runtime's MCP container file that exists (JSON, JSON5, YAML, TOML): a server with a
//!   bearer header, a secret env value and a URL with credentials (`?key=`); openclaw.json's
//!   gateway token.
//!
//! Besides the golden cases, [`extra_cases`] runs the paths they do not take, in every mode:
//! `mcp remove` of the planted server, `mcp list`, `mcp add` with URL credentials and a secret
//! header, `mcp add --env DATABASE_URL=postgres://u:pw@…`, the warning `mcp remove` gives for
//! a user tool, and `skills sync` with a metadata URL holding credentials (an error path).
//!
//! Each case's arguments run as they are and with `--json`, `--dry-run` and `-vv` (the error
//! cases of the golden suite are error paths already), plus malformed files that carry a secret
//! next to the syntax error. A leak is any 12-character run of a planted value in stdout,
//! stderr, a file under `/var/log`, or a journal manifest (masking keeps at most the first 3 and
//! last 4 characters). Each case is also aborted after its second write (the debug build's
//! `OSCTL_FAULT`), to audit the journal it leaves: its saved copies must be out of other users'
//! reach like every other file that osctl wrote and that holds a planted value (mode 0600, or
//! behind a 0700 folder).
//!
//! `OSCTL_CASE=<substring>` runs only the golden cases whose `<group>/<case>` contains it (and
//! the extra cases whose name does: `OSCTL_CASE=extra` runs only those).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::reliability_support::*;
use crate::support::leaks::Leaks;
use osctl::format::doc::Doc;
use serde_json::{Value, json};

/// A planted secret: where it went, and its value.
#[derive(Clone)]
struct Plant {
    field: String,
    value: String,
}

struct Planter {
    rng: Rng,
    plants: Vec<Plant>,
}

impl Planter {
    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
        (0..n)
            .map(|_| A[self.rng.below(A.len() as u64) as usize] as char)
            .collect()
    }

    /// A new distinct value for `field`, shaped like the real thing.
    fn value(&mut self, field: &str) -> String {
        let v = match field {
            "telegram_bot_token" => format!(
                "{}:AA{}",
                100_000_000 + self.rng.below(899_999_999),
                self.alnum(33)
            ),
            "slack_bot_token" => format!("xoxb-{}-{}", self.rng.below(1 << 40), self.alnum(24)),
            "slack_app_token" => format!("xapp-1-{}-{}", self.alnum(11), self.alnum(40)),
            "llm_api_key" => format!("sk-ant-api03-{}", self.alnum(40)),
            // A generated token (letters and digits) under a name that does not look secret.
            f if f.ends_with("X-Team") => {
                format!("tm{}x{}", self.rng.below(1 << 40), self.alnum(20))
            }
            _ => format!("pl{}", self.alnum(30)),
        };
        self.plants.push(Plant {
            field: field.to_string(),
            value: v.clone(),
        });
        v
    }
}

const CONFIG_FIELDS: &[&str] = &[
    "llm_api_key",
    "telegram_bot_token",
    "slack_bot_token",
    "slack_app_token",
    "slack_signing_secret",
    "discord_bot_token",
    "bluebubbles_password",
    "bluebubbles_caller_context",
    "claude_code_oauth_token",
    "agent_remote_token",
    "backend_api_key",
    "admin_password_hash",
    "session_secret",
];

fn read_text(root: &Path, rel: &str) -> Option<String> {
    std::fs::read(root.join(rel))
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
}

/// Rewrites a file keeping its mode.
fn rewrite(root: &Path, rel: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = root.join(rel);
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
    write(root, rel, text.as_bytes(), mode);
}

/// Plants secrets into every secret field of the tree at `root`.
fn plant(root: &Path, p: &mut Planter) {
    let config = "root/config/config.json";
    if let Some(text) = read_text(root, config)
        && let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(&text)
    {
        for f in CONFIG_FIELDS {
            let v = p.value(f);
            m.insert(f.to_string(), v.into());
        }
        let bearer = p.value("mcp_tools.headers.Authorization");
        let key = p.value("mcp_tools.headers.X-Api-Key");
        let url = url_with_credentials(p, "mcp_tools.url", "mcp.example.invalid/audit", "token");
        m.insert(
            "mcp_tools".into(),
            json!([{"name": "audit", "url": url,
                    "headers": {"Authorization": format!("Bearer {bearer}"), "X-Api-Key": key}}]),
        );
        let mut text = serde_json::to_string_pretty(&Value::Object(m)).unwrap();
        text.push('\n');
        rewrite(root, config, &text);
    }
    let bootstrap = "root/config/bootstrap.json";
    if let Some(text) = read_text(root, bootstrap)
        && let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(&text)
    {
        let url = url_with_credentials(
            p,
            "bootstrap.json:metadata_url",
            "cdn.example.invalid/os/ota/metadata.json",
            "sig",
        );
        m.insert("metadata_url".into(), url.into());
        rewrite(
            root,
            bootstrap,
            &(serde_json::to_string_pretty(&Value::Object(m)).unwrap() + "\n"),
        );
    }
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() && entry.file_name() == ".env" {
            let rel = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let Some(mut text) = read_text(root, &rel) else {
                continue;
            };
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            let a = p.value(&format!("{rel}:AUDIT_SERVICE_TOKEN"));
            let b = p.value(&format!("{rel}:AUDIT_DB_PASSWORD"));
            let db = url_with_credentials(
                p,
                &format!("{rel}:AUDIT_DATABASE_URL"),
                "db.example.invalid/app",
                "password",
            );
            let db = db.replacen("https://", "postgres://", 1);
            text.push_str(&format!(
                "AUDIT_SERVICE_TOKEN={a}\nAUDIT_DB_PASSWORD={b}\nAUDIT_DATABASE_URL={db}\n"
            ));
            rewrite(root, &rel, &text);
        }
    }
    let env = osctl::device::paths::DeviceEnv::new(false, |_| None);
    let layout = osctl::device::paths::Layout::new(&env, None);
    for rt in osctl::runtime::REGISTRY {
        let file = layout.path(rt.mcp.file).to_string();
        let rel = file.trim_start_matches('/');
        let Some(text) = read_text(root, rel) else {
            continue;
        };
        let Ok(mut doc) = Doc::parse(rt.mcp.format, &text, &file) else {
            continue;
        };
        let bearer = p.value(&format!("{file}:mcp headers.Authorization"));
        let env_value = p.value(&format!("{file}:mcp env.AUDIT_API_KEY"));
        let mut path: Vec<&str> = rt.mcp.path.to_vec();
        path.push("audit-plant");
        let url = url_with_credentials(
            p,
            &format!("{file}:mcp url"),
            "mcp.example.invalid/plant",
            "key",
        );
        // A token under a header name that does not look secret: only the pair rule knows it.
        let team = p.value(&format!("{file}:mcp headers.X-Team"));
        let entry = json!({"url": url,
                           "headers": {"Authorization": format!("Bearer {bearer}"), "X-Team": team},
                           "env": {"AUDIT_API_KEY": env_value}});
        if doc.merge(&path, entry).is_ok() {
            if rel.ends_with("openclaw.json") {
                let token = p.value("openclaw.json:gateway.auth.token");
                let _ = doc.set(&["gateway", "auth", "token"], token.into());
            }
            rewrite(root, rel, &doc.text());
        }
    }
}

/// `https://<user>:<password>@<host/path>?<param>=<value>`: three planted values a URL carries.
fn url_with_credentials(p: &mut Planter, field: &str, rest: &str, param: &str) -> String {
    let user = p.value(&format!("{field} user"));
    let password = p.value(&format!("{field} password"));
    let value = p.value(&format!("{field} ?{param}"));
    format!("https://{user}:{password}@{rest}?{param}={value}")
}

/// Commands aimed at the paths the golden cases do not take, run over a planted tree in every
/// output mode: `mcp remove` of the planted server (its headers, env and URL credentials are in
/// the diff), `mcp list`, `mcp add` with URL credentials, a credential query parameter and a
/// secret-looking header, `--env` with a database URL, the warning of `mcp remove` for a user
/// tool, and `skills sync` against a metadata URL with credentials (the error path). `{U}`,
/// `{P}`, `{K}`, `{H}` are replaced by values planted for the run.
fn extra_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let case = |name: String, tree: &str, args: Vec<String>| Case {
        name,
        args,
        env: Vec::new(),
        stdin: None,
        input: repo().join(tree),
    };
    let words = |w: &[&str]| -> Vec<String> { w.iter().map(|s| s.to_string()).collect() };
    for rt in [
        "openclaw",
        "hermes",
        "picoclaw",
        "codex",
        "claudecode",
        "opencode",
    ] {
        let tree = format!("examples/presync/{rt}");
        let base = ["--root", ".", "mcp"];
        for args in [
            vec!["remove", "audit-plant", "--runtime", rt],
            vec!["list", "--runtime", rt],
            vec![
                "add",
                "url-creds",
                "--runtime",
                rt,
                "--url",
                "https://{U}:{P}@mcp.example.invalid/x?key={K}",
                "--header",
                "X-Auth={H}",
            ],
            vec![
                "add",
                "env-creds",
                "--runtime",
                rt,
                "--env",
                "DATABASE_URL=postgres://{U}:{P}@db.example.invalid/app",
                "--",
                "srv",
            ],
        ] {
            let mut all = words(&base);
            all.extend(words(&args));
            out.push(case(format!("extra {rt} mcp {}", args[0]), &tree, all));
        }
    }
    out.push(case(
        "extra mcp remove of a user tool (a warning)".into(),
        "examples/device",
        words(&["--root", ".", "mcp", "remove", "tool_audit"]),
    ));
    out.push(case(
        "extra skills sync with URL credentials (an error)".into(),
        "examples/device",
        words(&["--root", ".", "skills", "sync", "--timeout", "2"]),
    ));
    out.push(case(
        "extra skills sync --metadata-url with credentials (an error)".into(),
        "examples/device",
        words(&[
            "--root",
            ".",
            "skills",
            "sync",
            "--timeout",
            "2",
            "--metadata-url",
            "https://{U}:{P}@cdn.example.invalid/os/ota/metadata.json?key={K}",
        ]),
    ));
    out
}

struct Case {
    name: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<String>,
    input: PathBuf,
}

fn cases() -> Vec<Case> {
    let filter = std::env::var("OSCTL_CASE").unwrap_or_default();
    let mut out = Vec::new();
    let base = repo().join("tests/cli");
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
        let name = dir
            .strip_prefix(&base)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if !name.contains(&filter) {
            continue;
        }
        let doc: toml_edit::DocumentMut = std::fs::read_to_string(dir.join("cmd.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let args = doc["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let env = doc
            .get("env")
            .and_then(|e| e.as_inline_table())
            .map(|t| {
                t.iter()
                    .map(|(k, v)| (k.to_string(), v.as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let stdin = doc
            .get("stdin")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        // Built whole when the case stores it as a delta (tests/it/support/golden_tree.rs).
        let input = crate::support::golden_tree::input_path(&dir).unwrap();
        out.push(Case {
            name,
            args,
            env,
            stdin,
            input,
        });
    }
    out
}

/// Malformed files that carry a secret right next to the syntax error (parse errors must not
/// quote it): (device, file, text with `{S}` for the secret).
const BROKEN: &[(&str, &str, &str)] = &[
    (
        "examples/presync/openclaw",
        "root/config/config.json",
        "{\n  \"agent_runtime\": \"openclaw\",\n  \"llm_api_key\": \"{S}\" \"{S}\"\n}\n",
    ),
    (
        "examples/presync/openclaw",
        "root/config/config.json",
        "{\n  \"llm_api_key\": {S}\n}\n",
    ),
    (
        "examples/presync/openclaw",
        "root/.openclaw/openclaw.json",
        "{\n  gateway: { auth: { token: \"{S}\" } } {S}\n}\n",
    ),
    (
        "examples/presync/openclaw",
        "root/.openclaw/openclaw.json",
        "{\n  gateway: { auth: { token: {S} } }\n}\n",
    ),
    (
        "examples/presync/hermes",
        "root/.hermes/config.yaml",
        "model:\n  api_key: {S}\n   bad: [{S}\n",
    ),
    (
        "examples/presync/hermes",
        "root/.hermes/.env",
        "OPENAI_API_KEY=\"{S}\n",
    ),
    ("examples/presync/hermes", "root/.hermes/.env", "{S}\n"),
    (
        "examples/presync/codex",
        "root/.codex/config.toml",
        "[mcp_servers.x]\nurl = \"https://x\"\nhttp_headers = { Authorization = \"Bearer {S}\" \n",
    ),
    (
        "examples/presync/codex",
        "root/.codex/config.toml",
        "api_key = {S}\n",
    ),
    (
        "examples/presync/picoclaw",
        "root/.picoclaw/.security.yml",
        "model_list:\n  - api_keys: [\"{S}\"\n",
    ),
    (
        "examples/presync/claudecode",
        "root/.claude/settings.json",
        "{\"env\": {\"ANTHROPIC_API_KEY\": \"{S}\"}} {S}\n",
    ),
];

const VARIANTS: &[&[&str]] = &[&[], &["--json"], &["--dry-run"], &["-vv"]];

#[derive(Default)]
struct Audit {
    runs: usize,
    plants: usize,
    fields: std::collections::BTreeSet<String>,
    outputs_scanned: usize,
    extra_runs: usize,
    files_checked: usize,
    leaks: Vec<String>,
}

fn run(root: &Path, args: &[String], extra: &[&str], case: &Case, fault: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osctl"));
    cmd.current_dir(root)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .env("OSCTL_TEST_NOW", TEST_NOW)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if case.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    for (k, v) in &case.env {
        cmd.env(k, v);
    }
    if let Some(f) = fault {
        cmd.env("OSCTL_FAULT", f);
    }
    cmd.args(extra).args(args);
    let mut child = cmd.spawn().unwrap();
    if let Some(s) = &case.stdin {
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(s.as_bytes());
    }
    child.wait_with_output().unwrap()
}

/// Checks one run: its outputs, the logs and journal text it left, and the modes of the files
/// it wrote that hold a secret.
fn audit(what: &str, out: &Output, root: &Path, before: &Tree, plants: &[Plant], a: &mut Audit) {
    a.runs += 1;
    // A plant shows when a run of 12 of its characters (or the whole value, when shorter) does.
    let planted = Leaks::new(plants.iter().map(|p| p.value.as_str()));
    let leak = |bytes: &[u8]| planted.first(bytes).map(|i| &plants[i]);
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        a.outputs_scanned += 1;
        if let Some(p) = leak(bytes) {
            a.leaks.push(format!(
                "{what}: {stream} shows {} ({}): {}",
                p.field,
                p.value,
                String::from_utf8_lossy(bytes)
            ));
        }
    }
    let after = snapshot_with(root, &|rel| rel == "var/lib/osctl/lock");
    for (rel, node) in &after {
        let Node::File(bytes, mode) = node else {
            continue;
        };
        let is_log = rel.starts_with("var/log/");
        let is_journal_text =
            rel.starts_with("var/lib/osctl/journal/") && rel.ends_with("/manifest.json");
        if is_log || is_journal_text {
            a.files_checked += 1;
            if let Some(p) = leak(bytes) {
                a.leaks.push(format!("{what}: {rel} holds {}", p.field));
            }
        }
        let written = before.get(rel) != Some(node);
        if written && let Some(p) = leak(bytes) {
            a.files_checked += 1;
            if exposed(root, rel, *mode) {
                a.leaks.push(format!(
                    "{what}: {rel} holds {} with mode {mode:o}",
                    p.field
                ));
            }
        }
    }
}

/// Whether a user other than the owner can read the file: its group or other read bit is set
/// and every folder above it (under the root) lets them through.
fn exposed(root: &Path, rel: &str, mode: u32) -> bool {
    use std::os::unix::fs::PermissionsExt;
    if mode & 0o044 == 0 {
        return false;
    }
    let mut dir = Path::new(rel).parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        let m = std::fs::metadata(root.join(d))
            .unwrap()
            .permissions()
            .mode();
        if m & 0o011 == 0 {
            return false;
        }
        dir = d.parent();
    }
    true
}

#[test]
fn no_planted_secret_shows_and_secret_files_are_0600() {
    let scratch = sandbox();
    let seed = seed();
    eprintln!("secrets audit seed {seed}");
    let mut planter = Planter {
        rng: Rng(seed),
        plants: Vec::new(),
    };
    let mut a = Audit::default();
    let root = scratch.path().join("device");
    let all = cases();
    for case in &all {
        for (i, extra) in VARIANTS.iter().map(|v| Some(*v)).chain([None]).enumerate() {
            let _ = std::fs::remove_dir_all(&root);
            copy_tree(&case.input, &root);
            planter.plants.clear();
            plant(&root, &mut planter);
            let plants = planter.plants.clone();
            if i == 0 {
                a.plants += plants.len();
                a.fields.extend(plants.iter().map(|p| {
                    p.field
                        .rsplit([':', '/'])
                        .next()
                        .unwrap_or(&p.field)
                        .to_string()
                }));
            }
            let before = snapshot_with(&root, &|rel| rel == "var/lib/osctl/lock");
            let (out, what) = match extra {
                Some(extra) => (
                    run(&root, &case.args, extra, case, None),
                    format!("{} {extra:?}", case.name),
                ),
                // The journal a power cut leaves mid-apply (cases that write nothing leave none).
                None => (
                    run(&root, &case.args, &[], case, Some("abort-write:2")),
                    format!("{} aborted", case.name),
                ),
            };
            audit(&what, &out, &root, &before, &plants, &mut a);
        }
    }
    let filter = std::env::var("OSCTL_CASE").unwrap_or_default();
    {
        for case in extra_cases()
            .into_iter()
            .filter(|c| c.name.contains(&filter))
        {
            for extra in VARIANTS {
                let _ = std::fs::remove_dir_all(&root);
                copy_tree(&case.input, &root);
                planter.plants.clear();
                plant(&root, &mut planter);
                let mut args = case.args.clone();
                for (mark, field) in [
                    ("{U}", "arg user"),
                    ("{P}", "arg password"),
                    ("{K}", "arg ?key"),
                    ("{H}", "arg X-Auth"),
                ] {
                    if args.iter().any(|a| a.contains(mark)) {
                        let v = planter.value(field);
                        for a in &mut args {
                            *a = a.replace(mark, &v);
                        }
                    }
                }
                let plants = planter.plants.clone();
                a.plants += plants.len();
                let before = snapshot_with(&root, &|rel| rel == "var/lib/osctl/lock");
                let out = run(&root, &args, extra, &case, None);
                let what = format!("{} {extra:?}", case.name);
                audit(&what, &out, &root, &before, &plants, &mut a);
                a.extra_runs += 1;
            }
        }
    }
    if std::env::var("OSCTL_CASE").is_err() {
        for (device, file, text) in BROKEN {
            let empty = Case {
                name: format!("broken {file}"),
                args: vec!["--root".into(), ".".into(), "presync".into()],
                env: Vec::new(),
                stdin: None,
                input: repo().join(device),
            };
            for extra in VARIANTS {
                let _ = std::fs::remove_dir_all(&root);
                copy_tree(&empty.input, &root);
                planter.plants.clear();
                plant(&root, &mut planter);
                let secret = planter.value(&format!("{file} (malformed)"));
                write(&root, file, text.replace("{S}", &secret).as_bytes(), 0o600);
                let plants = planter.plants.clone();
                a.plants += 1;
                let before = snapshot_with(&root, &|rel| rel == "var/lib/osctl/lock");
                let out = run(&root, &empty.args, extra, &empty, None);
                let what = format!("{} {extra:?}", empty.name);
                if out.status.code() != Some(1) {
                    a.leaks.push(format!(
                        "{what}: not refused as bad input: {}",
                        text_of(&out)
                    ));
                }
                audit(&what, &out, &root, &before, &plants, &mut a);
            }
        }
    }
    figures(
        "secrets",
        &[
            ("cases", all.len().to_string()),
            ("runs", a.runs.to_string()),
            ("planted", a.plants.to_string()),
            ("fields", a.fields.len().to_string()),
            ("outputs_scanned", a.outputs_scanned.to_string()),
            ("extra_runs", a.extra_runs.to_string()),
            ("files_checked", a.files_checked.to_string()),
            ("leaks", a.leaks.len().to_string()),
        ],
    );
    assert!(a.runs > 0, "no case matched");
    assert!(
        a.leaks.is_empty(),
        "{} leaks:\n{}",
        a.leaks.len(),
        a.leaks
            .iter()
            .map(|l| l.chars().take(1500).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn text_of(out: &Output) -> String {
    text(out).chars().take(800).collect()
}
