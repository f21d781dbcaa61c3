//! Messaging channels (docs/device-contract.md §8.1 and §8.2): the capability gate, the credential
//! fields of config.json, and what applying a channel to a runtime means.
//!
//! A runtime declares the channels it can run ([`crate::runtime::Runtime::channels`], upstream's
//! `SupportedChannels`). `channel add` checks that first and refuses an unsupported channel
//! before config.json is touched (`channel_not_supported`), then checks the credentials
//! (`channel_credentials_missing`), persists them in config.json, and applies them:
//!
//! - where the runtime runs the channel itself (openclaw's `channels.*`, hermes' `.env`) the
//!   native config is presync's to write, from config.json: the add plans presync inside its own
//!   plan, after the config.json edit, so presync reads the new credentials through the draft;
//!   openclaw's slack/discord/whatsapp plugins are installed on demand, as upstream's
//!   `ensureChannelPlugin` does;
//! - where the device runs it (the os-server loops of codex, claudecode and opencode, and
//!   picoclaw's telegram, which read config.json live) there is nothing to write: an honest
//!   success with nothing applied.
//!
//! The runtime's unit is restarted (if running) only when its native files changed.
//! [`native`] removes a channel's credentials from the runtimes' own files on `channel remove`,
//! which presync, filling in only what config.json holds, never does.

pub(crate) mod native;

use serde_json::Value;

use crate::apply::Target;
use crate::device::Device;
use crate::device::config::{self, channel_fields};
use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::plan::{Draft, FileState, Plan, ServiceAction, Step};
use crate::presync;
use crate::runtime::{Channel, ChannelPlugins, Owner, Runtime, RuntimeId, install};

/// Who runs `ch` on `rt` (docs/device-contract.md §8.1 "Per-runtime apply"): the runtime's
/// `channel_owner`, the same for each of its channels.
pub(crate) fn owner(rt: RuntimeId, _ch: Channel) -> Owner {
    rt.spec().channel_owner
}

/// The capability gate: `channel_not_supported` (exit 1) for a channel `rt` cannot run.
pub(crate) fn gate(rt: &Runtime, ch: Channel) -> Result<()> {
    if rt.supports(ch) {
        return Ok(());
    }
    let can: Vec<&str> = rt.channels.iter().map(|c| c.as_str()).collect();
    Err(Error::input(
        "channel_not_supported",
        format!("{} cannot run the {ch} channel", rt.name),
    )
    .hint(format!(
        "{} runs: {}; nothing was written to config.json",
        rt.name,
        can.join(", ")
    )))
}

/// The credentials given to `channel add`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Creds {
    /// The bot token (telegram, slack, discord).
    pub token: Option<String>,
    pub user_id: Option<String>,
    /// Slack socket mode.
    pub app_token: Option<String>,
    /// Slack HTTP mode.
    pub signing_secret: Option<String>,
    /// Discord.
    pub guild_id: Option<String>,
}

fn given(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|s| !s.trim().is_empty())
}

/// Whether `channel add` sets `ch` up. imessage (BlueBubbles) is not: its server, password and
/// contacts live in config.json's `bluebubbles_*` fields, written by the device's own setup.
/// `channel list` reports from this too, so the two commands never disagree.
pub(crate) fn addable(ch: Channel) -> bool {
    ch != Channel::Imessage
}

