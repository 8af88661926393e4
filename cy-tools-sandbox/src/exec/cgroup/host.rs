//! Which host made a `cy-tools-…` folder, and whether it is gone.
//!
//! A folder is named after its host's pid namespace, pid and start time. The pid alone is not
//! enough: a host in another pid namespace (a container sharing the cgroup tree) has a pid that
//! means nothing here, and a folder of a live host there would look dead. So only folders of
//! this pid namespace are ever judged, and a host is gone when no process with its pid and start
//! time is left (a recycled pid has another start time). Folders of other namespaces, and of the
//! older `cy-tools-<pid>` form, which says no namespace, are left alone.

use std::fs;
use std::os::unix::fs::MetadataExt;

/// A host, as its folder name says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct HostId {
    /// The inode of its pid namespace (`/proc/<pid>/ns/pid`).
    pub(super) pid_ns: u64,
    pub(super) pid: u32,
    /// Its start time in clock ticks after boot (`/proc/<pid>/stat`, field 22).
    pub(super) start: u64,
}

impl HostId {
    /// This process.
    pub(super) fn own() -> Option<HostId> {
        let pid_ns = fs::metadata("/proc/self/ns/pid").ok()?.ino();
        let pid = std::process::id();
        Some(HostId {
            pid_ns,
            pid,
            start: start_time(pid)?,
        })
    }

    /// Its folder name.
    pub(super) fn folder(&self) -> String {
        format!("cy-tools-{}-{}-{}", self.pid_ns, self.pid, self.start)
    }

    /// The host a folder name names; `None` for any other name, the older form included.
    pub(super) fn parse(name: &str) -> Option<HostId> {
        let mut parts = name.strip_prefix("cy-tools-")?.split('-');
        let id = HostId {
            pid_ns: parts.next()?.parse().ok()?,
            pid: parts.next()?.parse().ok()?,
            start: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(id)
    }

    /// Whether the host named `name` is gone, as `own` sees it: `start_of` gives the start
    /// time of a live pid of this namespace.
    pub(super) fn is_gone(name: &str, own: &HostId, start_of: impl Fn(u32) -> Option<u64>) -> bool {
        let Some(host) = HostId::parse(name) else {
            return false;
        };
        // Another namespace's pid says nothing about a process here.
        if host.pid_ns != own.pid_ns || host == *own {
            return false;
        }
        start_of(host.pid) != Some(host.start)
    }
}

/// The start time of process `pid` of this pid namespace, while it is alive.
pub(super) fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name (which may hold spaces and parentheses): state is field 3, start
    // time field 22.
    let (_, rest) = stat.rsplit_once(") ")?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_host_of_this_namespace_whose_process_is_gone_is_gone() {
        let own = HostId {
            pid_ns: 100,
            pid: 10,
            start: 5,
        };
        let alive = |pid: u32| (pid == 20).then_some(7);
        // A live host of this namespace, and one whose pid was reused by another process.
        assert!(!HostId::is_gone("cy-tools-100-20-7", &own, alive));
        assert!(HostId::is_gone("cy-tools-100-20-6", &own, alive));
        assert!(HostId::is_gone("cy-tools-100-30-7", &own, alive));
        // Another pid namespace: its pid 30 means nothing here, whatever runs as 30 here.
        assert!(!HostId::is_gone("cy-tools-200-30-7", &own, alive));
        assert!(!HostId::is_gone("cy-tools-200-20-9", &own, alive));
        // Itself, the older form (no namespace), and other names.
        assert!(!HostId::is_gone("cy-tools-100-10-5", &own, |_| None));
        assert!(!HostId::is_gone("cy-tools-30", &own, alive));
        assert!(!HostId::is_gone("cy-tools-100-30-7-1", &own, alive));
        assert!(!HostId::is_gone("user.slice", &own, alive));
    }

    #[test]
    fn this_process_is_named_and_found_alive() {
        let own = HostId::own().unwrap();
        assert_eq!(HostId::parse(&own.folder()), Some(own));
        assert_eq!(start_time(own.pid), Some(own.start));
        assert!(!HostId::is_gone(&own.folder(), &own, start_time));
    }
}
