//! File operations beneath a view's directory handle. Blocking: callers run them on the
//! blocking pool.

use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, Metadata, OpenOptions};
use cy_tools::services::{DirEntryInfo, EntryKind, ServiceError, ServiceErrorKind};

use crate::confine::{io_error, relative};
use crate::regular::open_regular;

/// Largest file `read` returns whole; bigger ones are read in ranges.
pub(crate) const MAX_WHOLE_READ: u64 = 64 * 1024 * 1024;

pub(crate) fn read(dir: &Dir, path: &str) -> Result<Vec<u8>, ServiceError> {
    let rel = relative(path)?;
    let (mut file, meta) = open_regular(dir, &rel, path)?;
    check_whole(path, meta.len())?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|err| io_error(path, &err))?;
    Ok(bytes)
}

/// Refuses a whole read of a file of `len` bytes over [`MAX_WHOLE_READ`].
fn check_whole(path: &str, len: u64) -> Result<(), ServiceError> {
    if len > MAX_WHOLE_READ {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!(
                "`{path}` is {len} bytes, more than the {MAX_WHOLE_READ} bytes read at once; read it in parts"
            ),
        ));
    }
    Ok(())
}

/// The first `max_len` bytes of a whole read, and the file's size: a remote sandbox's whole
/// read in chunks, refused as [`read`] refuses.
pub(crate) fn read_head(
    dir: &Dir,
    path: &str,
    max_len: usize,
) -> Result<(Vec<u8>, u64), ServiceError> {
    let rel = relative(path)?;
    let (file, meta) = open_regular(dir, &rel, path)?;
    check_whole(path, meta.len())?;
    Ok((
        read_at_most(&file, path, 0, meta.len(), max_len)?,
        meta.len(),
    ))
}

pub(crate) fn read_range(
    dir: &Dir,
    path: &str,
    offset: u64,
    max_len: usize,
) -> Result<Vec<u8>, ServiceError> {
    let rel = relative(path)?;
    let (file, meta) = open_regular(dir, &rel, path)?;
    read_at_most(&file, path, offset, meta.len(), max_len)
}

fn read_at_most(
    file: &std::fs::File,
    path: &str,
    offset: u64,
    len: u64,
    max_len: usize,
) -> Result<Vec<u8>, ServiceError> {
    let available = len.saturating_sub(offset);
    let want = usize::try_from(available)
        .unwrap_or(usize::MAX)
        .min(max_len);
    let mut buf = vec![0; want];
    let mut filled = 0;
    while filled < want {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(io_error(path, &err)),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

/// Writes through a temporary file in the same folder and renames it into place, so readers
/// see the old or the new contents. `durable` also syncs the data to disk before the rename,
/// so a crash leaves the old or the new file, never an empty one.
pub(crate) fn write_atomic(
    dir: &Dir,
    path: &str,
    contents: &[u8],
    durable: bool,
) -> Result<(), ServiceError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (rel, parent, name) = target(dir, path)?;
    let temp = parent.join(format!(
        ".{}.cy-tmp-{}-{}",
        name,
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = dir.open_with(&temp, OpenOptions::new().write(true).create_new(true))?;
        file.write_all(contents)?;
        if durable {
            file.sync_all()?;
        }
        dir.rename(&temp, dir, &rel)
    })();
    if let Err(err) = result {
        let _ = dir.remove_file(&temp);
        return Err(io_error(path, &err));
    }
    Ok(())
}

/// Where a write of `path` lands: the file (a symlink's target), its parent folder (made if
/// missing) and its name; refused when it is the workspace itself or a folder.
fn target(dir: &Dir, path: &str) -> Result<(PathBuf, PathBuf, String), ServiceError> {
    let mut rel = relative(path)?;
    // Writing to a symlink writes to what it points to, as an editor would; one that leads
    // out of the view is refused (cap-std's canonicalize stays beneath the directory).
    if dir
        .symlink_metadata(&rel)
        .is_ok_and(|meta| meta.file_type().is_symlink())
    {
        rel = dir.canonicalize(&rel).map_err(|err| io_error(path, &err))?;
    }
    let Some(name) = rel.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("`{path}` names the workspace itself; give a file name"),
        ));
    };
    let parent = rel.parent().unwrap_or(Path::new(""));
    let parent = if parent.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        parent.to_path_buf()
    };
    dir.create_dir_all(&parent)
        .map_err(|err| io_error(path, &err))?;
    if let Ok(meta) = dir.symlink_metadata(&rel)
        && meta.is_dir()
    {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("`{path}` is a folder; write to a file path inside it"),
        ));
    }
    Ok((rel, parent, name))
}

