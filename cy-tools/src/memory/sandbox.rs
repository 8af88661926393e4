//! `MemorySandbox`: a workspace whose files live in memory and which runs no commands, for
//! tests and for tools that only read and write.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::BoxFuture;
use crate::services::{
    DirEntryInfo, EntryKind, ExecOptions, Sandbox, SearchOptions, SearchResult, ServiceError,
    ServiceErrorKind, ShellResult, WalkOptions, WalkResult,
};

/// A sandbox whose files live in memory. It runs no commands and searches nothing: `exec` and
/// `search` answer that they are unavailable. Paths are normalized lexically (there are no links
/// to follow); folders exist implicitly, as prefixes of file paths.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use cy_tools::{memory::MemorySandbox, services::Sandbox};
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
            self.files()
                .get(&key)
                .cloned()
                .ok_or_else(|| not_found(path))
        });
        Box::pin(async { result })
    }

    fn read_range<'a>(
        &'a self,
        path: &'a str,
        offset: u64,
        max_len: usize,
    ) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        Box::pin(async move {
            let bytes = self.read(path).await?;
            let start = usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            let end = start.saturating_add(max_len).min(bytes.len());
            Ok(bytes[start..end].to_vec())
        })
    }

    fn stat<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<DirEntryInfo, ServiceError>> {
        let result = self.key(path).and_then(|key| {
            let files = self.files();
            if let Some(bytes) = files.get(&key) {
                return Ok(DirEntryInfo {
                    path: path.to_string(),
                    kind: EntryKind::File,
                    size: bytes.len() as u64,
                });
            }
            let dir_prefix = dir_prefix(&key);
            if dir_prefix.is_empty() || files.keys().any(|k| k.starts_with(&dir_prefix)) {
                Ok(DirEntryInfo {
                    path: path.to_string(),
                    kind: EntryKind::Dir,
                    size: 0,
                })
            } else {
                Err(not_found(path))
            }
        });
        Box::pin(async { result })
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<DirEntryInfo>, ServiceError>> {
        let options = WalkOptions {
            max_depth: 1,
            include_hidden: true,
            ..WalkOptions::default()
        };
        Box::pin(async move { self.walk(path, options).await.map(|w| w.entries) })
    }

    fn walk<'a>(
        &'a self,
        path: &'a str,
        options: WalkOptions,
    ) -> BoxFuture<'a, Result<WalkResult, ServiceError>> {
        let result = self.key(path).and_then(|key| {
            let prefix = dir_prefix(&key);
            let files = self.files();
            let mut entries: std::collections::BTreeMap<String, DirEntryInfo> = Default::default();
            let mut any = prefix.is_empty();
            for (file, bytes) in files.range(prefix.clone()..) {
                let Some(rel) = file.strip_prefix(&prefix) else {
                    break;
                };
                any = true;
                let parts: Vec<&str> = rel.split('/').collect();
                for depth in 1..=parts.len().min(options.max_depth) {
                    if !options.include_hidden && parts[..depth].iter().any(|p| p.starts_with('.'))
                    {
                        break;
                    }
                    let is_file = depth == parts.len();
                    entries
                        .entry(parts[..depth].join("/"))
                        .or_insert(DirEntryInfo {
                            path: parts[..depth].join("/"),
                            kind: if is_file {
                                EntryKind::File
                            } else {
                                EntryKind::Dir
                            },
                            size: if is_file { bytes.len() as u64 } else { 0 },
                        });
                }
            }
            if !any {
                return Err(not_found(path));
            }
            let truncated = entries.len() > options.max_entries;
            Ok(WalkResult {
                entries: entries.into_values().take(options.max_entries).collect(),
                truncated,
            })
        });
        Box::pin(async { result })
    }

    fn search<'a>(
        &'a self,
        _path: &'a str,
        _options: SearchOptions,
    ) -> BoxFuture<'a, Result<SearchResult, ServiceError>> {
        Box::pin(async {
            Err(ServiceError::new(
                ServiceErrorKind::Unavailable,
                "this workspace cannot search file contents (it is an in-memory sandbox); read the files instead",
            ))
        })
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

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), ServiceError>> {
        let result = self.key(path).and_then(|key| {
            self.files()
                .remove(&key)
                .map(|_| ())
                .ok_or_else(|| not_found(path))
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

fn not_found(path: &str) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::NotFound,
        format!("no file or folder `{path}` in the workspace"),
    )
}

/// `a/b` → `a/b/`, and the root (`""` or a scope prefix ending in `/`) unchanged.
fn dir_prefix(key: &str) -> String {
    if key.is_empty() || key.ends_with('/') {
        key.to_string()
    } else {
        format!("{key}/")
    }
}