/// Upstream's `ValidateChannel`: `channel_not_addable` for a channel `channel add` does not set
/// up, `channel_credentials_missing` naming the missing options.
pub(crate) fn validate(ch: Channel, c: &Creds) -> Result<()> {
    if !addable(ch) {
        return Err(Error::input(
            "channel_not_addable",
            format!("osctl channel add does not set up {ch} (BlueBubbles)"),
        )
        .hint("set the bluebubbles_* fields of config.json; nothing was written"));
    }
    let mut missing = Vec::new();
    let mut need = |ok: bool, flag: &'static str| {
        if !ok {
            missing.push(flag);
        }
    };
    match ch {
        Channel::Telegram => {
            need(given(&c.token), "--token");
            need(given(&c.user_id), "--user-id");
        }
        Channel::Slack => {
            need(given(&c.token), "--token");
            need(
                given(&c.app_token) || given(&c.signing_secret),
                "--app-token (socket mode) or --signing-secret (HTTP mode)",
            );
        }
        Channel::Discord => {
            need(given(&c.token), "--token");
            need(given(&c.guild_id), "--guild-id");
            need(given(&c.user_id), "--user-id");
        }
        Channel::Whatsapp => need(given(&c.user_id), "--user-id"),
        Channel::Imessage => {}
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::input(
        "channel_credentials_missing",
        format!("the {ch} channel needs {}", missing.join(", ")),
    )
    .hint("nothing was written; --token-file FILE (or - for standard input) keeps a token off the command line"))
}

/// The config.json edits that persist `c` for `ch`: every credential field of the channel is
/// set (an option not given clears its field, as upstream's `AddChannel` overwrites them), and
/// `channel` names it.
fn persist_edits(ch: Channel, c: &Creds, signing: bool) -> Vec<(&'static str, Option<Value>)> {
    let v = |o: &Option<String>| Some(Value::from(o.as_deref().unwrap_or("").trim()));
    let mut edits: Vec<(&'static str, Option<Value>)> = match ch {
        Channel::Telegram => vec![
            ("telegram_bot_token", v(&c.token)),
            ("telegram_user_id", v(&c.user_id)),
        ],
        Channel::Slack => vec![
            ("slack_bot_token", v(&c.token)),
            ("slack_app_token", v(&c.app_token)),
            ("slack_user_id", v(&c.user_id)),
        ],
        Channel::Discord => vec![
            ("discord_bot_token", v(&c.token)),
            ("discord_guild_id", v(&c.guild_id)),
            ("discord_user_id", v(&c.user_id)),
        ],
        Channel::Whatsapp => vec![("whatsapp_user_id", v(&c.user_id))],
        Channel::Imessage => Vec::new(),
    };
    // Only a runtime whose slack takes a signing secret gets (or clears) the field.
    if ch == Channel::Slack && signing {
        edits.push(("slack_signing_secret", v(&c.signing_secret)));
    }
    edits.push(("channel", Some(Value::from(ch.as_str()))));
    edits
}

/// `channel add` / `channel remove`'s own `--json` fields.
#[derive(serde::Serialize)]
pub(crate) struct Fields<'a> {
    /// What the command does for the channel. In a run, the document's `applied` is what the
    /// apply engine did (files, actions) instead, as the JSON contract has always had it.
    pub applied: &'a Applied,
    /// `channel add`: every path the add changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<&'a [String]>,
}

/// What `channel add` / `channel remove` did.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Applied {
    pub runtime: RuntimeId,
    pub channel: Channel,
    pub owner: Owner,
    /// Whether the runtime's own files change.
    pub native_changed: bool,
    /// What was done in the runtime, in a few words.
    pub detail: String,
}

/// Plans `channel add`: gate, validate, persist, apply.
pub(crate) fn plan_add(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    ch: Channel,
    c: &Creds,
) -> Result<Applied> {
    let spec = rt.spec();
    gate(spec, ch)?;
    validate(ch, c)?;
    for secret in [&c.token, &c.app_token, &c.signing_secret]
        .into_iter()
        .flatten()
    {
        crate::redact::register(secret);
    }
    if ch == Channel::Slack && given(&c.signing_secret) && !spec.slack_signing_secret {
        return Err(Error::input(
            "channel_option_not_supported",
            format!("{rt}'s slack channel takes no signing secret (Slack's HTTP mode)"),
        )
        .hint("use --app-token (socket mode) instead; nothing was written"));
    }
    let config_path = device.env.config_json();
    // A plugin installer runs before anything is written: it edits openclaw.json itself, so
    // the files are planned after it (see [`run_programs_first`]).
    plan_plugin_installs(draft, device, rt, &[ch])?;
    config::edit(
        draft,
        &config_path,
        &persist_edits(ch, c, spec.slack_signing_secret),
        &format!("channel add {ch}"),
    )?;
    let native_changed = apply_native(draft, device, rt, &[ch])?;
    Ok(Applied {
        runtime: rt,
        channel: ch,
        owner: owner(rt, ch),
        native_changed,
        detail: applied_detail(rt, ch, native_changed),
    })
}

