//! POST requests to a model API on reqwest: TLS (rustls, `ring`, Mozilla's roots and the
//! operator's CA file, see [`trust`](super::trust)) for `https://` base URLs, the proxies the
//! environment names (see [`proxy`](super::proxy)), connections kept and reused between turns,
//! and HTTP/2 where the server offers it.

use std::error::Error;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};

use super::error::AgentError;
use cy_tools_http_client::{CaFile, Proxies, proxies_from_env, tls_config};

/// How long connecting (TCP, a proxy's tunnel and TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the API may stay silent: before its answer's head, and between two pieces of its
/// body. A model thinking hard is slow, but a connection silent this long is dead, and without
/// a limit a run with no time limit would wait on it forever.
const SILENCE_LIMIT: Duration = Duration::from_secs(600);

/// How long a connection is kept for the next turn. Tools run between two turns, often for
/// seconds; a server closes an idle connection after a minute or more, and a request that
/// finds its pooled connection closed before it was sent is sent again on a new one.
const IDLE_LIMIT: Duration = Duration::from_secs(60);

/// The most of an answer read as one JSON document (a streamed answer is read as it comes).
const BODY_LIMIT: usize = 32 << 20;

/// Where an API is: scheme, host, port and the path requests go under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BaseUrl {
    pub(crate) https: bool,
    host: String,
    port: u16,
    /// Without a trailing `/`; empty for the root.
    path: String,
}

impl BaseUrl {
    /// Parses `http://host[:port][/path]` or `https://...`.
    pub(crate) fn parse(url: &str) -> Result<BaseUrl, AgentError> {
        let bad = |why: &str| {
            AgentError::usage(format!(
                "base URL `{url}` {why}; give one like `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`"
            ))
        };
        let (https, rest) = if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(bad("is not an http:// or https:// URL"));
        };
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() || authority.contains('@') {
            return Err(bad(
                "has no host (or has credentials in it, which are not supported)",
            ));
        }
        let default_port = if https { 443 } else { 80 };
        let port = |text: &str| text.parse::<u16>().map_err(|_| bad("has an invalid port"));
        // An IPv6 address is in brackets, its port (if any) after them.
        let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
            match rest.split_once(']') {
                Some((host, "")) => (host, default_port),
                Some((host, after)) => match after.strip_prefix(':') {
                    Some(text) => (host, port(text)?),
                    None => return Err(bad("has an invalid port")),
                },
                None => return Err(bad("has an unclosed `[`")),
            }
        } else {
            match authority.rsplit_once(':') {
                Some((host, text)) => (host, port(text)?),
                None => (authority, default_port),
            }
        };
        if path.contains(['?', '#']) {
            return Err(bad("has a query or fragment"));
        }
        Ok(BaseUrl {
            https,
            host: host.to_string(),
            port,
            path: path.trim_end_matches('/').to_string(),
        })
    }

    /// Whether what is sent can be read on the way: plain `http://` to a host other than this
    /// machine (`localhost`, `127.0.0.0/8`, `::1`). A name that merely resolves to a loopback
    /// address counts as another host: what it resolves to can change.
    pub(crate) fn exposed(&self) -> bool {
        if self.https {
            return false;
        }
        let loopback = self.host.eq_ignore_ascii_case("localhost")
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.to_canonical().is_loopback());
        !loopback
    }

    /// The base path with `suffix` (which starts with `/`) after it.
    pub(crate) fn path(&self, suffix: &str) -> String {
        format!("{}{suffix}", self.path)
    }

    /// The host, as the URL names it (an IPv6 address without brackets).
    pub(crate) fn host(&self) -> &str {
        &self.host
    }

    /// The port, the scheme's default when the URL names none.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The URL of `path` (from [`path`](Self::path)) on this server.
    pub(crate) fn url(&self, path: &str) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}{path}", self.host_header())
    }

    fn host_header(&self) -> String {
        let default = if self.https { 443 } else { 80 };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == default {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

impl std::fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.https { "https" } else { "http" };
        write!(f, "{scheme}://{}{}", self.host_header(), self.path)
    }
}

/// An answer's status and headers, and its body still to read.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    /// `Retry-After` in seconds (or `retry-after-ms`), when the server sent one.
    pub(crate) retry_after: Option<Duration>,
    /// Whether the body is an event stream (a server may answer a streaming request whole).
    pub(crate) event_stream: bool,
    /// Dropped before its end, it closes the connection (HTTP/1.1) or resets the stream
    /// (HTTP/2), so an answer cut off is not read on.
    response: reqwest::Response,
}

