//! `osctl skills list`: the runtime's skills, read-only (logic in `skills::list`).

use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::runtime::RuntimeId;
use crate::skills::list::{self, Row};

pub(super) fn run(ctx: &Ctx, runtime: Option<RuntimeId>) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = device.chosen(runtime)?;
    let rows = list::rows(&ctx.fs, &device, rt)?;
    if ctx.json {
        ctx.out.report_of(&Listing {
            runtime: rt,
            skills: &rows,
        })?;
    } else {
        ctx.out.product(&table(&rows));
    }
    Ok(Exit::Success)
}

/// A plain table: name, version, supported, hash (12 characters), where it comes from.
pub(super) fn table(rows: &[Row]) -> String {
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
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
            let mut origin = r.origin.to_string();
            if let Some(d) = r.drift {
                origin.push_str(&format!(", {d}"));
            } else if !r.present {
                origin.push_str(", not installed");
            }
            [
                name,
                r.version.clone().unwrap_or_else(|| "-".into()),
                supported,
                r.hash
                    .as_deref()
                    .map(|h| h[..12].to_string())
                    .unwrap_or_else(|| "-".into()),
                origin,
            ]
        })
        .collect();
    let header = ["NAME", "VERSION", "SUPPORTED", "HASH", "ORIGIN"].map(String::from);
    let mut widths = header.clone().map(|h| h.len());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&cells) {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `osctl skills list`'s `--json` fields.
#[derive(serde::Serialize)]
struct Listing<'a> {
    runtime: RuntimeId,
    skills: &'a [Row],
}
