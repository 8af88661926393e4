//! What every run endpoint does before its work: the bearer check, the bounded body read, the
//! JSON request, and a run slot. One place, so `execute` and the sandbox endpoint refuse alike.

use std::net::SocketAddr;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use cy_tools::ServiceErrorKind;
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
/// [`refusal`]), a body over the limit (413) or stalled (408), JSON that is not the request,
/// or no run slot free (429).
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
    let bytes = match read_body(body, state.max_body_bytes, state.idle_timeout).await {
        Ok(bytes) => bytes,
        Err(err) if err.is::<LengthLimitError>() => {
            tracing::warn!(%peer, %name, "refused: body over {} bytes", state.max_body_bytes);
            return Err(refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                ServiceErrorKind::InvalidInput,
                format!(
                    "the request is over this server's limit of {} bytes; {}",
                    state.max_body_bytes, expected.smaller
                ),
            ));
        }
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
