//! What the remote executor and the control server say to each other over HTTP.
//!
//! `POST /v1/sessions/{session_id}/execute` with `Authorization: Bearer <token>` and an
//! [`ExecuteRequest`] as JSON. A finished run (whatever its exit code) answers `200` with a
//! [`ShellResult`](cy_tools::services::ShellResult) as JSON; anything else answers an [`ErrorReply`]:
//!
//! | status | meaning |
//! |---|---|
//! | 400 | the session id or the body is malformed |
//! | 401 | the bearer token is missing or wrong, or there are two `Authorization` headers |
//! | 413 | the body is over the server's `max_body_bytes` (at once when its `Content-Length` says so) |
//! | 422 | the run itself was refused (bad filename, timeout above the maximum, ...); the message is the executor's, for the model |
//! | 429 | the server already runs `max_concurrent_runs` runs |
//! | 500, 503 | the server could not run the code |
//!
//! Closing the connection before the answer cancels the run: the server kills it and every
//! process it started.

use cy_tools::services::{ServiceError, ServiceErrorKind};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};

/// The path of the execute endpoint for `session_id`.
#[cfg(feature = "client")]
pub(crate) fn execute_path(session_id: &str) -> String {
    format!("/v1/sessions/{session_id}/execute")
}

/// The path of the code-mode endpoint for `session_id` (an upgrade to [`CODE_MODE_PROTOCOL`]).
#[cfg(feature = "client")]
pub(crate) fn code_mode_path(session_id: &str) -> String {
    format!("/v1/sessions/{session_id}/code-mode")
}

/// The `Upgrade` protocol of the code-mode endpoint.
pub const CODE_MODE_PROTOCOL: &str = "cy-sdk/1";

/// Longest session id the control server accepts.
pub const MAX_SESSION_ID_LEN: usize = 128;

/// Checks that `session_id` can name a workspace folder: 1 to 128 ASCII letters, digits, `-`,
/// `_` or `.`, starting with a letter or digit (so never `.`, `..`, a path or a hidden name).
///
/// # Errors
/// [`InvalidInput`](ServiceErrorKind::InvalidInput), naming the rule.
pub fn check_session_id(session_id: &str) -> Result<(), ServiceError> {
    let mut bytes = session_id.bytes();
    let first_ok = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
    let rest_ok = bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if first_ok && rest_ok && session_id.len() <= MAX_SESSION_ID_LEN {
        return Ok(());
    }
    let shown: String = session_id.chars().take(MAX_SESSION_ID_LEN).collect();
    Err(ServiceError::new(
        ServiceErrorKind::InvalidInput,
        format!(
            "session id `{shown}` cannot name a workspace: use 1 to {MAX_SESSION_ID_LEN} ASCII letters, digits, `-`, `_` or `.`, starting with a letter or digit"
        ),
    ))
}

/// The body of an execute request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecuteRequest {
    /// The source to run.
    pub code: String,
    /// The file it is written to, relative to the session's workspace; absent, a fresh file
    /// that is removed after the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Wall-clock limit in milliseconds; the server's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// A child's folder inside the workspace, where the code runs and which it cannot leave;
    /// absent, the whole workspace. (A server from before it refuses the field, so a child's
    /// code never runs wider than asked.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Code mode only: the session's generated `cy_sdk.tools` module, which the server writes
    /// beside `cy_sdk` for the code to import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_module: Option<String>,
}

/// The body of every answer but a finished run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorReply {
    /// What went wrong and what to do about it.
    pub error: String,
    /// The [`ServiceErrorKind`] of the failure, in snake case (`invalid_input`, ...).
    pub kind: String,
}

impl ErrorReply {
    /// The reply for `error`.
    pub fn from_error(error: &ServiceError) -> Self {
        ErrorReply {
            error: error.message().to_string(),
            kind: kind_name(error.kind()).to_string(),
        }
    }

    /// The error this reply stands for.
    pub fn into_error(self) -> ServiceError {
        ServiceError::new(kind_from_name(&self.kind), self.error)
    }
}

/// One line of at most `max` bytes, without its newline; `None` at the end of the stream or
/// on a line too long. Both ends of the code-mode upgrade read each other's lines with it.
pub async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    max: usize,
) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    match reader.take(limit).read_until(b'\n', &mut line).await {
        Ok(0) | Err(_) => None,
        Ok(_) if line.last() == Some(&b'\n') => {
            line.pop();
            Some(line)
        }
        Ok(_) => None,
    }
}

fn kind_name(kind: ServiceErrorKind) -> &'static str {
    match kind {
        ServiceErrorKind::NotFound => "not_found",
        ServiceErrorKind::OutsideSandbox => "outside_sandbox",
        ServiceErrorKind::PermissionDenied => "permission_denied",
        ServiceErrorKind::InvalidInput => "invalid_input",
        ServiceErrorKind::Unavailable => "unavailable",
        ServiceErrorKind::TimedOut => "timed_out",
        _ => "other",
    }
}

fn kind_from_name(name: &str) -> ServiceErrorKind {
    match name {
        "not_found" => ServiceErrorKind::NotFound,
        "outside_sandbox" => ServiceErrorKind::OutsideSandbox,
        "permission_denied" => ServiceErrorKind::PermissionDenied,
        "invalid_input" => ServiceErrorKind::InvalidInput,
        "unavailable" => ServiceErrorKind::Unavailable,
        "timed_out" => ServiceErrorKind::TimedOut,
        _ => ServiceErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_kinds_survive_the_wire() {
        for kind in [
            ServiceErrorKind::NotFound,
            ServiceErrorKind::OutsideSandbox,
            ServiceErrorKind::PermissionDenied,
            ServiceErrorKind::InvalidInput,
            ServiceErrorKind::Unavailable,
            ServiceErrorKind::TimedOut,
            ServiceErrorKind::Other,
        ] {
            let error = ServiceError::new(kind, "why and what to do");
            let json = serde_json::to_string(&ErrorReply::from_error(&error)).unwrap();
            let back: ErrorReply = serde_json::from_str(&json).unwrap();
            assert_eq!(back.into_error(), error);
        }
    }

    #[test]
    fn session_ids_cannot_be_paths() {
        for good in ["s-1", "S_2.b", "a..b", &"x".repeat(128)] {
            assert!(check_session_id(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            ".hidden",
            "a/b",
            "../x",
            "a\\b",
            "-x",
            "é",
            "a b",
            "a\0b",
            &"x".repeat(129),
        ] {
            assert!(check_session_id(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_session_id("../etc").unwrap_err().to_string(),
            "session id `../etc` cannot name a workspace: use 1 to 128 ASCII letters, digits, `-`, `_` or `.`, starting with a letter or digit"
        );
    }

    #[test]
    fn requests_refuse_unknown_fields() {
        let err = serde_json::from_str::<ExecuteRequest>(
            r#"{"code": "print(1)", "filename": "a.py", "timeout": 3}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("unknown field `timeout`"),
            "{err}"
        );
    }
}
