//! Turning a path a model sent into one that cap-std resolves beneath the view's root.
//!
//! Public so that every sandbox refuses a path alike, in the same words: the remote sandbox
//! (`cy-tools-remote`) checks a path with [`relative`] before sending it.
//!
//! cap-std does the real confinement (on Linux with `openat2(RESOLVE_BENEATH)`, so a symlink
//! swapped in between a check and a use cannot lead out). This module refuses what is malformed
//! before it gets there and words the refusals for the model.

use std::io;
use std::path::{Component, Path, PathBuf};

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// Longest path accepted, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_LEN: usize = 4096;

/// The convention models are told: the workspace is mounted at `/workspace`.
pub const WORKSPACE_PREFIX: &str = "/workspace";

/// A checked path relative to the view's root; `.` for the root itself.
///
/// ```
/// use cy_tools_sandbox::confine::relative;
///
/// assert_eq!(relative("/workspace/a/../b.txt").unwrap(), std::path::Path::new("b.txt"));
/// assert!(relative("../etc/passwd").unwrap_err().to_string().contains("outside the workspace"));
/// ```
///
/// # Errors
/// [`InvalidInput`](ServiceErrorKind::InvalidInput) naming what is wrong with the path: a NUL
/// byte, too long, a name too long, or outside the workspace.
pub fn relative(path: &str) -> Result<PathBuf, ServiceError> {
    if path.contains('\0') {
        return Err(invalid(path, "it contains a NUL byte; remove it"));
    }
    if path.len() > MAX_PATH_LEN {
        return Err(invalid(
            path,
            &format!(
                "it is {} bytes long and the limit is {MAX_PATH_LEN}; use a shorter path",
                path.len()
            ),
        ));
    }
    let trimmed = if path == WORKSPACE_PREFIX {
        ""
    } else if let Some(rest) = path.strip_prefix("/workspace/") {
        rest
    } else if path.starts_with('/') {
        return Err(outside(path));
    } else {
        path
    };
    let mut clean = PathBuf::new();
    for component in Path::new(trimmed).components() {
        match component {
            Component::Normal(part) => {
                if part.len() > 255 {
                    return Err(invalid(
                        path,
                        "one of its names is longer than 255 bytes; use shorter names",
                    ));
                }
                clean.push(part);
            }
            Component::CurDir => {}
            // `..` that stays inside is fine; one that climbs out is refused here with a clear
            // message rather than by cap-std with a generic one.
            Component::ParentDir => {
                if !clean.pop() {
                    return Err(outside(path));
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside(path)),
        }
    }
    if clean.as_os_str().is_empty() {
        clean.push(".");
    }
    Ok(clean)
}

pub(crate) fn outside(path: &str) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::OutsideSandbox,
        format!(
            "path `{}` is outside the workspace; use a path relative to the workspace root (or under `/workspace/`)",
            shown(path)
        ),
    )
}

fn invalid(path: &str, why: &str) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::InvalidInput,
        format!("invalid path `{}`: {why}", shown(path)),
    )
}

/// The path as it can be shown in a message: NULs made visible, very long ones cut.
pub(crate) fn shown(path: &str) -> String {
    let visible = path.replace('\0', "\\0");
    if visible.chars().count() > 120 {
        let head: String = visible.chars().take(100).collect();
        format!("{head}…")
    } else {
        visible
    }
}

/// The host folder a command starts in: `host` (the view's root), or `cwd` inside it, which
/// must be an existing folder reached through `dir` without leaving the view.
pub(crate) fn command_dir(
    dir: &cap_std::fs::Dir,
    host: &Path,
    cwd: Option<&str>,
) -> Result<PathBuf, ServiceError> {
    let Some(cwd) = cwd else {
        return Ok(host.to_path_buf());
    };
    let rel = relative(cwd)?;
    let meta = dir.metadata(&rel).map_err(|err| io_error(cwd, &err))?;
    if !meta.is_dir() {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("working directory `{}` is not a folder", shown(cwd)),
        ));
    }
    Ok(host.join(rel))
}

/// Maps an I/O error on `path` to a message the model can act on.
pub(crate) fn io_error(path: &str, err: &io::Error) -> ServiceError {
    described(path, err).with_source(copy(err))
}

/// An operating-system error the same as `err` (its code, else its kind and text): `io::Error`
/// cannot be cloned, and the callers hold theirs by reference.
pub(crate) fn copy(err: &io::Error) -> io::Error {
    match err.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(err.kind(), err.to_string()),
    }
}

fn described(path: &str, err: &io::Error) -> ServiceError {
    let text = err.to_string();
    // cap-std reports a resolution that would leave the root (through `..` or a symlink) so.
    if text.contains("outside of the filesystem") || err.raw_os_error() == Some(18) {
        return outside(path);
    }
    let path = shown(path);
    match err.kind() {
        io::ErrorKind::NotFound => ServiceError::new(
            ServiceErrorKind::NotFound,
            format!(
                "no file or folder `{path}` in the workspace; list the folder to see what is there"
            ),
        ),
        io::ErrorKind::PermissionDenied => ServiceError::new(
            ServiceErrorKind::PermissionDenied,
            format!("permission denied for `{path}`"),
        ),
        io::ErrorKind::NotADirectory => ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("`{path}` is not a folder (or goes through a file); use read_file for a file"),
        ),
        io::ErrorKind::IsADirectory => ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("`{path}` is a folder, not a file; list it instead"),
        ),
        _ if err.raw_os_error() == Some(40) => ServiceError::new(
            // ELOOP: a symlink where none may be followed, or a loop.
            ServiceErrorKind::OutsideSandbox,
            format!(
                "`{path}` is a symbolic link that cannot be followed here; use the path it points to if that is inside the workspace"
            ),
        ),
        _ => ServiceError::new(
            ServiceErrorKind::Other,
            format!("could not access `{path}`: {text}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_cleaned() {
        assert_eq!(relative("a/./b/../c").unwrap(), PathBuf::from("a/c"));
        assert_eq!(relative("").unwrap(), PathBuf::from("."));
        assert_eq!(relative("/workspace").unwrap(), PathBuf::from("."));
        assert_eq!(relative("/workspace/x/y").unwrap(), PathBuf::from("x/y"));
    }

    #[test]
    fn escapes_are_refused_with_the_rule() {
        for path in [
            "..",
            "a/../../b",
            "/etc/passwd",
            "/workspacex/a",
            "/workspace/../etc",
        ] {
            let err = relative(path).unwrap_err();
            assert_eq!(err.kind(), ServiceErrorKind::OutsideSandbox, "{path}");
            assert!(
                err.to_string().contains("is outside the workspace"),
                "{err}"
            );
        }
        let err = relative("a\0b").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid path `a\\0b`: it contains a NUL byte; remove it"
        );
        let err = relative(&"a/".repeat(3000)).unwrap_err();
        assert!(err.to_string().contains("the limit is 4096"), "{err}");
    }
}
