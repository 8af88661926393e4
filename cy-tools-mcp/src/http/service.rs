//! One request's way through the server: the endpoint's path, [`Access`], the body's bounds,
//! then `rmcp`'s streamable HTTP transport, stateless or session-bearing.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;

use super::access::{Access, Refusal};
use super::body::{self, BodyError};
use super::poll::Polled;
use super::{ENDPOINT, McpHttpConfig};
use crate::McpServer;
use crate::line_check::{self, Checked, Framing, INVALID_REQUEST};
use cy_tools_http_server::Standing;

type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// `rmcp`'s transport, in the mode the config asks for.
enum Transport {
    /// No sessions, for any protocol version: every request stands alone, so replicas are
    /// interchangeable.
    Stateless(StreamableHttpService<McpServer, NeverSessionManager>),
    /// Sessions for clients of 2025-11-25 and earlier, held in this process.
    Sessions {
        rmcp: StreamableHttpService<McpServer, LocalSessionManager>,
        manager: Arc<LocalSessionManager>,
        max: usize,
        /// When a call's event stream is ended for the client to resume.
        poll_after: Option<Duration>,
    },
}

/// What every connection's requests are served with.
pub(super) struct HttpState {
    transport: Transport,
    access: Access,
    max_body_bytes: usize,
    idle_timeout: Duration,
}

impl HttpState {
    pub(super) fn new(server: McpServer, access: Access, config: &McpHttpConfig) -> Self {
        let rmcp_config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(config.sessions)
            // A call's answer as one JSON body, not an event stream, unless the call sends
            // notifications before it (stateless only: a session answers on event streams).
            .with_json_response(true)
            // Checked here first, with answers that say what to change.
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_max_request_body_bytes(config.max_body_bytes);
        let transport = if config.sessions {
            let mut manager = LocalSessionManager::default();
            manager.session_config.keep_alive = Some(config.session_idle_timeout);
            let manager = Arc::new(manager);
            // Each session is a connection of its own: its log level and subscriptions.
            let rmcp = StreamableHttpService::new(
                move || Ok(server.for_connection()),
                Arc::clone(&manager),
                rmcp_config,
            );
            Transport::Sessions {
                rmcp,
                manager,
                max: config.max_sessions,
                poll_after: config.poll_after,
            }
        } else {
            Transport::Stateless(StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(NeverSessionManager::default()),
                rmcp_config,
            ))
        };
        HttpState {
            transport,
            access,
            max_body_bytes: config.max_body_bytes,
            idle_timeout: config.idle_timeout,
        }
    }

    /// Whether it serves the session-bearing mode.
    pub(super) fn sessions(&self) -> bool {
        matches!(self.transport, Transport::Sessions { .. })
    }

    async fn handle(&self, request: Request<Full<Bytes>>) -> HttpResponse {
        match &self.transport {
            Transport::Stateless(rmcp) => rmcp.handle(request).await,
            Transport::Sessions { rmcp, .. } => rmcp.handle(request).await,
        }
    }

    /// The refusal of an `initialize` that would open one session too many.
    async fn session_cap(&self, body: &[u8]) -> Option<Refusal> {
        let Transport::Sessions { manager, max, .. } = &self.transport else {
            return None;
        };
        let opens = serde_json::from_slice::<serde_json::Value>(body)
            .is_ok_and(|message| message.get("method").is_some_and(|m| m == "initialize"));
        let open = manager.sessions.read().await.len();
        (opens && open >= *max).then(|| Refusal {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: format!(
                "{open} MCP sessions are open, the most this server keeps; close yours when done (`DELETE` with its `Mcp-Session-Id`), or try again when one has been idle long enough to be closed"
            ),
        })
    }

    pub(super) fn has_token(&self) -> bool {
        self.access.has_token()
    }
}

/// The service of one connection: marks it authenticated once a request passes [`Access`].
#[derive(Clone)]
pub(super) struct ConnectionService {
    state: Arc<HttpState>,
    standing: Arc<Standing>,
}

impl ConnectionService {
    pub(super) fn new(state: Arc<HttpState>, standing: Arc<Standing>) -> Self {
        ConnectionService { state, standing }
    }
}

