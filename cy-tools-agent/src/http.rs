//! POST requests to a model API over HTTP/1.1, with TLS (rustls, `ring`, Mozilla's roots) for
//! `https://` base URLs.
//!
//! One connection per request: a turn takes seconds of model time, next to which a handshake is
//! noise, and no pool means no idle connection a server may have closed under us.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HOST, HeaderValue, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use super::error::AgentError;

/// How long connecting (TCP and TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the API may stay silent: before its answer's head, and between two pieces of its
/// body. A model thinking hard is slow, but a connection silent this long is dead, and without
/// a limit a run with no time limit would wait on it forever.
const SILENCE_LIMIT: Duration = Duration::from_secs(600);

/// The most of an answer read as one JSON document (a streamed answer is read as it comes).
const BODY_LIMIT: usize = 32 << 20;

/// Where an API is: scheme, host, port and the path requests go under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BaseUrl {
    https: bool,
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
    /// Dropped, it closes the connection, so an answer cut off is not read on.
    body: Incoming,
}

impl Answer {
    /// The whole body (up to a limit).
    pub(crate) async fn bytes(self) -> Result<Bytes, AgentError> {
        let limited = http_body_util::Limited::new(self.body, BODY_LIMIT);
        tokio::time::timeout(SILENCE_LIMIT, limited.collect())
            .await
            .map_err(|_| silent())?
            .map(|collected| collected.to_bytes())
            .map_err(|err| {
                AgentError::provider(format!(
                    "the API's answer could not be read: {err}; check the base URL points at the API itself"
                ))
                .with_source(err)
            })
    }

    /// The next piece of the body, `None` at its end.
    pub(crate) async fn next_chunk(&mut self) -> Result<Option<Bytes>, AgentError> {
        loop {
            let frame = tokio::time::timeout(SILENCE_LIMIT, self.body.frame())
                .await
                .map_err(|_| silent())?;
            match frame {
                None => return Ok(None),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
                Some(Err(err)) => {
                    return Err(AgentError::provider(format!(
                        "the API's streamed answer broke off: {err}; try again"
                    ))
                    .with_source(err));
                }
            }
        }
    }
}

fn silent() -> AgentError {
    AgentError::provider(format!(
        "the model API sent nothing for {} s and was given up on; try again, or check the server",
        SILENCE_LIMIT.as_secs()
    ))
}

/// Makes the requests: plain TCP for `http://`, TLS for `https://`.
#[derive(Clone, Default)]
pub(crate) struct Client {
    tls: Arc<OnceLock<Arc<rustls::ClientConfig>>>,
}

impl Client {
    /// POSTs `body` (JSON) to `path` under `base`.
    pub(crate) async fn post(
        &self,
        base: &BaseUrl,
        path: &str,
        headers: &[(&'static str, String)],
        body: Vec<u8>,
    ) -> Result<Answer, AgentError> {
        let unreachable = |err: &dyn std::fmt::Display| {
            AgentError::provider(format!(
                "cannot reach the model API at {base}: {err}; check the base URL and that the server is up"
            ))
        };
        let tcp = tokio::time::timeout(
            CONNECT_TIMEOUT,
            TcpStream::connect((base.host.as_str(), base.port)),
        )
        .await
        .map_err(|_| unreachable(&"connecting timed out"))?
        .map_err(|err| unreachable(&err).with_source(err))?;
        let _ = tcp.set_nodelay(true);
        let mut request = Request::post(path)
            .header(HOST, base.host_header())
            .header(CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            let value = HeaderValue::from_str(value).map_err(|_| {
                AgentError::usage(format!(
                    "the `{name}` header holds characters a header cannot carry; check the API key has no line breaks"
                ))
            })?;
            request = request.header(*name, value);
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|err| AgentError::usage(format!("cannot build the request: {err}")))?;
        let response = if base.https {
            let tls = self.tls_config();
            let name =
                rustls::pki_types::ServerName::try_from(base.host.clone()).map_err(|err| {
                    unreachable(&format!("`{}` is not a host name ({err})", base.host))
                })?;
            let stream = tokio::time::timeout(
                CONNECT_TIMEOUT,
                tokio_rustls::TlsConnector::from(tls).connect(name, tcp),
            )
            .await
            .map_err(|_| unreachable(&"the TLS handshake timed out"))?
            .map_err(|err| unreachable(&format!("TLS: {err}")))?;
            tokio::time::timeout(SILENCE_LIMIT, send(stream, request)).await
        } else {
            tokio::time::timeout(SILENCE_LIMIT, send(tcp, request)).await
        }
        .map_err(|_| silent())
        .map(|sent| sent.map_err(|err| unreachable(&err)))
        .and_then(|sent| sent);
        let response = response?;
        let retry_after = retry_after(&response);
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
            body: response.into_body(),
        })
    }

    fn tls_config(&self) -> Arc<rustls::ClientConfig> {
        Arc::clone(self.tls.get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                // The ring provider supports the default versions: this cannot fail.
                .unwrap_or_else(|err| panic!("rustls rejected its own default versions: {err}"))
                .with_root_certificates(roots)
                .with_no_client_auth();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Arc::new(config)
        }))
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

async fn send<S>(
    stream: S,
    request: Request<Full<Bytes>>,
) -> Result<Response<Incoming>, hyper::Error>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    // The connection ends with the response body (or when the answer is dropped).
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!("model API connection ended: {err}");
        }
    });
    sender.send_request(request).await
}

/// `Retry-After: <seconds>`, or OpenAI's `retry-after-ms`. The HTTP-date form is not used by
/// the providers and falls back to the loop's own backoff.
fn retry_after(response: &Response<Incoming>) -> Option<Duration> {
    let header = |name: &str| {
        response
            .headers()
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
