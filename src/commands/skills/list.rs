//! `osctl skills list`: the runtime's skills, read-only (logic in `skills::list`). The typed
//! [`Listing`] is the `--json` fields and, through its `Display`, the text table.

use std::fmt;

use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::output::table;
use crate::runtime::RuntimeId;
use crate::skills::list::{self, Row};

pub(super) fn run(ctx: &Ctx, runtime: Option<RuntimeId>) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = device.chosen(runtime)?;
    let rows = list::rows(&ctx.fs, &device, rt)?;
    ctx.out.render(&Listing {
        runtime: rt,
        skills: &rows,
    })?;
    Ok(Exit::Success)
}

/// What `osctl skills list` reports: the `--json` fields, and the text table.
#[derive(serde::Serialize)]
struct Listing<'a> {
    runtime: RuntimeId,
    skills: &'a [Row],
}

/// A plain table: name, version, supported, hash (12 characters), where it comes from.
impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = ["NAME", "VERSION", "SUPPORTED", "HASH", "ORIGIN"].map(String::from);
        let mut rows = vec![header];
        for r in self.skills {
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
            rows.push([
                name,
                r.version.clone().unwrap_or_else(|| "-".into()),
                supported,
                r.hash
                    .as_deref()
                    .map(|h| h[..12].to_string())
                    .unwrap_or_else(|| "-".into()),
                origin,
            ]);
        }
        f.write_str(&table(&rows))
    }
}
