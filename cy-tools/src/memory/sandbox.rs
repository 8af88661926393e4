use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::{BoxFuture, ExecOptions, Sandbox, ServiceError, ServiceErrorKind, ShellResult};

/// A sandbox whose files live in memory. It runs no commands: `exec` answers that it is
/// unavailable. Paths are normalized lexically (there are no links to follow).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use cy_tools::{memory::MemorySandbox, Sandbox};
/// let sandbox = MemorySandbox::new();
/// sandbox.write("notes/a.txt", b"hi".to_vec()).await.unwrap();
/// assert_eq!(sandbox.read("./notes/../notes/a.txt").await.unwrap(), b"hi");
/// assert!(sandbox.read("../etc/passwd").await.is_err());
/// # });
/// ```
#[derive(Debug, Default, Clone)]
pub struct MemorySandbox {
    files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    prefix: String,
}

impl MemorySandbox {
    /// An empty sandbox.
    pub fn new() -> Self {
        MemorySandbox::default()
    }

    fn key(&self, path: &str) -> Result<String, ServiceError> {
        let outside = || {
            ServiceError::new(
                ServiceErrorKind::OutsideSandbox,
                format!("path `{path}` is outside the workspace; use a path inside it"),
            )
        };
        if path.contains('\0') {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "path contains a NUL byte; remove it",
            ));
        }
        if path.starts_with('/') {
            return Err(outside());
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or_else(outside)?;
                }
                other => parts.push(other),
            }
        }
        let mut key = self.prefix.clone();
        key.push_str(&parts.join("/"));
        Ok(key)
    }

    fn files(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Sandbox for MemorySandbox {
    fn describe(&self) -> String {
        format!("memory:/{}", self.prefix)
    }

    fn resolve_path(&self, path: &str) -> Result<PathBuf, ServiceError> {
        self.key(path).map(|k| PathBuf::from("/").join(k))
    }

    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        let result = self.key(path).and_then(|key| {
            self.files().get(&key).cloned().ok_or_else(|| {
                ServiceError::new(
                    ServiceErrorKind::NotFound,
                    format!("no file `{path}` in the workspace"),
                )
            })
        });
        Box::pin(async { result })
    }

    fn write<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        let result = self.key(path).map(|key| {
            self.files().insert(key, contents);
        });
        Box::pin(async { result })
    }

    fn exec<'a>(
        &'a self,
        _command: &'a str,
        _options: ExecOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(async {
            Err(ServiceError::new(
                ServiceErrorKind::Unavailable,
                "this workspace runs no commands (it is an in-memory sandbox); use the file tools instead",
            ))
        })
    }

    fn scoped(&self, subdir: &str) -> Result<Arc<dyn Sandbox>, ServiceError> {
        let key = self.key(subdir)?;
        Ok(Arc::new(MemorySandbox {
            files: Arc::clone(&self.files),
            prefix: format!("{key}/"),
        }))
    }
}
