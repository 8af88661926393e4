//! The limits a request carries, held to the server's: a client may ask for less CPU time,
//! memory, processes or captured output than the host was started with (`--cpu-seconds`,
//! `--memory-mb`, `--max-processes`, its output cap), never for more, and never for none.
//!
//! The local sandbox takes a call's limits as they come, since there the caller is the host's
//! own program; a control server's caller is anybody with the token, and the host's limits are
//! what keep one client's command from taking the machine. (Timeouts need no clamp here: the
//! sandbox already refuses one above the host's `max_timeout`.)

use cy_tools::services::{ExecOptions, ResourceLimits};

use cy_tools_sandbox::ExecLimits;

/// `options` with its output cap and resource limits held to `host`'s.
pub(super) fn exec_options(mut options: ExecOptions, host: &ExecLimits) -> ExecOptions {
    options.output_limit = Some(
        options
            .output_limit
            .map_or(host.output_limit, |asked| asked.min(host.output_limit)),
    );
    options.resources = Some(resources(options.resources, host.resources));
    options
}

/// Each of `asked`'s limits, or `host`'s where that is lower or `asked` has none.
pub(super) fn resources(asked: Option<ResourceLimits>, host: ResourceLimits) -> ResourceLimits {
    let Some(asked) = asked else {
        return host;
    };
    ResourceLimits {
        cpu_time: lower(asked.cpu_time, host.cpu_time),
        memory: lower(asked.memory, host.memory),
        processes: lower(asked.processes, host.processes),
    }
}

/// The lower of two limits, `None` being no limit at all: a request's `None` ("unlimited")
/// gets the host's limit, and only a host without one lets a request's own stand alone.
fn lower<T: Ord>(asked: Option<T>, host: Option<T>) -> Option<T> {
    match (asked, host) {
        (Some(asked), Some(host)) => Some(asked.min(host)),
        (None, host) => host,
        (asked, None) => asked,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn host() -> ExecLimits {
        ExecLimits {
            output_limit: 1000,
            resources: ResourceLimits {
                cpu_time: Some(Duration::from_secs(10)),
                memory: Some(128 << 20),
                processes: Some(16),
            },
            ..ExecLimits::default()
        }
    }

    #[test]
    fn a_request_can_lower_a_limit_but_not_raise_or_remove_it() {
        let host = host();
        let raised = ExecOptions {
            output_limit: Some(1 << 40),
            resources: Some(ResourceLimits {
                cpu_time: Some(Duration::from_secs(100_000)),
                memory: None,
                processes: Some(100_000),
            }),
            ..ExecOptions::default()
        };
        let held = exec_options(raised, &host);
        assert_eq!(held.output_limit, Some(1000));
        assert_eq!(held.resources, Some(host.resources));

        let lowered = ExecOptions {
            output_limit: Some(10),
            resources: Some(ResourceLimits {
                cpu_time: Some(Duration::from_secs(1)),
                memory: Some(1 << 20),
                processes: Some(2),
            }),
            ..ExecOptions::default()
        };
        let held = exec_options(lowered.clone(), &host);
        assert_eq!(held.output_limit, Some(10));
        assert_eq!(held.resources, lowered.resources);

        // Nothing asked: the host's.
        let held = exec_options(ExecOptions::default(), &host);
        assert_eq!(held.output_limit, Some(1000));
        assert_eq!(held.resources, Some(host.resources));
        assert_eq!(
            resources(Some(ResourceLimits::NONE), host.resources),
            host.resources
        );
    }

    #[test]
    fn only_a_host_without_a_limit_lets_a_request_set_its_own() {
        let asked = ResourceLimits {
            cpu_time: Some(Duration::from_secs(5)),
            memory: None,
            processes: Some(3),
        };
        assert_eq!(resources(Some(asked), ResourceLimits::NONE), asked);
        assert_eq!(resources(None, ResourceLimits::NONE), ResourceLimits::NONE);
    }
}
