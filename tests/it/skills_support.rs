//! Test support for `skills` tests: a real HTTP server on 127.0.0.1 (std `TcpListener`, a thread
//! per connection), deterministic skill zips built the way upstream's release script builds them
//! (sorted entries, 1980-01-01 timestamps, mode 0644, deflate), signed metadata envelopes, and a
//! small device tree.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// What the server answers for a path.
#[derive(Clone, Debug)]
pub enum Reply {
    Ok(Vec<u8>),
    Status(u16),
    /// Promises `Content-Length: claimed`, sends `body`, closes.
    Truncated {
        body: Vec<u8>,
        claimed: usize,
    },
    /// Sends headers and a few bytes, then goes silent for `secs`.
    Stall {
        secs: u64,
    },
    /// Promises `len` bytes and sends them one at a time, one every `every_ms`: never silent,
    /// never done (a slow or hostile CDN).
    Trickle {
        len: usize,
        every_ms: u64,
    },
}

#[derive(Clone, Default)]
pub struct Server {
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    log: Arc<Mutex<Vec<String>>>,
    pub base: String,
}

impl Server {
    /// Starts serving on an ephemeral loopback port.
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let server = Server {
            base,
            ..Default::default()
        };
        let s = server.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let s = s.clone();
                std::thread::spawn(move || s.handle(stream));
            }
        });
        server
    }

    fn handle(&self, mut stream: TcpStream) {
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => req.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&req);
        let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
        self.log.lock().unwrap().push(path.clone());
        let reply = self
            .routes
            .lock()
            .unwrap()
            .get(&path)
            .cloned()
            .unwrap_or(Reply::Status(404));
        let head = |status: &str, len: usize| {
            format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n")
        };
        match reply {
            Reply::Ok(body) => {
                let _ = stream.write_all(head("200 OK", body.len()).as_bytes());
                let _ = stream.write_all(&body);
            }
            Reply::Status(code) => {
                let _ = stream.write_all(head(&format!("{code} Status"), 0).as_bytes());
            }
            Reply::Truncated { body, claimed } => {
                let _ = stream.write_all(head("200 OK", claimed).as_bytes());
                let _ = stream.write_all(&body);
            }
            Reply::Stall { secs } => {
                let _ = stream.write_all(head("200 OK", 1000).as_bytes());
                let _ = stream.write_all(b"PK");
                let _ = stream.flush();
                std::thread::sleep(Duration::from_secs(secs));
            }
            Reply::Trickle { len, every_ms } => {
                let _ = stream.write_all(head("200 OK", len).as_bytes());
                for _ in 0..len {
                    if stream
                        .write_all(b"P")
                        .and_then(|()| stream.flush())
                        .is_err()
                    {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(every_ms));
                }
            }
        }
        let _ = stream.flush();
    }

    pub fn set(&self, path: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(path.to_string(), reply);
    }

    /// What the server answers for `path` now.
    pub fn reply(&self, path: &str) -> Option<Reply> {
        self.routes.lock().unwrap().get(path).cloned()
    }

    /// The paths requested so far, without forgetting them.
    pub fn requested(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// The paths requested so far (and forgets them).
    pub fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }

    pub fn metadata_url(&self) -> String {
        format!("{}/os/ota/metadata.json", self.base)
    }
}

/// A deterministic skill zip of `files` (path → bytes), as upstream's `upload-skills.sh` builds it.
pub fn skill_zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(files, None)
}

/// The same files stored uncompressed: other zip bytes (another version), the same unpacked
/// content.
pub fn skill_zip_stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(files, Some(zip::CompressionMethod::Stored))
}

