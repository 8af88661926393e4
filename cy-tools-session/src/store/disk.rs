//! Why a write to the session store failed, in words a person can act on: a full disk and a
//! read-only one are named as such, with the fix, whichever way SQLite reports them.

use std::path::Path;

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// The error for `what` (`recording a call`, ...) failing on the store at `path`.
pub(super) fn store_error(path: &Path, what: &str, err: rusqlite::Error) -> ServiceError {
    let shown = path.display();
    // A failed write is rolled back whole, and each write is its own transaction, so what the
    // store held before is still there: said, because it is the first thing a person asks.
    let (kind, message) = match disk_trouble(path, &err) {
        Some(DiskTrouble::Full) => (
            ServiceErrorKind::Unavailable,
            format!(
                "the session store `{shown}` is full: its disk has no space left, so {what} failed ({err}); nothing stored before is lost. Free space on that disk, or move the store to a larger one, then retry"
            ),
        ),
        Some(DiskTrouble::ReadOnlyFs) => (
            ServiceErrorKind::Unavailable,
            format!(
                "the session store `{shown}` is read-only: its file system is mounted read-only, so {what} failed ({err}); nothing stored before is lost. Remount it read-write, or move the store to a writable folder, then retry"
            ),
        ),
        Some(DiskTrouble::ReadOnlyFile) => (
            ServiceErrorKind::PermissionDenied,
            format!(
                "the session store `{shown}` is read-only for this process, so {what} failed ({err}); nothing stored before is lost. Make the file, its `-wal` and `-shm` files and its folder writable by this process, then reopen the store"
            ),
        ),
        None => (
            ServiceErrorKind::Other,
            format!("the session store `{shown}` failed while {what}: {err}"),
        ),
    };
    ServiceError::new(kind, message).with_source(err)
}

/// Why a store's write failed, when the disk under it is the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DiskTrouble {
    /// No space left on the disk.
    Full,
    /// The file system is mounted read-only.
    ReadOnlyFs,
    /// The file system is writable, but the database was opened read-only (its file or folder
    /// is not writable by this process).
    ReadOnlyFile,
}

/// Tells a full or read-only disk from other failures. SQLite says `database or disk is
/// full` and `attempt to write a readonly database` itself, but a read-only file system or a
/// full one can also surface as a bare I/O error or "unable to open database file", so the
/// file system holding the store is asked as well.
pub(super) fn disk_trouble(path: &Path, err: &rusqlite::Error) -> Option<DiskTrouble> {
    use rusqlite::ErrorCode;
    let code = err.sqlite_error_code()?;
    if !matches!(
        code,
        ErrorCode::DiskFull
            | ErrorCode::ReadOnly
            | ErrorCode::SystemIoFailure
            | ErrorCode::CannotOpen
    ) {
        return None;
    }
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let fs = rustix::fs::statvfs(folder).ok();
    let read_only_fs = fs
        .as_ref()
        .is_some_and(|fs| fs.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY));
    let no_space = fs.as_ref().is_some_and(|fs| fs.f_bavail == 0);
    match code {
        _ if read_only_fs => Some(DiskTrouble::ReadOnlyFs),
        ErrorCode::DiskFull => Some(DiskTrouble::Full),
        ErrorCode::ReadOnly => Some(DiskTrouble::ReadOnlyFile),
        _ if no_space => Some(DiskTrouble::Full),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error as SQLite reports it: its code and its own message.
    fn failure(code: std::ffi::c_int) -> rusqlite::Error {
        let message = rusqlite::ffi::code_to_str(code).to_string();
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(message))
    }

    #[test]
    fn a_full_or_read_only_store_says_so_and_what_to_do() {
        // A writable folder with space: only SQLite's own word can say full or read-only.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let shown = path.display();
        let full = store_error(
            &path,
            "recording a call",
            failure(rusqlite::ffi::SQLITE_FULL),
        );
        assert_eq!(full.kind(), ServiceErrorKind::Unavailable);
        assert_eq!(
            full.to_string(),
            format!(
                "the session store `{shown}` is full: its disk has no space left, so recording a call failed (database or disk is full); nothing stored before is lost. Free space on that disk, or move the store to a larger one, then retry"
            )
        );
        let read_only = store_error(
            &path,
            "recording a call",
            failure(rusqlite::ffi::SQLITE_READONLY),
        );
        assert_eq!(read_only.kind(), ServiceErrorKind::PermissionDenied);
        assert_eq!(
            read_only.to_string(),
            format!(
                "the session store `{shown}` is read-only for this process, so recording a call failed (attempt to write a readonly database); nothing stored before is lost. Make the file, its `-wal` and `-shm` files and its folder writable by this process, then reopen the store"
            )
        );
        // An I/O error on a disk that is neither full nor read-only is not blamed on either.
        let io = store_error(
            &path,
            "recording a call",
            failure(rusqlite::ffi::SQLITE_IOERR),
        );
        assert_eq!(io.kind(), ServiceErrorKind::Other);
        assert_eq!(
            io.to_string(),
            format!("the session store `{shown}` failed while recording a call: disk I/O error")
        );
        let busy = store_error(
            &path,
            "storing a session spec",
            failure(rusqlite::ffi::SQLITE_BUSY),
        );
        assert_eq!(busy.kind(), ServiceErrorKind::Other);
        // A relative path is checked against the current folder.
        assert_eq!(
            disk_trouble(Path::new("s.db"), &failure(rusqlite::ffi::SQLITE_FULL)),
            Some(DiskTrouble::Full)
        );
        // The full and read-only file systems themselves: `tests/faults_store.rs`.
    }
}
