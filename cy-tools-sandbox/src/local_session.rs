//! `local_session`: a session over a folder of this host, with safe defaults, in one call.

use std::path::Path;
use std::sync::Arc;

use cy_tools::services::{ServiceError, ServiceErrorKind};
use cy_tools::{Session, ToolContext};

use crate::LocalSandbox;
use crate::executor::LocalExecutor;

/// A session over the folder `workspace` (made if missing) with the linked tools named in
/// `tools`, in that order: a fresh id and tenant `local` ([`ToolContext::local`]), the folder
/// as its sandbox with commands confined by the kernel and the default limits
/// ([`ExecLimits`](crate::ExecLimits)), and code run with the local executor. What a host sets
/// beyond that (a store, approval, application state) is the layer below:
/// [`Session::linked`] with a [`ToolContext`] of its own.
///
/// ```
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
/// let session = cy_tools_sandbox::local_session(dir.path(), &["read_file"]).unwrap();
/// let result = session.call("read_file", serde_json::json!({"path": "notes.txt"})).await;
/// assert_eq!(result.to_string(), "     1\thello");
/// # });
/// ```
///
/// # Errors
/// The folder cannot be made or opened ([`Unavailable`](ServiceErrorKind::Unavailable)), or a
/// tool named is not linked or cannot run in such a session
/// ([`InvalidInput`](ServiceErrorKind::InvalidInput), naming each and why).
pub fn local_session<S: AsRef<str>>(
    workspace: impl AsRef<Path>,
    tools: &[S],
) -> Result<Session, ServiceError> {
    let workspace = workspace.as_ref();
    let sandbox = LocalSandbox::new(workspace).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "cannot open the workspace folder `{}`: {err}; pass a folder this process can create and write",
                workspace.display()
            ),
        )
        .with_source(err)
    })?;
    let env: Arc<dyn cy_tools::services::Sandbox> = Arc::new(sandbox.env());
    let context = ToolContext::local()
        .with_env(Arc::clone(&env))
        .with_executor(Arc::new(LocalExecutor::new(env)));
    Session::linked(context, tools)
}
