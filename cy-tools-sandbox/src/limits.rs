//! `ExecLimits`: what every command and code run in a sandbox is held to.

use std::path::PathBuf;
use std::time::Duration;

use cy_tools::services::{ResourceLimits, ServiceError, ServiceErrorKind};

use crate::Isolation;

/// Limits for everything a sandbox runs: `terminal` commands, background processes and
/// `execute_code` runs (the local executor runs its code through the sandbox, and the control
/// server gives each workspace these limits). One type, one policy:
///
/// * **Timeouts.** A call that asks for none gets [`default_timeout`](Self::default_timeout).
///   A call that asks for more than [`max_timeout`](Self::max_timeout), or for zero, is
///   refused with what to ask for instead, never silently shortened: a model that asked for an
///   hour and got killed after less would not know why. See [`ExecLimits::timeout_for`].
/// * **Output.** Each of stdout and stderr is kept up to [`output_limit`](Self::output_limit)
///   bytes (a call may ask for less or more), and the rest is cut with a notice; background
///   processes keep [`process_buffer`](Self::process_buffer) unread bytes per stream.
/// * **Resources.** CPU time, memory and process count per command
///   ([`ResourceLimits`]), unless a call sets its own.
/// * **Isolation.** What the kernel confines each command to ([`Isolation`]: the workspace and
///   a private temporary folder, no network, by default), and what else it may read.
///
/// ```
/// use std::time::Duration;
/// use cy_tools_sandbox::ExecLimits;
///
/// let limits = ExecLimits::default();
/// assert_eq!(limits.timeout_for(None).unwrap(), Duration::from_secs(120));
/// assert_eq!(limits.timeout_for(Some(Duration::from_millis(1500))).unwrap(), Duration::from_millis(1500));
/// let err = limits.timeout_for(Some(Duration::from_secs(7200))).unwrap_err();
/// assert_eq!(err.to_string(), "a timeout of 7200 s is above this workspace's maximum of 3600 s; \
///     ask for at most 3600 s (3600000 ms), or split the work into shorter runs");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecLimits {
    /// Cap on captured stdout, and separately on stderr, unless a call sets its own.
    pub output_limit: usize,
    /// Timeout of a command or run whose call sets none.
    pub default_timeout: Duration,
    /// The longest timeout a call may ask for; a longer one is refused, not shortened.
    pub max_timeout: Duration,
    /// `PATH` in the clean environment commands start with.
    pub path: String,
    /// `LANG` in that environment.
    pub lang: String,
    /// Unread output kept per background process stream before older output is dropped.
    pub process_buffer: usize,
    /// CPU, memory and process caps for commands whose call sets none
    /// ([`ExecOptions::resources`](cy_tools::services::ExecOptions::resources)).
    pub resources: ResourceLimits,
    /// How confined every command is ([`Isolation::Strict`] by default).
    pub isolation: Isolation,
    /// Folders and files commands may read (and run programs from) besides the system's and
    /// their interpreters': a toolchain under `/opt`, a shared data folder.
    pub read_only: Vec<PathBuf>,
}

impl Default for ExecLimits {
    fn default() -> Self {
        ExecLimits {
            // What a model can read in one answer; more is better written to a file.
            output_limit: 64 * 1024,
            default_timeout: Duration::from_secs(120),
            max_timeout: Duration::from_secs(3600),
            path: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_string(),
            lang: "C.UTF-8".to_string(),
            process_buffer: 1024 * 1024,
            resources: ResourceLimits::default(),
            isolation: Isolation::default(),
            read_only: Vec::new(),
        }
    }
}

impl ExecLimits {
    /// The timeout a command or run asking for `requested` gets: the default when it asks for
    /// none, else what it asks for.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when `requested` is zero or above
    /// [`max_timeout`](Self::max_timeout), saying what to ask for instead.
    pub fn timeout_for(&self, requested: Option<Duration>) -> Result<Duration, ServiceError> {
        match requested {
            None => Ok(self.default_timeout.min(self.max_timeout)),
            Some(t) if t.is_zero() => Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "a timeout of 0 leaves no time to run; ask for at least 1 ms, or leave the timeout out for the default",
            )),
            Some(t) if t > self.max_timeout => Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "a timeout of {} is above this workspace's maximum of {}; ask for at most {} ({} ms), or split the work into shorter runs",
                    shown(t),
                    shown(self.max_timeout),
                    shown(self.max_timeout),
                    self.max_timeout.as_millis()
                ),
            )),
            Some(t) => Ok(t),
        }
    }
}

/// Whole seconds as seconds, anything else in milliseconds.
fn shown(t: Duration) -> String {
    if t.subsec_nanos() == 0 {
        format!("{} s", t.as_secs())
    } else {
        format!("{} ms", t.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_too_long_are_refused_and_the_rest_granted() {
        let limits = ExecLimits {
            default_timeout: Duration::from_secs(5),
            max_timeout: Duration::from_secs(2),
            ..ExecLimits::default()
        };
        // A default above the maximum is held to it.
        assert_eq!(limits.timeout_for(None).unwrap(), Duration::from_secs(2));
        assert_eq!(
            limits.timeout_for(Some(Duration::from_secs(2))).unwrap(),
            Duration::from_secs(2)
        );
        assert_eq!(
            limits
                .timeout_for(Some(Duration::from_millis(2001)))
                .unwrap_err()
                .to_string(),
            "a timeout of 2001 ms is above this workspace's maximum of 2 s; ask for at most 2 s (2000 ms), or split the work into shorter runs"
        );
        let zero = limits.timeout_for(Some(Duration::ZERO)).unwrap_err();
        assert_eq!(zero.kind(), ServiceErrorKind::InvalidInput);
    }
}
