//! The crate's one module with `unsafe`: the system calls of isolation, and what runs in a new
//! command's process between `fork` and `exec`.
//!
//! Two kinds of code are here. The parent side (building a Landlock ruleset, asking the kernel
//! which Landlock it has) calls `syscall(2)` directly because no safe wrapper exists in the
//! crates this one uses. The child side is [`install`]: a [`Command::pre_exec`] hook, unsafe
//! because it runs in the forked copy of a multi-threaded process, where only
//! async-signal-safe calls are allowed: no allocation, no locks. Everything the hook needs is
//! computed before the fork and moved in as plain numbers and a ready BPF program; the hook
//! makes raw system calls only.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use std::sync::Arc;

use tokio::process::Command;

use super::Confinement;

/// `struct landlock_ruleset_attr` (ABI 6: with `scoped`).
#[repr(C)]
pub(super) struct RulesetAttr {
    pub(super) handled_access_fs: u64,
    pub(super) handled_access_net: u64,
    pub(super) scoped: u64,
}

/// `struct landlock_path_beneath_attr` (packed in the kernel's header).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

const LANDLOCK_CREATE_RULESET_VERSION: libc::c_ulong = 1;
const LANDLOCK_RULE_PATH_BENEATH: libc::c_ulong = 1;

/// The Landlock ABI version this kernel offers, or the error that says why there is none
/// (`ENOSYS`: not built in; `EOPNOTSUPP`: built in but disabled at boot).
pub(super) fn landlock_abi() -> io::Result<u32> {
    // SAFETY: the version query takes no pointer (NULL, size 0) and only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(u32::try_from(abi).unwrap_or(0))
}

/// A new, empty ruleset handling `attr`'s rights.
pub(super) fn create_ruleset(attr: &RulesetAttr) -> io::Result<OwnedFd> {
    // SAFETY: `attr` points to a live struct of the size passed.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::from_ref(attr),
            std::mem::size_of::<RulesetAttr>(),
            0 as libc::c_ulong,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Allows `access` beneath the file or folder `parent` (opened with `O_PATH`) in `ruleset`.
pub(super) fn add_path_rule(ruleset: &OwnedFd, parent: &OwnedFd, access: u64) -> io::Result<()> {
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: parent.as_raw_fd(),
    };
    // SAFETY: both descriptors are open for the call; `attr` is a live struct of the kernel's
    // layout.
    let done = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            std::ptr::from_ref(&attr),
            0 as libc::c_ulong,
        )
    };
    if done < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What the hook does in the new process, prepared in the parent.
pub(crate) struct ChildSetup {
    /// Descriptors to make inheritable (the SDK channel).
    pub(crate) inherit: Vec<RawFd>,
    /// `cgroup.procs` of each of the command's cgroups, opened for writing: the process joins
    /// them.
    pub(crate) cgroup_procs: Vec<OwnedFd>,
    /// The isolation to enter; `None` runs the command unconfined.
    pub(crate) confine: Option<Arc<Confinement>>,
}

/// Installs `setup` as `command`'s pre-exec hook. Always, even for an unconfined command with
/// no cgroup: the hook is what keeps the host's own stray descriptors from the command.
pub(crate) fn install(command: &mut Command, setup: ChildSetup) {
    let hook = move || run_in_child(&setup);
    // SAFETY: `run_in_child` makes only raw system calls (async-signal-safe), on values
    // prepared before the fork, allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(hook);
    }
}

