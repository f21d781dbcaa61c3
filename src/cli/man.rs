//! The man pages of `osctl man [COMMAND...]`, generated from the clap types (as the completion
//! scripts are, [`super::complete`]). Committed copies live in `man/`; a test fails when they
//! are stale.
//!
//! The man pages: osctl(1), and one page per command and command group (`osctl-switch(1)`,
//! `osctl-mcp(1)`, `osctl-mcp-add(1)`...). clap_mangen renders the name, description and
//! options of each; this module adds what it cannot know: a synopsis that shows each option's
//! value (`[--root DIR]`), the exit status and environment tables as their own sections, the
//! examples, and a SEE ALSO that names only pages that are generated here. A command's page
//! lists only the global options that apply to it ([`crate::cli::applicable_globals`]).

use clap::CommandFactory;
use clap_mangen::roff::{Roff, bold, italic, roman};

use super::{Cli, applicable_globals};
use crate::error::{Error, Exit, Result};

/// The command tree as the man pages see it: built (globals propagated, display names set to
/// `osctl-mcp-add`), with no `help` subcommand, and without the build facts of `--version` (the
/// commit would make the committed pages stale at every commit).
fn tree() -> clap::Command {
    let mut cmd = Cli::command()
        .long_version(clap::builder::Resettable::<clap::builder::Str>::Reset)
        .disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Every page's command path (`[]` for osctl(1), `["mcp", "add"]`...), in tree order.
fn page_paths(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
    out.push(prefix.to_vec());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut path = prefix.to_vec();
        path.push(sub.get_name().to_string());
        page_paths(sub, &path, out);
    }
}

/// A page's file name: `osctl.1`, `osctl-mcp-add.1`.
fn page_name(path: &[String]) -> String {
    let mut name = String::from("osctl");
    for p in path {
        name.push('-');
        name.push_str(p);
    }
    name
}

/// Every man page: (file name, roff).
pub fn man_pages() -> Result<Vec<(String, Vec<u8>)>> {
    let root = tree();
    let mut paths = Vec::new();
    page_paths(&root, &[], &mut paths);
    paths
        .iter()
        .map(|p| Ok((format!("{}.1", page_name(p)), render(&root, p)?)))
        .collect()
}

/// The man page of the command at `path` (`["mcp", "add"]`); a path that names no command is a
/// usage error.
pub fn man_page_for(path: &[String]) -> Result<Vec<u8>> {
    let root = tree();
    let mut known = Vec::new();
    page_paths(&root, &[], &mut known);
    if !known.iter().any(|k| k == path) {
        return Err(Error::new(
            Exit::Usage,
            "unknown_command",
            format!("osctl has no command `{}`", path.join(" ")),
        )
        .hint("`osctl --help` lists the commands; `osctl man` prints osctl(1)"));
    }
    render(&root, path)
}