fn zip_with(files: &[(&str, &[u8])], method: Option<zip::CompressionMethod>) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut sorted: Vec<_> = files.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default()
        .compression_method(method.unwrap_or(zip::CompressionMethod::Deflated))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    for (name, bytes) in sorted {
        w.start_file(name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A zip with one symlink entry.
pub fn symlink_zip() -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().last_modified_time(zip::DateTime::default());
    w.start_file("SKILL.md", opts).unwrap();
    w.write_all(b"# evil\n").unwrap();
    w.add_symlink("data", "/etc/shadow", opts).unwrap();
    w.finish().unwrap().into_inner()
}

/// A zip bomb: `copies` entries of 1 MiB of zeros each, the compressed entry copied raw so the
/// test never deflates more than 1 MiB.
pub fn bomb_zip(copies: usize) -> Vec<u8> {
    let one = skill_zip(&[("zeros", &vec![0u8; 1 << 20])]);
    let mut src = zip::ZipArchive::new(std::io::Cursor::new(one)).unwrap();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.start_file(
        "SKILL.md",
        zip::write::SimpleFileOptions::default().last_modified_time(zip::DateTime::default()),
    )
    .unwrap();
    w.write_all(b"# bomb\n").unwrap();
    for i in 0..copies {
        let f = src.by_index_raw(0).unwrap();
        w.raw_copy_file_rename(f, format!("z/{i:04}")).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The version of a zip: the first 12 hex characters of its sha256.
pub fn version_of(zip: &[u8]) -> String {
    hex::encode(Sha256::digest(zip))[..12].to_string()
}

/// The signing key of these tests, and its public half as bootstrap.json holds it.
pub fn test_key() -> SigningKey {
    SigningKey::from_bytes(&[42u8; 32])
}

pub fn public_key_b64(k: &SigningKey) -> String {
    STANDARD.encode(k.verifying_key().to_bytes())
}

/// A metadata document listing `skills` (name → version).
pub fn metadata(skills: &BTreeMap<String, String>) -> Value {
    let entries: serde_json::Map<String, Value> = skills
        .iter()
        .map(|(n, v)| {
            (
                n.clone(),
                json!({"version": v, "updated_at": "2026-01-01 00:00:00 +0000"}),
            )
        })
        .collect();
    json!({"os-server": {"version": "1.2.3"}, "skills": entries})
}

/// The sha256 of bytes, in hex.
pub fn sha256_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The hybrid signed feed upstream publishes: payload keys at the top level plus `signed`. A
/// payload without a `sequence` is given `"sequence": 1` (osctl refuses a signed payload
/// without one).
pub fn signed_envelope(payload: &Value, key: &SigningKey) -> Vec<u8> {
    let mut payload = payload.clone();
    if payload.get("sequence").is_none() {
        payload["sequence"] = 1.into();
    }
    let payload = &payload;
    let bytes = serde_json::to_vec_pretty(payload).unwrap();
    let sig = key.sign(&bytes);
    let mut doc = payload.clone();
    doc["signed"] = json!({
        "format": "autonomous-ota/v1",
        "payload": STANDARD.encode(&bytes),
        "signature": {"algorithm": "ed25519", "key_id": "test-key", "value": STANDARD.encode(sig.to_bytes())}
    });
    serde_json::to_vec_pretty(&doc).unwrap()
}

/// A device tree: openclaw active, a lamp with `caps`, bootstrap.json pointing at `server`.
pub struct Device {
    pub dir: tempfile::TempDir,
}

pub const OPENCLAW_JSON: &str =
    "{\n  // the owner's gateway\n  \"gateway\": {\"port\": 18789}\n}\n";

impl Device {
    pub fn new(server: &Server, caps: &[&str], signing_key: Option<&str>) -> Device {
        let dir = tempfile::tempdir().unwrap();
        let d = Device { dir };
        d.write(
            "root/config/config.json",
            "{\"agent_runtime\": \"openclaw\", \"device_type\": \"lamp\"}\n",
        );
        let mut bootstrap = json!({"metadata_url": server.metadata_url()});
        if let Some(k) = signing_key {
            bootstrap["signing_public_key"] = k.into();
        }
        d.write(
            "root/config/bootstrap.json",
            &serde_json::to_string_pretty(&bootstrap).unwrap(),
        );
        let mut robot = String::from("---\nname: Lamp\ncapabilities:\n");
        for c in caps {
            robot.push_str(&format!("  {c}: yes\n"));
        }
        robot.push_str("---\n# Lamp\n");
        d.write("opt/devices/lamp/ROBOT.md", &robot);
        d.write("root/.openclaw/openclaw.json", OPENCLAW_JSON);
        d
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel)).ok()
    }

    /// Starts osctl on this device with umask 000 (so a folder osctl does not chmod itself shows
    /// as world-writable), its output piped.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        Command::new("sh")
            .arg("-c")
            .arg("umask 000; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(self.root())
            .args(args)
            .env_remove("OSCTL_FAULT")
            .env("NO_COLOR", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs osctl on this device.
    pub fn osctl(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(self.root())
            .args(args)
            .env_remove("OSCTL_FAULT")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }

    /// Every file under `rel` with its bytes and mode (folders with their mode), for
    /// byte-identical comparisons.
    pub fn snapshot(&self, rel: &str) -> BTreeMap<String, (Option<Vec<u8>>, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let base = self.path(rel);
        if !base.exists() {
            return BTreeMap::new();
        }
        walkdir::WalkDir::new(&base)
            .into_iter()
            .map(|e| e.unwrap())
            .map(|e| {
                let rel = e.path().strip_prefix(&base).unwrap().display().to_string();
                let meta = std::fs::symlink_metadata(e.path()).unwrap();
                let content = meta.is_file().then(|| std::fs::read(e.path()).unwrap());
                (rel, (content, meta.permissions().mode() & 0o7777))
            })
            .collect()
    }
}

/// Polls `cond` every 20 ms until it holds; panics naming `what` after 60 s.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !cond() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `--json` document of a run.
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A skills CDN on loopback: metadata, zips and hooks under `/os/…`, as upstream lays it out.
/// Signed, its payload carries what osctl requires of a signed feed: a `sequence` (one more at
/// every refresh), each zip's whole `sha256`, and each hook's file hashes.
pub struct Cdn {
    pub server: Server,
    pub versions: BTreeMap<String, String>,
    /// The whole sha256 the signed payload gives for each skill.
    pub sha256s: BTreeMap<String, String>,
    /// Hook name → (file → sha256) in the signed payload.
    pub hook_hashes: BTreeMap<String, BTreeMap<String, String>>,
    /// Signs the metadata when set.
    pub key: Option<SigningKey>,
    /// The sequence of the next signed document.
    pub sequence: std::cell::Cell<u64>,
}

impl Cdn {
    pub fn new(signed: bool) -> Cdn {
        let cdn = Cdn {
            server: Server::start(),
            versions: BTreeMap::new(),
            sha256s: BTreeMap::new(),
            hook_hashes: BTreeMap::new(),
            key: signed.then(test_key),
            sequence: std::cell::Cell::new(1),
        };
        cdn.refresh();
        cdn
    }

    /// Publishes a skill built from `files`; returns its version.
    pub fn publish(&mut self, name: &str, files: &[(&str, &[u8])]) -> String {
        let zip = skill_zip(files);
        let version = version_of(&zip);
        self.publish_raw(name, zip, &version);
        version
    }

    /// Serves `zip` for `name` and lists it under `version` (which need not match).
    pub fn publish_raw(&mut self, name: &str, zip: Vec<u8>, version: &str) {
        self.sha256s.insert(name.to_string(), sha256_of(&zip));
        self.server
            .set(&format!("/os/skills/{name}.zip"), Reply::Ok(zip));
        self.versions.insert(name.to_string(), version.to_string());
        self.refresh();
    }

    /// Lists `name` under `version` and answers its zip with `reply` (the signed sha256 is that of
    /// the served bytes when there are any, else `version` padded with zeros).
    pub fn publish_reply(&mut self, name: &str, reply: Reply, version: &str) {
        let sha = match &reply {
            Reply::Ok(z) => sha256_of(z),
            _ => format!("{version:0<64}"),
        };
        self.sha256s.insert(name.to_string(), sha);
        self.server.set(&format!("/os/skills/{name}.zip"), reply);
        self.versions.insert(name.to_string(), version.to_string());
        self.refresh();
    }

    /// The payload the CDN publishes now (signed feeds: with its sequence and hashes).
    pub fn payload(&self) -> Value {
        let mut doc = metadata(&self.versions);
        if self.key.is_some() {
            for (name, sha) in &self.sha256s {
                if let Some(entry) = doc["skills"].get_mut(name) {
                    entry["sha256"] = sha.clone().into();
                }
            }
            let hooks: serde_json::Map<String, Value> = self
                .hook_hashes
                .iter()
                .map(|(n, files)| (n.clone(), json!({ "files": files })))
                .collect();
            doc["hooks"] = hooks.into();
            doc["sequence"] = self.sequence.get().into();
        }
        doc
    }

    /// Publishes the metadata again (a signed one with the next sequence).
    pub fn refresh(&self) {
        let doc = self.payload();
        let body = match &self.key {
            Some(k) => {
                self.sequence.set(self.sequence.get() + 1);
                signed_envelope(&doc, k)
            }
            None => serde_json::to_vec_pretty(&doc).unwrap(),
        };
        self.server.set("/os/ota/metadata.json", Reply::Ok(body));
    }

    /// Serves a hook's two files (and lists their hashes in a signed payload).
    pub fn hook(&mut self, name: &str, hook_md: &str, handler: &str) {
        let mut files = BTreeMap::new();
        files.insert("HOOK.md".to_string(), sha256_of(hook_md.as_bytes()));
        files.insert("handler.ts".to_string(), sha256_of(handler.as_bytes()));
        self.hook_hashes.insert(name.to_string(), files);
        self.refresh();
        self.server.set(
            &format!("/os/hooks/{name}/HOOK.md"),
            Reply::Ok(hook_md.as_bytes().to_vec()),
        );
        self.server.set(
            &format!("/os/hooks/{name}/handler.ts"),
            Reply::Ok(handler.as_bytes().to_vec()),
        );
    }

    /// Serves other bytes for a hook file than the payload lists (a tampered mirror).
    pub fn serve_hook_file(&self, name: &str, file: &str, bytes: &str) {
        self.server.set(
            &format!("/os/hooks/{name}/{file}"),
            Reply::Ok(bytes.as_bytes().to_vec()),
        );
    }

    pub fn zip_requests(&self) -> Vec<String> {
        self.server
            .take_log()
            .into_iter()
            .filter(|p| p.ends_with(".zip"))
            .collect()
    }
}
