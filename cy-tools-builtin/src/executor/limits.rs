//! `RunLimits`: how long a run may take, what it may use and how much of its output is kept.

use std::time::Duration;

use cy_tools::{ResourceLimits, ServiceError, ServiceErrorKind};

/// Limits every code run is held to, whichever executor runs it.
///
/// ```
/// use std::time::Duration;
/// use cy_tools_builtin::executor::RunLimits;
///
/// let limits = RunLimits::default();
/// assert_eq!(limits.timeout_for(None).unwrap(), Duration::from_secs(60));
/// assert_eq!(limits.timeout_for(Some(Duration::from_millis(1500))).unwrap(), Duration::from_millis(1500));
/// let err = limits.timeout_for(Some(Duration::from_secs(3600))).unwrap_err();
/// assert_eq!(err.to_string(), "a timeout of 3600000 ms is above this session's maximum of 600000 ms; \
///     pass a `timeout_ms` of at most 600000, or split the work into shorter runs");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// Timeout of a run that sets none.
    pub default_timeout: Duration,
    /// The longest timeout a run may ask for; a longer one is refused, not shortened.
    pub max_timeout: Duration,
    /// Cap on the captured stdout, and separately on stderr, in bytes.
    pub output_limit: usize,
    /// CPU time, memory and process count each run may use, so a runaway loop, a memory hog
    /// or a fork bomb stops at the cap instead of taking the host down. `None` (the default)
    /// holds runs to what the sandbox holds every command to
    /// ([`ExecLimits::resources`](crate::ExecLimits::resources)), so one setting covers both.
    pub resources: Option<ResourceLimits>,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            default_timeout: Duration::from_secs(60),
            max_timeout: Duration::from_secs(600),
            output_limit: 64 * 1024,
            resources: None,
        }
    }
}

impl RunLimits {
    /// The timeout a run asking for `requested` gets.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when `requested` is zero or above
    /// [`max_timeout`](Self::max_timeout).
    pub fn timeout_for(&self, requested: Option<Duration>) -> Result<Duration, ServiceError> {
        let max = self.max_timeout.as_millis();
        match requested {
            None => Ok(self.default_timeout.min(self.max_timeout)),
            Some(t) if t.is_zero() => Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "a timeout of 0 ms leaves no time to run; pass a `timeout_ms` of at least 1, or leave it out for the default",
            )),
            Some(t) if t > self.max_timeout => Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "a timeout of {} ms is above this session's maximum of {max} ms; pass a `timeout_ms` of at most {max}, or split the work into shorter runs",
                    t.as_millis()
                ),
            )),
            Some(t) => Ok(t),
        }
    }
}
