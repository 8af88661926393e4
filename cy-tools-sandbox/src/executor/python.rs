//! `PythonRunner`: what `{python}` in a run command stands for.
//!
//! The design runs code with `uv`: it reads a script's inline metadata (PEP 723), so code can
//! name the packages it needs in a comment block, and it runs them in a cached environment of
//! their own, never in the host's Python. `uv run --script {file}` is the form that reads that
//! metadata (`uv run python {file}` does not). Where `uv` is not on the commands' `PATH`, code
//! runs with `python3`, and the host's log says so once.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};

use crate::ExecLimits;
use crate::Isolation;

/// The placeholder of a run command that stands for the Python runner.
pub const PYTHON: &str = "{python}";

/// How `{python}` in a run command runs a script.
///
/// ```
/// use cy_tools_sandbox::executor::PythonRunner;
///
/// let offline = PythonRunner::Uv { network: false };
/// assert_eq!(
///     offline.command(),
///     "uv run --quiet --no-project --no-python-downloads --offline --script"
/// );
/// assert_eq!(
///     PythonRunner::Uv { network: true }.command(),
///     "uv run --quiet --no-project --no-python-downloads --system-certs --script"
/// );
/// assert_eq!(PythonRunner::Python3.command(), "python3");
/// // A `PATH` without `uv` falls back to `python3`.
/// assert_eq!(PythonRunner::detect("/nonexistent", false), PythonRunner::Python3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PythonRunner {
    /// `uv run --script`, quiet (only the script's own output and uv's errors): inline
    /// dependencies, installed into uv's cache (under the
    /// workspace's `.cache/uv`, since commands run with the workspace as `HOME`), never a
    /// Python download; `--offline` unless the session may use the network, and then the
    /// system's certificates, so a host behind a TLS proxy with its own authority reaches the
    /// package index too.
    Uv {
        /// Whether the session's commands may use the network.
        network: bool,
    },
    /// `python3`, the script's dependencies not installed.
    Python3,
}

impl PythonRunner {
    /// `uv` when it is on `path_var` (the `PATH` the commands run with), else `python3`,
    /// logging (once per `PATH` in this process) that inline dependencies will not be
    /// installed.
    pub fn detect(path_var: &str, network: bool) -> Self {
        if let Some(uv) = find("uv", path_var) {
            tracing::debug!(uv = %uv.display(), "code runs with `uv run --script`");
            return PythonRunner::Uv { network };
        }
        static WARNED: LazyLock<Mutex<HashSet<String>>> =
            LazyLock::new(|| Mutex::new(HashSet::new()));
        let first = WARNED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(path_var.to_string());
        // Info, not a warning: running without uv is a supported setup, and the command line
        // shows warnings on every call.
        if first {
            tracing::info!(
                path = path_var,
                "`uv` is not on the commands' PATH `{path_var}`, so code runs with `python3` and a script's inline dependencies (PEP 723) are not installed; install uv (`pip install uv`) into a folder on that PATH, such as /usr/local/bin"
            );
        }
        PythonRunner::Python3
    }

    /// The runner for commands held to `limits`: detected on their `PATH`, with the network
    /// when their isolation allows it.
    pub fn for_limits(limits: &ExecLimits) -> Self {
        PythonRunner::detect(&limits.path, limits.isolation != Isolation::Strict)
    }

    /// The command line `{python}` stands for, to be followed by the script's path.
    pub fn command(self) -> &'static str {
        match self {
            PythonRunner::Uv { network: false } => {
                "uv run --quiet --no-project --no-python-downloads --offline --script"
            }
            PythonRunner::Uv { network: true } => {
                "uv run --quiet --no-project --no-python-downloads --system-certs --script"
            }
            PythonRunner::Python3 => "python3",
        }
    }
}

fn find(program: &str, path_var: &str) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
