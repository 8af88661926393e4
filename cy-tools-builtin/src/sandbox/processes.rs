//! A session's background processes. (Being written: see the process issue.)

use std::path::PathBuf;

use cap_std::fs::Dir;
use cy_tools::{
    BoxFuture, ExecOptions, ProcessInfo, ProcessOutput, ProcessTable, ServiceError,
    ServiceErrorKind,
};

use super::ExecLimits;

/// The background processes of one session view; all are killed when it is dropped.
pub struct LocalProcessTable {
    #[allow(dead_code)]
    dir: Dir,
    #[allow(dead_code)]
    host_path: PathBuf,
    #[allow(dead_code)]
    limits: ExecLimits,
}

impl LocalProcessTable {
    /// A table for the view whose folder is `dir` (at `host_path` on the host).
    pub fn new(dir: Dir, host_path: PathBuf, limits: ExecLimits) -> Self {
        LocalProcessTable {
            dir,
            host_path,
            limits,
        }
    }
}

fn unavailable() -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::Unavailable,
        "background processes are not available in this build",
    )
}

impl ProcessTable for LocalProcessTable {
    fn start<'a>(
        &'a self,
        _command: &'a str,
        _options: ExecOptions,
    ) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(async { Err(unavailable()) })
    }

    fn status(&self, _id: &str) -> Result<ProcessInfo, ServiceError> {
        Err(unavailable())
    }

    fn output(&self, _id: &str) -> Result<ProcessOutput, ServiceError> {
        Err(unavailable())
    }

    fn write_stdin<'a>(
        &'a self,
        _id: &'a str,
        _data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async { Err(unavailable()) })
    }

    fn kill<'a>(&'a self, _id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(async { Err(unavailable()) })
    }

    fn list(&self) -> Vec<ProcessInfo> {
        Vec::new()
    }
}
