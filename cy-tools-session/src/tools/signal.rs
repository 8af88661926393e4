//! `signal` and `wait_for_signal`: named signals between sessions, through the coordinator.

use std::time::Duration;

use cy_tools::prelude::*;
use cy_tools::services::Coordinator;
use serde_json::json;

/// The longest `wait_for_signal` may wait, in milliseconds.
pub const MAX_WAIT_MS: u64 = 600_000;

fn check_name(name: &str) -> Result<(), ToolError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(ToolError::new(format!(
            "signal name `{name}` is not valid: use 1 to 64 ASCII letters, digits, `-`, `_` or `.`, such as `data-ready`"
        )))
    }
}

/// Send a named signal to a session (another one, or this one), with an optional text
/// payload. A session waiting for that name with `wait_for_signal` wakes up with it; if none
/// is waiting yet, the signal is kept until one waits. A subagent reaches the sessions of its
/// own tree only, and names a sibling by its name or profile.
#[tool(
    title = "Signal",
    capabilities(coordinator, session),
    open_world = false,
    destructive = false
)]
pub async fn signal(
    coordinator: &dyn Coordinator,
    session: &SessionIdentity,
    /// The id of the session to signal; a subagent may name a sibling by its name, such as
    /// `worker-2`, or by its profile, such as `worker`, when one sibling has it.
    to: String,
    /// The signal's name, such as `data-ready`.
    name: String,
    /// Text to carry with the signal.
    payload: Option<String>,
) -> Result<String, ToolError> {
    check_name(&name)?;
    if to.trim().is_empty() {
        return Err(ToolError::new(
            "`to` is empty; give the id of the session to signal",
        ));
    }
    let id = coordinator.resolve(&to).await?;
    let value = json!({"from": session.session_id, "payload": payload});
    coordinator.signal(&id, &name, value).await?;
    Ok(if id == to {
        format!("signal `{name}` sent to session `{to}`")
    } else {
        format!("signal `{name}` sent to session `{id}` (`{to}`)")
    })
}

/// Wait for a named signal sent to this session, up to `timeout_ms`; returns who sent it and
/// its payload. Signals that arrived before the wait are kept, so none is missed.
// Destructive, not read-only: the wait consumes the signal it returns, so another waiter for
// that name no longer gets it; an approval policy of `destructive` must therefore ask.
#[tool(
    title = "Wait for a signal",
    capabilities(coordinator, session),
    destructive,
    open_world = false
)]
pub async fn wait_for_signal(
    coordinator: &dyn Coordinator,
    session: &SessionIdentity,
    /// The signal's name, such as `data-ready`.
    name: String,
    /// How long to wait, in milliseconds (at most 600000).
    #[arg(default = 30_000)]
    timeout_ms: u64,
) -> Result<String, ToolError> {
    check_name(&name)?;
    if timeout_ms == 0 || timeout_ms > MAX_WAIT_MS {
        return Err(ToolError::new(format!(
            "`timeout_ms` is {timeout_ms}; use 1 to {MAX_WAIT_MS}"
        )));
    }
    let waited = coordinator
        .wait(
            &session.session_id,
            &name,
            Duration::from_millis(timeout_ms),
        )
        .await?;
    let Some(value) = waited else {
        return Err(ToolError::new(format!(
            "no signal `{name}` arrived for session `{}` within {timeout_ms} ms; wait again, or go on without it",
            session.session_id
        )));
    };
    let from = value["from"].as_str().unwrap_or("an unknown sender");
    Ok(match value["payload"].as_str() {
        Some(payload) => format!("signal `{name}` from session `{from}`: {payload}"),
        None => format!("signal `{name}` from session `{from}` (no payload)"),
    })
}