/// Applies the channels config.json holds to `rt` (presync, once, where the runtime runs any of
/// `channels` itself; openclaw's plugins), and plans the restart when the runtime's files
/// changed. Returns whether they changed.
pub(crate) fn apply(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    channels: &[Channel],
) -> Result<bool> {
    plan_plugin_installs(draft, device, rt, channels)?;
    apply_native(draft, device, rt, channels)
}

/// The channels of `channels` that run as one of `rt`'s plugins (openclaw's slack, discord and
/// whatsapp), with the runtime's plugin hooks.
fn plugins(rt: RuntimeId, channels: &[Channel]) -> Option<(ChannelPlugins, Vec<Channel>)> {
    let plugins = rt.spec().channel_plugins?;
    let chosen = channels
        .iter()
        .copied()
        .filter(|ch| plugins.channels.contains(ch))
        .collect();
    Some((plugins, chosen))
}

/// Plans the install of each missing plugin `channels` need on `rt`. Planned before the files:
/// see [`run_programs_first`].
pub(crate) fn plan_plugin_installs(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    channels: &[Channel],
) -> Result<()> {
    if let Some((plugins, chosen)) = plugins(rt, channels) {
        for ch in chosen {
            (plugins.install)(draft, device, ch)?;
        }
    }
    Ok(())
}

/// A plan whose programs run (openclaw's plugin install, on the live device) cannot be applied
/// as planned: the program edits the runtime's files itself (openclaw.json), so a write planned
/// before it would find the file changed underfoot and roll everything back. So its programs
/// run first, on their own, and the caller plans the files again on what they left (dropping
/// the programs, which ran). Returns whether they ran. Where programs do not run (a root other
/// than `/`) the plan stays as it is, and so does a preview, which shows them first.
pub(crate) fn run_programs_first(t: &Target<'_>, plan: &Plan) -> Result<bool> {
    if !t.fs.is_live() || !plan.steps.iter().any(|s| matches!(s, Step::Command(_))) {
        return Ok(false);
    }
    let mut programs = Plan::new();
    for step in &plan.steps {
        if let Step::Command(c) = step {
            programs.command(c.clone());
        }
    }
    crate::apply::apply(t, &programs)?;
    Ok(true)
}

/// `plan` without its programs (they ran in [`run_programs_first`]).
pub(crate) fn without_programs(mut plan: Plan) -> Plan {
    plan.steps.retain(|s| !matches!(s, Step::Command(_)));
    plan
}

/// Writes the channels config.json holds into `rt`'s own files (plugin entries, presync) and
/// plans the restart when they changed. Returns whether they changed.
fn apply_native(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    channels: &[Channel],
) -> Result<bool> {
    if !channels.iter().any(|c| owner(rt, *c) == Owner::Runtime) {
        return Ok(false);
    }
    let before = native_state(draft, device);
    if let Some((plugins, chosen)) = plugins(rt, channels) {
        for ch in chosen {
            (plugins.enable)(draft, device, ch)?;
        }
    }
    presync::plan(draft, device, rt)?;
    let changed = native_state(draft, device) != before;
    if changed {
        restart(draft, rt)?;
    }
    Ok(changed)
}

/// The words for what applying `ch` to `rt` did.
fn applied_detail(rt: RuntimeId, ch: Channel, changed: bool) -> String {
    match (owner(rt, ch), changed) {
        (Owner::Device, _) => format!(
            "{rt} runs {ch} through the device's own loop, which reads config.json: nothing to write in {rt}"
        ),
        (Owner::Runtime, true) => format!("{rt} config updated by presync"),
        (Owner::Runtime, false) => format!("{rt} config already holds it"),
    }
}

