//! Where a session's workspace lives: a folder on this worker, or a workspace on an execution
//! host (a [`RemoteSandbox`](cy_tools_remote::RemoteSandbox)) that every tool of the
//! session uses, so a session whose code runs there never has two folders.

use std::path::Path;
use std::sync::Arc;

use cy_tools::{
    SessionSpec,
    services::{Sandbox, ServiceError},
    session::{ExecutorSpec, WorkspaceHost},
};

/// The path a session on an execution host names its workspace by.
pub(super) const REMOTE_WORKSPACE: &str = "/workspace";

/// Settles where a new root session's workspace lives: a spec whose code runs on a control
/// server, and that names no workspace host, gets its workspace on that server, named after
/// the session (the folder the server runs the session's code in).
pub(super) fn settle(spec: &mut SessionSpec) {
    if spec.workspace_host.is_none()
        && let ExecutorSpec::Remote { url, token_var } = &spec.executor
    {
        spec.workspace_host = Some(WorkspaceHost::new(url, token_var, spec.id()));
    }
    if spec.workspace_host.is_some() {
        spec.workspace = REMOTE_WORKSPACE.to_string();
    }
}

/// The workspace host of a child whose view is `child_view` (as its parent's view resolves
/// it: `/workspace/<folder>`), in its parent's workspace `parent`.
pub(super) fn child_host(parent: &WorkspaceHost, child_view: &Path) -> WorkspaceHost {
    let folder = child_view
        .strip_prefix(REMOTE_WORKSPACE)
        .unwrap_or(child_view)
        .to_string_lossy()
        .into_owned();
    WorkspaceHost {
        folder: Some(folder),
        ..parent.clone()
    }
}

/// Where the execute endpoint at `url` runs `spec`'s code: the session id naming the
/// workspace, and a child's folder in it. A session whose workspace is on that server runs its
/// code in that workspace (a child's in its folder); any other, in the server's folder for its
/// own id.
#[cfg(feature = "remote")]
pub(super) fn executor_place<'a>(spec: &'a SessionSpec, url: &str) -> (&'a str, Option<&'a str>) {
    match &spec.workspace_host {
        Some(host) if host.url == url => (&host.name, host.folder.as_deref()),
        _ => (spec.id(), None),
    }
}

/// The sandbox on the execution host `host`, for session `session_id`, with the token read by
/// `secrets`.
///
/// # Errors
/// The token's variable is not set, the address or name is malformed, or this build has no
/// remote sandbox.
pub(super) fn open_remote(
    host: &WorkspaceHost,
    session_id: &str,
    secrets: &(dyn Fn(&str) -> Option<String> + Send + Sync),
) -> Result<Arc<dyn Sandbox>, ServiceError> {
    #[cfg(feature = "remote")]
    {
        let token = secrets(&host.token_var).ok_or_else(|| {
            ServiceError::new(
                cy_tools::services::ServiceErrorKind::InvalidInput,
                format!(
                    "session `{session_id}` keeps its workspace on `{}` with the token in `{}`, which is not set; set that environment variable (or give the factory a secrets lookup)",
                    host.url, host.token_var
                ),
            )
        })?;
        let sandbox = cy_tools_remote::RemoteSandbox::new(&host.url, &host.name, token)?;
        match &host.folder {
            Some(folder) => sandbox.scoped(folder),
            None => Ok(Arc::new(sandbox)),
        }
    }
    #[cfg(not(feature = "remote"))]
    {
        let _ = secrets;
        Err(ServiceError::new(
            cy_tools::services::ServiceErrorKind::Unavailable,
            format!(
                "session `{session_id}` keeps its workspace on the execution host `{}`, but this build has no remote sandbox; build `cy-tools-builtin` with its `remote` feature",
                host.url
            ),
        ))
    }
}
