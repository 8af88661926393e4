//! The Landlock ruleset of one command: which folders it may write, read and run programs
//! from, and the scopes that keep it away from other processes.

use std::fs::OpenOptions;
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::sys::{self, RulesetAttr};

// Filesystem rights, by the ABI that brought them.
const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
const REMOVE_DIR: u64 = 1 << 4;
const REMOVE_FILE: u64 = 1 << 5;
const MAKE_DIR: u64 = 1 << 7;
const MAKE_REG: u64 = 1 << 8;
const MAKE_SOCK: u64 = 1 << 9;
const MAKE_FIFO: u64 = 1 << 10;
const MAKE_SYM: u64 = 1 << 12;
const REFER: u64 = 1 << 13;
const TRUNCATE: u64 = 1 << 14;
const IOCTL_DEV: u64 = 1 << 15;

/// Every filesystem right ABI 6 knows (making character and block devices included, which no
/// rule allows): all handled, so all denied but where a rule allows.
const HANDLED: u64 = (1 << 16) - 1;

/// The rights that make sense on a file (a rule on a file with folder rights is refused).
const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;

/// Read, list and run: system folders and the interpreter's installation.
pub(super) const READ_EXECUTE: u64 = EXECUTE | READ_FILE | READ_DIR;
/// Read and list only: `/proc` (other processes' private entries stay out of reach through
/// the signal and ptrace scoping of the domain).
pub(super) const READ: u64 = READ_FILE | READ_DIR;
/// Everything but making devices: the workspace and the private temporary folder.
pub(super) const READ_WRITE: u64 = EXECUTE
    | WRITE_FILE
    | READ_FILE
    | READ_DIR
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE;
/// A device file read and written as a stream (`/dev/null`).
pub(super) const DEVICE: u64 = READ_FILE | WRITE_FILE | IOCTL_DEV;

/// `LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL`: no connecting to abstract
/// Unix sockets made outside the command, no signals to processes outside it.
const SCOPED: u64 = 0b11;

/// One allowed path and what may be done beneath it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Rule {
    pub(super) path: PathBuf,
    pub(super) access: u64,
}

/// Builds the ruleset for `rules`. A path that does not exist is left out (a host without
/// `/lib64`, say); one that exists but cannot be opened fails the whole ruleset.
pub(super) fn build(rules: &[Rule]) -> std::io::Result<OwnedFd> {
    let ruleset = sys::create_ruleset(&RulesetAttr {
        handled_access_fs: HANDLED,
        handled_access_net: 0,
        scoped: SCOPED,
    })?;
    for rule in rules {
        let Some(parent) = open_path(&rule.path)? else {
            continue;
        };
        let is_dir = std::fs::metadata(&rule.path).is_ok_and(|m| m.is_dir());
        let access = if is_dir {
            rule.access
        } else {
            rule.access & FILE_RIGHTS
        };
        sys::add_path_rule(&ruleset, &parent, access).map_err(|err| {
            std::io::Error::new(
                err.kind(),
                format!("cannot allow `{}`: {err}", rule.path.display()),
            )
        })?;
    }
    Ok(ruleset)
}

/// `path` opened with `O_PATH` (no read permission needed), or `None` when it does not exist.
fn open_path(path: &Path) -> std::io::Result<Option<OwnedFd>> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => Ok(Some(file.into())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(std::io::Error::new(
            err.kind(),
            format!("cannot open `{}` to allow it: {err}", path.display()),
        )),
    }
}
