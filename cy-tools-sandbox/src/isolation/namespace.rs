//! The read-only view of the filesystem a sandbox view's commands run in: a mount namespace,
//! built once per view, in which every mount is read-only and `nosuid` but the view's writable
//! folders (its workspace and private temporary folder, mounted again `nosuid,nodev`).
//!
//! Landlock decides what a command may open, but not what it may do to a file's metadata: a
//! command could otherwise `chmod`, `chown`, `touch` or `setxattr` any file the host user owns,
//! anywhere. A read-only mount refuses all of these (`EROFS`), whatever the rights on the
//! file. The namespace is made once, in a short-lived child (see [`sys::make_namespaces`]),
//! and each command joins it with `setns` between `fork` and `exec`: a new namespace per
//! command measured 1.18-1.20x of an unconfined `sh -c true`, joining one 1.03-1.10x.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use cy_tools::services::{ServiceError, ServiceErrorKind};

use super::sys::{self, NamespacePlan, Namespaces};

/// The namespaces of a view whose writable folders are `writable`. On a host that may not make
/// mounts itself (not root, or a root without `CAP_SYS_ADMIN`, as in a container), the mount
/// namespace lives in a new user namespace mapping the host's user and group to themselves, so
/// commands keep their ids (files of other users show as `nobody`).
///
/// # Errors
/// [`Unavailable`](ServiceErrorKind::Unavailable): the kernel refused a step (no user
/// namespaces for this user, or no `mount_setattr`); the error names it and `--isolation none`.
pub(super) fn build(writable: &[&Path]) -> Result<Namespaces, ServiceError> {
    let unavailable = |why: String| {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "could not make the commands' read-only view of the filesystem ({why}), so the command was not run; allow user and mount namespaces on this host (`kernel.unprivileged_userns_clone`, a container's seccomp profile), or run with `--isolation none` if the commands are trusted"
            ),
        )
    };
    let mut folders = Vec::with_capacity(writable.len());
    for path in writable {
        let real = path
            .canonicalize()
            .map_err(|err| unavailable(format!("cannot resolve `{}`: {err}", path.display())))?;
        let c = CString::new(real.as_os_str().as_bytes())
            .map_err(|_| unavailable(format!("`{}` contains a NUL byte", real.display())))?;
        folders.push(c);
    }
    let user_maps = (!may_mount()).then(|| {
        let uid = rustix::process::geteuid().as_raw();
        let gid = rustix::process::getegid().as_raw();
        let line = |id: u32| CString::new(format!("{id} {id} 1\n")).unwrap_or_default();
        (line(uid), line(gid))
    });
    sys::make_namespaces(&NamespacePlan {
        user_maps,
        writable: folders,
    })
    .map_err(|err| unavailable(err.to_string()))
}

/// Whether this process may make a mount namespace without a user namespace: it holds
/// `CAP_SYS_ADMIN` (bit 21 of the effective set in `/proc/self/status`).
fn may_mount() -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
            u64::from_str_radix(hex.trim(), 16).ok()
        })
        .is_some_and(|effective| effective & (1 << CAP_SYS_ADMIN) != 0)
}