/// Plans `channel remove`: the credentials leave config.json (and `channels_unsupported`), and
/// every runtime-owned native form of the channel (see [`native`]).
pub(crate) fn plan_remove(
    draft: &mut Draft<'_>,
    device: &Device,
    rt: RuntimeId,
    ch: Channel,
) -> Result<Applied> {
    let config_path = device.env.config_json();
    let mut edits: Vec<(&str, Option<Value>)> = Vec::new();
    for field in channel_fields(ch) {
        if device.config.fields.contains_key(*field) {
            edits.push((field, Some(Value::from(""))));
        }
    }
    if device.config.str("channel") == ch.as_str() {
        edits.push(("channel", Some(Value::from(""))));
    }
    let unsupported = device.config.str_list("channels_unsupported");
    if unsupported.iter().any(|c| c == ch.as_str()) {
        let kept: Vec<&String> = unsupported.iter().filter(|c| *c != ch.as_str()).collect();
        // Absent when empty, as upstream saves it (`omitempty`).
        let list = (!kept.is_empty()).then(|| serde_json::json!(kept));
        edits.push(("channels_unsupported", list));
    }
    config::edit(draft, &config_path, &edits, &format!("channel remove {ch}"))?;
    let before = native_state(draft, device);
    let touched = native::plan_remove(draft, device, ch)?;
    let native_changed = native_state(draft, device) != before;
    let active_touched = touched.contains(&rt);
    if active_touched {
        restart(draft, rt)?;
    }
    Ok(Applied {
        runtime: rt,
        channel: ch,
        owner: owner(rt, ch),
        native_changed,
        detail: if touched.is_empty() {
            "no runtime's own config held it".to_string()
        } else {
            let names: Vec<&str> = touched.iter().map(|r| r.as_str()).collect();
            format!("removed from the config of {}", names.join(", "))
        },
    })
}

/// The planned state of every file except config.json (to tell whether the runtime's own files
/// changed, whatever presync touched).
fn native_state(draft: &Draft<'_>, device: &Device) -> Vec<(DevPath, FileState)> {
    let config = device.env.config_json();
    draft
        .clone()
        .finish()
        .file_changes()
        .filter(|c| c.path != config)
        .map(|c| (c.path.clone(), c.after.clone()))
        .collect()
}

fn restart(draft: &mut Draft<'_>, rt: RuntimeId) -> Result<()> {
    let unit = install::unit_name(draft.fs(), rt.spec())?;
    draft.service(ServiceAction::RestartIfActive(unit));
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn every_unsupported_pair_is_refused() {
        let mut refused = 0;
        for rt in crate::runtime::packaged() {
            for ch in [
                Channel::Telegram,
                Channel::Slack,
                Channel::Discord,
                Channel::Whatsapp,
            ] {
                match gate(rt, ch) {
                    Ok(()) => assert!(rt.supports(ch)),
                    Err(e) => {
                        assert_eq!(e.code, "channel_not_supported");
                        refused += 1;
                    }
                }
            }
        }
        // whatsapp: all but openclaw; slack and discord: picoclaw.
        assert_eq!(refused, 5 + 2);
    }

    #[test]
    fn validation_names_what_is_missing() {
        let c = Creds {
            token: Some("t".into()),
            ..Creds::default()
        };
        let e = validate(Channel::Discord, &c).unwrap_err();
        assert_eq!(e.code, "channel_credentials_missing");
        assert!(e.message.contains("--guild-id, --user-id"), "{}", e.message);
        let e = validate(Channel::Slack, &c).unwrap_err();
        assert!(e.message.contains("--app-token"), "{}", e.message);
        let c = Creds {
            token: Some("t".into()),
            signing_secret: Some("s".into()),
            ..Creds::default()
        };
        assert!(validate(Channel::Slack, &c).is_ok());
        assert!(validate(Channel::Whatsapp, &Creds::default()).is_err());
    }
}