fn render(root: &clap::Command, path: &[String]) -> Result<Vec<u8>> {
    let mut cmd = root.clone();
    for name in path {
        cmd = cmd
            .find_subcommand(name)
            .cloned()
            .ok_or_else(|| Error::internal(format!("no command {name} in the man page tree")))?;
    }
    let words: Vec<&str> = path.iter().map(String::as_str).collect();
    if let Some(applicable) = applicable_globals(&words) {
        cmd = cmd.mut_args(|a| {
            if a.is_global_set() && !applicable.contains(&a.get_id().as_str()) {
                a.hide(true)
            } else {
                a
            }
        });
    }
    let man = clap_mangen::Man::new(cmd.clone())
        .title(page_name(path))
        .source(format!("osctl {}", env!("CARGO_PKG_VERSION")));
    let io = |e: std::io::Error| Error::internal(format!("cannot render the man page: {e}"));
    let preamble = Roff::new().render();
    let mut out = Vec::new();
    let mut section = |f: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| -> Result<()> {
        let mut buf = Vec::new();
        f(&mut buf).map_err(io)?;
        // Each rendered part starts with roff's apostrophe preamble; the page needs it once.
        let body = if out.is_empty() {
            &buf[..]
        } else {
            buf.strip_prefix(preamble.as_bytes()).unwrap_or(&buf[..])
        };
        out.extend_from_slice(body);
        Ok(())
    };
    section(&|w| man.render_title(w))?;
    // No hyphenation and a ragged right margin: the pages are full of option names, paths and
    // command lines, which a hyphen or a stretched space would make wrong to copy.
    section(&|w| {
        let mut r = Roff::new();
        r.control("nh", []).control("ad", ["l"]);
        r.to_writer(w)
    })?;
    section(&|w| man.render_name_section(w))?;
    section(&|w| synopsis(&cmd).to_writer(w))?;
    section(&|w| man.render_description_section(w))?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        section(&|w| man.render_options_section(w))?;
    }
    if cmd.has_subcommands() {
        section(&|w| man.render_subcommands_section(w))?;
    }
    section(&|w| tables(root).to_writer(w))?;
    section(&|w| examples_section(&words).to_writer(w))?;
    section(&|w| see_also(root, path).to_writer(w))?;
    if path.is_empty() {
        section(&|w| man.render_version_section(w))?;
    }
    Ok(out)
}

/// SYNOPSIS with every option's value (`[--root DIR]`, clap_mangen shows `[--root]`).
fn synopsis(cmd: &clap::Command) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]);
    let bin = cmd
        .get_bin_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string();
    if let Some(usage) = cmd.get_overridden_usage() {
        // The command spells its own forms (`mcp add`): one line each.
        for (i, line) in usage.to_string().lines().enumerate() {
            if i > 0 {
                roff.control("br", []);
            }
            let line = line.trim().strip_prefix(&bin).unwrap_or(line.trim());
            roff.text([bold(bin.clone()), roman(line.to_string())]);
        }
        return roff;
    }
    let mut line = vec![bold(bin), roman(" ")];
    for arg in cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        let (open, close) = if arg.is_required_set() {
            ("", "")
        } else {
            ("[", "]")
        };
        line.push(roman(open));
        match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => {
                line.push(bold(format!("-{s}")));
                line.push(roman("|"));
                line.push(bold(format!("--{l}")));
            }
            (Some(s), None) => line.push(bold(format!("-{s}"))),
            (None, Some(l)) => line.push(bold(format!("--{l}"))),
            (None, None) => {}
        }
        if arg.get_num_args().is_some_and(|n| n.takes_values()) {
            let value = arg
                .get_value_names()
                .map(|v| v.join(" "))
                .unwrap_or_else(|| id.to_uppercase());
            line.push(roman(" "));
            line.push(italic(value));
        }
        line.push(roman(close));
        if matches!(
            arg.get_action(),
            clap::ArgAction::Count | clap::ArgAction::Append
        ) {
            line.push(roman("..."));
        }
        line.push(roman(" "));
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let value = arg
            .get_value_names()
            .map(|v| v.join(" "))
            .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
        let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        let (open, close) = if arg.is_required_set() {
            ("", "")
        } else {
            ("[", "]")
        };
        line.push(roman(open));
        line.push(italic(value));
        line.push(roman(close));
        if many {
            line.push(roman("..."));
        }
        line.push(roman(" "));
    }
    if cmd.has_subcommands() {
        line.push(italic("COMMAND"));
    }
    roff.text(line);
    roff
}

