//! LLM wiring values shared by the runtimes' presyncs and the LLM carry-over
//! (docs/device-contract.md §1, §2 and §8.4): the default endpoint and model alias, URL shapes, and
//! which hosts are the OS's own.

/// The default endpoint, with the `/v1` the OpenAI-style clients need.
pub(crate) const DEFAULT_BASE_URL: &str = "https://campaign-api.autonomous.ai/api/v1/ai/v1";

/// The default endpoint without `/v1` (hermes and Claude Code speak Anthropic messages there).
pub(crate) const DEFAULT_BASE_URL_AI: &str = "https://campaign-api.autonomous.ai/api/v1/ai";

/// The model alias; it resolves only at campaign-api, so a custom base URL must use `llm_model`.
pub(crate) const DEFAULT_MODEL: &str = "Auto-AI";

/// The vision model hermes and picoclaw are wired to.
pub(crate) const VISION_MODEL: &str = "qwen/qwen3.6-plus";

/// `url` without trailing slashes, ending in `/v1`.
pub(crate) fn with_v1(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    if url.ends_with("/v1") {
        url.to_string()
    } else {
        format!("{url}/v1")
    }
}

/// `url` without trailing slashes and without a final `/v1`.
pub(crate) fn without_v1(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    url.strip_suffix("/v1").unwrap_or(url).to_string()
}

/// The URL's host, lowercased (`None` when it has none).
pub(crate) fn host(url: &str) -> Option<String> {
    let rest = url.trim().split_once("://").map(|(_, r)| r)?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// campaign-api, where the `Auto-AI` alias resolves (an empty URL means the default, so it is).
pub(crate) fn is_campaign(url: Option<&str>) -> bool {
    url.is_none_or(|u| u.trim().is_empty() || u.contains("campaign-api.autonomous.ai"))
}

/// An endpoint of the OS's own (hosts `autonomous.ai`, `autonomousdev.xyz` and their
/// subdomains); an empty or unparsable URL counts as the default, so as the OS's own.
pub(crate) fn is_autonomous_host(url: Option<&str>) -> bool {
    let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
        return true;
    };
    let Some(host) = host(url) else {
        return true;
    };
    ["autonomous.ai", "autonomousdev.xyz"]
        .iter()
        .any(|d| host == *d || host.ends_with(&format!(".{d}")))
}

/// upstream's `NormalizeBaseURL`: trailing slashes trimmed, and `/v1` appended when the URL is
/// on a campaign-api host and ends in `/ai`.
pub(crate) fn normalize_base_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    let campaign = host(url).is_some_and(|h| h.starts_with("campaign-api."));
    if campaign && url.ends_with("/ai") {
        format!("{url}/v1")
    } else {
        url.to_string()
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn url_shapes() {
        assert_eq!(with_v1("https://h/x/"), "https://h/x/v1");
        assert_eq!(with_v1("https://h/x/v1"), "https://h/x/v1");
        assert_eq!(without_v1("https://h/ai/v1/"), "https://h/ai");
        assert_eq!(without_v1("https://h/ai"), "https://h/ai");
        assert_eq!(
            host("https://user@Campaign-API.autonomous.ai:443/api"),
            Some("campaign-api.autonomous.ai".into())
        );
        assert_eq!(host("http://[::1]:8000/v1"), Some("::1".into()));
        assert_eq!(host("not a url"), None);
    }

    #[test]
    fn own_hosts() {
        assert!(is_autonomous_host(None));
        assert!(is_autonomous_host(Some(DEFAULT_BASE_URL)));
        assert!(is_autonomous_host(Some("https://api.autonomousdev.xyz/v1")));
        assert!(!is_autonomous_host(Some("https://notautonomous.ai/v1")));
        assert!(!is_autonomous_host(Some("http://127.0.0.1:8000/v1")));
        assert!(is_campaign(Some("")));
        assert!(!is_campaign(Some("http://127.0.0.1:8000/v1")));
    }

    #[test]
    fn normalizes_like_upstream() {
        assert_eq!(normalize_base_url(DEFAULT_BASE_URL_AI), DEFAULT_BASE_URL);
        assert_eq!(
            normalize_base_url(&format!("{DEFAULT_BASE_URL}/")),
            DEFAULT_BASE_URL
        );
        assert_eq!(
            normalize_base_url("http://127.0.0.1:8000/ai/"),
            "http://127.0.0.1:8000/ai"
        );
    }
}
