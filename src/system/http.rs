//! HTTP: the one door osctl uses to reach the network.
//!
//! Every request is a bounded `GET`: a cap on the body size (a server that sends more is cut off,
//! not buffered) and one deadline for the whole request, from the connection to the last byte of
//! the body. A deadline on silence alone is not enough: a server that sends one byte every few
//! seconds never goes silent, and would hold its caller (and whatever the caller holds) for as
//! long as it likes. Requests carry `Cache-Control: no-cache`, as upstream's downloader does, so
//! a CDN edge never serves a stale skill list.
//!
//! TLS is rustls with the ring provider (no OpenSSL, so the static binary stays whole). The trust
//! roots are, in order: the PEM file given with `--ca-file`; else the system's CA bundle (the
//! first of the usual distribution paths that holds certificates); else the Mozilla roots
//! compiled into osctl, for a device image that ships no CA store. The system bundle is read
//! only when an `https` URL is actually fetched, so loopback and plain-HTTP runs pay nothing.
//!
//! The client is ureq 3 rather than reqwest: it is synchronous (no hidden async runtime thread
//! for one request at a time), its global timeout covers the body as well, and it is smaller
//! (the book's "Static builds" has the measured size). The body loop checks the deadline too, so it
//! holds whatever the transport does.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ureq::Agent;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

use crate::error::{Error, Result};

/// CA bundles of the common distributions, in the order osctl tries them.
const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// How a client is set up.
#[derive(Clone, Debug)]
pub(crate) struct HttpOptions {
    /// A PEM file of trusted roots that replaces the system store (`--ca-file`).
    pub ca_file: Option<PathBuf>,
    /// The longest one request may take, whole: connecting, the answer, and every byte of the
    /// body (`--timeout`).
    pub timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            ca_file: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The server answered with a status other than 200.
    Status(u16),
    /// The body is larger than the caller allows.
    TooLarge { limit: u64 },
    /// The request did not finish within its deadline (a silent or a trickling server).
    Timeout,
    /// The connection closed before the promised `Content-Length`.
    Truncated,
    /// Anything else: DNS, refused connection, TLS, a malformed response.
    Network,
}

/// A failed request, with the URL and the underlying cause.
#[derive(Clone, Debug)]
pub(crate) struct HttpError {
    pub url: String,
    pub failure: Failure,
    pub detail: String,
}

impl HttpError {
    /// A stable machine code for `--json` (`http_404`, `download_timeout`, …).
    pub(crate) fn code(&self) -> &'static str {
        match self.failure {
            Failure::Status(404) => "http_not_found",
            Failure::Status(_) => "http_status",
            Failure::TooLarge { .. } => "download_too_large",
            Failure::Timeout => "download_timeout",
            Failure::Truncated => "download_truncated",
            Failure::Network => "network_error",
        }
    }

    /// One line for messages.
    pub(crate) fn describe(&self) -> String {
        match &self.failure {
            Failure::Status(s) => format!("GET {} answered HTTP {s}", self.url),
            Failure::TooLarge { limit } => {
                format!("{} is larger than the {limit}-byte limit", self.url)
            }
            Failure::Timeout => format!("GET {} timed out ({})", self.url, self.detail),
            Failure::Truncated => format!(
                "GET {}: the connection closed before the whole body arrived",
                self.url
            ),
            Failure::Network => format!("GET {} failed: {}", self.url, self.detail),
        }
    }

    /// As an osctl error (exit 1: nothing was written because of it).
    pub(crate) fn into_error(self) -> Error {
        Error::input(self.code(), self.describe())
    }
}

/// An HTTP client with osctl's bounds. Cheap to create: agents are built on first use.
pub(crate) struct Http {
    options: HttpOptions,
    plain: OnceLock<Agent>,
    tls: OnceLock<std::result::Result<Agent, String>>,
}

impl Http {
    /// Checks `--ca-file` up front (a bad file is bad input, exit 1) and prepares the client.
    pub(crate) fn new(options: HttpOptions) -> Result<Http> {
        if let Some(path) = &options.ca_file {
            load_pem_roots(path).map_err(|cause| {
                Error::input(
                    "bad_ca_file",
                    format!("cannot use {} as --ca-file", path.display()),
                )
                .cause(cause)
                .hint("--ca-file needs a PEM file holding one or more CERTIFICATE blocks")
            })?;
        }
        Ok(Http {
            options,
            plain: OnceLock::new(),
            tls: OnceLock::new(),
        })
    }