/// The exit status and environment tables of `osctl --help` (its after-help text), each as
/// its own section with one tagged paragraph per entry, so roff fills the text instead of
/// carrying the help's line breaks (which man would wrap mid-word).
fn tables(root: &clap::Command) -> Roff {
    let mut roff = Roff::new();
    let text = root
        .get_after_long_help()
        .map(|t| t.to_string())
        .unwrap_or_default();
    let mut entry: Option<(String, String)> = None;
    let flush = |roff: &mut Roff, entry: &mut Option<(String, String)>| {
        if let Some((term, body)) = entry.take() {
            roff.control("TP", []);
            roff.text([bold(term)]);
            roff.text([roman(body)]);
        }
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            flush(&mut roff, &mut entry);
            let heading = line.trim().trim_end_matches(':').to_uppercase();
            roff.control("SH", [heading.as_str()]);
            continue;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match (&mut entry, trimmed.split_once("  ")) {
            // A line indented past the term column continues the entry above it.
            (Some((_, body)), _) if indent > 2 => {
                body.push(' ');
                body.push_str(trimmed);
            }
            (_, Some((term, body))) => {
                flush(&mut roff, &mut entry);
                entry = Some((term.to_string(), body.trim().to_string()));
            }
            (_, None) => {
                flush(&mut roff, &mut entry);
                roff.text([roman(trimmed.to_string())]);
            }
        }
    }
    flush(&mut roff, &mut entry);
    roff
}

/// Examples of each page: (what it does, the command line).
pub fn examples(path: &[&str]) -> &'static [(&'static str, &'static str)] {
    match path {
        [] => &[
            ("Which runtime runs and why", "osctl status"),
            (
                "See what a switch would change, then do it",
                "osctl --dry-run switch hermes",
            ),
            (
                "Work on a mounted SD-card image instead of the live device",
                "osctl --root /mnt/image status",
            ),
        ],
        ["status"] => &[
            (
                "The active runtime and every runtime's state",
                "osctl status",
            ),
            ("The same as one JSON document", "osctl status --json"),
        ],
        ["switch"] => &[
            ("Switch to hermes", "osctl switch hermes"),
            (
                "Show the plan and change nothing",
                "osctl switch picoclaw --dry-run",
            ),
            (
                "Install from the runtime CDN with a pinned version, and wait until it is ready",
                "osctl switch picoclaw --from-cdn --installer-env PICO_VERSION=v0.3.2 --wait-ready",
            ),
        ],
        ["reconcile"] => &[
            (
                "Carry everything over to the active runtime",
                "osctl reconcile",
            ),
            ("Exit 3 when a step is behind", "osctl reconcile --check"),
            ("Run the MCP step alone", "osctl reconcile --only mcp"),
        ],
        ["presync"] => &[
            ("Heal the active runtime's configuration", "osctl presync"),
            (
                "Show what presync would change for hermes",
                "osctl presync hermes --dry-run",
            ),
        ],
        ["migrate"] => &[(
            "Preview carrying the persona from openclaw to hermes",
            "osctl migrate --from openclaw --to hermes --dry-run",
        )],
        ["reset"] => &[
            ("Show what a factory reset removes", "osctl reset --dry-run"),
            (
                "Reset without a prompt, then reboot",
                "osctl reset --yes --reboot",
            ),
        ],
        ["setup"] => &[
            ("Install osctl's units on the live device", "osctl setup"),
            (
                "Install them into a mounted image",
                "osctl --root /mnt/image setup",
            ),
        ],
        ["mcp"] => &[("The active runtime's MCP servers", "osctl mcp list")],
        ["mcp", "add"] => &[
            (
                "A local server, run by the runtime",
                "osctl mcp add files -- npx -y @modelcontextprotocol/server-filesystem /root",
            ),
            (
                "A remote server whose headers come from standard input",
                "osctl mcp add search --url https://mcp.example.com/mcp --header-file -",
            ),
            (
                "A user tool (remote only), recorded in config.json mcp_tools",
                "osctl mcp add weather --user-tool --url https://weather.example.com/mcp",
            ),
        ],
        ["mcp", "remove"] => &[
            ("Remove a server", "osctl mcp remove files"),
            (
                "Remove a user tool and its server",
                "osctl mcp remove weather --user-tool",
            ),
        ],
        ["mcp", "list"] => &[(
            "codex's servers, as JSON",
            "osctl mcp list --runtime codex --json",
        )],
        ["channel"] => &[("The configured channels", "osctl channel list")],
        ["channel", "add"] => &[
            (
                "Telegram, the token read from standard input",
                "osctl channel add telegram --token-file - --user-id 123456789",
            ),
            (
                "Slack in socket mode",
                "osctl channel add slack --token-file bot-token --app-token-file app-token --user-id U012AB3CD",
            ),
        ],
        ["channel", "remove"] => &[("Remove Telegram", "osctl channel remove telegram")],
        ["channel", "list"] => &[(
            "Which channels run, and who runs them",
            "osctl channel list",
        )],
        ["recover"] => &[
            (
                "What interrupted runs left behind",
                "osctl recover --dry-run",
            ),
            ("Put it back", "osctl recover"),
        ],
        ["doctor"] => &[
            (
                "What is wrong with this device, and what to run next",
                "osctl doctor",
            ),
            ("The same report as JSON", "osctl doctor --json"),
        ],
        ["skills"] => &[("The runtime's skills", "osctl skills list")],
        ["skills", "sync"] => &[
            ("One pass of the skill watcher", "osctl skills sync"),
            (
                "What it would install and prune",
                "osctl skills sync --dry-run",
            ),
        ],
        ["skills", "list"] => &[("The active runtime's skills", "osctl skills list")],
        ["skills", "verify"] => &[(
            "Exit 3 when an installed skill was changed",
            "osctl skills verify",
        )],
        ["completions"] => &[
            (
                "Bash completion for every shell of the device",
                "osctl completions bash > /usr/share/bash-completion/completions/osctl",
            ),
            ("Zsh", "osctl completions zsh > ~/.zfunc/_osctl"),
        ],
        ["man"] => &[
            ("Read osctl(1)", "osctl man | man -l -"),
            ("Read osctl-mcp-add(1)", "osctl man mcp add | man -l -"),
        ],
        _ => &[],
    }
}

