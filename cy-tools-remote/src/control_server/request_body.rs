//! Reading a request body whole, bounded in size and in how long any pause in it may last.
//!
//! hyper bounds the wait for a request's head (`header_timeout`) but not for its body: a
//! client that sends a head announcing a body, then stops, would hold its connection, and the
//! handler waiting on it, forever.

use std::error::Error;
use std::fmt;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::CONNECTION;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use cy_tools::services::ServiceErrorKind;
use http_body_util::{BodyExt, Limited};

use super::execute::refuse;

/// The body stopped arriving: nothing came for longer than the server's `idle_timeout`.
#[derive(Debug)]
pub(super) struct BodyStalled {
    pub(super) idle_timeout: Duration,
}

impl fmt::Display for BodyStalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the request body stalled: nothing arrived for {} ms, this server's `idle_timeout`",
            self.idle_timeout.as_millis()
        )
    }
}

impl Error for BodyStalled {}

/// The whole of `body`, if it is at most `max_bytes` long and no pause in it is longer than
/// `idle_timeout`.
///
/// # Errors
/// A [`LengthLimitError`](http_body_util::LengthLimitError) past `max_bytes`, [`BodyStalled`]
/// after a pause of `idle_timeout`, or the connection's own error; tell them apart with
/// `is::<…>()`.
pub(super) async fn read_body(
    body: Body,
    max_bytes: usize,
    idle_timeout: Duration,
) -> Result<Bytes, Box<dyn Error + Send + Sync>> {
    let mut body = Limited::new(body, max_bytes);
    let mut bytes = Vec::new();
    loop {
        let frame = match tokio::time::timeout(idle_timeout, body.frame()).await {
            Ok(Some(frame)) => frame?,
            Ok(None) => return Ok(Bytes::from(bytes)),
            Err(_) => return Err(Box::new(BodyStalled { idle_timeout })),
        };
        if let Ok(data) = frame.into_data() {
            bytes.extend_from_slice(&data);
        }
    }
}

/// The answer to a body that stalled for `idle_timeout`: `408`, and the connection closed,
/// since the rest of the body could still arrive and must not be read as a new request.
pub(super) fn stalled(idle_timeout: Duration) -> Response {
    let mut response = refuse(
        StatusCode::REQUEST_TIMEOUT,
        ServiceErrorKind::TimedOut,
        format!(
            "{}; send the whole body without pausing, then retry",
            BodyStalled { idle_timeout }
        ),
    );
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}
