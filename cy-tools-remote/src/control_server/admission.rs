//! What every run endpoint does before its work: the bearer check, the bounded body read, the
//! JSON request, and a run slot. One place, so `execute` and the sandbox endpoint refuse alike.

use std::net::SocketAddr;

use axum::body::Body;
use axum::http::header::{CONNECTION, CONTENT_LENGTH};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use cy_tools::services::ServiceErrorKind;
use http_body_util::LengthLimitError;
use serde::de::DeserializeOwned;
use tokio::sync::OwnedSemaphorePermit;

use super::execute::{ServerState, busy, refusal, refuse};
use super::request_body::{BodyStalled, read_body, stalled};

/// How an endpoint names its request in a refusal.
pub(super) struct Expected {
    /// The request's kind, after "the body is not": `an execute request`.
    pub(super) what: &'static str,
    /// How to send it right: `send JSON with `code` ...`.
    pub(super) shape: &'static str,
    /// How to stay under the body limit: `send less code at once, ...`.
    pub(super) smaller: &'static str,
}

/// A request let in: its body and the run slot it holds until dropped.
pub(super) struct Admitted<T> {
    pub(super) request: T,
    pub(super) _permit: OwnedSemaphorePermit,
}

/// Lets a request for `name` in, or answers the refusal: a bad token or name (see
/// [`refusal`]), a body over the limit (413, at once when its `Content-Length` says so) or
/// stalled (408), JSON that is not the request, or no run slot free (429).
pub(super) async fn admit<T: DeserializeOwned>(
    state: &ServerState,
    headers: &HeaderMap,
    peer: SocketAddr,
    name: &str,
    body: Body,
    expected: &Expected,
) -> Result<Admitted<T>, Response> {
    if let Some(refused) = refusal(state, headers, peer, name) {
        return Err(refused);
    }
    let too_large = || {
        tracing::warn!(%peer, %name, "refused: body over {} bytes", state.max_body_bytes);
        let mut response = refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            ServiceErrorKind::InvalidInput,
            format!(
                "the request is over this server's limit of {} bytes; {}",
                state.max_body_bytes, expected.smaller
            ),
        );
        // What is left of the body is not read, and must not be taken for the next request.
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
        response
    };
    // A body announced over the limit is refused before any of it is read: waiting for bytes
    // that will be refused anyway would only hold the connection until the idle timeout.
    if announced_length(headers).is_some_and(|length| length > state.max_body_bytes as u64) {
        return Err(too_large());
    }
    let bytes = match read_body(body, state.max_body_bytes, state.idle_timeout).await {
        Ok(bytes) => bytes,
        Err(err) if err.is::<LengthLimitError>() => return Err(too_large()),
        Err(err) if err.is::<BodyStalled>() => {
            tracing::warn!(%peer, %name, "refused: {err}");
            return Err(stalled(state.idle_timeout));
        }
        Err(err) => {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                ServiceErrorKind::InvalidInput,
                format!("could not read the request body: {err}"),
            ));
        }
    };
    let request: T = serde_json::from_slice(&bytes).map_err(|err| {
        refuse(
            StatusCode::BAD_REQUEST,
            ServiceErrorKind::InvalidInput,
            format!(
                "the body is not {} ({err}); {}",
                expected.what, expected.shape
            ),
        )
    })?;
    let Ok(permit) = state.runs.clone().try_acquire_owned() else {
        tracing::warn!(%peer, %name, "refused: {} runs already going", state.max_concurrent_runs);
        return Err(busy(state));
    };
    Ok(Admitted {
        request,
        _permit: permit,
    })
}

/// The body length the request's `Content-Length` announces (hyper has already refused a
/// request whose `Content-Length` values disagree or are not numbers).
fn announced_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}
