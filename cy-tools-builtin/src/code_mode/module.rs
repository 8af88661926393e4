//! Where code-mode runs import `cy_sdk` from: one folder per host process.
//!
//! The module is the same for every run, so it is written once, into
//! `<temp>/cy-sdk-<uid>/<pid>/`, and every run reads it from there (it is on their `PYTHONPATH`
//! and allowed, read-only, by their isolation). Nothing in it is secret: the channel is the
//! descriptor each run inherits. A folder left by a process that is gone is removed by the next
//! process to make its own.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cy_tools::{ServiceError, ServiceErrorKind};

use super::CY_SDK_PY;

/// This process's module folder, made on first use.
///
/// # Errors
/// The host's temporary folder cannot be written.
pub(crate) fn folder() -> Result<&'static Path, ServiceError> {
    static FOLDER: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOLDER
        .get_or_init(make)
        .as_deref()
        .map_err(|why| ServiceError::new(ServiceErrorKind::Unavailable, why.clone()))
}

fn make() -> Result<PathBuf, String> {
    let base = std::env::temp_dir().join(format!("cy-sdk-{}", rustix::process::geteuid().as_raw()));
    let mine = base.join(std::process::id().to_string());
    let failed = |what: &str, path: &Path, err: std::io::Error| {
        format!(
            "could not {what} `{}` for code mode's `cy_sdk` module: {err}; check that the host's temporary folder is writable",
            path.display()
        )
    };
    std::fs::create_dir_all(&base).map_err(|err| failed("create", &base, err))?;
    sweep(&base);
    std::fs::create_dir_all(&mine).map_err(|err| failed("create", &mine, err))?;
    let file = mine.join("cy_sdk.py");
    std::fs::write(&file, CY_SDK_PY).map_err(|err| failed("write", &file, err))?;
    Ok(mine)
}

/// Removes the folders of processes that are gone.
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let gone = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
            .is_some_and(|pid| {
                pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
            });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
