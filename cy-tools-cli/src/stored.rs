//! A session kept in a store (`--store`, `CY_TOOLS_STORE`): created the first time its id is
//! used, resumed after that by any worker that names the same store, its calls recorded.

use std::path::Path;
use std::sync::Arc;

use cy_tools::{Session, SessionSpec, Toolset, services::ServiceErrorKind};

use super::error::CliError;
use super::runtime::CommandRuntime;
use super::servers;
use super::session::{in_code_mode, listed};
use cy_tools::approval::SpentNonces;
use cy_tools_mcp_client::McpServers;
use cy_tools_sandbox::ExecLimits;
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::compose::EXECUTE_CODE;
use cy_tools_session::store::StoreLocation;

/// Where the session is: the session file's `session_id`, `tenant`, `workspace` and `tools`
/// (used when it is created; a stored session keeps its own).
pub(super) struct Wanted<'a> {
    pub(super) id: &'a str,
    pub(super) tenant: &'a str,
    pub(super) root: &'a Path,
    pub(super) tools: Option<&'a [String]>,
    pub(super) limits: ExecLimits,
    /// Code mode asked for (`--code-mode`, the session file's `code_mode`, code-only mode).
    pub(super) code_mode: bool,
    /// Code-only mode asked for (`--code-only`, the session file's `code_only`).
    pub(super) code_only: bool,
    /// The approval policy (`--approve`, the session file's, the command's default), over the
    /// stored spec's.
    pub(super) approve: cy_tools::approval::ApprovalPolicy,
    /// The host's hooks and result limits (`--pre-tool-hook`, `--max-result-bytes`...).
    pub(super) hooks: cy_tools::call::hook::Hooks,
    pub(super) result_limits: cy_tools::call::hook::ResultLimits,
    /// The session file's `mcp_servers` (a stored session keeps its own).
    pub(super) mcp_servers: &'a [cy_tools::session::McpServerSpec],
}

/// The stored session `wanted.id` (created if the store has none), built with only those of
/// its tools that the session file's `tools` (with `execute_code`, which every stored session
/// has) allows, and served with the `requested` ones (each must be one of those). They narrow
/// the stored list and never widen it, and in code mode the session is built with them, so
/// the code reaches the tools served and no others (see
/// [`LocalSessionFactory::resume_within`]). `calling`: `requested` is the one tool `call`
/// runs; in code mode its code reaches the whole (narrowed) session.
pub(super) fn open(
    location: StoreLocation,
    wanted: Wanted<'_>,
    requested: Option<&[String]>,
    calling: bool,
    spec_path: &Path,
    runtime: &CommandRuntime,
) -> Result<(Session, Option<Arc<dyn SpentNonces>>), CliError> {
    let fail = CliError::from;
    let allowed = wanted.tools.map(|tools| {
        let mut allowed = vec![EXECUTE_CODE.to_string()];
        allowed.extend(tools.iter().filter(|t| *t != EXECUTE_CODE).cloned());
        allowed
    });
    if let (Some(requested), Some(allowed)) = (requested, &allowed)
        && let Some(outside) = requested
            .iter()
            .find(|name| !allowed.contains(name) && !servers::of_a_server(wanted.mcp_servers, name))
    {
        return Err(CliError::new(format!(
            "tool `{outside}` is not in the session spec's tools ({}); add it to `tools` in `{}` or use one of those",
            listed(allowed),
            spec_path.display(),
        )));
    }
    runtime.work()?.block_on(async {
        let factory = LocalSessionFactory::open(location, wanted.tenant)
            .await
            .map_err(fail)?
            .with_exec_limits(wanted.limits.clone())
            // On the factory, not on the built session: a code-mode session's code calls the
            // tools bound at build time, which must ask as the host says too.
            .with_approval_policy(wanted.approve)
            .with_hooks(wanted.hooks.clone())
            .with_result_limits(wanted.result_limits.clone());
        // The model loop runs the subagent profiles that name a model, with keys from the
        // environment (the session crate cannot build it: it is the crate above).
        #[cfg(feature = "agent")]
        let factory =
            factory.with_model_runner(std::sync::Arc::new(cy_tools_agent::ModelRunner::from_env()));
        let nonces = factory.spent_nonces();
        // Narrowed to the spec file's `tools`, the stored servers' tools kept.
        let resumed = match &allowed {
            Some(allowed) => servers::resume_within(&factory, wanted.id, allowed).await,
            None => factory.resume(wanted.id).await,
        };
        let session = match resumed {
            Ok(session) if wanted.code_only && !session.spec().is_some_and(|s| s.code_only) => {
                return Err(stored_without_code_only(wanted.id));
            }
            Ok(session) if wanted.code_mode && !session.spec().is_some_and(|s| in_code_mode(s)) => {
                return Err(stored_without_code_mode(wanted.id));
            }
            Ok(session) => session,
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
                let mut spec =
                    SessionSpec::root(wanted.id, wanted.tenant, workspace.to_string_lossy())
                        .with_tools(tools)
                        .with_code_mode(wanted.code_mode)
                        .with_code_only(wanted.code_only);
                // Stored with the session: any worker resuming it starts them again.
                spec.mcp_servers = wanted.mcp_servers.to_vec();
                // Created with the spec file's `tools` (and `execute_code`): already as narrow
                // as `allowed`.
                factory.create(spec).await.map_err(fail)?
            }
            Err(err) => return Err(fail(err)),
        };
        let Some(requested) = requested else {
            return Ok((session, nonces));
        };
        if session.spec().is_some_and(|spec| spec.code_only) {
            return code_only(&factory, session, requested, calling)
                .await
                .map(|session| (session, nonces));
        }
        check_requested(&session, requested)?;
        let code_mode = session.spec().is_some_and(|spec| in_code_mode(spec));
        if code_mode && calling {
            // `call execute_code`: its code calls the session's other tools.
            return Ok((session, nonces));
        }
        let session = if code_mode {
            // Served with fewer tools: built with those alone, so its code reaches no others.
            drop(session);
            factory
                .resume_within(wanted.id, requested)
                .await
                .map_err(fail)?
        } else {
            session
        };
        Ok((in_order(session, requested), nonces))
    })
}