/// The hook's body, in the child: keep only the descriptors meant for the command, join the
/// cgroups, drop privileges, enforce Landlock, then seccomp last (its filter could refuse the
/// calls before it).
fn run_in_child(setup: &ChildSetup) -> io::Result<()> {
    close_on_exec_from(3);
    for &fd in &setup.inherit {
        // SAFETY: `fd` is open in the parent while the command is started (the caller holds
        // it) and the child's table is a copy of the parent's.
        check(unsafe { libc::fcntl(fd, libc::F_SETFD, 0) })?;
    }
    for procs in &setup.cgroup_procs {
        // "0" is the writing process itself, so the process joins before anything else runs.
        // SAFETY: writing two bytes from a static buffer to an open descriptor.
        let written = unsafe { libc::write(procs.as_raw_fd(), b"0".as_ptr().cast(), 1) };
        if written < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let Some(confine) = &setup.confine else {
        return Ok(());
    };
    if confine.drop_capabilities {
        drop_capabilities()?;
    }
    // SAFETY: plain `prctl` calls with integer arguments.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
    // SAFETY: the ruleset descriptor is open (owned by `setup`, which outlives the spawn).
    let restricted = unsafe {
        libc::syscall(
            libc::SYS_landlock_restrict_self,
            confine.ruleset.as_raw_fd(),
            0 as libc::c_ulong,
        )
    };
    if restricted < 0 {
        return Err(io::Error::last_os_error());
    }
    let program = libc::sock_fprog {
        len: u16::try_from(confine.filter.len()).unwrap_or(u16::MAX),
        filter: confine.filter.as_ptr().cast_mut(),
    };
    // SAFETY: `program` points into the filter vector, alive for the call.
    let filtered = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0 as libc::c_ulong,
            std::ptr::from_ref(&program),
        )
    };
    if filtered < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Marks every descriptor from `first` on close-on-exec, so the command inherits only stdin,
/// stdout, stderr and the ones the caller makes inheritable again after this (the SDK
/// channel). A descriptor the host itself was started with, open and inheritable (fd 3 on a
/// file outside the workspace, say), would otherwise reach the command, which could read and
/// write through it whatever Landlock says: Landlock checks opening, not an open descriptor.
/// Marked rather than closed: the descriptors this hook still needs (the cgroup files, the
/// ruleset) and the one the runtime learns a failed `exec` through close at `exec` anyway.
/// `close_range` (Linux 5.11) does it in one call; before it, each number up to the
/// descriptor limit is marked (a closed one fails with `EBADF`, ignored).
fn close_on_exec_from(first: u32) {
    // SAFETY: a plain system call with integer arguments; it only sets descriptor flags.
    let marked = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            first,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if marked == 0 {
        return;
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes into the live struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } < 0 {
        limit.rlim_cur = 1 << 16;
    }
    let top = i32::try_from(limit.rlim_cur.min(1 << 20)).unwrap_or(1 << 20);
    for fd in i32::try_from(first).unwrap_or(3)..top {
        // SAFETY: `fcntl` on a descriptor number; for one that is not open it fails with
        // `EBADF` and changes nothing.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
}

/// Root keeps no capability, and can get none back: the securebits make root an ordinary
/// user for capabilities (no regaining them by running a program, none kept across a change of
/// user, no ambient raise), locked; no capability is ambient, effective, permitted or
/// inheritable. With no-new-privileges (set next), a program's file capabilities and setuid bit
/// give nothing either. Three calls: dropping the bounding set one capability at a time would
/// be forty more, each a new set of credentials.
fn drop_capabilities() -> io::Result<()> {
    // SAFETY: plain `prctl` call with integer arguments.
    check(unsafe { libc::prctl(libc::PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0) })?;
    // SAFETY: plain `prctl` call with integer arguments.
    check(unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    })?;
    // `struct __user_cap_header_struct` and two `__user_cap_data_struct`s (version 3).
    let mut header = [0x2008_0522u32, 0];
    let data = [0u32; 6];
    // SAFETY: both buffers are live, of the sizes capset reads for version 3.
    let set = unsafe { libc::syscall(libc::SYS_capset, header.as_mut_ptr(), data.as_ptr()) };
    if set < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `SECBIT_NOROOT`, `SECBIT_NO_SETUID_FIXUP`, `SECBIT_NO_CAP_AMBIENT_RAISE` and their locks, and
/// the lock of `SECBIT_KEEP_CAPS` (left off): `<linux/securebits.h>`.
const LOCKED_SECUREBITS: libc::c_ulong = 0b1110_1111;

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
