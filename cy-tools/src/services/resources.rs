//! `ResourceLimits`: how much CPU time, memory and how many processes a command may use.

use std::time::Duration;

/// Caps on what one command (a terminal command, a background process, a code run) may use,
/// so a runaway loop, a memory hog or a fork bomb stops at the cap instead of taking the host
/// down. `None` leaves that resource unlimited.
///
/// The sandbox enforces them; `cy-tools-builtin`'s local sandbox does it with rlimits
/// (CPU time and data size, per process) and, for the process count, a pids cgroup per command
/// when the host can create one, else `RLIMIT_NPROC`. They guard against accidents and
/// careless code, not against code that sets out to escape: a command running as root may
/// raise its own limits. Isolating hostile code needs an unprivileged user or a container.
///
/// The defaults are generous for real work and still keep a 2-core, few-GiB host alive.
///
/// ```
/// use std::time::Duration;
/// use cy_tools::services::ResourceLimits;
///
/// let limits = ResourceLimits::default();
/// assert_eq!(limits.cpu_time, Some(Duration::from_secs(600)));
/// assert_eq!(limits.memory, Some(4 << 30));
/// assert_eq!(limits.processes, Some(512));
///
/// let tight = ResourceLimits { processes: Some(16), ..ResourceLimits::default() };
/// assert!(ResourceLimits::NONE.is_unlimited() && !tight.is_unlimited());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceLimits {
    /// CPU time each process may use (rounded up to whole seconds): at the limit the kernel
    /// stops it with `SIGXCPU`, then `SIGKILL`.
    pub cpu_time: Option<Duration>,
    /// Bytes of data (heap and private writable mappings) each process may hold: past it,
    /// allocations fail (Python raises `MemoryError`).
    pub memory: Option<u64>,
    /// Processes and threads the whole command may have alive at once, itself included:
    /// past it, `fork` fails with `EAGAIN`.
    pub processes: Option<u32>,
}

impl ResourceLimits {
    /// No limit at all: commands may use whatever the host allows.
    pub const NONE: ResourceLimits = ResourceLimits {
        cpu_time: None,
        memory: None,
        processes: None,
    };

    /// Whether no resource is limited.
    pub fn is_unlimited(&self) -> bool {
        *self == Self::NONE
    }
}

impl Default for ResourceLimits {
    /// Ten CPU minutes and 4 GiB of data per process, 512 processes per command.
    fn default() -> Self {
        ResourceLimits {
            cpu_time: Some(Duration::from_secs(600)),
            memory: Some(4 << 30),
            processes: Some(512),
        }
    }
}
