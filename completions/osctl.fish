# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_osctl_global_optspecs
    string join \n root= n/dry-run check json events= stat no-diff q/quiet v/verbose color= y/yes lock-timeout= h/help V/version
end

function __fish_osctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_osctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_osctl_using_subcommand
    set -l cmd (__fish_osctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c osctl -n "__fish_osctl_needs_command" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_needs_command" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_needs_command" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_needs_command" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_needs_command" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_needs_command" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_needs_command" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_needs_command" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_needs_command" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_needs_command" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_needs_command" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_needs_command" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c osctl -n "__fish_osctl_needs_command" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "status" -d 'Show which runtime is active and why, and the state of every runtime'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "switch" -d 'Switch the active runtime: install it when needed, start its unit and require it to stay up, stop the old one, then record it in config.json (the commit point) and reconcile. Any failure before the commit point rolls back (exit 4; 5 when the rollback is incomplete)'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "reconcile" -d 'Carry persona, LLM config, channels and MCP servers over to the active runtime after a switch (at first boot, first seed an empty agent_runtime); each step is its own transaction guarded by its marker, so a failed step is retried by the next run'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "presync" -d 'Heal a runtime\'s native configuration before it starts (systemd `ExecStartPre=`, the switch, the `runtime-<rt>-presync` hook): LLM wiring per `llm_config_mode`, gateway and local tokens, channel credentials, the OS blocks of its prompt files, one-time steps. Keys osctl does not own are kept; a second run changes nothing'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "migrate" -d 'Carry the owner\'s persona and memory (SOUL.md, identity, MEMORY.md with the daily notes, KNOWLEDGE.md, USER.md) from one runtime\'s files into another\'s, backing up every file it replaces. Runtime-only files (AGENTS.md, TOOLS.md, HEARTBEAT.md, CLAUDE.md, hooks/) stay'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "reset" -d 'Factory-reset the agent side of the device: the active runtime\'s own state, the device\'s config, users and Wi-Fi, and every copy of the owner\'s persona in every runtime\'s tree (backups and AGENTS.md inline blocks included). It shows the plan and asks first; without a terminal it needs --yes'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "setup" -d 'Install osctl\'s own systemd units: the boot pass (`osctl reconcile` before the runtime starts), the skills timer (`osctl skills sync` every 5 minutes) and a presync drop-in (`ExecStartPre=-osctl presync <rt>`) for each runtime whose unit exists, enabled as `systemctl enable` does. Works on a mounted image with `--root IMAGE`; on the live device it also reloads systemd and starts the timer. A second run changes nothing'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "mcp" -d 'MCP servers of a runtime, in its own file: add, remove, list'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "channel" -d 'Messaging channels: add, remove, list'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "recover" -d 'Restore what interrupted runs left behind, from their journals (every run that changes the device also does this first)'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "doctor" -d 'Check the device and say what to run next: files that do not parse, presync out of sync, reconcile markers behind, leftover journals, the lock holder, skills drift, and on the device unit states with a failed unit\'s journal. Read-only; exit 3 when it finds anything'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "skills" -d 'Keep the runtime\'s skills in step with the skills CDN: download, verify, install and prune capability-gated skills (and openclaw\'s OS hooks)'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "man" -d 'Print a man page (roff): osctl(1), or a command\'s own page (`osctl man mcp add` prints osctl-mcp-add(1)). View one with `osctl man switch | man -l -`'
complete -c osctl -n "__fish_osctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand status" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand status" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand status" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand status" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand status" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand status" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand status" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand status" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand status" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand status" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand status" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand status" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand status" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand status" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l ready-tries -d 'How many times the ready hook runs before the switch gives up (with --wait-ready)' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l ready-interval -d 'Seconds between two runs of the ready hook' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l settle -d 'Seconds the new unit must stay active, with no restart, before the old one is stopped' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l installer -d 'When the runtime needs installing, run this installer instead of the embedded one' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l installer-url -d 'When the runtime needs installing, download its installer from this HTTPS URL' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l runtimes-base-url -d 'The runtime CDN that --from-cdn downloads from' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l installer-sha256 -d 'Run a named installer (--installer, --from-cdn, --installer-url) only if its SHA-256 is this (hexadecimal)' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l installer-env -d 'Pass KEY=VALUE to the installer\'s environment (repeatable), e.g. PICO_VERSION=v0.3.2' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l install-timeout -d 'Seconds the installer may run before it is killed' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l ca-file -d 'Trust only the certificates in this PEM file for the installer download' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l wait-ready -d 'Once the unit is up, run the runtime\'s ready hook until it passes; not ready → roll back'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l no-reconcile -d 'Do not run the reconcilers after the commit point (run `osctl reconcile` later)'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l from-cdn -d 'When the runtime needs installing, download its installer from the runtime CDN: `$RUNTIMES_BASE_URL/<runtime>/install.sh` (HTTPS only)'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand switch" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l only -d 'Run only this step' -r -f -a "seed\t''
persona\t''
llm\t''
channels\t''
mcp\t''
mcp-tools\t'config.json\'s `mcp_tools` as `tool_<name>` servers of the active runtime (no marker)'"
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c osctl -n "__fish_osctl_using_subcommand reconcile" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand presync" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand presync" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l from -d 'The runtime whose persona is read' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l to -d 'The runtime whose persona files are written' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l no-daily -d 'Leave the daily memory files (`memory/YYYY-MM-DD.md`) out of the destination\'s MEMORY.md'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l no-overwrite -d 'Keep a destination SOUL.md that differs (reported as a conflict) instead of backing it up and replacing it'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand migrate" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l reboot -d 'Reboot once the reset is done (the device sets its runtime up again on boot)'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l keep-runtime-state -d 'Keep the active runtime\'s own state (sessions, credentials, config): only stop its unit, then wipe the device paths and every persona copy'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand reset" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand setup" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand setup" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -f -a "add" -d 'Add an MCP server to a runtime: `mcp add NAME -- CMD [ARGS...]` (a local server) or `mcp add NAME --url URL [--header KEY=VALUE]...` (a remote one)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -f -a "remove" -d 'Remove an MCP server from a runtime\'s own file (nothing to do when it is not there)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -f -a "list" -d 'List a runtime\'s MCP servers, read from its own file'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and not __fish_seen_subcommand_from add remove list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l url -d 'A remote server\'s URL' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l transport -d 'The remote protocol' -r -f -a "http\t'Streamable HTTP (`type: "http"`), what every runtime speaks'
sse\t'Server-sent events (`type: "sse"`), the older transport'"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l header -d 'A header of a remote server, `KEY=VALUE` (or `KEY: VALUE`); repeatable' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l header-file -d 'Headers from a file, one `KEY=VALUE` (or `KEY: VALUE`) per line; `-` reads standard input' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l env -d 'An environment variable of a local server, `KEY=VALUE`; repeatable' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l env-file -d 'Environment variables from a file, one `KEY=VALUE` per line; `-` reads standard input' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l runtime -d 'The runtime to add it to (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l user-tool -d 'Also record it in config.json `mcp_tools` as a user tool (remote servers only), as the device does: the runtime\'s server is then `tool_NAME`'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l replace -l force -d 'Replace an existing server of that name (`--force` is an alias)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l allow-uninstalled -d 'Write to a runtime that is not installed: its config waits for it'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l runtime -d 'The runtime to remove it from (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l user-tool -d 'Remove the user tool NAME: its entry in config.json `mcp_tools` and the server `tool_NAME`'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l runtime -d 'The runtime whose servers to list (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add an MCP server to a runtime: `mcp add NAME -- CMD [ARGS...]` (a local server) or `mcp add NAME --url URL [--header KEY=VALUE]...` (a remote one)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove an MCP server from a runtime\'s own file (nothing to do when it is not there)'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a runtime\'s MCP servers, read from its own file'
complete -c osctl -n "__fish_osctl_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -f -a "add" -d 'Set up a channel on a runtime (default: the active one): capability check first (a channel the runtime cannot run is refused and nothing is written), then the credentials go into config.json, then the runtime gets them (its own config where it runs the channel itself; nothing to write where the device\'s loop runs it)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -f -a "remove" -d 'Remove a channel: its credentials leave config.json and every runtime\'s own config'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -f -a "list" -d 'The channels configured in config.json, which ones a runtime (default: the active one) can run, who runs them, and which `channel add` sets up'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and not __fish_seen_subcommand_from add remove list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l runtime -d 'The runtime to set it up on (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l token -d 'The bot token (telegram, slack, discord)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l token-file -d 'Read the bot token from a file (its first line); `-` reads standard input' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l user-id -d 'The user allowed to talk to the bot (telegram id, slack/discord user id, whatsapp E.164)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l app-token -d 'Slack\'s app-level token (socket mode)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l app-token-file -d 'Read Slack\'s app-level token from a file; `-` reads standard input' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l signing-secret -d 'Slack\'s signing secret (HTTP mode)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l signing-secret-file -d 'Read Slack\'s signing secret from a file; `-` reads standard input (keeps it off the command line, where other users of the device can read it)' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l guild-id -d 'The Discord server (guild) id' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l allow-uninstalled -d 'Write to a runtime that is not installed: its config waits for it'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l runtime -d 'The runtime whose unit is restarted when its own config held the channel (default: the active runtime). The credentials leave config.json and every runtime\'s config either way' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l runtime -d 'The runtime whose channel support to show (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from help" -f -a "add" -d 'Set up a channel on a runtime (default: the active one): capability check first (a channel the runtime cannot run is refused and nothing is written), then the credentials go into config.json, then the runtime gets them (its own config where it runs the channel itself; nothing to write where the device\'s loop runs it)'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a channel: its credentials leave config.json and every runtime\'s own config'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from help" -f -a "list" -d 'The channels configured in config.json, which ones a runtime (default: the active one) can run, who runs them, and which `channel add` sets up'
complete -c osctl -n "__fish_osctl_using_subcommand channel; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand recover" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand recover" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -f -a "sync" -d 'One pass of the skill watcher: fetch the skills metadata (verified when bootstrap.json has a signing key), install every supported skill whose version changed, prune unsupported ones, refresh openclaw\'s OS hooks, and tell the agent what changed'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -f -a "list" -d 'List the runtime\'s skills: version, whether the device supports it, folder hash'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -f -a "verify" -d 'Recompute the hashes of the skills osctl installed and report drift (exit 3 when a folder was changed or removed since)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and not __fish_seen_subcommand_from sync list verify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l runtime -d 'The runtime whose skills folder to sync (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l metadata-url -d 'The OTA metadata that lists the skills (default: bootstrap.json `metadata_url`). Zips are fetched from `<base>/skills/<name>.zip`, where `<base>` is this URL without `/ota/metadata.json`' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l notify-cmd -d 'Run this shell command with the update prompt on its standard input when a skill\'s content changed (not run when nothing changed)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l ca-file -d 'Trust only the certificates in this PEM file (default: the system\'s CA store, or the roots built into osctl when the system has none)' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l timeout -d 'Seconds one request may take as a whole (connecting, the answer and the whole body) before giving up' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from sync" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l runtime -d 'The runtime whose skills folder to read (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l runtime -d 'The runtime whose skills folder to read (default: the active runtime)' -r -f -a "openclaw\t''
hermes\t''
picoclaw\t''
codex\t''
claudecode\t''
opencode\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from help" -f -a "sync" -d 'One pass of the skill watcher: fetch the skills metadata (verified when bootstrap.json has a signing key), install every supported skill whose version changed, prune unsupported ones, refresh openclaw\'s OS hooks, and tell the agent what changed'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the runtime\'s skills: version, whether the device supports it, folder hash'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Recompute the hashes of the skills osctl installed and report drift (exit 3 when a folder was changed or removed since)'
complete -c osctl -n "__fish_osctl_using_subcommand skills; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand completions" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand completions" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand man" -l root -d 'The device root: every device path is resolved under it, and nothing outside it is read or written. Service actions run only when it is `/`' -r -F
complete -c osctl -n "__fish_osctl_using_subcommand man" -l events -d 'Also write progress events as JSON lines: to this open file descriptor, or `-` for stderr (stdout stays the document\'s)' -r
complete -c osctl -n "__fish_osctl_using_subcommand man" -l color -d 'When to colour output, per stream (`auto`: a terminal; `NO_COLOR` off, `CLICOLOR_FORCE` on)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c osctl -n "__fish_osctl_using_subcommand man" -l lock-timeout -d 'Seconds to wait for the device lock held by another osctl run before giving up (exit 6)' -r
complete -c osctl -n "__fish_osctl_using_subcommand man" -s n -l dry-run -d 'Print what would change (a unified diff, secrets masked) and change nothing'
complete -c osctl -n "__fish_osctl_using_subcommand man" -l check -d 'Change nothing; exit 3 when something would change, 0 when all is in place'
complete -c osctl -n "__fish_osctl_using_subcommand man" -l json -d 'Print one JSON document on stdout (`"schema": 2`, docs/schema/) instead of text'
complete -c osctl -n "__fish_osctl_using_subcommand man" -l stat -d 'Previews: per file its path and +/- line counts, then the summary, instead of the diff'
complete -c osctl -n "__fish_osctl_using_subcommand man" -l no-diff -d 'Previews: the summary only, no diff'
complete -c osctl -n "__fish_osctl_using_subcommand man" -s q -l quiet -d 'Print only errors and warnings on stderr'
complete -c osctl -n "__fish_osctl_using_subcommand man" -s v -l verbose -d 'Say more: each file and action as it is applied, the plan\'s diff after an apply'
complete -c osctl -n "__fish_osctl_using_subcommand man" -s y -l yes -d 'Answer yes to confirmations (needed without a terminal for commands that ask)'
complete -c osctl -n "__fish_osctl_using_subcommand man" -s h -l help -d 'Print help'
complete -c osctl -n "__fish_osctl_using_subcommand man" -s V -l version -d 'Print version'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "status" -d 'Show which runtime is active and why, and the state of every runtime'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "switch" -d 'Switch the active runtime: install it when needed, start its unit and require it to stay up, stop the old one, then record it in config.json (the commit point) and reconcile. Any failure before the commit point rolls back (exit 4; 5 when the rollback is incomplete)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "reconcile" -d 'Carry persona, LLM config, channels and MCP servers over to the active runtime after a switch (at first boot, first seed an empty agent_runtime); each step is its own transaction guarded by its marker, so a failed step is retried by the next run'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "presync" -d 'Heal a runtime\'s native configuration before it starts (systemd `ExecStartPre=`, the switch, the `runtime-<rt>-presync` hook): LLM wiring per `llm_config_mode`, gateway and local tokens, channel credentials, the OS blocks of its prompt files, one-time steps. Keys osctl does not own are kept; a second run changes nothing'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "migrate" -d 'Carry the owner\'s persona and memory (SOUL.md, identity, MEMORY.md with the daily notes, KNOWLEDGE.md, USER.md) from one runtime\'s files into another\'s, backing up every file it replaces. Runtime-only files (AGENTS.md, TOOLS.md, HEARTBEAT.md, CLAUDE.md, hooks/) stay'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "reset" -d 'Factory-reset the agent side of the device: the active runtime\'s own state, the device\'s config, users and Wi-Fi, and every copy of the owner\'s persona in every runtime\'s tree (backups and AGENTS.md inline blocks included). It shows the plan and asks first; without a terminal it needs --yes'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "setup" -d 'Install osctl\'s own systemd units: the boot pass (`osctl reconcile` before the runtime starts), the skills timer (`osctl skills sync` every 5 minutes) and a presync drop-in (`ExecStartPre=-osctl presync <rt>`) for each runtime whose unit exists, enabled as `systemctl enable` does. Works on a mounted image with `--root IMAGE`; on the live device it also reloads systemd and starts the timer. A second run changes nothing'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "mcp" -d 'MCP servers of a runtime, in its own file: add, remove, list'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "channel" -d 'Messaging channels: add, remove, list'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "recover" -d 'Restore what interrupted runs left behind, from their journals (every run that changes the device also does this first)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "doctor" -d 'Check the device and say what to run next: files that do not parse, presync out of sync, reconcile markers behind, leftover journals, the lock holder, skills drift, and on the device unit states with a failed unit\'s journal. Read-only; exit 3 when it finds anything'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "skills" -d 'Keep the runtime\'s skills in step with the skills CDN: download, verify, install and prune capability-gated skills (and openclaw\'s OS hooks)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "man" -d 'Print a man page (roff): osctl(1), or a command\'s own page (`osctl man mcp add` prints osctl-mcp-add(1)). View one with `osctl man switch | man -l -`'
complete -c osctl -n "__fish_osctl_using_subcommand help; and not __fish_seen_subcommand_from status switch reconcile presync migrate reset setup mcp channel recover doctor skills completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "add" -d 'Add an MCP server to a runtime: `mcp add NAME -- CMD [ARGS...]` (a local server) or `mcp add NAME --url URL [--header KEY=VALUE]...` (a remote one)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "remove" -d 'Remove an MCP server from a runtime\'s own file (nothing to do when it is not there)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "list" -d 'List a runtime\'s MCP servers, read from its own file'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from channel" -f -a "add" -d 'Set up a channel on a runtime (default: the active one): capability check first (a channel the runtime cannot run is refused and nothing is written), then the credentials go into config.json, then the runtime gets them (its own config where it runs the channel itself; nothing to write where the device\'s loop runs it)'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from channel" -f -a "remove" -d 'Remove a channel: its credentials leave config.json and every runtime\'s own config'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from channel" -f -a "list" -d 'The channels configured in config.json, which ones a runtime (default: the active one) can run, who runs them, and which `channel add` sets up'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from skills" -f -a "sync" -d 'One pass of the skill watcher: fetch the skills metadata (verified when bootstrap.json has a signing key), install every supported skill whose version changed, prune unsupported ones, refresh openclaw\'s OS hooks, and tell the agent what changed'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from skills" -f -a "list" -d 'List the runtime\'s skills: version, whether the device supports it, folder hash'
complete -c osctl -n "__fish_osctl_using_subcommand help; and __fish_seen_subcommand_from skills" -f -a "verify" -d 'Recompute the hashes of the skills osctl installed and report drift (exit 3 when a folder was changed or removed since)'