impl Answer {
    /// The whole body (up to a limit).
    pub(crate) async fn bytes(mut self) -> Result<Vec<u8>, AgentError> {
        let mut body = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            if body.len() + chunk.len() > BODY_LIMIT {
                return Err(AgentError::provider(format!(
                    "the API's answer passed {BODY_LIMIT} bytes and was not read further; check the base URL points at the API itself"
                )));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The next piece of the body, `None` at its end.
    pub(crate) async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, AgentError> {
        tokio::time::timeout(SILENCE_LIMIT, self.response.chunk())
            .await
            .map_err(|_| silent())?
            .map_err(|err| {
                AgentError::provider(format!(
                    "the API's answer broke off: {}; try again",
                    chain(&err)
                ))
                .with_source(err)
            })
    }
}

fn silent() -> AgentError {
    AgentError::provider(format!(
        "the model API sent nothing for {} s and was given up on; try again, or check the server",
        SILENCE_LIMIT.as_secs()
    ))
}

/// Makes the requests; a clone shares the connections.
#[derive(Clone)]
pub(crate) struct Client {
    inner: reqwest::Client,
    /// The proxy of `https://` and of `http://` requests, for messages.
    proxy_https: Option<String>,
    proxy_http: Option<String>,
    /// The CA file added to the roots, for messages.
    ca_file: Option<CaFile>,
}

impl Client {
    /// A client trusting Mozilla's roots and `ca_file`'s, through the proxies the environment
    /// (read with `var`) names.
    ///
    /// # Errors
    /// The CA file cannot be used, or a proxy variable holds no usable URL.
    pub(crate) fn new(
        ca_file: Option<CaFile>,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Client, AgentError> {
        let tls = tls_config(ca_file.as_ref())?;
        let proxies: Proxies = proxies_from_env(var)?;
        // `no_proxy` first: the proxies are the ones read here, not reqwest's own reading.
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .tls_backend_preconfigured(tls)
            .connect_timeout(CONNECT_TIMEOUT)
            .pool_idle_timeout(IDLE_LIMIT)
            .tcp_nodelay(true);
        for proxy in proxies.list {
            builder = builder.proxy(proxy);
        }
        let inner = builder.build().map_err(|err| {
            AgentError::usage(format!(
                "the HTTP client could not be set up: {}",
                chain(&err)
            ))
            .with_source(err)
        })?;
        Ok(Client {
            inner,
            proxy_https: proxies.https,
            proxy_http: proxies.http,
            ca_file,
        })
    }

    /// POSTs `body` (JSON) to `path` under `base`.
    pub(crate) async fn post(
        &self,
        base: &BaseUrl,
        path: &str,
        headers: &[(&'static str, String)],
        body: Vec<u8>,
    ) -> Result<Answer, AgentError> {
        let mut map = HeaderMap::new();
        map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in headers {
            let value = HeaderValue::from_str(value).map_err(|_| {
                AgentError::usage(format!(
                    "the `{name}` header holds characters a header cannot carry; check the API key has no line breaks"
                ))
            })?;
            map.insert(*name, value);
        }
        let request = self.inner.post(base.url(path)).headers(map).body(body);
        let response = tokio::time::timeout(SILENCE_LIMIT, request.send())
            .await
            .map_err(|_| silent())?
            .map_err(|err| self.unreachable(base, &err).with_source(err))?;
        let retry_after = retry_after(response.headers());
        let status = response.status();
        let event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        Ok(Answer {
            status,
            retry_after,
            event_stream,
            response,
        })
    }

    /// Why `base` could not be reached, and what to check: the proxy the request went
    /// through, and for a certificate the roots and how to add one.
    fn unreachable(&self, base: &BaseUrl, err: &reqwest::Error) -> AgentError {
        // reqwest's own message names the URL, which this one already does.
        let why = err.source().map_or_else(|| chain(err), chain);
        let mut message = format!("cannot reach the model API at {base}: {why}");
        let proxy = if base.https {
            &self.proxy_https
        } else {
            &self.proxy_http
        };
        if let Some(proxy) = proxy {
            message.push_str(&format!(
                "; the request went through the proxy {proxy}: check that proxy is up and lets it through, or exclude the host in `NO_PROXY`"
            ));
        } else {
            message.push_str("; check the base URL and that the server is up");
        }
        // rustls's words for a certificate its roots do not vouch for (its error is behind an
        // `io::Error`, whose `source` skips it).
        if why.contains("invalid peer certificate") {
            match &self.ca_file {
                Some(file) => message.push_str(&format!(
                    "; the server's certificate is checked against Mozilla's roots and the CA file `{}` named by {}: check that file holds the CA that signed it",
                    file.path.display(),
                    file.named_by
                )),
                None => message.push_str(
                    "; the server's certificate is checked against Mozilla's roots: if a private CA signed it, point `SSL_CERT_FILE` (or `--ca-file`) at a PEM file of that CA",
                ),
            }
        }
        AgentError::provider(message)
    }
}

/// A blocking client with the same roots and proxies as [`Client`], for the OTLP exporter,
/// whose batch thread has no async runtime. Built on a thread of its own: reqwest refuses to
/// make one inside a runtime.
///
/// # Errors
/// As [`Client::new`].
#[cfg(feature = "otel")]
pub(crate) fn blocking_client(
    ca_file: Option<CaFile>,
    var: &dyn Fn(&str) -> Option<String>,
    timeout: Duration,
) -> Result<reqwest::blocking::Client, AgentError> {
    let tls = tls_config(ca_file.as_ref())?;
    let proxies = proxies_from_env(var)?;
    std::thread::spawn(move || {
        let mut builder = reqwest::blocking::Client::builder()
            .no_proxy()
            .tls_backend_preconfigured(tls)
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(timeout);
        for proxy in proxies.list {
            builder = builder.proxy(proxy);
        }
        builder.build().map_err(|err| {
            AgentError::usage(format!(
                "the HTTP client of the trace exporter could not be set up: {}",
                chain(&err)
            ))
            .with_source(err)
        })
    })
    .join()
    .unwrap_or_else(|_| {
        Err(AgentError::usage(
            "the HTTP client of the trace exporter could not be set up: its thread panicked",
        ))
    })
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("proxy_https", &self.proxy_https)
            .field("proxy_http", &self.proxy_http)
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

/// An error and its sources, each said once: reqwest's own says only which request failed.
pub(crate) fn chain(err: &(dyn Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

/// `Retry-After: <seconds>`, or OpenAI's `retry-after-ms`. The HTTP-date form is not used by
/// the providers and falls back to the loop's own backoff.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    header(RETRY_AFTER.as_str())
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_proxy_that_refuses_is_named_in_the_error() {
        // A port nothing listens on: bound, its number noted, and closed.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let proxy = format!("http://127.0.0.1:{closed}");
        let env = |name: &str| (name == "HTTPS_PROXY").then(|| proxy.clone());
        let client = Client::new(None, &env).unwrap();
        let base = BaseUrl::parse("https://api.example.com/v1").unwrap();
        let err = match client.post(&base, "/v1/x", &[], Vec::new()).await {
            Ok(_) => panic!("a request through a closed proxy was answered"),
            Err(err) => err.to_string(),
        };
        assert!(
            err.starts_with("cannot reach the model API at https://api.example.com/v1: ")
                && err.ends_with(&format!(
                    "the request went through the proxy `{proxy}` (from `HTTPS_PROXY`): check that proxy is up and lets it through, or exclude the host in `NO_PROXY`"
                )),
            "{err}"
        );
    }

    #[test]
    fn base_urls_parse_with_their_defaults() {
        let url = BaseUrl::parse("https://api.openai.com/v1/").unwrap();
        assert_eq!(
            (
                url.https,
                url.host.as_str(),
                url.port,
                url.path("/chat/completions")
            ),
            (
                true,
                "api.openai.com",
                443,
                "/v1/chat/completions".to_string()
            )
        );
        assert_eq!(url.to_string(), "https://api.openai.com/v1");
        let local = BaseUrl::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(
            (local.port, local.path("/v1/messages")),
            (8080, "/v1/messages".to_string())
        );
        assert_eq!(local.host_header(), "127.0.0.1:8080");
        let v6 = BaseUrl::parse("http://[::1]:9/v1").unwrap();
        assert_eq!(
            (v6.host.as_str(), v6.port, v6.host_header()),
            ("::1", 9, "[::1]:9".to_string())
        );
        let v6 = BaseUrl::parse("https://[::1]/v1").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 443));
        for (url, exposed) in [
            ("http://127.0.0.1:8080", false),
            ("http://127.9.9.9", false),
            ("http://[::1]:9/v1", false),
            ("http://[::ffff:127.0.0.1]/v1", false),
            ("http://LocalHost:11434/v1", false),
            ("https://api.openai.com/v1", false),
            ("http://10.0.0.5:8000/v1", true),
            ("http://api.example.com/v1", true),
            ("http://localhost.example.com/v1", true),
            ("http://[::2]/v1", true),
        ] {
            assert_eq!(BaseUrl::parse(url).unwrap().exposed(), exposed, "{url}");
        }
        for bad in [
            "ftp://x",
            "http://",
            "http://h:port",
            "https://u:p@h/v1",
            "http://h/v1?x=1",
            "http://[::1/v1",
            "http://[::1]x/v1",
        ] {
            let err = BaseUrl::parse(bad).unwrap_err().to_string();
            assert!(err.starts_with(&format!("base URL `{bad}`")), "{err}");
        }
    }
}