    fn agent(&self, url: &str) -> std::result::Result<&Agent, String> {
        if !url.to_ascii_lowercase().starts_with("https://") {
            return Ok(self
                .plain
                .get_or_init(|| build_agent(&self.options, RootCerts::WebPki)));
        }
        self.tls
            .get_or_init(|| {
                let roots = match &self.options.ca_file {
                    Some(path) => load_pem_roots(path)?,
                    None => system_roots().unwrap_or(RootCerts::WebPki),
                };
                Ok(build_agent(&self.options, roots))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// `GET url`, the body read whole (at most `limit` bytes). `progress` is called as bytes
    /// arrive with the count so far and the announced length.
    pub(crate) fn get(
        &self,
        url: &str,
        limit: u64,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> std::result::Result<Vec<u8>, HttpError> {
        let mut body = Vec::new();
        self.get_to(url, limit, &mut body, progress)?;
        Ok(body)
    }

    /// `GET url`, the body written to `sink` as it arrives (at most `limit` bytes); returns the
    /// number of bytes written. On an error `sink` may hold part of the body: the caller throws
    /// it away.
    pub(crate) fn get_to(
        &self,
        url: &str,
        limit: u64,
        sink: &mut dyn Write,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> std::result::Result<u64, HttpError> {
        let deadline = Instant::now() + self.options.timeout;
        let fail = |failure: Failure, detail: String| HttpError {
            url: url.to_string(),
            failure,
            detail,
        };
        let within = format!(
            "the whole transfer, body included, may take at most {} s (--timeout)",
            self.options.timeout.as_secs_f64()
        );
        let classify = |e: ureq::Error| {
            let mut err = classify(url, e);
            if err.failure == Failure::Timeout {
                err.detail = within.clone();
            }
            err
        };
        let agent = self.agent(url).map_err(|e| fail(Failure::Network, e))?;
        let mut response = agent
            .get(url)
            .header("Cache-Control", "no-cache")
            .call()
            .map_err(classify)?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(fail(Failure::Status(status), String::new()));
        }
        let announced = response.body().content_length();
        if announced.is_some_and(|n| n > limit) {
            return Err(fail(Failure::TooLarge { limit }, String::new()));
        }
        let mut reader = response.body_mut().as_reader();
        let mut written = 0u64;
        let mut chunk = vec![0u8; 64 * 1024];
        progress(0, announced);
        loop {
            let n = match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(classify(ureq::Error::from(e))),
            };
            if written + n as u64 > limit {
                return Err(fail(Failure::TooLarge { limit }, String::new()));
            }
            sink.write_all(&chunk[..n])
                .map_err(|e| fail(Failure::Network, format!("cannot keep the body: {e}")))?;
            written += n as u64;
            progress(written, announced);
            // ureq's global timeout covers the body too; this holds even if a transport does not.
            if Instant::now() > deadline {
                return Err(fail(Failure::Timeout, within.clone()));
            }
        }
        if announced.is_some_and(|n| n != written) {
            return Err(fail(Failure::Truncated, String::new()));
        }
        Ok(written)
    }
}

fn build_agent(options: &HttpOptions, roots: RootCerts) -> Agent {
    Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(concat!("osctl/", env!("CARGO_PKG_VERSION")))
        .max_redirects(5)
        .timeout_global(Some(options.timeout))
        .tls_config(TlsConfig::builder().root_certs(roots).build())
        .build()
        .into()
}

/// Maps a ureq error to osctl's failure kinds.
fn classify(url: &str, err: ureq::Error) -> HttpError {
    let detail = err.to_string();
    let failure = match &err {
        ureq::Error::Timeout(_) | ureq::Error::BodyStalled => Failure::Timeout,
        ureq::Error::StatusCode(s) => Failure::Status(*s),
        ureq::Error::BodyExceedsLimit(n) => Failure::TooLarge { limit: *n },
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => Failure::Timeout,
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Failure::Truncated,
        ureq::Error::Protocol(_) if detail.contains("closed") || detail.contains("EOF") => {
            Failure::Truncated
        }
        _ => Failure::Network,
    };
    HttpError {
        url: url.to_string(),
        failure,
        detail,
    }
}

/// The certificates in a PEM file (at least one).
fn load_pem_roots(path: &Path) -> std::result::Result<RootCerts, String> {
    let pem = std::fs::read(path).map_err(|e| e.to_string())?;
    let certs = pem_certificates(&pem)?;
    if certs.is_empty() {
        return Err("no CERTIFICATE block in the file".into());
    }
    Ok(RootCerts::from(certs))
}

fn pem_certificates(pem: &[u8]) -> std::result::Result<Vec<Certificate<'static>>, String> {
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(pem) {
        if let PemItem::Certificate(c) = item.map_err(|e| e.to_string())? {
            certs.push(c);
        }
    }
    Ok(certs)
}

/// The system's CA bundle, when it has one.
fn system_roots() -> Option<RootCerts> {
    SYSTEM_CA_BUNDLES.iter().find_map(|p| {
        let pem = std::fs::read(p).ok()?;
        let certs = pem_certificates(&pem).ok()?;
        (!certs.is_empty()).then(|| RootCerts::from(certs))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::TcpListener;

    /// Serves one connection: `head`, then the body one byte every `every`, then closes.
    fn serve_trickle(head: &'static [u8], body_len: usize, every: Duration) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(head);
            for _ in 0..body_len {
                if s.write_all(b"x").and_then(|()| s.flush()).is_err() {
                    return;
                }
                std::thread::sleep(every);
            }
        });
        format!("http://{addr}/x")
    }

    /// Serves one connection with `response` (raw bytes), then stops.
    fn serve_once(response: Vec<u8>, stall: bool) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(&response);
            if stall {
                std::thread::sleep(Duration::from_secs(3));
            }
        });
        format!("http://{addr}/x")
    }

    fn http(stall: u64) -> Http {
        Http::new(HttpOptions {
            ca_file: None,
            timeout: Duration::from_millis(stall),
        })
        .unwrap()
    }

    #[test]
    fn reads_a_body_and_reports_status_size_truncation_and_stalls() {
        let ok = serve_once(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".to_vec(),
            false,
        );
        let mut seen = 0;
        let body = http(2000).get(&ok, 100, &mut |n, _| seen = n).unwrap();
        assert_eq!(body, b"hello");
        assert_eq!(seen, 5);

        let missing = serve_once(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
            false,
        );
        let err = http(2000).get(&missing, 100, &mut |_, _| {}).unwrap_err();
        assert_eq!(err.failure, Failure::Status(404));

        let big = serve_once(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".to_vec(),
            false,
        );
        let err = http(2000).get(&big, 4, &mut |_, _| {}).unwrap_err();
        assert_eq!(err.failure, Failure::TooLarge { limit: 4 });

        let short = serve_once(
            b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\nConnection: close\r\n\r\nhello".to_vec(),
            false,
        );
        let err = http(2000).get(&short, 100, &mut |_, _| {}).unwrap_err();
        assert_eq!(err.failure, Failure::Truncated, "{err:?}");

        let stalled = serve_once(
            b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nhel".to_vec(),
            true,
        );
        let err = http(300).get(&stalled, 100, &mut |_, _| {}).unwrap_err();
        assert_eq!(err.failure, Failure::Timeout, "{err:?}");
    }

    /// A server that never goes silent (one byte every 100 ms of a 6-second body) used to keep
    /// the request going as long as it liked: the timeout bounded silence only. It now bounds
    /// the whole transfer.
    #[test]
    fn regression_a_trickling_server_held_the_request_past_its_timeout() {
        let url = serve_trickle(
            b"HTTP/1.1 200 OK\r\nContent-Length: 60\r\nConnection: close\r\n\r\n",
            60,
            Duration::from_millis(100),
        );
        let started = Instant::now();
        let mut sink = Vec::new();
        let err = http(700)
            .get_to(&url, 100, &mut sink, &mut |_, _| {})
            .unwrap_err();
        assert_eq!(err.failure, Failure::Timeout, "{err:?}");
        assert!(
            err.describe().contains("body included"),
            "{}",
            err.describe()
        );
        assert!(
            !sink.is_empty(),
            "bytes did arrive: the server was never silent"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "gave up at its deadline, not when the server finished"
        );
    }

    #[test]
    fn a_ca_file_without_certificates_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ca.pem");
        std::fs::write(&p, "not a certificate\n").unwrap();
        let err = Http::new(HttpOptions {
            ca_file: Some(p),
            ..HttpOptions::default()
        })
        .err()
        .unwrap();
        assert_eq!(err.code, "bad_ca_file");
    }
}
