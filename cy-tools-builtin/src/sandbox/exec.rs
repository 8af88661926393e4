//! Running one shell command in a view. (Being written: see the process issue.)

use std::path::Path;

use cy_tools::{ExecOptions, ServiceError, ServiceErrorKind, ShellResult};

use super::ExecLimits;

/// Runs `command` with `/bin/sh -c` in `cwd`, `HOME` set to `home`, under `limits`.
pub(crate) async fn run(
    command: &str,
    cwd: &Path,
    home: &Path,
    options: ExecOptions,
    limits: &ExecLimits,
) -> Result<ShellResult, ServiceError> {
    let _ = (command, cwd, home, options, limits);
    Err(ServiceError::new(
        ServiceErrorKind::Unavailable,
        "running commands is not available in this build",
    ))
}
