//! Guards that stop what a test started when dropped, so a process or a group is gone even when
//! an assertion fails halfway.

use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use crate::process::{group_members, running, signal};

/// Kills, when dropped, every process group and process it was told about: what a test
/// started is gone even when an assertion fails first. A group is only signalled while one of
/// its members still runs.
#[derive(Default)]
pub struct Reaper {
    groups: Vec<u32>,
    pids: Vec<u32>,
}

impl Reaper {
    pub fn new() -> Self {
        Reaper::default()
    }

    /// Kill process group `pgid` (if a member still runs) on drop.
    pub fn group(&mut self, pgid: u32) {
        self.groups.push(pgid);
    }

    /// Stop `pid` (if it still runs) on drop: `SIGTERM`, then `SIGKILL` after 3 s.
    pub fn pid(&mut self, pid: u32) {
        self.pids.push(pid);
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        // Asked first (a cy-tools server stops the work it started on SIGTERM), then killed.
        for &pid in &self.pids {
            if running(pid)
                && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, Signal::TERM);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while self.pids.iter().any(|&pid| running(pid)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        for &pid in &self.pids {
            if running(pid)
                && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
        for &pgid in &self.groups {
            if !group_members(pgid).is_empty()
                && let Some(pgid) = i32::try_from(pgid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
            }
        }
    }
}

/// A child process of the test, stopped (`SIGTERM`, then `SIGKILL` after 3 s) and reaped on
/// drop, so a failing test leaves neither it nor a zombie behind.
pub struct ChildGuard(pub std::process::Child);

impl ChildGuard {
    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            signal(self.0.id(), Signal::TERM);
            let deadline = Instant::now() + Duration::from_secs(3);
            while let Ok(None) = self.0.try_wait() {
                if Instant::now() > deadline {
                    let _ = self.0.kill();
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = self.0.wait();
    }
}
