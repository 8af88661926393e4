//! Reading a request body whole, bounded in size and in how long any pause in it may last.
//!
//! hyper bounds the wait for a request's head (`header_timeout`) but not for its body: a
//! client that announces a body and then stops would hold its connection, and the handler
//! waiting on it, for good.

use std::time::Duration;

use http_body_util::BodyExt as _;
use hyper::StatusCode;
use hyper::body::{Bytes, Incoming};
use hyper::header::CONTENT_LENGTH;
use hyper::http::request::Parts;

use super::access::Refusal;

/// Why a body could not be read.
pub(super) enum BodyError {
    /// Longer than the limit (`413`).
    TooLarge(usize),
    /// Nothing arrived for the idle timeout (`408`).
    Stalled(Duration),
    /// The connection failed while it was read.
    Broken(hyper::Error),
}

impl BodyError {
    /// The answer, or `None` when nobody is left to read one.
    pub(super) fn refusal(self) -> Option<Refusal> {
        match self {
            BodyError::TooLarge(max) => Some(Refusal {
                status: StatusCode::PAYLOAD_TOO_LARGE,
                message: format!(
                    "the request body is longer than {max} bytes, the most this server reads; send less at once (pass large data in files the tools read, or raise the server's body limit)"
                ),
            }),
            BodyError::Stalled(idle) => Some(Refusal {
                status: StatusCode::REQUEST_TIMEOUT,
                message: format!(
                    "the request body stalled: nothing arrived for {} ms, this server's idle timeout; send the whole body without pausing, then retry",
                    idle.as_millis()
                ),
            }),
            BodyError::Broken(err) => {
                tracing::debug!(%err, "the connection failed while a request body was read");
                None
            }
        }
    }
}

/// The whole of `body`, if it is at most `max` bytes long (by its `Content-Length`, checked
/// before anything is read, and as it arrives) and no pause in it is longer than `idle`.
pub(super) async fn read(
    parts: &Parts,
    mut body: Incoming,
    max: usize,
    idle: Duration,
) -> Result<Bytes, BodyError> {
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|len| len > max as u64) {
        return Err(BodyError::TooLarge(max));
    }
    // Most bodies come in one frame, which is kept as it is.
    let mut first: Option<Bytes> = None;
    let mut joined: Vec<u8> = Vec::new();
    loop {
        let frame = match tokio::time::timeout(idle, body.frame()).await {
            Ok(Some(frame)) => frame.map_err(BodyError::Broken)?,
            Ok(None) => break,
            Err(_) => return Err(BodyError::Stalled(idle)),
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let held = first.as_ref().map_or(0, Bytes::len) + joined.len();
        if data.len() > max.saturating_sub(held) {
            return Err(BodyError::TooLarge(max));
        }
        match first.take() {
            None if joined.is_empty() => first = Some(data),
            kept => {
                if let Some(kept) = kept {
                    joined.extend_from_slice(&kept);
                }
                joined.extend_from_slice(&data);
            }
        }
    }
    Ok(match first {
        Some(only) => only,
        None => Bytes::from(joined),
    })
}