/// The stored code-only `session` as `requested` asks: `call execute_code` gets it whole (its
/// code reaches every tool), any other tool called is refused (only `execute_code` is
/// served); `mcp --tools` names the tools its code may call, and it is built again with those
/// alone (and `execute_code`, which is what it serves).
async fn code_only(
    factory: &LocalSessionFactory,
    session: Session,
    requested: &[String],
    calling: bool,
) -> Result<Session, CliError> {
    if calling {
        return match requested.iter().find(|name| *name != EXECUTE_CODE) {
            None => Ok(session),
            Some(tool) => Err(super::session::not_served_in_code_only(
                tool,
                &format!(
                    "stored session `{}` was created in it, and a stored session keeps its settings",
                    session.id()
                ),
                &format!("use another `session_id` to call `{tool}` directly"),
            )),
        };
    }
    // What its code reaches: its stored tools and its servers' (the session served has
    // `execute_code` alone, so its toolset cannot say).
    let mut reachable: Vec<String> = vec![EXECUTE_CODE.to_string()];
    if let Some(spec) = session.spec() {
        reachable.extend(spec.tools.iter().filter(|n| *n != EXECUTE_CODE).cloned());
    }
    if let Some(servers) = session.context().state::<McpServers>() {
        reachable.extend(servers.tool_names().map(str::to_string));
    }
    if let Some(missing) = requested.iter().find(|name| !reachable.contains(name)) {
        return Err(CliError::new(format!(
            "tool `{missing}` is not one of stored session `{}`'s tools ({}); the stored session keeps the tools it was created with: name some of those, or use another `session_id`",
            session.id(),
            listed(&reachable)
        )));
    }
    let id = session.id().to_string();
    let mut only = vec![EXECUTE_CODE.to_string()];
    only.extend(requested.iter().filter(|n| *n != EXECUTE_CODE).cloned());
    // Built with those alone, so its code reaches no others.
    drop(session);
    factory
        .resume_within(&id, &only)
        .await
        .map_err(CliError::from)
}

/// The error for code-only mode asked of the stored session `id`, which was created without
/// it.
pub(super) fn stored_without_code_only(id: &str) -> CliError {
    CliError::new(format!(
        "stored session `{id}` was created without code-only mode, and a stored session keeps its settings; leave out --code-only (and `code_only` in the session file), or use another `session_id`"
    ))
}

/// The error for code mode asked of the stored session `id`, which was created without it.
pub(super) fn stored_without_code_mode(id: &str) -> CliError {
    CliError::new(format!(
        "stored session `{id}` was created without code mode, and a stored session keeps its settings; leave out --code-mode (and `code_mode` in the session file), or use another `session_id`"
    ))
}

/// Every `requested` tool is one of `session`'s, or the error names the stored ones.
fn check_requested(session: &Session, requested: &[String]) -> Result<(), CliError> {
    let Some(missing) = requested
        .iter()
        .find(|name| session.tools().get(name).is_none())
    else {
        return Ok(());
    };
    let stored: Vec<&str> = std::iter::once(EXECUTE_CODE)
        .chain(
            session
                .spec()
                .into_iter()
                .flat_map(|spec| spec.tools.iter().map(String::as_str))
                .filter(|name| *name != EXECUTE_CODE),
        )
        .collect();
    Err(CliError::new(format!(
        "tool `{missing}` is not one of stored session `{}`'s tools ({}); the stored session keeps the tools it was created with: call one of those, or use another `session_id`",
        session.id(),
        listed(&stored)
    )))
}

/// The same session serving only the `requested` tools, in that order (each is one of its
/// own). Outside code mode, or built with these tools alone, what its code reaches is not
/// changed by this.
fn in_order(session: Session, requested: &[String]) -> Session {
    let mut tools: Vec<cy_tools::BoundTool> = Vec::with_capacity(requested.len());
    for name in requested {
        if let Some(tool) = session.tools().get(name)
            && !tools.iter().any(|t| t.name() == name)
        {
            tools.push(tool.clone());
        }
    }
    session.with_tools(Toolset::new(tools))
}
