//! The JSON Schemas of `docs/schema/` as a validator, shared by the contract test
//! (`json_contract`) and the lifecycle suite (every `--json` run of a life).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use jsonschema::{Retrieve, Uri, Validator};
use serde_json::Value;

const BASE: &str = "https://osctl.invalid/schema/";

pub fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema")
}

/// Resolves `$ref`s between the schema files (`envelope.json`, `plan.json`) from `docs/schema/`.
struct SchemaFiles;

impl Retrieve for SchemaFiles {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri
            .as_str()
            .strip_prefix(BASE)
            .ok_or_else(|| format!("not an osctl schema: {}", uri.as_str()))?;
        let text = std::fs::read_to_string(schema_dir().join(name))?;
        Ok(serde_json::from_str(&text)?)
    }
}

pub fn validator(file: &str) -> Validator {
    let text = std::fs::read_to_string(schema_dir().join(file))
        .unwrap_or_else(|e| panic!("docs/schema/{file}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert!(
        jsonschema::meta::is_valid(&schema),
        "docs/schema/{file} is not a valid JSON Schema"
    );
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_retriever(SchemaFiles)
        .build(&schema)
        .unwrap_or_else(|e| panic!("docs/schema/{file}: {e}"))
}

/// Every command's name as its document says it; each has a schema file.
pub const COMMANDS: &[&str] = &[
    "status",
    "doctor",
    "switch",
    "reconcile",
    "presync",
    "migrate",
    "recover",
    "reset",
    "setup",
    "skills sync",
    "skills list",
    "skills verify",
    "mcp add",
    "mcp remove",
    "mcp list",
    "channel add",
    "channel remove",
    "channel list",
    "version",
];

/// Every schema file's validator, built once per process (the lifecycle suite checks thousands
/// of documents).
fn validators() -> &'static BTreeMap<String, Validator> {
    static ALL: OnceLock<BTreeMap<String, Validator>> = OnceLock::new();
    ALL.get_or_init(|| {
        std::fs::read_dir(schema_dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .map(|n| (n.clone(), validator(&n)))
            .collect()
    })
}

fn cached(file: &str) -> &'static Validator {
    validators()
        .get(file)
        .unwrap_or_else(|| panic!("docs/schema/{file} does not exist"))
}

/// The problems of one document: the envelope's, then its command's schema's.
pub fn problems(doc: &Value) -> Vec<String> {
    let mut out: Vec<String> = cached("envelope.json")
        .iter_errors(doc)
        .map(|e| format!("envelope: {e} at {}", e.instance_path()))
        .collect();
    let command = doc["command"].as_str().unwrap_or_default();
    if COMMANDS.contains(&command) {
        let file = format!("{}.json", command.replace(' ', "-"));
        out.extend(
            cached(&file)
                .iter_errors(doc)
                .map(|e| format!("{file}: {e} at {}", e.instance_path())),
        );
    } else if doc["exit_code"] != 2 {
        // Only a usage error may name no known command (clap refused the line).
        out.push(format!("unknown command {command:?} outside a usage error"));
    }
    out
}
