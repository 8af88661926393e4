//! Who may call: the `Host` and `Origin` checks against DNS rebinding, and the bearer token.

use std::net::IpAddr;

use hyper::header::{HOST, ORIGIN};
use hyper::http::uri::Authority;
use hyper::{HeaderMap, StatusCode, Uri};

use super::{MIN_TOKEN_LEN, TOKEN_ENV};
use cy_tools_http_server::bearer_matches;

/// The checks every request passes before anything else is read.
pub(super) struct Access {
    token: Option<String>,
    /// The server listens on a loopback address (the default `Origin` policy depends on it).
    loopback: bool,
    /// `Host` must be a loopback name: on a loopback address without a token, where a page
    /// that rebinds its domain to 127.0.0.1 could otherwise call (with a token it could not,
    /// and a reverse proxy on the same machine may send its own name).
    check_host: bool,
    /// Explicitly allowed origins; when empty, see [`Access::origin_allowed`].
    origins: Vec<AllowedOrigin>,
}

/// Why a request is turned away, with the status that says so.
pub(super) struct Refusal {
    pub(super) status: StatusCode,
    pub(super) message: String,
}

impl Access {
    /// # Errors
    /// No token on an address that is not loopback, a token too short or not sendable in a
    /// header, or an allowed origin that does not parse.
    pub(super) fn new(
        bind: IpAddr,
        token: Option<&str>,
        allowed_origins: &[String],
    ) -> Result<Self, String> {
        let loopback = bind.is_loopback();
        match token {
            None if !loopback => {
                return Err(format!(
                    "refusing to serve MCP on {bind} without a token: anyone who can reach that address could run the tools; leave out `--no-token` (a token is then made and printed), or set `{TOKEN_ENV}` to a secret of at least {MIN_TOKEN_LEN} characters (such as the output of `openssl rand -hex 32`) and have clients send `Authorization: Bearer <token>`, or listen on a loopback address such as 127.0.0.1"
                ));
            }
            Some(token) if token.chars().count() < MIN_TOKEN_LEN => {
                return Err(format!(
                    "the token in `{TOKEN_ENV}` is shorter than {MIN_TOKEN_LEN} characters; use a long random secret, such as the output of `openssl rand -hex 32`"
                ));
            }
            Some(token) if !token.bytes().all(|b| b.is_ascii_graphic()) => {
                return Err(format!(
                    "the token in `{TOKEN_ENV}` has spaces or characters that are not printable ASCII, which an `Authorization` header cannot carry as they are; use letters, digits and punctuation, such as the output of `openssl rand -hex 32`"
                ));
            }
            _ => {}
        }
        let origins = allowed_origins
            .iter()
            .map(|origin| {
                AllowedOrigin::parse(origin).ok_or_else(|| {
                    format!(
                        "cannot read the allowed origin `{origin}`; write it as `scheme://host`, `scheme://host:port` or `scheme://host:*` (any port), such as `https://app.example.com` or `http://localhost:*`"
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Access {
            token: token.map(str::to_string),
            loopback,
            check_host: loopback && token.is_none(),
            origins,
        })
    }

    pub(super) fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// Checks `Host` (on a loopback address without a token), then `Origin`, then the token.
    pub(super) fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        if self.check_host
            && let Some(host) = headers.get(HOST)
            && !is_loopback_authority(host.as_bytes())
        {
            return Err(Refusal {
                status: StatusCode::FORBIDDEN,
                message: format!(
                    "the `Host` header `{}` is not a loopback name, and this server listens on a loopback address without a token, so the request may come from a page that rebound its domain to it; reach the server as `localhost`, `127.0.0.1` or `[::1]` (a reverse proxy in front of it can send `Host: localhost`), or start it with a token",
                    String::from_utf8_lossy(host.as_bytes())
                ),
            });
        }
        if let Some(origin) = headers.get(ORIGIN) {
            self.check_origin(origin.as_bytes())?;
        }
        match &self.token {
            Some(token) if !bearer_matches(headers, token) => Err(Refusal {
                status: StatusCode::UNAUTHORIZED,
                message: format!(
                    "missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `{TOKEN_ENV}`)"
                ),
            }),
            _ => Ok(()),
        }
    }

    fn check_origin(&self, value: &[u8]) -> Result<(), Refusal> {
        let shown = String::from_utf8_lossy(value);
        let Some(origin) = Origin::parse(value) else {
            return Err(Refusal {
                status: StatusCode::FORBIDDEN,
                message: format!(
                    "the `Origin` header `{shown}` is not an origin this server can check (`scheme://host[:port]`), so the request is refused"
                ),
            });
        };
        if self.origin_allowed(&origin) {
            return Ok(());
        }
        Err(Refusal {
            status: StatusCode::FORBIDDEN,
            message: format!(
                "requests from pages at `{shown}` are not allowed, so a page cannot use a browser to reach this server; if that page should call it, start the server with `--allow-origin {shown}`"
            ),
        })
    }

    /// An explicitly allowed origin; with none given, on a loopback address, a page served
    /// from this machine (`localhost`, a loopback IP), which a remote page cannot be; on any
    /// other address, no page.
    fn origin_allowed(&self, origin: &Origin) -> bool {
        if self.origins.is_empty() {
            return self.loopback
                && matches!(origin.scheme.as_str(), "http" | "https")
                && is_loopback_host(&origin.host);
        }
        self.origins.iter().any(|allowed| allowed.admits(origin))
    }
}

/// A `Host` value naming this machine: `localhost` or a loopback IP, with any port.
fn is_loopback_authority(value: &[u8]) -> bool {
    std::str::from_utf8(value)
        .ok()
        .and_then(|value| Authority::try_from(value).ok())
        .is_some_and(|authority| is_loopback_host(&normalize_host(authority.host())))
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Lowercase, without the brackets of an IPv6 address.
fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// A browser origin: scheme, host and port (the scheme's default when not written).
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    fn parse(value: &[u8]) -> Option<Origin> {
        let uri = Uri::try_from(value).ok()?;
        if uri
            .path_and_query()
            .is_some_and(|p| !p.as_str().is_empty() && p != "/")
        {
            return None;
        }
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        let port = authority.port_u16().or(match scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        });
        Some(Origin {
            scheme,
            host: normalize_host(authority.host()),
            port,
        })
    }
}

/// An entry of `allowed_origins`: an origin, or one with `:*` for any port.
#[derive(Debug)]
struct AllowedOrigin {
    origin: Origin,
    any_port: bool,
}

impl AllowedOrigin {
    fn parse(text: &str) -> Option<AllowedOrigin> {
        let text = text.trim();
        match text.strip_suffix(":*") {
            Some(base) => Some(AllowedOrigin {
                origin: Origin::parse(base.as_bytes())?,
                any_port: true,
            }),
            None => Some(AllowedOrigin {
                origin: Origin::parse(text.as_bytes())?,
                any_port: false,
            }),
        }
    }

    fn admits(&self, origin: &Origin) -> bool {
        self.origin.scheme == origin.scheme
            && self.origin.host == origin.host
            && (self.any_port || self.origin.port == origin.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::{AUTHORIZATION, HeaderValue};

    const TOKEN: &str = "0123456789abcdef";

    fn headers(pairs: &[(hyper::header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn status(access: &Access, pairs: &[(hyper::header::HeaderName, &str)]) -> u16 {
        match access.check(&headers(pairs)) {
            Ok(()) => 200,
            Err(refusal) => refusal.status.as_u16(),
        }
    }

    #[test]
    fn no_token_only_on_loopback() {
        let refused = Access::new("0.0.0.0".parse().unwrap(), None, &[])
            .err()
            .unwrap();
        assert!(refused.starts_with("refusing to serve MCP on 0.0.0.0 without a token"));
        assert!(refused.contains("CY_TOOLS_MCP_TOKEN"));
        assert!(Access::new("127.0.0.1".parse().unwrap(), None, &[]).is_ok());
        assert!(Access::new("::1".parse().unwrap(), None, &[]).is_ok());
        assert!(Access::new("0.0.0.0".parse().unwrap(), Some(TOKEN), &[]).is_ok());
        let short = Access::new("0.0.0.0".parse().unwrap(), Some("short"), &[]);
        assert!(short.err().unwrap().contains("shorter than 16 characters"));
        let spaced = Access::new("0.0.0.0".parse().unwrap(), Some("0123456789 abcdef"), &[]);
        assert!(spaced.err().unwrap().contains("printable ASCII"));
    }

    #[test]
    fn the_token_is_required_when_set() {
        let access = Access::new("0.0.0.0".parse().unwrap(), Some(TOKEN), &[]).unwrap();
        assert_eq!(status(&access, &[]), 401);
        assert_eq!(status(&access, &[(AUTHORIZATION, "Bearer nope")]), 401);
        assert_eq!(
            status(&access, &[(AUTHORIZATION, "Bearer 0123456789abcdef")]),
            200
        );
        // Not loopback: any `Host` goes (the token is the guard).
        let with = [
            (AUTHORIZATION, "Bearer 0123456789abcdef"),
            (HOST, "mcp.example.com:8765"),
        ];
        assert_eq!(status(&access, &with), 200);
    }

    #[test]
    fn on_loopback_host_must_be_a_loopback_name() {
        let access = Access::new("127.0.0.1".parse().unwrap(), None, &[]).unwrap();
        for host in [
            "localhost:8765",
            "127.0.0.1:8765",
            "[::1]:8765",
            "LOCALHOST",
            "127.0.0.2",
        ] {
            assert_eq!(status(&access, &[(HOST, host)]), 200, "{host}");
        }
        for host in ["evil.example:8765", "192.168.1.2", "localhost.evil.example"] {
            assert_eq!(status(&access, &[(HOST, host)]), 403, "{host}");
        }
        // With a token, a rebound page cannot call anyway; a proxy may send its own name.
        let proxied = Access::new("127.0.0.1".parse().unwrap(), Some(TOKEN), &[]).unwrap();
        let with = [
            (AUTHORIZATION, "Bearer 0123456789abcdef"),
            (HOST, "mcp.example.com"),
        ];
        assert_eq!(status(&proxied, &with), 200);
    }

    #[test]
    fn origins_by_default_and_when_listed() {
        let local = Access::new("127.0.0.1".parse().unwrap(), None, &[]).unwrap();
        for origin in [
            "http://localhost:6274",
            "https://127.0.0.1",
            "http://[::1]:3000",
        ] {
            assert_eq!(status(&local, &[(ORIGIN, origin)]), 200, "{origin}");
        }
        for origin in [
            "https://evil.example",
            "null",
            "file://",
            "http://localhost.evil",
        ] {
            assert_eq!(status(&local, &[(ORIGIN, origin)]), 403, "{origin}");
        }

        let allowed = [
            "https://app.example.com".to_string(),
            "http://localhost:*".to_string(),
        ];
        let remote = Access::new("0.0.0.0".parse().unwrap(), Some(TOKEN), &allowed).unwrap();
        let token = (AUTHORIZATION, "Bearer 0123456789abcdef");
        let with = |origin: &str| status(&remote, &[token.clone(), (ORIGIN, origin)]);
        assert_eq!(with("https://app.example.com"), 200);
        assert_eq!(with("https://APP.example.com:443"), 200);
        assert_eq!(with("https://app.example.com:8443"), 403);
        assert_eq!(with("http://app.example.com"), 403);
        assert_eq!(with("http://localhost:9999"), 200);
        assert_eq!(with("https://localhost:9999"), 403);
        // No `Origin`: not a browser, not affected.
        assert_eq!(status(&remote, std::slice::from_ref(&token)), 200);
        // A listed origin does not stand in for the token.
        assert_eq!(status(&remote, &[(ORIGIN, "https://app.example.com")]), 401);

        let bad = Access::new(
            "127.0.0.1".parse().unwrap(),
            None,
            &["app.example.com".into()],
        );
        assert!(
            bad.err()
                .unwrap()
                .starts_with("cannot read the allowed origin `app.example.com`")
        );
    }
}
