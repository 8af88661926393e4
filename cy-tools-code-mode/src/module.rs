//! Where code-mode runs import `cy_sdk` from: one folder per generated module, in one private
//! folder per host process.
//!
//! The package is `cy_sdk/__init__.py` (the same for every run) and `cy_sdk/tools.py` (generated
//! from a toolset, see [`ToolsModule`](super::ToolsModule)). It is written once per distinct
//! `tools.py` into `<n>/` of the process's folder, and every run of a session with that toolset
//! imports it from there: the folder is put on the run's `sys.path` and allowed, read-only, by
//! its isolation. One folder per toolset rather than per run keeps the run's confinement, which
//! is built once per set of allowed folders, reused. Nothing in it is secret: the channel is
//! the descriptor each run inherits.
//!
//! The process's folder is `<temp>/cy-sdk-<uid>-<random>`, made with mode `0700` (a name
//! already taken, by whoever, is never reused: another is drawn), then opened, and its owner and
//! mode checked on the open handle. From then on it is only ever reached through a descriptor:
//! the host writes and the run reads `/proc/self/fd/<n>/…`, a descriptor the host holds and the
//! run inherits at the same number (announced in [`DIR_FD_VAR`]). Another local user who
//! renames, replaces or links anything under the temporary folder changes nothing the host or
//! a run reads. The handle also holds a lock on the folder, which the next host to start takes
//! from a folder whose host is gone (whatever its pid namespace), and removes the folder.

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use cy_tools::services::{PassedFd, ServiceError, ServiceErrorKind};
use rustix::fs::{FlockOperation, Mode, OFlags};

use super::CY_SDK_PY;

/// The variable a run finds the package folder's descriptor number in.
pub(crate) const DIR_FD_VAR: &str = "CY_SDK_DIR_FD";

/// The folders written by this process, by the `tools.py` they hold, in the process's private
/// folder (made on first use).
static FOLDERS: LazyLock<Mutex<Folders>> = LazyLock::new(|| Mutex::new(Folders::default()));

#[derive(Default)]
struct Folders {
    base: Option<Private>,
    by_tools: HashMap<Arc<str>, PathBuf>,
}

/// This process's private folder.
struct Private {
    /// Open for reading, locked: kept by the host alone (close-on-exec, never passed).
    _locked: OwnedFd,
    /// An `O_PATH` handle on the same folder, which runs inherit.
    passed: Arc<OwnedFd>,
}

impl Private {
    /// The path through the passed handle, the same in the host and in a run.
    fn path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.passed.as_raw_fd()))
    }
}

/// The folder holding the `cy_sdk` package with `tools` as its `tools.py`, written on first use:
/// a path through this process's descriptor (see [`passed`]).
///
/// # Errors
/// The host's temporary folder cannot be written.
pub(crate) fn folder(tools: &Arc<str>) -> Result<PathBuf, ServiceError> {
    let mut folders = FOLDERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(dir) = folders.by_tools.get(tools) {
        return Ok(dir.clone());
    }
    let unavailable = |why| ServiceError::new(ServiceErrorKind::Unavailable, why);
    if folders.base.is_none() {
        folders.base = Some(private(&std::env::temp_dir()).map_err(unavailable)?);
    }
    let base = folders.base.as_ref().map(Private::path).unwrap_or_default();
    let dir = write(&base, tools, folders.by_tools.len()).map_err(unavailable)?;
    folders.by_tools.insert(Arc::clone(tools), dir.clone());
    Ok(dir)
}

/// The descriptor a run needs to reach the folders [`folder`] gives, once one was made.
pub(crate) fn passed() -> Option<PassedFd> {
    let folders = FOLDERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let base = folders.base.as_ref()?;
    Some(PassedFd::new(Arc::clone(&base.passed), DIR_FD_VAR))
}

fn failed(what: &str, path: &Path, err: impl std::fmt::Display) -> String {
    format!(
        "could not {what} `{}` for code mode's `cy_sdk` module: {err}; check that the host's temporary folder is writable",
        path.display()
    )
}

/// Makes, opens and checks this process's folder in `temp`, after removing those of hosts
/// that are gone.
fn private(temp: &Path) -> Result<Private, String> {
    let uid = rustix::process::geteuid();
    let prefix = format!("cy-sdk-{}-", uid.as_raw());
    sweep(temp, &prefix);
    let mut builder = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    // A few draws: a name someone else made first is simply not ours.
    let mut last = None;
    for _ in 0..8 {
        let name = format!(
            "{prefix}{}",
            cy_tools::services::random_hex(16).map_err(|e| e.to_string())?
        );
        let path = temp.join(name);
        match builder.create(&path) {
            Ok(()) => return open_checked(&path, uid),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => last = Some(err),
            Err(err) => return Err(failed("create", &path, err)),
        }
    }
    Err(failed(
        "create a folder of a new name in",
        temp,
        last.map_or_else(String::new, |e| e.to_string()),
    ))
}

