//! The scale of a run, from the environment.

use std::time::Duration;

/// The scale of a run, from `CY_LOAD_*` variables.
#[derive(Clone, Debug)]
pub struct Config {
    /// `CY_LOAD_SESSIONS`: sessions live at once (default 40).
    pub sessions: usize,
    /// `CY_LOAD_CALLS`: calls per session (default 20).
    pub calls: usize,
    /// `CY_LOAD_PROCS`: Python runs in flight at once, over all sessions; `None` (the default,
    /// or 0) leaves them unbounded.
    pub procs: Option<usize>,
    /// `CY_LOAD_DEADLINE_S`: every call must be answered within this (default 300 s plus 1 s
    /// per session).
    pub deadline: Duration,
}

impl Config {
    pub fn from_env() -> Self {
        let var = |name: &str| -> Option<usize> {
            let text = std::env::var(name).ok()?;
            Some(
                text.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("`{name}` is `{text}`, not a whole number")),
            )
        };
        let sessions = var("CY_LOAD_SESSIONS").unwrap_or(40);
        let calls = var("CY_LOAD_CALLS").unwrap_or(20);
        assert!(
            sessions > 0 && calls > 0,
            "CY_LOAD_SESSIONS and CY_LOAD_CALLS must be above 0"
        );
        let deadline = var("CY_LOAD_DEADLINE_S").unwrap_or(300 + sessions);
        Config {
            sessions,
            calls,
            procs: var("CY_LOAD_PROCS").filter(|n| *n > 0),
            deadline: Duration::from_secs(deadline as u64),
        }
    }
}