/// Writes `data` at `offset` of the staging file `staging` (in the view's root), which must
/// already hold `offset` bytes: the parts of a large remote write, in order.
pub(crate) fn append_staged(
    dir: &Dir,
    staging: &str,
    offset: u64,
    data: &[u8],
) -> Result<(), ServiceError> {
    // Only the first part makes the file: a late part of a write abandoned meanwhile must
    // not bring its staging file back.
    let file = dir
        .open_with(staging, OpenOptions::new().write(true).create(offset == 0))
        .map_err(|err| io_error(staging, &err))?
        .into_std();
    let len = file
        .metadata()
        .map_err(|err| io_error(staging, &err))?
        .len();
    if offset != len {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!(
                "upload part at byte {offset} does not follow the {len} bytes already staged; send the parts in order, from byte 0"
            ),
        ));
    }
    file.write_all_at(data, offset)
        .map_err(|err| io_error(staging, &err))
}

/// Renames the staging file into place as `path`, as [`write_atomic`] would write it.
pub(crate) fn commit_staged(
    dir: &Dir,
    staging: &str,
    path: &str,
    durable: bool,
) -> Result<(), ServiceError> {
    let file = dir.open(staging).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::NotFound,
            format!("nothing is staged for this write ({err}); send its parts again"),
        )
    })?;
    if durable {
        file.sync_all().map_err(|err| io_error(path, &err))?;
    }
    let (rel, _, _) = target(dir, path)?;
    dir.rename(staging, dir, &rel)
        .map_err(|err| io_error(path, &err))
}

pub(crate) fn kind_of(meta: &Metadata) -> EntryKind {
    let ft = meta.file_type();
    if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Dir
    } else if ft.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

/// Removes a file, or a symlink itself (cap-std never follows the final component here).
pub(crate) fn remove(dir: &Dir, path: &str) -> Result<(), ServiceError> {
    let rel = relative(path)?;
    dir.remove_file(&rel).map_err(|err| io_error(path, &err))
}

pub(crate) fn stat(dir: &Dir, path: &str) -> Result<DirEntryInfo, ServiceError> {
    let rel = relative(path)?;
    let meta = dir
        .symlink_metadata(&rel)
        .map_err(|err| io_error(path, &err))?;
    let kind = kind_of(&meta);
    Ok(DirEntryInfo {
        path: path.to_string(),
        kind,
        size: if kind == EntryKind::File {
            meta.len()
        } else {
            0
        },
    })
}

pub(crate) fn list_dir(dir: &Dir, path: &str) -> Result<Vec<DirEntryInfo>, ServiceError> {
    let rel = relative(path)?;
    let sub = if rel == Path::new(".") {
        dir.try_clone()
    } else {
        dir.open_dir(&rel)
    }
    .map_err(|err| io_error(path, &err))?;
    let mut entries = Vec::new();
    for entry in sub.entries().map_err(|err| io_error(path, &err))? {
        let entry = entry.map_err(|err| io_error(path, &err))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let meta = sub
            .symlink_metadata(entry.file_name())
            .map_err(|err| io_error(&name, &err))?;
        let kind = kind_of(&meta);
        entries.push(DirEntryInfo {
            path: name,
            kind,
            size: if kind == EntryKind::File {
                meta.len()
            } else {
                0
            },
        });
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}
