//! Holding a command to its [`ResourceLimits`]: the shell sets them before the command runs.
//!
//! The command runs under `/bin/sh -c`, so the rlimits are set by the shell's own `ulimit` in
//! front of the command, on the same line: it costs no extra process, nothing of the command
//! runs before the limits hold, and the shell's messages keep their line numbers. Lowering a
//! limit needs no privilege, so this works inside the command's isolation too. The pids cgroup
//! is joined earlier, by the new process itself before the shell starts (see
//! [`isolation`](crate::isolation)): writing to the cgroup's files from the shell would
//! be refused once the command is confined.

use std::sync::Once;

use cy_tools::services::ResourceLimits;

use super::cgroup::{RunCgroup, ViewCgroup};

/// What a command starts under: the shell text that sets the limits, and the cgroup (kept
/// alive as long as the command's process group, and emptied when it ends).
#[derive(Debug, Default)]
pub(crate) struct Confinement {
    /// Shell text to put in front of the command; empty when nothing is limited.
    pub(crate) prefix: String,
    /// The command's cgroups, when this host can make them: they end every process of the
    /// command, and hold its process count when they count.
    pub(crate) cgroup: Option<RunCgroup>,
}

/// The confinement for `limits` on this host, for a command of `view`.
pub(crate) fn confine(limits: &ResourceLimits, view: &ViewCgroup) -> Confinement {
    let mut prefix = String::new();
    if let Some(cpu) = limits.cpu_time {
        // `SIGXCPU` at the soft limit lets the program report it; `SIGKILL` a second later
        // ends one that ignores it. Both limits first, then the soft one lowered: dash's
        // `-H` alone fails while the soft limit is above the new hard one.
        let soft = cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0);
        let soft = soft.max(1);
        prefix.push_str(&format!(
            "ulimit -t {} 2>/dev/null; ulimit -S -t {soft} 2>/dev/null; ",
            soft + 1
        ));
    }
    if let Some(bytes) = limits.memory {
        // Both dash and bash count `-d` in KiB. A failure means the host already holds the
        // command to a lower hard limit, which stands.
        prefix.push_str(&format!(
            "ulimit -d {} 2>/dev/null; ",
            bytes.div_ceil(1024).max(1)
        ));
    }
    // The new process joins it itself, before the shell starts.
    let cgroup = RunCgroup::create(view, limits.processes);
    if let Some(max) = limits.processes {
        match &cgroup {
            Some(run) if run.counts() => {}
            _ if rustix::process::geteuid().is_root() => warn_root_unlimited(max),
            _ => {
                // `RLIMIT_NPROC` counts all of the user's processes and threads, not the
                // command's: allow what the user already runs, plus `max`.
                let allowed = u64::from(max) + u64::from(user_tasks(rustix::process::getuid()));
                // bash calls it `-u`, dash `-p`; each refuses the other's letter.
                prefix.push_str(&format!(
                    "{{ ulimit -u {allowed} || ulimit -p {allowed}; }} 2>/dev/null; "
                ));
            }
        }
    }
    Confinement { prefix, cgroup }
}

/// Root without a pids cgroup cannot be held to a process count: the kernel ignores
/// `RLIMIT_NPROC` for it. Said once, where the host's operator will see it.
fn warn_root_unlimited(max: u32) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tracing::warn!(
            "the process limit of {max} per command is not enforced: this host runs as root, which RLIMIT_NPROC does not hold, and it cannot create a pids cgroup under /sys/fs/cgroup; run the host as an unprivileged user or give it a writable (delegated) pids cgroup"
        );
    });
}

/// Tasks (processes and threads) of real user `uid` now alive, from `/proc`.
fn user_tasks(uid: rustix::process::Uid) -> u32 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let uid = uid.as_raw().to_string();
    let mut tasks = 0u32;
    for entry in entries.flatten() {
        if !entry.file_name().as_encoded_bytes()[0].is_ascii_digit() {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim_start)
        };
        let real_uid = field("Uid:").and_then(|v| v.split_whitespace().next());
        if real_uid == Some(uid.as_str()) {
            let threads = field("Threads:").and_then(|v| v.parse::<u32>().ok());
            tasks = tasks.saturating_add(threads.unwrap_or(1));
        }
    }
    tasks
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn no_limits_no_prefix() {
        let c = confine(&ResourceLimits::NONE, &ViewCgroup::new(None));
        assert_eq!(c.prefix, "");
    }

    #[test]
    fn cpu_rounds_up_and_keeps_a_second_between_soft_and_hard() {
        let limits = ResourceLimits {
            cpu_time: Some(Duration::from_millis(1500)),
            memory: Some(1000),
            processes: None,
        };
        assert_eq!(
            confine(&limits, &ViewCgroup::new(None)).prefix,
            "ulimit -t 3 2>/dev/null; ulimit -S -t 2 2>/dev/null; ulimit -d 1 2>/dev/null; "
        );
    }

    #[test]
    fn this_users_tasks_include_this_test() {
        let own = user_tasks(rustix::process::getuid());
        // This test process alone has the test harness's threads.
        assert!(own >= 2, "{own}");
    }
}
