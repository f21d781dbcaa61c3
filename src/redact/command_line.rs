//! Command lines as osctl records them (the lock holder's note, the journal manifest): the
//! values of secret flags and secret `KEY=VALUE` arguments become `***`.

use super::is_secret_key;

/// A command line (program name first) as osctl records it in the lock holder's note and the
/// journal manifest, and prints it: the values of secret flags become `***` (`--token`,
/// `--app-token`, `--signing-secret`, `--password`, `--api-key`, any flag whose name holds
/// `token`, `secret`, `key`, `password`, `auth` or `credential`, in `--flag value` and
/// `--flag=value` form; `--header K=V`, `--env K=V` and `--installer-env K=V` keep `K`), a
/// `KEY=VALUE` argument with a secret-looking key keeps only its key, and in every argument a
/// URL's userinfo and its credential-like query values (`key`, `token`, `secret`, `password`,
/// `sig`, `signature`, `api_key`, `access_token`, `auth`) are masked. Flags that name a file
/// (`--token-file`) are not secrets and stay. The server command after `--` (`mcp add NAME --
/// CMD ARGS`) is masked by the same rules. Only `***` is shown, never a part of a value: these
/// records outlive the run and are read by whoever can see the lock.
pub fn mask_command_line(args: &[String]) -> String {
    const HIDDEN: &str = "***";
    // Flags whose value is `K=V` (or `K: V`): the name is shown, the value is not.
    fn pairs_flag(name: &str) -> bool {
        name == "header" || name == "env" || name.ends_with("-env")
    }
    fn secret_flag(name: &str) -> bool {
        if name.ends_with("-file") || name.ends_with("_file") {
            return false;
        }
        pairs_flag(name)
            || [
                "token",
                "secret",
                "key",
                "password",
                "passwd",
                "auth",
                "credential",
            ]
            .iter()
            .any(|w| name.contains(w))
    }
    fn hide_value(flag: &str, value: &str) -> String {
        if pairs_flag(flag)
            && let Some(i) = value.find(['=', ':'])
        {
            return format!("{}{HIDDEN}", &value[..=i]);
        }
        HIDDEN.to_string()
    }
    fn secret_query_key(key: &str) -> bool {
        let k = key.to_ascii_lowercase();
        [
            "key",
            "token",
            "secret",
            "password",
            "sig",
            "signature",
            "api_key",
            "access_token",
            "auth",
        ]
        .contains(&k.as_str())
            || is_secret_key(&k)
    }
    // URL userinfo (`https://user:pass@host`) and credential query values, wherever a URL
    // appears in the argument.
    fn hide_in_urls(arg: &str) -> String {
        let mut out = String::with_capacity(arg.len());
        let mut rest = arg;
        while let Some(i) = rest.find("://") {
            let (head, tail) = rest.split_at(i + 3);
            out.push_str(head);
            let end = tail
                .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                .unwrap_or(tail.len());
            let (url, after) = tail.split_at(end);
            let authority_end = url.find(['/', '?', '#']).unwrap_or(url.len());
            let (authority, path) = url.split_at(authority_end);
            match authority.rfind('@') {
                Some(at) => {
                    out.push_str(HIDDEN);
                    out.push_str(&authority[at..]);
                }
                None => out.push_str(authority),
            }
            match path.find('?') {
                Some(q) => {
                    out.push_str(&path[..=q]);
                    let (query, fragment) = match path[q + 1..].find('#') {
                        Some(h) => path[q + 1..].split_at(h),
                        None => (&path[q + 1..], ""),
                    };
                    let parts: Vec<String> = query
                        .split('&')
                        .map(|kv| match kv.split_once('=') {
                            Some((k, _)) if secret_query_key(k) => format!("{k}={HIDDEN}"),
                            _ => kv.to_string(),
                        })
                        .collect();
                    out.push_str(&parts.join("&"));
                    out.push_str(fragment);
                }
                None => out.push_str(path),
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }
    let mut out: Vec<String> = Vec::with_capacity(args.len());
    let mut pending: Option<String> = None;
    for arg in args {
        if let Some(flag) = pending.take() {
            out.push(hide_value(&flag, arg));
            continue;
        }
        let shown = match arg.strip_prefix("--") {
            Some(body) if !body.is_empty() => {
                let (name, value) = match body.split_once('=') {
                    Some((n, v)) => (n.to_ascii_lowercase(), Some(v)),
                    None => (body.to_ascii_lowercase(), None),
                };
                match (secret_flag(&name), value) {
                    (true, Some(v)) => {
                        format!("--{}={}", &body[..name.len()], hide_value(&name, v))
                    }
                    (true, None) => {
                        pending = Some(name);
                        arg.clone()
                    }
                    (false, _) => hide_in_urls(arg),
                }
            }
            _ => match arg.split_once('=') {
                Some((k, _)) if !k.is_empty() && !k.contains("://") && is_secret_key(k) => {
                    format!("{k}={HIDDEN}")
                }
                _ => hide_in_urls(arg),
            },
        };
        out.push(shown);
    }
    out.join(" ")
}
