//! The skills list in the OTA metadata document, and its ed25519 signature (docs/device-contract.md
//! §7.1, §10 item 4).
//!
//! The document is a JSON object whose `skills` key maps a skill name to
//! `{"version": "<12 hex>", "updated_at": "…"}`. A signed feed adds an `autonomous-ota/v1`
//! envelope: `"signed": {"format", "payload": <base64 JSON>, "signature": {"algorithm":
//! "ed25519", "key_id", "value": <base64>}}` (or the whole document is that envelope).
//!
//! **What is signed**, as upstream's OTA worker verifies it (`verifyOTAMetadata`): the ed25519
//! signature covers the bytes of the base64-**decoded** `payload`, nothing else. The release
//! script signs the payload file with `openssl pkeyutl -sign -rawin` and copies the payload's
//! keys to the top level for old workers.
//!
//! When `bootstrap.json` has a `signing_public_key`, osctl reads everything **only from the
//! verified payload** (the top-level copy is unauthenticated, so it is ignored; a warning says so
//! when it disagrees), and a signature alone is not enough: upstream's signature proves where a
//! document came from, not that it is complete or current. So the payload must also carry
//!
//! - `"sequence": <integer>`, which the caller compares with the highest it accepted before (an
//!   older signed document with its old zips is a downgrade; [`Metadata::sequence`]);
//! - for each skill, `"sha256"`: the whole sha256 of its zip (the 12-character `version` is a
//!   48-bit prefix, short enough to be matched by brute force);
//! - `"hooks": {"<name>": {"files": {"HOOK.md": "<sha256>", "handler.ts": "<sha256>"}}}`: the
//!   hooks are code the agent runs, so each file is checked before it is installed.
//!
//! An unsigned document, an unknown format or algorithm, bad base64, a signature that does not
//! verify, or a signed payload without a sequence is refused and nothing is installed. Without a
//! key, osctl does what upstream's skill fetcher does: it reads the top-level `skills` and
//! ignores the envelope (falling back to the payload when only the envelope carries a skills
//! list), and nothing beyond the version prefix is checked.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

pub const ENVELOPE_FORMAT: &str = "autonomous-ota/v1";

/// What the metadata says about one skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listed {
    /// A usable entry: the version to install.
    Skill(Wanted),
    /// An entry osctl will not act on (a name that is not a safe folder name, a version that is
    /// not a sha256 prefix), with the reason.
    Invalid(String),
}

/// A skill version to install.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    /// A prefix of the zip's sha256 (upstream: 12 hex characters), recorded as the version.
    pub version: String,
    /// The zip's whole sha256: required when the document is signed, ignored when it is not.
    pub sha256: Option<String>,
}

/// The files of one hook and their sha256 (signed documents only).
pub type HookFiles = BTreeMap<String, String>;

/// How the document was authenticated.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Trust {
    /// The signature over the payload verified with the device's key.
    Verified { key_id: Option<String> },
    /// The device has no signing key: the document was taken as served.
    NoKey,
}

#[derive(Clone, Debug)]
pub struct Metadata {
    pub skills: BTreeMap<String, Listed>,
    pub trust: Trust,
    /// The signed document's place in its signer's sequence, and the sha256 of the signed
    /// payload (to tell two documents of one sequence number apart); `None` unsigned.
    pub sequence: Option<Sequence>,
    /// The hooks the signed payload vouches for (`Err`: an entry osctl cannot use, with why);
    /// `None` when the document is not signed (the hooks are then taken as served, as upstream).
    pub hooks: Option<BTreeMap<String, std::result::Result<HookFiles, String>>>,
    pub warnings: Vec<String>,
}

/// Where a signed document stands in its feed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sequence {
    pub sequence: u64,
    pub payload_sha256: String,
}

