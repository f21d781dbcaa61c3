//! `osctl channel add`: gate, credentials into config.json, apply to the active runtime. A plugin
//! installer that really runs goes first, and the files are planned on what it left.

use super::AddArgs;
use crate::channel::{self, Creds};
use crate::commands::Ctx;
use crate::commands::mcp::read_input;
use crate::error::{Error, Exit, Result};
use crate::plan::Draft;
use crate::runtime::Channel;

pub(super) fn run(ctx: &Ctx, args: &AddArgs) -> Result<Exit> {
    let ch: Channel = args.channel;
    let creds = creds(args)?;
    let _lock = ctx.lock()?;
    let device = ctx.device()?;
    if let Some(rt) = args.runtime {
        crate::commands::mcp::require_installed(ctx, &device, rt, args.allow_uninstalled)?;
    }
    let rt = device.chosen(args.runtime)?;
    let plan = || -> Result<_> {
        let mut draft = Draft::new(&ctx.fs);
        let applied = channel::plan_add(&mut draft, &device, rt, ch, &creds)?;
        Ok((applied, draft.finish()))
    };
    let (mut applied, mut plan_now) = plan()?;
    // A plugin installer that really runs edits openclaw.json: it goes first, and the files are
    // planned again on what it left.
    if !ctx.previewing() {
        let t = ctx.target();
        if channel::run_programs_first(&t, &plan_now)? {
            let (a, p) = plan()?;
            (applied, plan_now) = (a, channel::without_programs(p));
        }
    }
    // Every path the add changes, presync's among them (SOUL.md, AGENTS.md...): the operator
    // asked for a channel, and is told about each file that changes for it.
    let paths: Vec<String> = plan_now
        .file_changes()
        .map(|c| c.path.to_string())
        .collect();
    ctx.out.status(&match paths.len() {
        0 => format!("{ch} on {rt}: {}", applied.detail),
        n => format!(
            "{ch} on {rt}: {}; it changes {n} path{}: {}",
            applied.detail,
            if n == 1 { "" } else { "s" },
            paths.join(", ")
        ),
    });
    ctx.finish(
        &plan_now,
        &channel::Fields {
            applied: &applied,
            paths: Some(&paths),
        },
    )
}

fn creds(args: &AddArgs) -> Result<Creds> {
    let stdin = |p: &Option<std::path::PathBuf>| p.as_deref().is_some_and(|p| p.as_os_str() == "-");
    let readers = [
        &args.token_file,
        &args.app_token_file,
        &args.signing_secret_file,
    ]
    .into_iter()
    .filter(|p| stdin(p))
    .count();
    if readers > 1 {
        return Err(Error::input(
            "bad_arguments",
            "only one of --token-file, --app-token-file and --signing-secret-file can read standard input",
        ));
    }
    let from_file = |path: &Option<std::path::PathBuf>| -> Result<Option<String>> {
        let Some(path) = path else { return Ok(None) };
        let (text, origin) = read_input(path)?;
        let first = text.lines().map(str::trim).find(|l| !l.is_empty());
        match first {
            Some(t) => Ok(Some(t.to_string())),
            None => Err(Error::input(
                "empty_token_file",
                format!("{origin} holds no token"),
            )),
        }
    };
    Ok(Creds {
        token: match &args.token {
            Some(t) => Some(t.clone()),
            None => from_file(&args.token_file)?,
        },
        user_id: args.user_id.clone(),
        app_token: match &args.app_token {
            Some(t) => Some(t.clone()),
            None => from_file(&args.app_token_file)?,
        },
        signing_secret: match &args.signing_secret {
            Some(t) => Some(t.clone()),
            None => from_file(&args.signing_secret_file)?,
        },
        guild_id: args.guild_id.clone(),
    })
}