/// Opens the folder just made at `path` (never following a link), and checks on the handle
/// that it is a folder of `uid` with mode `0700`: what the path named may have been swapped
/// between the making and the opening, the handle cannot be.
fn open_checked(path: &Path, uid: rustix::process::Uid) -> Result<Private, String> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let locked =
        rustix::fs::open(path, flags, Mode::empty()).map_err(|err| failed("open", path, err))?;
    let stat = rustix::fs::fstat(&locked).map_err(|err| failed("check", path, err))?;
    let mode = stat.st_mode & 0o7777;
    if stat.st_uid != uid.as_raw() || mode != 0o700 {
        return Err(failed(
            "use",
            path,
            format!(
                "it belongs to user {} with mode {mode:o}, not to this host's user {} with mode 700; another user may have made it",
                stat.st_uid,
                uid.as_raw()
            ),
        ));
    }
    rustix::fs::flock(&locked, FlockOperation::NonBlockingLockExclusive)
        .map_err(|err| failed("lock", path, err))?;
    let passed = rustix::fs::openat(
        locked.as_fd(),
        ".",
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|err| failed("open", path, err))?;
    Ok(Private {
        _locked: locked,
        passed: Arc::new(passed),
    })
}

fn write(base: &Path, tools: &str, n: usize) -> Result<PathBuf, String> {
    let dir = base.join(n.to_string());
    let package = dir.join("cy_sdk");
    let mut builder = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .recursive(true)
        .create(&package)
        .map_err(|err| failed("create", &package, err))?;
    for (name, text) in [("__init__.py", CY_SDK_PY), ("tools.py", tools)] {
        let file = package.join(name);
        std::fs::write(&file, text).map_err(|err| failed("write", &file, err))?;
    }
    Ok(dir)
}

/// Removes this user's folders (named `prefix…`) whose host is gone: their lock is free. A
/// folder another user made under that name, or a link, is left alone.
fn sweep(temp: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    let uid = rustix::process::geteuid().as_raw();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let path = entry.path();
        let Ok(dir) = rustix::fs::open(&path, flags, Mode::empty()) else {
            continue;
        };
        let ours = rustix::fs::fstat(&dir).is_ok_and(|s| s.st_uid == uid);
        if ours && rustix::fs::flock(&dir, FlockOperation::NonBlockingLockExclusive).is_ok() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_private_reached_through_its_handle_and_swept_once_free() {
        let temp = tempfile::tempdir().unwrap();
        let first = private(temp.path()).unwrap();
        let path = first.path();
        std::fs::create_dir(path.join("probe")).unwrap();
        let made: Vec<_> = std::fs::read_dir(temp.path()).unwrap().flatten().collect();
        assert_eq!(made.len(), 1);
        let name = made[0].file_name().to_string_lossy().into_owned();
        let prefix = format!("cy-sdk-{}-", rustix::process::geteuid().as_raw());
        assert!(
            name.starts_with(&prefix) && name.len() == prefix.len() + 32,
            "{name}"
        );
        let meta = std::fs::symlink_metadata(made[0].path()).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777,
            0o700
        );
        assert!(made[0].path().join("probe").is_dir());
        // Renamed away by someone: the handle still reaches the folder, the path does not.
        let moved = temp.path().join("moved");
        std::fs::rename(made[0].path(), &moved).unwrap();
        std::fs::create_dir(made[0].path()).unwrap();
        assert!(path.join("probe").is_dir());
        std::fs::remove_dir(made[0].path()).unwrap();
        std::fs::rename(&moved, made[0].path()).unwrap();
        // Held: a second host leaves it; let go: the next one removes it.
        let second = private(temp.path()).unwrap();
        assert!(made[0].path().exists());
        drop(first);
        let _third = private(temp.path()).unwrap();
        assert!(!made[0].path().exists());
        drop(second);
    }

    #[test]
    fn a_folder_not_made_by_this_user_with_mode_700_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        let open = temp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let err = open_checked(&open, rustix::process::geteuid())
            .err()
            .unwrap();
        assert!(
            err.contains("with mode 755, not to this host's user"),
            "{err}"
        );
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&open, &link).unwrap();
        let err = open_checked(&link, rustix::process::geteuid())
            .err()
            .unwrap();
        assert!(err.starts_with("could not open"), "{err}");
    }
}