/// The CDN base of a metadata URL: `<cdn>/ota/metadata.json` → `<cdn>` (upstream `otaBaseURL`).
pub fn cdn_base(metadata_url: &str) -> String {
    let url = metadata_url.trim();
    url.strip_suffix("/ota/metadata.json")
        .unwrap_or(url)
        .trim_end_matches('/')
        .to_string()
}

/// Whether `name` is safe as one folder name under a skills folder.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

/// Whether `hex` is a whole sha256 (64 lowercase hex characters).
pub fn valid_sha256(hex: &str) -> bool {
    hex.len() == 64
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `version` can be a prefix of a sha256 (12 to 64 lowercase hex characters).
pub fn valid_version(version: &str) -> bool {
    (12..=64).contains(&version.len())
        && version
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses the document served at `url`, verifying it when `key` (base64 ed25519) is given.
pub fn parse(body: &[u8], url: &str, key: Option<&str>) -> Result<Metadata> {
    let bad = |what: &str| {
        Error::input(
            "bad_metadata",
            format!("the skills metadata at {url} {what}"),
        )
    };
    let doc: Value =
        serde_json::from_slice(body).map_err(|e| bad("is not valid JSON").cause(e.to_string()))?;
    let Value::Object(top) = doc else {
        return Err(bad("is not a JSON object"));
    };
    let mut warnings = Vec::new();
    let mut sequence = None;
    let (source, trust) = match key {
        Some(key) => {
            let (payload, payload_bytes) = verify(&top, url, key)?;
            sequence = Some(Sequence {
                sequence: signed_sequence(&payload, url)?,
                payload_sha256: hex::encode(Sha256::digest(&payload_bytes)),
            });
            let key_id = envelope(&top)
                .and_then(|e| e.get("signature"))
                .and_then(|s| s.get("key_id"))
                .and_then(Value::as_str)
                .map(str::to_string);
            if let Some(outer) = top.get("skills")
                && payload.get("skills") != Some(outer)
            {
                warnings.push(format!(
                    "the unsigned top-level skills list at {url} differs from the signed payload; osctl uses the signed one"
                ));
            }
            (payload, Trust::Verified { key_id })
        }
        None => {
            let source = match (top.contains_key("skills"), decode_payload(&top)) {
                (false, Some(Ok(payload))) => payload,
                _ => Value::Object(top.clone()),
            };
            (source, Trust::NoKey)
        }
    };
    let signed = sequence.is_some();
    let skills = match source.get("skills") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, entry)| (name.clone(), listed(name, entry, signed)))
            .collect(),
        Some(_) => return Err(bad("has a `skills` value that is not an object")),
    };
    let hooks = if signed {
        Some(match source.get("hooks") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(name, entry)| (name.clone(), hook_files(entry)))
                .collect(),
            Some(_) => return Err(bad("has a signed `hooks` value that is not an object")),
        })
    } else {
        None
    };
    Ok(Metadata {
        skills,
        trust,
        sequence,
        hooks,
        warnings,
    })
}

/// The signed payload's `sequence`: required, a non-negative integer.
fn signed_sequence(payload: &Value, url: &str) -> Result<u64> {
    match payload.get("sequence") {
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or_default()),
        Some(other) => Err(Error::input(
            "metadata_no_sequence",
            format!("refused the skills metadata at {url}: its signed `sequence` is {other}, not a non-negative integer"),
        )
        .hint("the release script must sign a payload with an integer `sequence` that grows with every release (docs/book/src/skills.md); nothing was installed")),
        None => Err(Error::input(
            "metadata_no_sequence",
            format!("refused the skills metadata at {url}: the signed payload has no `sequence`, so osctl cannot tell it from an older document"),
        )
        .hint("the release script must sign a payload with an integer `sequence` that grows with every release (docs/book/src/skills.md); nothing was installed")),
    }
}

