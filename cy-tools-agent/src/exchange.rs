//! One request to the model API and its answer, with the retries: 429 and 5xx (and Anthropic's
//! 529, overloaded) are tried again after the server's `Retry-After`, or after a backoff that
//! doubles from the configured base; any other status is the run's error. The answer is read
//! within the turn's [`TurnBudget`], and cut off as soon as it passes it.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use super::error::AgentError;
use super::http::{BaseUrl, Client};
use super::provider::Provider;
use super::sse::Decoder;
use super::transcript::Reply;
use super::turn_budget::{Overrun, TurnBudget};

/// The longest a retry waits, whatever `Retry-After` says: a longer wait is the run's error.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(120);

/// How a request is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries after the first.
    pub retries: u32,
    /// The first backoff, doubled for each retry, when the server sends no `Retry-After`.
    pub base_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 4,
            base_delay: Duration::from_secs(1),
        }
    }
}

/// Where a request goes.
pub(crate) struct Target<'a> {
    pub(crate) client: &'a Client,
    pub(crate) base: &'a BaseUrl,
    pub(crate) key: Option<&'a str>,
    pub(crate) retry: RetryPolicy,
    /// Whether some tools are declared strict.
    pub(crate) strict: bool,
    /// Whether tool search is on.
    pub(crate) tool_search: bool,
}

/// What came of one request.
pub(crate) enum Answered {
    /// The whole answer.
    Reply(Reply),
    /// The answer passed its budget and was cut off (its connection closed) there.
    Stopped(Overrun),
}

/// Sends `body` and reads the answer within `budget`; when streaming, text goes to `text` as
/// it arrives.
pub(crate) async fn exchange(
    provider: &dyn Provider,
    target: &Target<'_>,
    body: &Value,
    stream: bool,
    budget: TurnBudget,
    text: &mut (dyn FnMut(&str) + Send),
) -> Result<Answered, AgentError> {
    let bytes = serde_json::to_vec(body)
        .map_err(|err| AgentError::usage(format!("cannot encode the request: {err}")))?;
    let path = target.base.path(provider.endpoint());
    let headers = provider.headers(target.key, target.strict, target.tool_search);
    let mut attempt = 0;
    let mut answer = loop {
        let answer = target
            .client
            .post(target.base, &path, &headers, bytes.clone())
            .await?;
        let status = answer.status;
        if status.is_success() {
            break answer;
        }
        let retry_after = answer.retry_after;
        let body = answer.bytes().await.unwrap_or_default();
        let message = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| provider.error_message(&v))
            .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(300).collect());
        let retryable = status == StatusCode::TOO_MANY_REQUESTS
            || status.is_server_error()
            || status.as_u16() == 529;
        if !retryable || attempt >= target.retry.retries {
            let hint = if retryable {
                format!(
                    "gave up after {} tries; wait and run again, or lower the request rate",
                    attempt + 1
                )
            } else if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
                "check the API key (and the environment variable it is read from)".to_string()
            } else if status == StatusCode::NOT_FOUND {
                "check the base URL and the model name".to_string()
            } else {
                "check the model name and the request the error names".to_string()
            };
            return Err(AgentError::provider(format!(
                "the {} API at {} answered {status}: {message}; {hint}",
                provider.name(),
                target.base
            )));
        }
        let backoff = target.retry.base_delay.saturating_mul(1 << attempt.min(16));
        let wait = retry_after.unwrap_or(backoff);
        if wait > MAX_RETRY_WAIT {
            return Err(AgentError::provider(format!(
                "the {} API at {} answered {status} and asks to wait {} s before trying again, longer than the {} s this run waits; run again later",
                provider.name(),
                target.base,
                wait.as_secs(),
                MAX_RETRY_WAIT.as_secs()
            )));
        }
        tracing::info!(
            "the {} API answered {status} ({message}); trying again in {} ms",
            provider.name(),
            wait.as_millis()
        );
        tokio::time::sleep(wait).await;
        attempt += 1;
    };
    if !stream || !answer.event_stream {
        let mut body = Vec::new();
        while let Some(chunk) = answer.next_chunk().await? {
            if let Err(overrun) = budget.bytes((body.len() + chunk.len()) as u64) {
                return Ok(Answered::Stopped(overrun));
            }
            body.extend_from_slice(&chunk);
        }
        let value: Value = serde_json::from_slice(&body).map_err(|err| {
            AgentError::provider(format!(
                "the {} API answered with a body that is not JSON ({err}); check that the base URL serves the {} format",
                provider.name(),
                provider.name()
            ))
        })?;
        let reply = provider.parse(&value)?;
        if stream {
            text(&reply.text);
        }
        return Ok(Answered::Reply(reply));
    }
    let mut reader = provider.stream();
    let mut decoder = Decoder::default();
    let mut received = 0u64;
    // Checked before each piece is decoded and after each event: a line without end, or an
    // endless run of events, is cut off within one piece of the limit.
    'read: while let Some(chunk) = answer.next_chunk().await? {
        received += chunk.len() as u64;
        if let Err(overrun) = budget.bytes(received) {
            return Ok(Answered::Stopped(overrun));
        }
        for event in decoder.feed(&chunk) {
            let ended = reader.event(&event, text)?;
            if let Err(overrun) = budget.written(reader.written()) {
                return Ok(Answered::Stopped(overrun));
            }
            if ended {
                break 'read;
            }
        }
    }
    if let Some(event) = decoder.finish() {
        reader.event(&event, text)?;
    }
    reader.finish().map(Answered::Reply)
}
