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

use std::ffi::{CStr, CString};
use std::io::{self, Read};
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
    /// The command's working folder, entered again once it has joined the confinement's mount
    /// namespace (joining one moves a process to its root folder).
    pub(crate) cwd: CString,
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
/// cgroups, join the view's namespaces, drop privileges, enforce Landlock, then seccomp last
/// (its filter could refuse the calls before it).
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
    join_namespaces(&confine.namespaces, &setup.cwd)?;
    // Always: a root host's capabilities, or the full set a process has in the user namespace
    // it just joined (with which it could mount the view writable again).
    drop_capabilities()?;
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

/// Joins the view's namespaces (first its user namespace, whose capabilities the mount
/// namespace's join needs) and enters `cwd` again, so that every path the command names, `..`
/// from its working folder included, is looked up in the read-only view. Before seccomp, which
/// refuses `setns`.
fn join_namespaces(namespaces: &Namespaces, cwd: &CStr) -> io::Result<()> {
    if let Some(user) = &namespaces.user {
        // SAFETY: plain system call on a descriptor `namespaces` keeps open.
        check(unsafe { libc::setns(user.as_raw_fd(), libc::CLONE_NEWUSER) })?;
    }
    // SAFETY: as above.
    check(unsafe { libc::setns(namespaces.mount.as_raw_fd(), libc::CLONE_NEWNS) })?;
    // SAFETY: `cwd` is a NUL-terminated string made before the fork.
    check(unsafe { libc::chdir(cwd.as_ptr()) })
}

/// The namespaces a view's commands join: a mount namespace in which everything but the
/// writable folders is mounted read-only, and, on a host that may not mount (not root, or
/// without `CAP_SYS_ADMIN`), the user namespace that owns it (such a process can make a mount
/// namespace only inside one).
pub(super) struct Namespaces {
    pub(super) user: Option<OwnedFd>,
    pub(super) mount: OwnedFd,
}

/// What [`make_namespaces`] builds, prepared as C strings before its fork.
pub(super) struct NamespacePlan {
    /// The `uid_map` and `gid_map` lines of a new user namespace (the host's own ids mapped to
    /// themselves), or `None` to make the mount namespace in the host's (a root host with
    /// `CAP_SYS_ADMIN`).
    pub(super) user_maps: Option<(CString, CString)>,
    /// The folders that stay writable (mounted again `nosuid,nodev`), canonical.
    pub(super) writable: Vec<CString>,
}

/// The steps of [`namespace_child`], named in the error of the one that failed.
pub(super) const NAMESPACE_STEPS: &[&str] = &[
    "making the namespaces (unshare)",
    "writing /proc/self/setgroups",
    "writing /proc/self/uid_map",
    "writing /proc/self/gid_map",
    "making the mounts private",
    "making every mount read-only and nosuid (mount_setattr)",
    "bind-mounting a writable folder",
    "making a writable folder writable, nosuid and nodev (mount_setattr)",
];

/// Builds the namespaces of `plan` in a short-lived child process, and returns handles on them
/// (which keep them alive once the child is gone). A child because `unshare` of a user
/// namespace needs a single-threaded process, and this one has threads.
///
/// # Errors
/// The fork failed, or a step did (the error names it and carries its errno).
pub(super) fn make_namespaces(plan: &NamespacePlan) -> io::Result<Namespaces> {
    // Both ends close-on-exec.
    let (ready_read, ready_write) = io::pipe()?;
    // SAFETY: the child runs only `namespace_child` (raw system calls on values prepared
    // before the fork, no allocation, no lock) and then `_exit`s or is killed.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let report = match namespace_child(plan) {
            Ok(()) => [0u8; 8],
            Err((step, errno)) => {
                let mut report = [0u8; 8];
                report[..4].copy_from_slice(&(step + 1).to_ne_bytes());
                report[4..].copy_from_slice(&errno.to_ne_bytes());
                report
            }
        };
        // SAFETY: writing a stack buffer to the pipe's open end; then waiting to be killed
        // (the parent opens the namespaces through `/proc/<pid>/ns` meanwhile), or leaving.
        unsafe {
            libc::write(
                ready_write.as_raw_fd(),
                report.as_ptr().cast(),
                report.len(),
            );
            if report == [0u8; 8] {
                loop {
                    libc::pause();
                }
            }
            libc::_exit(1);
        }
    }
    drop(ready_write);
    let result = read_report(ready_read, pid, plan.user_maps.is_some());
    // SAFETY: `pid` is our child, not yet reaped: killing and reaping it touches no other.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        let mut status = 0;
        while libc::waitpid(pid, &raw mut status, 0) < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
    result
}

