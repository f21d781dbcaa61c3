//! `osctl channel list`: configured channels, what a runtime (the active one by default) can
//! run, who runs them, and which of them `channel add` sets up. Read-only. The typed
//! [`Listing`] is the `--json` fields and, through its `Display`, the text.

use std::fmt;

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
    let configured = configured
        .iter()
        .map(|&c| Configured {
            channel: c,
            supported: spec.supports(c),
            run_by: spec.supports(c).then(|| channel::owner(rt, c)),
        })
        .collect();
    ctx.out.render(&Listing {
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
        given: args.runtime.is_some(),
    })?;
    Ok(Exit::Success)
}

/// What `osctl channel list` reports: the `--json` fields, and the text.
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
    /// Whether `--runtime` named the runtime (the text then does not call it the active one).
    #[serde(skip)]
    given: bool,
}

/// A configured channel: whether the runtime runs it, and who does.
#[derive(Serialize)]
struct Configured {
    channel: Channel,
    supported: bool,
    run_by: Option<Owner>,
}

/// The runtime, what it can run, each configured channel and who runs it, the marker.
impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rt = self.runtime;
        match self.given {
            true => writeln!(f, "runtime          {rt}")?,
            false => writeln!(f, "active runtime   {rt}")?,
        }
        // Named as `channel add` treats them: one it does not set up says where it is set up.
        let can: Vec<String> = self
            .supported
            .iter()
            .map(|c| match self.addable.contains(c) {
                true => c.as_str().to_string(),
                false => format!("{c} (config.json bluebubbles_*, not channel add)"),
            })
            .collect();
        writeln!(f, "it can run       {}", can.join(", "))?;
        if self.configured.is_empty() {
            writeln!(f, "configured       -")?;
        }
        for (i, c) in self.configured.iter().enumerate() {
            let label = if i == 0 { "configured" } else { "" };
            let how = match c.run_by {
                None => format!("not supported by {rt} (credentials kept)"),
                Some(Owner::Runtime) => format!("run by {rt} from its own config"),
                Some(Owner::Device) => "run by the device's own loop".to_string(),
            };
            writeln!(f, "{label:<17}{:<10}{how}", c.channel.as_str())?;
        }
        writeln!(
            f,
            "reconciled for   {}",
            self.channels_applied_runtime.unwrap_or("-")
        )
    }
}
