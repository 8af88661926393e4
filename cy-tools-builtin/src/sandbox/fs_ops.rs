//! File operations beneath a view's directory handle. Blocking: callers run them on the
//! blocking pool.

use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, Metadata, OpenOptions};
use cy_tools::{DirEntryInfo, EntryKind, ServiceError, ServiceErrorKind};

use super::confine::{io_error, relative};
use super::regular::open_regular;

/// Largest file `read` returns whole; bigger ones are read in ranges.
pub(crate) const MAX_WHOLE_READ: u64 = 64 * 1024 * 1024;

pub(crate) fn read(dir: &Dir, path: &str) -> Result<Vec<u8>, ServiceError> {
    let rel = relative(path)?;
    let (mut file, meta) = open_regular(dir, &rel, path)?;
    if meta.len() > MAX_WHOLE_READ {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!(
                "`{path}` is {} bytes, more than the {MAX_WHOLE_READ} bytes read at once; read it in parts",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|err| io_error(path, &err))?;
    Ok(bytes)
}

pub(crate) fn read_range(
    dir: &Dir,
    path: &str,
    offset: u64,
    max_len: usize,
) -> Result<Vec<u8>, ServiceError> {
    let rel = relative(path)?;
    let (file, meta) = open_regular(dir, &rel, path)?;
    let available = meta.len().saturating_sub(offset);
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
    let mut rel = relative(path)?;
    // Writing to a symlink writes to what it points to, as an editor would; one that leads
    // out of the view is refused (cap-std's canonicalize stays beneath the directory).
    if dir
        .symlink_metadata(&rel)
        .is_ok_and(|meta| meta.file_type().is_symlink())
    {
        rel = dir.canonicalize(&rel).map_err(|err| io_error(path, &err))?;
    }
    let Some(name) = rel.file_name() else {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("`{path}` names the workspace itself; give a file name"),
        ));
    };
    let parent = rel.parent().unwrap_or(Path::new(""));
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    dir.create_dir_all(parent)
        .map_err(|err| io_error(path, &err))?;
    if let Ok(meta) = dir.symlink_metadata(&rel)
        && meta.is_dir()
    {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("`{path}` is a folder; write to a file path inside it"),
        ));
    }
    let temp = parent.join(format!(
        ".{}.cy-tmp-{}-{}",
        name.to_string_lossy(),
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