impl hyper::service::Service<Request<Incoming>> for ConnectionService {
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(request).await) })
    }
}

impl ConnectionService {
    async fn handle(&self, mut request: Request<Incoming>) -> HttpResponse {
        let state = &self.state;
        // Whitespace after the token is dropped by the parser; such a request is treated as one
        // without a token, so it is answered `401` as on the control server.
        self.standing
            .forget_loose_authorization(request.headers_mut());
        let path = request.uri().path();
        if path != ENDPOINT {
            return refuse(Refusal {
                status: StatusCode::NOT_FOUND,
                message: format!("no MCP endpoint at `{path}`; the endpoint is `{ENDPOINT}`"),
            });
        }
        if let Err(refusal) = state.access.check(request.headers()) {
            tracing::debug!(status = %refusal.status, "refused a request: {}", refusal.message);
            return refuse(refusal);
        }
        // Passing the checks is what protects this connection from eviction at the cap.
        self.standing.authenticate();
        if request.method() != Method::POST {
            // `rmcp` answers them: a session's GET stream and its `DELETE`; without sessions
            // `405` with `Allow: POST`.
            let (parts, body) = request.into_parts();
            let body =
                match body::read(&parts, body, state.max_body_bytes, state.idle_timeout).await {
                    Ok(bytes) => bytes,
                    Err(err) => return refuse_body(err),
                };
            let closing = parts.method == Method::DELETE;
            let mut response = state
                .handle(Request::from_parts(parts, Full::new(body)))
                .await;
            // A session closed: `200`, as clients (the Python SDK among them) expect; `rmcp`
            // says `202`, which they log as a failure.
            if closing && response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::OK;
            }
            return response;
        }
        let (parts, body) = request.into_parts();
        let bytes = match body::read(&parts, body, state.max_body_bytes, state.idle_timeout).await {
            Ok(bytes) => bytes,
            Err(err) => return refuse_body(err),
        };
        let says_json = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
        if let Some(refusal) = state.session_cap(&bytes).await {
            return refuse(refusal);
        }
        let mut response = state
            .handle(Request::from_parts(parts, Full::new(bytes.clone())))
            .await;
        if let Transport::Sessions {
            poll_after: Some(after),
            ..
        } = &state.transport
            && is_event_stream(&response)
        {
            response = response.map(|body| Polled::boxed(body, *after));
        }
        if says_json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            // `rmcp` could not read the body as a message: answered as JSON-RPC says instead.
            return not_a_message(&bytes).unwrap_or(response);
        }
        response
    }
}

fn is_event_stream(response: &HttpResponse) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"))
}

/// The answer to a JSON body that is not an MCP message: `400`, with the JSON-RPC error the
/// stdio transport gives for the same input. `None` if it is one after all.
fn not_a_message(body: &[u8]) -> Option<HttpResponse> {
    let error = match line_check::check_framed(body, Framing::Bodies) {
        Checked::Message(_) => return None,
        Checked::Reply(mut line) => {
            line.truncate(line.trim_ascii_end().len());
            line
        }
        Checked::Drop => json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": INVALID_REQUEST,
            "message": "invalid message: the body is neither a request nor a notification MCP defines, so nothing was done; send a request such as `{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}`",
        }})
        .to_string()
        .into_bytes(),
    };
    Some(json_response(StatusCode::BAD_REQUEST, error))
}

fn refuse_body(err: BodyError) -> HttpResponse {
    match err.refusal() {
        Some(refusal) => {
            // The rest of the body may still come, and must not be read as a new request.
            let mut response = refuse(refusal);
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
            response
        }
        // The connection is gone: nobody reads this.
        None => json_response(StatusCode::BAD_REQUEST, Vec::new()),
    }
}

/// A refusal as a JSON-RPC error without an `id`, as the transport's specification allows.
fn refuse(refusal: Refusal) -> HttpResponse {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {
        "code": INVALID_REQUEST,
        "message": refusal.message,
    }});
    let mut response = json_response(refusal.status, body.to_string().into_bytes());
    if refusal.status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"cy-tools\""),
        );
    }
    response
}

fn json_response(status: StatusCode, body: Vec<u8>) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
