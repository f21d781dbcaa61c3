//! `osctl migrate --from X --to Y [--no-daily] [--no-overwrite]`: the persona migration a
//! runtime switch makes, on demand. Logic in `persona/`; its report (one line per item, the
//! report's `Display`) is the product on stdout ahead of the plan's diff and, with `--json`, the
//! document's `report`.

use super::Ctx;
use crate::cli::MigrateArgs;
use crate::error::{Exit, Result};
use crate::persona::{self, Options};
use crate::plan::Draft;

pub(super) fn run(ctx: &Ctx, args: &MigrateArgs) -> Result<Exit> {
    if args.from == args.to {
        return Err(crate::error::Error::input(
            "same_runtime",
            format!("--from and --to both name {}", args.from),
        )
        .hint("name two different runtimes: --from is read, --to is written"));
    }
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    let opts = Options {
        overwrite: !args.no_overwrite,
        include_daily: !args.no_daily,
        preview: ctx.previewing(),
        ..Options::default()
    };
    let mut draft = Draft::new(&ctx.fs);
    let report = persona::run_migration(&mut draft, &device.layout, args.from, args.to, &opts)
        .map_err(|e| e.or_hint("nothing was written; fix the file named above and run again"))?;
    // The report is the product (stdout), before the plan's diff; `-q` leaves it out. Its
    // `--json` form is a field of the plan's report, so it does not go through `render`.
    if !ctx.out.quiet {
        ctx.out.product(&report.to_string());
    }
    ctx.finish(&draft.finish(), &Fields { report: &report })
}

/// `osctl migrate`'s own `--json` fields.
#[derive(serde::Serialize)]
struct Fields<'a> {
    /// What the migration did with each persona file.
    report: &'a persona::Report,
}
