//! One request's way through the server: the endpoint's path, [`Access`], the body's bounds,
//! then `rmcp`'s streamable HTTP transport, stateless.

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
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;

use super::ENDPOINT;
use super::access::{Access, Refusal};
use super::body::{self, BodyError};
use crate::McpServer;
use crate::line_check::{self, Checked, Framing, INVALID_REQUEST};
use cy_tools_http_server::Standing;

type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// What every connection's requests are served with.
pub(super) struct HttpState {
    rmcp: StreamableHttpService<McpServer, NeverSessionManager>,
    access: Access,
    max_body_bytes: usize,
    idle_timeout: Duration,
}

impl HttpState {
    pub(super) fn new(
        server: McpServer,
        access: Access,
        max_body_bytes: usize,
        idle_timeout: Duration,
    ) -> Self {
        let config = StreamableHttpServerConfig::default()
            // No sessions, for any protocol version: every request stands alone, so replicas
            // are interchangeable.
            .with_legacy_session_mode(false)
            // A call's answer as one JSON body, not an event stream, unless the call sends
            // notifications before it.
            .with_json_response(true)
            // Checked here first, with answers that say what to change.
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_max_request_body_bytes(max_body_bytes);
        let rmcp = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        HttpState {
            rmcp,
            access,
            max_body_bytes,
            idle_timeout,
        }
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
            // `rmcp` answers them: `405` with `Allow: POST`, as a server without sessions does.
            return state.rmcp.handle(request).await;
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
        let response = state
            .rmcp
            .handle(Request::from_parts(parts, Full::new(bytes.clone())))
            .await;
        if says_json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            // `rmcp` could not read the body as a message: answered as JSON-RPC says instead.
            return not_a_message(&bytes).unwrap_or(response);
        }
        response
    }
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