fn listed(name: &str, entry: &Value, signed: bool) -> Listed {
    if !valid_name(name) {
        return Listed::Invalid(format!("`{name}` is not a safe skill folder name"));
    }
    let version = match entry.get("version").and_then(Value::as_str).map(str::trim) {
        Some(v) if valid_version(&v.to_ascii_lowercase()) => v.to_ascii_lowercase(),
        Some(v) => {
            return Listed::Invalid(format!(
                "version `{v}` is not a sha256 prefix (12 to 64 hex characters)"
            ));
        }
        None => return Listed::Invalid("the entry has no version".into()),
    };
    if !signed {
        return Listed::Skill(Wanted {
            version,
            sha256: None,
        });
    }
    match entry.get("sha256").and_then(Value::as_str).map(str::trim) {
        Some(h) if valid_sha256(&h.to_ascii_lowercase()) => {
            let h = h.to_ascii_lowercase();
            if !h.starts_with(&version) {
                return Listed::Invalid(format!(
                    "its signed sha256 does not begin with its version `{version}`"
                ));
            }
            Listed::Skill(Wanted {
                version,
                sha256: Some(h),
            })
        }
        Some(_) => Listed::Invalid("its signed `sha256` is not 64 hex characters".into()),
        None => {
            Listed::Invalid("the signed entry has no `sha256` (the whole sha256 of its zip)".into())
        }
    }
}

/// `{"files": {"HOOK.md": "<sha256>", "handler.ts": "<sha256>"}}`.
fn hook_files(entry: &Value) -> std::result::Result<HookFiles, String> {
    let Some(Value::Object(files)) = entry.get("files") else {
        return Err("the signed entry has no `files` object".into());
    };
    let mut out = BTreeMap::new();
    for (file, hash) in files {
        match hash.as_str().map(|h| h.trim().to_ascii_lowercase()) {
            Some(h) if valid_sha256(&h) => {
                out.insert(file.clone(), h);
            }
            _ => {
                return Err(format!(
                    "the signed sha256 of `{file}` is not 64 hex characters"
                ));
            }
        }
    }
    Ok(out)
}

/// The envelope: `signed` when present, else the document itself when it looks like one.
fn envelope(top: &Map<String, Value>) -> Option<&Map<String, Value>> {
    match top.get("signed") {
        Some(Value::Object(e)) => Some(e),
        Some(_) => None,
        None if top.contains_key("payload") && top.contains_key("signature") => Some(top),
        None => None,
    }
}

fn decode_payload(top: &Map<String, Value>) -> Option<std::result::Result<Value, String>> {
    let payload = envelope(top)?.get("payload")?.as_str()?;
    Some(
        STANDARD
            .decode(payload.trim())
            .map_err(|e| e.to_string())
            .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string())),
    )
}