fn examples_section(path: &[&str]) -> Roff {
    let mut roff = Roff::new();
    let list = examples(path);
    if list.is_empty() {
        return roff;
    }
    roff.control("SH", ["EXAMPLES"]);
    for (what, line) in list {
        roff.control("TP", []);
        roff.text([roman(what.to_string())]);
        // Not filled: the command line stays one line, as it is typed.
        roff.control("nf", []);
        roff.text([bold(line.to_string())]);
        roff.control("fi", []);
    }
    roff
}

/// SEE ALSO: osctl(1), the parent page, the pages of the command's own subcommands, and from
/// osctl(1) every page. Only pages [`man_pages`] generates.
fn see_also(root: &clap::Command, path: &[String]) -> Roff {
    let mut all = Vec::new();
    page_paths(root, &[], &mut all);
    let named: Vec<&Vec<String>> = all
        .iter()
        .filter(|p| {
            let parent = !path.is_empty() && p.as_slice() == &path[..path.len() - 1];
            let child = p.len() == path.len() + 1 && p.starts_with(path);
            let from_root = path.is_empty() && !p.is_empty();
            let root = !path.is_empty() && p.is_empty();
            root || parent || child || from_root
        })
        .collect();
    let mut roff = Roff::new();
    if named.is_empty() {
        return roff;
    }
    roff.control("SH", ["SEE ALSO"]);
    let mut line = Vec::new();
    for (i, p) in named.iter().enumerate() {
        if i > 0 {
            line.push(roman(", "));
        }
        line.push(bold(page_name(p)));
        line.push(roman("(1)"));
    }
    roff.text(line);
    let words: Vec<&str> = path.iter().map(String::as_str).collect();
    if let Some((file, title)) = super::chapter(&words) {
        roff.control("PP", []);
        roff.text([
            roman(format!("The book's chapter \"{title}\": ")),
            italic(format!("{}/{file}", super::BOOK_DIR)),
            roman(format!(" (docs/book/src/{file} in the source).")),
        ]);
    }
    roff
}
