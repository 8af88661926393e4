//! A session kept in a store (`--store`, `CY_TOOLS_STORE`): created the first time its id is
//! used, resumed after that by any worker that names the same store, its calls recorded.

use std::path::Path;

use cy_tools::{ServiceErrorKind, Session, SessionSpec, Toolset};

use super::error::CliError;
use super::runtime::CommandRuntime;
use super::session::listed;
use crate::ExecLimits;
use crate::session::LocalSessionFactory;
use crate::store::StoreLocation;

/// Where the session is: the session file's `session_id`, `tenant`, `workspace` and `tools`
/// (used when it is created; a stored session keeps its own).
pub(super) struct Wanted<'a> {
    pub(super) id: &'a str,
    pub(super) tenant: &'a str,
    pub(super) root: &'a Path,
    pub(super) tools: Option<&'a [String]>,
    pub(super) limits: ExecLimits,
    /// Code mode asked for (`--code-mode`, the session file's `code_mode`).
    pub(super) code_mode: bool,
    /// The approval policy (`--approve`, the session file's, the command's default), over the
    /// stored spec's.
    pub(super) approve: cy_tools::approval::ApprovalPolicy,
}

/// The stored session `wanted.id` (created if the store has none), with only the `requested`
/// tools when some are named (each must be one of the session's).
pub(super) fn open(
    location: StoreLocation,
    wanted: Wanted<'_>,
    requested: Option<&[String]>,
    runtime: &CommandRuntime,
) -> Result<Session, CliError> {
    let fail = |err: cy_tools::ServiceError| CliError::new(err.to_string());
    let session = runtime.work()?.block_on(async {
        let factory = LocalSessionFactory::open(location, wanted.tenant)
            .await
            .map_err(fail)?
            .with_exec_limits(wanted.limits.clone())
            // On the factory, not on the built session: a code-mode session's code calls the
            // tools bound at build time, which must ask as the host says too.
            .with_approval_policy(wanted.approve);
        match factory.resume(wanted.id).await {
            Ok(session) if wanted.code_mode && !session.spec().is_some_and(|s| s.code_mode) => {
                Err(CliError::new(format!(
                    "stored session `{}` was created without code mode, and a stored session keeps its settings; leave out --code-mode (and `code_mode` in the session file), or use another `session_id`",
                    wanted.id
                )))
            }
            Ok(session) => Ok(session),
            Err(err) if err.kind() == ServiceErrorKind::NotFound => {
                let tools: Vec<String> = match wanted.tools {
                    Some(tools) => tools.to_vec(),
                    None => factory
                        .registry()
                        .names()
                        .iter()
                        .map(|n| n.to_string())
                        .collect(),
                };
                let workspace =
                    std::path::absolute(wanted.root).unwrap_or_else(|_| wanted.root.to_path_buf());
                let spec = SessionSpec::root(wanted.id, wanted.tenant, workspace.to_string_lossy())
                    .with_tools(tools)
                    .with_code_mode(wanted.code_mode);
                factory.create(spec).await.map_err(fail)
            }
            Err(err) => Err(fail(err)),
        }
    })?;
    let Some(requested) = requested else {
        return Ok(session);
    };
    let mut tools = Vec::with_capacity(requested.len());
    for name in requested {
        let tool = session.tools().get(name).ok_or_else(|| {
            CliError::new(format!(
                "tool `{name}` is not one of stored session `{}`'s tools ({}); the stored session keeps the tools it was created with: call one of those, or use another `session_id`",
                session.id(),
                listed(&session.tools().names())
            ))
        })?;
        if !tools.iter().any(|t: &cy_tools::BoundTool| t.name() == name) {
            tools.push(tool.clone());
        }
    }
    // The same session (spec, and in code mode what its executor calls back into) with only
    // these tools served.
    Ok(session.with_tools(Toolset::new(tools)))
}
