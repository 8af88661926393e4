//! What runs in a new command's process between `fork` and `exec`.
//!
//! The one place in the crate with `unsafe`: [`Command::pre_exec`] is unsafe because the
//! closure runs in the forked child of a multi-threaded process, where only
//! async-signal-safe calls are allowed (no allocation, no locks). Everything the closure
//! needs is computed before the fork and moved in; it makes raw system calls through
//! `rustix` only.
#![allow(unsafe_code)]

use std::os::fd::BorrowedFd;

use cy_tools::PassedFd;
use rustix::io::{FdFlags, fcntl_setfd};
use tokio::process::Command;

/// Arranges for the command alone to inherit `passed`: each descriptor is close-on-exec in
/// this process (so no other command started at the same moment gets it) and loses that flag
/// in this command's child only, after the fork.
pub(crate) fn inherit(command: &mut Command, passed: &[PassedFd]) {
    if passed.is_empty() {
        return;
    }
    // Plain numbers, collected before the fork: the closure must not allocate.
    let fds: Vec<i32> = passed.iter().map(PassedFd::raw).collect();
    let hook = move || {
        for &raw in &fds {
            // SAFETY: `raw` is open in the parent for as long as the command is being started
            // (the caller holds the `PassedFd`, whose `Arc<OwnedFd>` keeps it open), and the
            // child is a copy of the parent's descriptor table, so `raw` is open here too.
            let fd = unsafe { BorrowedFd::borrow_raw(raw) };
            fcntl_setfd(fd, FdFlags::empty())?;
        }
        Ok(())
    };
    // SAFETY: the hook makes only `fcntl` system calls (async-signal-safe) on descriptors
    // known to be open, allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(hook);
    }
}
