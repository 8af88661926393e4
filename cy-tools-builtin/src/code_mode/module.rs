//! Where code-mode runs import `cy_sdk` from: one folder per generated module, per host process.
//!
//! The package is `cy_sdk/__init__.py` (the same for every run) and `cy_sdk/tools.py` (generated
//! from a toolset, see [`ToolsModule`](super::ToolsModule)). It is written once per distinct
//! `tools.py` into `<temp>/cy-sdk-<uid>/<pid>/<n>/` (mode `0700`), and every run of a session
//! with that toolset imports it from there: the folder is put on the run's `sys.path` and
//! allowed, read-only, by its isolation. One folder per toolset rather than per run keeps the
//! run's confinement, which is built once per set of allowed folders, reused. Nothing in it is
//! secret: the channel is the descriptor each run inherits. A process's folders are removed by
//! the next process to make its own once it is gone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use cy_tools::{ServiceError, ServiceErrorKind};

use super::CY_SDK_PY;

/// Folders written by this process, by the `tools.py` they hold.
static FOLDERS: LazyLock<Mutex<HashMap<Arc<str>, PathBuf>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The folder holding the `cy_sdk` package with `tools` as its `tools.py`, written on first use.
///
/// # Errors
/// The host's temporary folder cannot be written.
pub(crate) fn folder(tools: &Arc<str>) -> Result<PathBuf, ServiceError> {
    let mut folders = FOLDERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(dir) = folders.get(tools) {
        return Ok(dir.clone());
    }
    let dir = write(tools, folders.len())
        .map_err(|why| ServiceError::new(ServiceErrorKind::Unavailable, why))?;
    folders.insert(Arc::clone(tools), dir.clone());
    Ok(dir)
}

fn write(tools: &str, n: usize) -> Result<PathBuf, String> {
    let base = std::env::temp_dir().join(format!("cy-sdk-{}", rustix::process::geteuid().as_raw()));
    let mine = base.join(std::process::id().to_string());
    let failed = |what: &str, path: &Path, err: std::io::Error| {
        format!(
            "could not {what} `{}` for code mode's `cy_sdk` module: {err}; check that the host's temporary folder is writable",
            path.display()
        )
    };
    std::fs::create_dir_all(&base).map_err(|err| failed("create", &base, err))?;
    if n == 0 {
        sweep(&base);
    }
    let dir = mine.join(n.to_string());
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