/// Verifies the envelope and returns the decoded payload document and its bytes.
fn verify(top: &Map<String, Value>, url: &str, key: &str) -> Result<(Value, Vec<u8>)> {
    let key = decode_key(key)?;
    let unsigned = |why: String| {
        Error::input("metadata_unsigned", format!("refused the skills metadata at {url}: {why}"))
            .hint("bootstrap.json has a signing_public_key, so only metadata signed with it is accepted; nothing was installed")
    };
    let bad_sig = |why: String| {
        Error::input("metadata_bad_signature", format!("refused the skills metadata at {url}: {why}"))
            .hint("the document was not signed by the key in bootstrap.json (or was changed after signing); nothing was installed")
    };
    let Some(env) = envelope(top) else {
        return Err(unsigned(format!(
            "it is not signed (no `{ENVELOPE_FORMAT}` envelope)"
        )));
    };
    let format = env.get("format").and_then(Value::as_str).unwrap_or("");
    if format != ENVELOPE_FORMAT {
        return Err(unsigned(format!("unsupported envelope format `{format}`")));
    }
    let sig = env.get("signature");
    let algorithm = sig
        .and_then(|s| s.get("algorithm"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if algorithm != "ed25519" {
        return Err(unsigned(format!(
            "unsupported signature algorithm `{algorithm}`"
        )));
    }
    let payload_b64 = env
        .get("payload")
        .and_then(Value::as_str)
        .ok_or_else(|| unsigned("the envelope has no payload string".into()))?;
    let payload = STANDARD
        .decode(payload_b64.trim())
        .map_err(|e| bad_sig(format!("the payload is not base64 ({e})")))?;
    let value = sig
        .and_then(|s| s.get("value"))
        .and_then(Value::as_str)
        .ok_or_else(|| unsigned("the envelope has no signature value".into()))?;
    let sig_bytes = STANDARD
        .decode(value.trim())
        .map_err(|e| bad_sig(format!("the signature is not base64 ({e})")))?;
    let signature = Signature::from_slice(&sig_bytes).map_err(|_| {
        bad_sig(format!(
            "the signature is {} bytes, not 64",
            sig_bytes.len()
        ))
    })?;
    key.verify_strict(&payload, &signature)
        .map_err(|_| bad_sig("the ed25519 signature does not verify".into()))?;
    let doc: Value = serde_json::from_slice(&payload)
        .map_err(|e| bad_sig(format!("the signed payload is not JSON ({e})")))?;
    if !doc.is_object() {
        return Err(bad_sig("the signed payload is not a JSON object".into()));
    }
    Ok((doc, payload))
}

/// The device's verifying key (base64 of 32 raw bytes, as bootstrap.json holds it).
fn decode_key(key: &str) -> Result<VerifyingKey> {
    let bad = |why: String| {
        Error::input(
            "bad_signing_key",
            format!("bootstrap.json signing_public_key is not usable: {why}"),
        )
        .hint("it must be the base64 of a raw 32-byte ed25519 public key; nothing was installed")
    };
    let bytes = STANDARD
        .decode(key.trim())
        .map_err(|e| bad(format!("not base64 ({e})")))?;
    let arr: [u8; 32] = bytes
        .as_slice()
        .try_into()
        .map_err(|_| bad(format!("{} bytes, not 32", bytes.len())))?;
    VerifyingKey::from_bytes(&arr).map_err(|_| bad("not a valid ed25519 point".into()))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};
    use serde_json::json;

    fn key() -> SigningKey {
        SigningKey::from_bytes(&[7u8; 32])
    }

    fn public_b64(k: &SigningKey) -> String {
        STANDARD.encode(k.verifying_key().to_bytes())
    }

    fn signed(payload: &Value, k: &SigningKey, top_skills: Option<Value>) -> Vec<u8> {
        let bytes = serde_json::to_vec_pretty(payload).unwrap();
        let sig = k.sign(&bytes);
        let mut doc = json!({
            "signed": {
                "format": ENVELOPE_FORMAT,
                "payload": STANDARD.encode(&bytes),
                "signature": {"algorithm": "ed25519", "key_id": "test", "value": STANDARD.encode(sig.to_bytes())}
            }
        });
        if let Some(s) = top_skills {
            doc["skills"] = s;
        }
        serde_json::to_vec(&doc).unwrap()
    }

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn wanted(v: &str, sha256: Option<&str>) -> Listed {
        Listed::Skill(Wanted {
            version: v.into(),
            sha256: sha256.map(str::to_string),
        })
    }

    #[test]
    fn cdn_base_trims_the_metadata_suffix() {
        assert_eq!(
            cdn_base("https://cdn.autonomous.ai/os/ota/metadata.json"),
            "https://cdn.autonomous.ai/os"
        );
    }

    #[test]
    fn unsigned_metadata_is_read_as_served_without_a_key() {
        let body = br#"{"skills":{"audio":{"version":"0123456789AB","updated_at":"x"},"../x":{"version":"0123456789ab"},"b":{"version":"v1"}}}"#;
        let m = parse(body, "u", None).unwrap();
        assert_eq!(m.trust, Trust::NoKey);
        assert_eq!(m.skills["audio"], wanted("0123456789ab", None));
        assert!(matches!(m.skills["../x"], Listed::Invalid(_)));
        assert!(matches!(m.skills["b"], Listed::Invalid(_)));
        assert_eq!(m.sequence, None);
        assert_eq!(m.hooks, None, "unsigned: the hooks are taken as served");
        assert!(
            parse(br#"{"os-server":{}}"#, "u", None)
                .unwrap()
                .skills
                .is_empty()
        );
    }

    #[test]
    fn a_key_requires_a_valid_signature_and_uses_the_payload() {
        let k = key();
        let payload =
            json!({"sequence": 7, "skills": {"audio": {"version": "0123456789ab", "sha256": SHA}}});
        let tampered_top = json!({"audio": {"version": "ffffffffffff"}});
        let m = parse(
            &signed(&payload, &k, Some(tampered_top)),
            "u",
            Some(&public_b64(&k)),
        )
        .unwrap();
        assert_eq!(m.skills["audio"], wanted("0123456789ab", Some(SHA)));
        assert_eq!(
            m.trust,
            Trust::Verified {
                key_id: Some("test".into())
            }
        );
        assert_eq!(m.warnings.len(), 1);
        let seq = m.sequence.unwrap();
        assert_eq!(seq.sequence, 7);
        assert_eq!(
            seq.payload_sha256,
            hex::encode(Sha256::digest(serde_json::to_vec_pretty(&payload).unwrap()))
        );

        let other = SigningKey::from_bytes(&[9u8; 32]);
        let err = parse(&signed(&payload, &other, None), "u", Some(&public_b64(&k))).unwrap_err();
        assert_eq!(err.code, "metadata_bad_signature");

        let unsigned = serde_json::to_vec(&payload).unwrap();
        let err = parse(&unsigned, "u", Some(&public_b64(&k))).unwrap_err();
        assert_eq!(err.code, "metadata_unsigned");

        // A bare envelope (the whole document) verifies too.
        let bytes = serde_json::to_vec(&payload).unwrap();
        let bare = json!({"format": ENVELOPE_FORMAT, "payload": STANDARD.encode(&bytes),
            "signature": {"algorithm": "ed25519", "value": STANDARD.encode(k.sign(&bytes).to_bytes())}});
        let m = parse(
            &serde_json::to_vec(&bare).unwrap(),
            "u",
            Some(&public_b64(&k)),
        )
        .unwrap();
        assert_eq!(m.skills.len(), 1);

        let err = parse(&unsigned, "u", Some("not-base64!")).unwrap_err();
        assert_eq!(err.code, "bad_signing_key");
    }

    /// A signed payload without a sequence could be any older release replayed.
    #[test]
    fn a_signed_payload_needs_a_sequence_and_whole_hashes() {
        let k = key();
        for payload in [
            json!({"skills": {}}),
            json!({"sequence": -1, "skills": {}}),
            json!({"sequence": "12", "skills": {}}),
        ] {
            let err = parse(&signed(&payload, &k, None), "u", Some(&public_b64(&k))).unwrap_err();
            assert_eq!(err.code, "metadata_no_sequence", "{payload}");
        }
        let payload = json!({"sequence": 1, "skills": {
            "a": {"version": "0123456789ab"},
            "b": {"version": "0123456789ab", "sha256": "ffff"},
            "c": {"version": "aaaaaaaaaaaa", "sha256": SHA},
        }, "hooks": {
            "turn-gate": {"files": {"HOOK.md": SHA, "handler.ts": SHA}},
            "bad": {"files": {"HOOK.md": "x"}},
            "worse": {},
        }});
        let m = parse(&signed(&payload, &k, None), "u", Some(&public_b64(&k))).unwrap();
        for name in ["a", "b", "c"] {
            assert!(matches!(m.skills[name], Listed::Invalid(_)), "{name}");
        }
        let hooks = m.hooks.unwrap();
        assert_eq!(hooks["turn-gate"].as_ref().unwrap()["handler.ts"], SHA);
        assert!(hooks["bad"].is_err());
        assert!(hooks["worse"].is_err());
    }
}