/// The child's report on `ready`, and then, when every step succeeded, its namespaces.
fn read_report(mut ready: io::PipeReader, pid: libc::pid_t, user: bool) -> io::Result<Namespaces> {
    let mut report = [0u8; 8];
    ready.read_exact(&mut report).map_err(|err| {
        io::Error::other(format!(
            "the process making the namespaces ended without a report ({err})"
        ))
    })?;
    let step = u32::from_ne_bytes([report[0], report[1], report[2], report[3]]);
    let errno = i32::from_ne_bytes([report[4], report[5], report[6], report[7]]);
    if step != 0 {
        let what = NAMESPACE_STEPS
            .get(usize::try_from(step - 1).unwrap_or(usize::MAX))
            .unwrap_or(&"an unknown step");
        let err = io::Error::from_raw_os_error(errno);
        return Err(io::Error::new(err.kind(), format!("{what}: {err}")));
    }
    let open = |name: &str| -> io::Result<OwnedFd> {
        std::fs::File::open(format!("/proc/{pid}/ns/{name}")).map(OwnedFd::from)
    };
    Ok(Namespaces {
        user: if user { Some(open("user")?) } else { None },
        mount: open("mnt")?,
    })
}

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// In the forked child: make the namespaces and the mounts. On failure, the index of the step
/// in [`NAMESPACE_STEPS`] and the errno. Raw system calls only.
fn namespace_child(plan: &NamespacePlan) -> Result<(), (u32, i32)> {
    let step = |index: u32, result: libc::c_long| {
        if result < 0 {
            Err((
                index,
                io::Error::last_os_error().raw_os_error().unwrap_or(0),
            ))
        } else {
            Ok(())
        }
    };
    // SAFETY: every call below is a raw system call on NUL-terminated strings and structs made
    // before the fork, alive for the call.
    unsafe {
        // Gone with this process's parent thread, so no helper outlives a failed build.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if let Some((uid_map, gid_map)) = &plan.user_maps {
            step(
                0,
                libc::c_long::from(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS)),
            )?;
            step(1, write_file(c"/proc/self/setgroups", c"deny"))?;
            step(2, write_file(c"/proc/self/uid_map", uid_map))?;
            step(3, write_file(c"/proc/self/gid_map", gid_map))?;
        } else {
            step(0, libc::c_long::from(libc::unshare(libc::CLONE_NEWNS)))?;
        }
        // Nothing done here reaches the host's mounts, nor theirs this namespace.
        step(
            4,
            libc::c_long::from(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )),
        )?;
        let read_only = MountAttr {
            attr_set: MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
            attr_clr: 0,
            propagation: 0,
            userns_fd: 0,
        };
        step(5, mount_setattr(c"/", AT_RECURSIVE, &read_only))?;
        let writable = MountAttr {
            attr_set: MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
            attr_clr: MOUNT_ATTR_RDONLY,
            propagation: 0,
            userns_fd: 0,
        };
        for path in &plan.writable {
            step(
                6,
                libc::c_long::from(libc::mount(
                    path.as_ptr(),
                    path.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                )),
            )?;
            // The top mount only: a read-only mount beneath the folder stays read-only.
            step(7, mount_setattr(path, 0, &writable))?;
        }
    }
    Ok(())
}

/// `mount_setattr(AT_FDCWD, path, flags, attr)`.
///
/// # Safety
/// Async-signal-safe; `path` and `attr` must be alive for the call.
unsafe fn mount_setattr(path: &CStr, flags: libc::c_uint, attr: &MountAttr) -> libc::c_long {
    // SAFETY: the caller keeps both pointers alive.
    unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags,
            std::ptr::from_ref(attr),
            std::mem::size_of::<MountAttr>(),
        )
    }
}

/// Writes `text` to the file at `path` in one `write`.
///
/// # Safety
/// Async-signal-safe; both strings alive for the call.
unsafe fn write_file(path: &CStr, text: &CStr) -> libc::c_long {
    // SAFETY: the caller keeps both strings alive.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return -1;
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written < 0 { -1 } else { 0 }
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
