//! `osctl skills list`: the runtime's skills, read-only (logic in `skills::list`).

use serde_json::json;

use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::runtime::RuntimeId;
use crate::skills::list::{self, Row};

pub fn run(ctx: &Ctx, runtime: Option<RuntimeId>) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = super::runtime(&device, runtime)?;
    let rows = list::rows(&ctx.fs, &device, rt)?;
    if ctx.json {
        ctx.out.json_doc(
            "skills list",
            json!({"ok": true, "runtime": rt, "skills": rows}),
        );
    } else {
        ctx.out.product(&table(&rows));
    }
    Ok(Exit::Success)
}

/// A plain table: name, version, supported, hash (12 characters), where it comes from.
pub fn table(rows: &[Row]) -> String {
    let width = rows
        .iter()
        .map(|r| r.name.len() + 5)
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "{:<width$}  {:<12}  {:<9}  {:<12}  {}\n",
        "NAME", "VERSION", "SUPPORTED", "HASH", "ORIGIN"
    );
    for r in rows {
        let name = if r.kind == "hook" {
            format!("hook:{}", r.name)
        } else {
            r.name.clone()
        };
        let supported = match (r.supported, r.requires.is_empty()) {
            (true, _) => "yes".to_string(),
            (false, true) => "no".to_string(),
            (false, false) => format!("no ({})", r.requires.join("|")),
        };
        let hash = r.hash.as_deref().map(|h| &h[..12]).unwrap_or("-");
        let mut origin = r.origin.to_string();
        if let Some(d) = r.drift {
            origin.push_str(&format!(", {d}"));
        } else if !r.present {
            origin.push_str(", not installed");
        }
        out.push_str(&format!(
            "{name:<width$}  {:<12}  {supported:<9}  {hash:<12}  {origin}\n",
            r.version.as_deref().unwrap_or("-")
        ));
    }
    out
}
