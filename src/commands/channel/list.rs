//! `osctl channel list`: configured channels, what a runtime (the active one by default) can
//! run, who runs them, and which of them `channel add` sets up. Read-only.

use serde::Serialize;

use super::ListArgs;
use crate::channel;
use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::runtime::Channel;
use crate::runtime::Owner;

pub(super) fn run(ctx: &Ctx, args: &ListArgs) -> Result<Exit> {
    let device = ctx.device()?;
    let rt = device.chosen(args.runtime)?;
    let spec = rt.spec();
    let configured = device.config.configured_channels();
    let unsupported: Vec<Channel> = configured
        .iter()
        .copied()
        .filter(|c| !spec.supports(*c))
        .collect();
    if ctx.json {
        let configured = configured
            .iter()
            .map(|&c| Configured {
                channel: c,
                supported: spec.supports(c),
                run_by: spec.supports(c).then(|| channel::owner(rt, c)),
            })
            .collect();
        ctx.out.report_of(&Listing {
            runtime: rt,
            configured,
            supported: spec.channels,
            addable: spec
                .channels
                .iter()
                .copied()
                .filter(|c| channel::addable(*c))
                .collect(),
            unsupported: &unsupported,
            channels_applied_runtime: device.config.opt("channels_applied_runtime"),
            channels_unsupported: device.config.str_list("channels_unsupported"),
        })?;
        return Ok(Exit::Success);
    }
    let mut text = match args.runtime {
        Some(_) => format!("runtime          {rt}\n"),
        None => format!("active runtime   {rt}\n"),
    };
    // Named as `channel add` treats them: one it does not set up says where it is set up.
    let can: Vec<String> = spec
        .channels
        .iter()
        .map(|&c| match channel::addable(c) {
            true => c.as_str().to_string(),
            false => format!("{c} (config.json bluebubbles_*, not channel add)"),
        })
        .collect();
    text.push_str(&format!("it can run       {}\n", can.join(", ")));
    if configured.is_empty() {
        text.push_str("configured       -\n");
    }
    for (i, &c) in configured.iter().enumerate() {
        let label = if i == 0 { "configured" } else { "" };
        let how = match (spec.supports(c), channel::owner(rt, c)) {
            (false, _) => format!("not supported by {rt} (credentials kept)"),
            (true, Owner::Runtime) => format!("run by {rt} from its own config"),
            (true, Owner::Device) => "run by the device's own loop".to_string(),
        };
        text.push_str(&format!("{label:<17}{:<10}{how}\n", c.as_str()));
    }
    text.push_str(&format!(
        "reconciled for   {}\n",
        device.config.opt("channels_applied_runtime").unwrap_or("-")
    ));
    ctx.out.product(&text);
    Ok(Exit::Success)
}

/// `osctl channel list`'s `--json` fields.
#[derive(Serialize)]
struct Listing<'a> {
    runtime: crate::runtime::RuntimeId,
    configured: Vec<Configured>,
    /// The channels the runtime can run, and those of them `channel add` sets up.
    supported: &'a [Channel],
    addable: Vec<Channel>,
    /// Configured channels the runtime cannot run.
    unsupported: &'a [Channel],
    /// What the last channel apply recorded in config.json.
    channels_applied_runtime: Option<&'a str>,
    channels_unsupported: Vec<String>,
}

/// A configured channel: whether the runtime runs it, and who does.
#[derive(Serialize)]
struct Configured {
    channel: Channel,
    supported: bool,
    run_by: Option<Owner>,
}
