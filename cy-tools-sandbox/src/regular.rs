//! Opening a workspace file to read it: regular files only, and never blocking on what the
//! path names.
//!
//! A FIFO, a socket or a device can sit in a workspace like any file. Opening a FIFO for
//! reading waits for a writer, possibly forever, and reading a device such as `/dev/zero` never
//! ends. So files are opened with `O_NONBLOCK` (which makes that open return at once and has
//! no effect on reading regular files) and the type is checked on the opened handle with
//! `fstat`: a check made by path before the open could be raced by swapping the file.

use std::io;
use std::path::Path;

use cap_std::fs::{
    Dir, File, FileType, FileTypeExt as _, Metadata, OpenOptions, OpenOptionsExt as _,
};
use cy_tools::services::{ServiceError, ServiceErrorKind};

use crate::confine::{io_error, shown};

/// Opens `rel` beneath `dir` for reading without blocking, whatever it names.
///
/// # Errors
/// The open fails (missing, outside the view, permission).
pub(crate) fn open_nonblocking(dir: &Dir, rel: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    // The flag stays on the handle; for a regular file it changes nothing.
    options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    dir.open_with(rel, &options)
}

/// Opens the regular file `rel` (shown to the model as `path`) for reading, with its metadata
/// as the open handle reports it.
///
/// # Errors
/// The open fails, or it names a folder or a special file: each with a message that says what
/// the path is and what to do.
pub(crate) fn open_regular(
    dir: &Dir,
    rel: &Path,
    path: &str,
) -> Result<(std::fs::File, Metadata), ServiceError> {
    // A socket cannot be opened at all (`ENXIO`), nor can a device without a driver: such a
    // failure is worded by what the path is.
    let file = open_nonblocking(dir, rel)
        .map_err(|err| special_at(dir, rel, path).unwrap_or_else(|| io_error(path, &err)))?;
    let meta = file.metadata().map_err(|err| io_error(path, &err))?;
    if meta.is_dir() {
        return Err(io_error(
            path,
            &io::Error::from(io::ErrorKind::IsADirectory),
        ));
    }
    if let Some(what) = special_kind(&meta.file_type()) {
        return Err(special_file(path, what));
    }
    Ok((file.into_std(), meta))
}

/// What a file that is neither a regular file, a folder nor a symlink is, in words; `None` for
/// those three.
fn special_kind(kind: &FileType) -> Option<&'static str> {
    if kind.is_file() || kind.is_dir() || kind.is_symlink() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if kind.is_socket() {
        Some("a Unix socket")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else {
        Some("a special file")
    }
}

/// The refusal of a special file named `path`.
fn special_file(path: &str, what: &str) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::InvalidInput,
        format!(
            "`{}` is {what}, not a regular file; the file tools read regular files only, so give the path of one",
            shown(path)
        ),
    )
}

/// The refusal of `rel` if it is a special file; `None` otherwise, so the caller keeps its own
/// message. It only words an error: the type comes from a `stat`, which never blocks, and
/// nothing is opened or read on its answer.
pub(crate) fn special_at(dir: &Dir, rel: &Path, path: &str) -> Option<ServiceError> {
    let meta = dir.metadata(rel).ok()?;
    special_kind(&meta.file_type()).map(|what| special_file(path, what))
}
