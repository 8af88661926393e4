//! The session `call` and `mcp` run tools in: a workspace folder, an identity and the tools,
//! from the command line and an optional session spec file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cy_tools::SessionSpec;
use cy_tools::approval::{Approval, ApprovalPolicy};
use cy_tools::binding::LeftOut;
use cy_tools::catalog::ResourceUpdates;
use cy_tools::{
    Session, SessionIdentity, ToolContext, ToolRegistry, Toolset,
    services::{CodeExecutor, Sandbox},
};

use super::error::CliError;
use super::limits::LimitArgs;
use super::runtime::CommandRuntime;
use super::spec_file::{Spec, load_spec, workspace};
use super::{servers, stored};
use cy_tools::approval::SpentNonces;
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_sandbox::executor::PythonRunner;
use cy_tools_session::compose::EXECUTE_CODE;
use cy_tools_session::store::StoreLocation;

/// The options `call`, `mcp` and `agent` share.
#[derive(Debug, clap::Args)]
pub(super) struct SessionArgs {
    /// The workspace folder the tools work in [default: the spec's `workspace`, else the
    /// current folder]
    #[arg(long, value_name = "DIR")]
    pub(super) root: Option<PathBuf>,
    /// A session spec (the JSON of `SessionSpec`, a root's identity written as `session_id`
    /// and `tenant`), every field optional here:
    /// {"session_id": "s-1", "tenant": "acme", "workspace": "DIR", "tools": ["read_file"],
    /// "code_mode": true, "approve": "destructive"}. The fields only a session factory serves
    /// (`executor`, `workspace_host`, `chat`, `subagents`) are refused. Its
    /// `mcp_servers` are started in the workspace, confined like `terminal`'s commands, and
    /// their tools (`{server}__{tool}`) served beside the session's own: one endpoint for
    /// them all.
    /// A relative `workspace` is taken from the spec file's folder; `tools` is the most the
    /// session may have (a stored session is served with those of its stored tools it names,
    /// never more, and in code mode its code reaches no others)
    #[arg(long, value_name = "FILE")]
    pub(super) spec: Option<PathBuf>,
    /// Keep the session in a store, so any worker naming the same store resumes it (its
    /// tools, workspace and log) and its signals reach them all:
    /// postgres://USER:PASSWORD@HOST:PORT/DATABASE, or a folder for the embedded SQLite store.
    /// The spec file's `session_id` is created the first time and resumed after
    /// [default: `CY_TOOLS_STORE`; unset: nothing is stored]
    #[arg(long, value_name = "URL")]
    pub(super) store: Option<String>,
    /// Code mode: the code `execute_code` runs may call the session's other tools, as the
    /// typed functions of `cy_sdk.tools` (`import cy_sdk; cy_sdk.tools.read_file("a.txt")`).
    /// Also the spec's `"code_mode": true`; a stored session keeps the setting it was created
    /// with
    #[arg(long)]
    pub(super) code_mode: bool,
    /// Code-only mode (code mode, and more): the model or MCP client is given `execute_code`
    /// alone, described with how its code finds the other tools (`cy_sdk.search("words")`,
    /// `cy_sdk.describe(NAME)`, `cy_sdk.sources()`), and reaches them from the code only: one
    /// definition however many tools the session and its MCP servers have. Also the spec's
    /// `"code_only": true`; a stored session keeps the setting it was created with
    #[arg(long)]
    pub(super) code_only: bool,
    /// Which calls a person must approve before they run: `destructive` (tools that may
    /// destroy or overwrite data), `all` or `none`. Over MCP the client is asked (elicitation);
    /// a client that cannot be asked gets the call refused [default: the spec's `approve`, else
    /// `destructive` with `mcp --http`, `none` on stdio, for `call` and `agent`]
    #[arg(long, value_name = "POLICY")]
    pub(super) approve: Option<ApprovalPolicy>,
    #[command(flatten)]
    pub(super) limits: LimitArgs,
    #[command(flatten)]
    pub(super) hooks: super::hooks::HookArgs,
}

/// The tools `call` and `mcp` serve, and the stored session they belong to when there is a
/// store (its calls are then recorded).
pub(super) struct Opened {
    /// Every call goes through it (recorded when it has a log: a stored one).
    pub(super) session: Session,
    /// The workspace folder, absolute: what an MCP server binds its approval state to.
    pub(super) workspace: PathBuf,
    /// Where the store spends approval nonces once for every replica, with a store.
    pub(super) spent_nonces: Option<Arc<dyn SpentNonces>>,
    /// The names of the MCP servers whose tools the session serves (a stored session's own).
    pub(super) fronted: Vec<String>,
    /// Code-only mode: `session` serves `execute_code` alone, and its code the other tools.
    pub(super) code_only: bool,
}

/// What the options and the spec file ask for: the session's id, tenant and tools, and its
/// workspace folder (which exists).
#[cfg(feature = "agent")]
pub(super) struct Asked {
    pub(super) id: Option<String>,
    pub(super) tenant: String,
    pub(super) tools: Option<Vec<String>>,
    pub(super) root: PathBuf,
    /// `--approve`, else the spec file's `approve`; `None`: the stored session's own.
    pub(super) approve: Option<ApprovalPolicy>,
    /// `--code-mode`, or the spec file's `"code_mode": true` (or code-only mode): what a new
    /// session is created with (a stored one keeps its own).
    pub(super) code_mode: bool,
    /// `--code-only`, or the spec file's `"code_only": true`: what a new session is created
    /// with (a stored one keeps its own).
    pub(super) code_only: bool,
    /// The spec file's `mcp_servers`: what a new session is created with (a stored one keeps
    /// its own).
    pub(super) mcp_servers: Vec<cy_tools::session::McpServerSpec>,
}

/// What `args` ask for (see [`Asked`]).
#[cfg(feature = "agent")]
pub(super) fn asked(args: &SessionArgs) -> Result<Asked, CliError> {
    let spec = match &args.spec {
        Some(path) => load_spec(path)?,
        None => Spec::default(),
    };
    let root = workspace(args, &spec)?;
    let code_mode = code_mode(args, &spec);
    let code_only = code_only(args, &spec);
    Ok(Asked {
        id: spec.session_id,
        tenant: spec.tenant.unwrap_or_else(|| "local".to_string()),
        tools: spec.tools,
        root,
        approve: args.approve.or(spec.approve),
        code_mode,
        code_only,
        mcp_servers: spec.mcp_servers,
    })
}

/// Code mode asked for: `--code-mode`, or the spec file's `"code_mode": true`, or code-only
/// mode (which is code mode with the other tools hidden from the model).
fn code_mode(args: &SessionArgs, spec: &Spec) -> bool {
    args.code_mode || spec.code_mode == Some(true) || code_only(args, spec)
}

/// Code-only mode asked for: `--code-only`, or the spec file's `"code_only": true`.
fn code_only(args: &SessionArgs, spec: &Spec) -> bool {
    args.code_only || spec.code_only == Some(true)
}

/// Whether a stored session's `spec` is in code mode (code-only mode is code mode too).
pub(super) fn in_code_mode(spec: &SessionSpec) -> bool {
    spec.code_mode || spec.code_only
}

/// The error for `call TOOL` in code-only mode, where `execute_code` alone is served and its
/// code reaches the other tools: `why` says where the mode comes from, `instead` the other way
/// out.
pub(super) fn not_served_in_code_only(tool: &str, why: &str, instead: &str) -> CliError {
    CliError::new(format!(
        "`{tool}` is not served in code-only mode ({why}): `execute_code` alone is, and its code calls the other tools (`import cy_sdk`, then `cy_sdk.search(\"words\")`, `cy_sdk.describe(\"{tool}\")`); call `execute_code` with such code, or {instead}"
    ))
}

/// Every tool linked into this binary.
pub(super) fn registry() -> Result<ToolRegistry, CliError> {
    ToolRegistry::linked().map_err(|err| CliError::new(err.to_string()))
}

/// `` `a`, `b`, `c` ``.
pub(super) fn listed<S: AsRef<str>>(names: &[S]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for a name nothing is registered under.
pub(super) fn unknown_tool(name: &str, registry: &ToolRegistry) -> CliError {
    CliError::new(format!(
        "unknown tool `{name}`; valid tools are {}",
        listed(&registry.names())
    ))
}

/// Opens the session and binds its tools: `requested` when given (each must exist, fit the
/// spec's list and bind), else the spec's `tools`, else every linked tool that binds to this
/// session (the others are left out with a note on stderr). With a store, the session is the
/// stored one (see [`stored`]). `calling`: `requested` is the one tool `call` runs, which in
/// code mode calls the others, so the session gets them all (the spec's, else every one that
/// binds). Calls ask for approval as `--approve` says, else the spec file, else
/// `default_approve` (the command's own default).
pub(super) fn open(
    args: &SessionArgs,
    requested: Option<&[String]>,
    calling: bool,
    runtime: &CommandRuntime,
    default_approve: ApprovalPolicy,
) -> Result<Opened, CliError> {
    let spec = match &args.spec {
        Some(path) => load_spec(path)?,
        None => Spec::default(),
    };
    let approve = args.approve.or(spec.approve).unwrap_or(default_approve);
    tracing::info!(%approve, "approval policy");
    let root = workspace(args, &spec)?;
    let code_mode = code_mode(args, &spec);
    let code_only = code_only(args, &spec);
    if code_only
        && calling
        && let Some(tool) = requested
            .into_iter()
            .flatten()
            .find(|name| *name != EXECUTE_CODE)
    {
        return Err(not_served_in_code_only(
            tool,
            "`--code-only`, or the session spec's `code_only`",
            &format!("leave those out to call `{tool}` directly"),
        ));
    }
    let location = match &args.store {
        Some(text) => Some(
            StoreLocation::parse(text).map_err(|err| CliError::new(format!("--store: {err}")))?,
        ),
        None => StoreLocation::from_env().map_err(|err| CliError::new(err.to_string()))?,
    };
    if let Some(location) = location {
        // Refused before the store is made: a stored session's own workspace is checked again
        // when the factory opens it.
        if let StoreLocation::Embedded(folder) = &location {
            cy_tools_session::store_outside(&root, folder)
                .map_err(|err| CliError::new(err.to_string()))?;
        }
        let wanted = stored::Wanted {
            id: spec.session_id.as_deref().unwrap_or("cli"),
            tenant: spec.tenant.as_deref().unwrap_or("local"),
            root: &root,
            tools: spec.tools.as_deref(),
            limits: args.limits.exec_limits(),
            code_mode,
            code_only,
            approve,
            hooks: args.hooks.hooks(),
            result_limits: args.hooks.limits(),
            mcp_servers: &spec.mcp_servers,
        };
        let spec_path = args.spec.as_deref().unwrap_or(Path::new(""));
        let workspace = std::path::absolute(&root).unwrap_or_else(|_| root.clone());
        let (session, spent_nonces) =
            stored::open(location, wanted, requested, calling, spec_path, runtime)?;
        let fronted = session
            .spec()
            .map(|spec| spec.mcp_servers.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        let code_only = session.spec().is_some_and(|spec| spec.code_only);
        return Ok(Opened {
            session,
            workspace,
            spent_nonces,
            fronted,
            code_only,
        });
    }
    // `call` in code mode runs one tool whose code calls the others: the session gets them
    // all (the spec's, else every one that binds), without a note for each tool it cannot
    // bind (those notes are for choosing what `mcp` serves); the tool called must still be
    // one the spec allows.
    check_allowed(args, &spec, requested, code_only)?;
    let requested = if calling && code_mode {
        None
    } else {
        requested
    };
    // In code-only mode `execute_code` is what is served, whatever else `--tools` names (the
    // tools its code may call).
    let with_execute_code: Option<Vec<String>> = requested
        .filter(|names| code_only && !names.iter().any(|n| n == EXECUTE_CODE))
        .map(|names| {
            std::iter::once(EXECUTE_CODE.to_string())
                .chain(names.iter().cloned())
                .collect()
        });
    let requested = with_execute_code.as_deref().or(requested);
    let notes = !calling;
    let workspace = std::path::absolute(&root).unwrap_or_else(|_| root.clone());
    let asked = Unstored {
        root,
        requested,
        code_mode,
        code_only,
        notes,
        approve,
    };
    let (tools, context, executor) = open_unstored(args, &spec, asked, runtime)?;
    let catalog = super::catalog::bind(
        registry()?.catalog(),
        spec.resources.as_deref(),
        spec.prompts.as_deref(),
        &context,
        notes,
    )?;
    let session = Session::new(context, tools).with_catalog(catalog);
    let fronted: Vec<String> = spec.mcp_servers.iter().map(|s| s.name.clone()).collect();
    let Some(executor) = executor else {
        return Ok(Opened {
            session,
            workspace,
            spent_nonces: None,
            fronted,
            code_only: false,
        });
    };
    // The session the code calls back into, kept alive by the one handed out (which, in
    // code-only mode, serves `execute_code` alone).
    let session = executor
        .attach(session)
        .map_err(|err| CliError::new(err.to_string()))?;
    Ok(Opened {
        session,
        workspace,
        spent_nonces: None,
        fronted,
        code_only,
    })
}

/// The tools bound, their context, and the code-mode executor in it when code mode is on.
type Opening = (Toolset, Arc<ToolContext>, Option<Arc<CodeModeExecutor>>);

/// What a session without a store is opened with, besides the options and the spec file.
struct Unstored<'a> {
    root: PathBuf,
    requested: Option<&'a [String]>,
    code_mode: bool,
    /// The model is given `execute_code` alone (which the session then always has).
    code_only: bool,
    /// Whether tools left out are noted on stderr.
    notes: bool,
    approve: ApprovalPolicy,
}

fn open_unstored(
    args: &SessionArgs,
    spec: &Spec,
    asked: Unstored<'_>,
    runtime: &CommandRuntime,
) -> Result<Opening, CliError> {
    let Unstored {
        root,
        requested,
        code_mode,
        code_only,
        notes,
        approve,
    } = asked;
    let registry = registry()?;
    let sandbox = LocalSandbox::new(&root)
        .map_err(|err| {
            CliError::new(format!(
                "cannot open workspace folder `{}`: {err}",
                root.display()
            ))
        })?
        // The code `execute_code` runs is held to the same limits: the executor defers to the
        // sandbox's.
        .with_limits(args.limits.exec_limits());
    let identity = SessionIdentity::root(
        spec.session_id.as_deref().unwrap_or("cli"),
        spec.tenant.as_deref().unwrap_or("local"),
    );
    // One view for the file tools and the code they run, so a file `execute_code` writes is
    // there for `read_file`, and both share the view's process table.
    let env = sandbox.env();
    // The spec's MCP servers run in that view too, confined as `terminal`'s commands are, on
    // the command's runtime, and live as long as the session's context holds them.
    let needed = servers::needed(&spec.mcp_servers, requested);
    let servers = if needed.is_empty() {
        None
    } else {
        Some(servers::start(&needed, &env, &runtime.work()?)?)
    };
    let python = PythonRunner::for_limits(env.limits());
    let env: Arc<dyn Sandbox> = Arc::new(env);
    let executor: Arc<dyn CodeExecutor> =
        Arc::new(LocalExecutor::new(Arc::clone(&env)).with_python(python));
    let code_mode = code_mode
        .then(|| Arc::new(CodeModeExecutor::new(Arc::clone(&executor)).with_code_only(code_only)));
    let executor = match &code_mode {
        Some(wrapped) => Arc::clone(wrapped) as Arc<dyn CodeExecutor>,
        None => executor,
    };
    // The hub the session's resources announce changes on, which its tools reach as state.
    let mut context = ToolContext::new(identity)
        .with_state(ResourceUpdates::default())
        .with_hooks(args.hooks.hooks())
        .with_result_limits(args.hooks.limits())
        .with_env(env)
        .with_executor(executor)
        .with_approval(Approval::new(approve));
    if let Some(servers) = &servers {
        context = context.with_state(servers.clone());
    }
    let context = Arc::new(context);
    let built = |tools: Toolset| -> Result<Opening, CliError> {
        let tools = match &servers {
            Some(servers) => servers::bind_after(tools, servers, &context, requested)?,
            None => tools,
        };
        Ok((tools, Arc::clone(&context), code_mode.clone()))
    };
    // The servers' tools are bound after the built-ins: the names asked for here are those of
    // the registry.
    let own: Option<Vec<String>> = requested.map(|names| {
        names
            .iter()
            .filter(|n| !servers::of_a_server(&spec.mcp_servers, n))
            .cloned()
            .collect()
    });
    if let (Some(servers), Some(requested)) = (&servers, requested) {
        servers::check_requested(&spec.mcp_servers, servers, requested)?;
    }

    // A spec's `tools` in code-only mode: the tools the code calls, and `execute_code`.
    let spec_tools: Option<Vec<String>> = spec.tools.as_ref().map(|tools| {
        let missing = code_only && !tools.iter().any(|n| n == EXECUTE_CODE);
        missing
            .then(|| EXECUTE_CODE.to_string())
            .into_iter()
            .chain(tools.iter().cloned())
            .collect()
    });
    let Some(names) = own.as_deref().or(spec_tools.as_deref()) else {
        // Every registered tool: those this session cannot serve are left out, with a note.
        return built(match registry.try_build(&registry.names(), &context) {
            Ok(tools) => tools,
            Err(report) => {
                let unavailable: Vec<&str> = report
                    .left_out
                    .iter()
                    .filter(|(_, why)| matches!(why, LeftOut::Unavailable(_)))
                    .map(|(name, _)| name.as_str())
                    .collect();
                // One line at start, not one per tool: the reasons are in the log.
                for (name, why) in &report.left_out {
                    if let LeftOut::Unavailable(err) = why {
                        tracing::info!(tool = %name, reason = %err, "left out of the session");
                    }
                }
                if notes && !unavailable.is_empty() {
                    eprintln!(
                        "note: {} of the linked tools are left out, as this session cannot run them ({}); `cy-tools list` shows what each needs, and `CY_TOOLS_LOG=info` logs why",
                        unavailable.len(),
                        listed(&unavailable)
                    );
                }
                report.tools
            }
        });
    };
    if let Some(unknown) = names
        .iter()
        .find(|name| registry.definition(name).is_none())
    {
        if servers::of_a_server(&spec.mcp_servers, unknown) {
            return Err(CliError::new(format!(
                "the session spec's `tools` names `{unknown}`, an MCP server's tool; `tools` names the session's own tools, and a server's come with it: choose them with `tools` on its `mcp_servers` entry"
            )));
        }
        return Err(unknown_tool(unknown, &registry));
    }
    let tools =
        registry
            .try_build(names, &context)
            .map_err(|report| match report.left_out.first() {
                Some((_, LeftOut::Unavailable(err))) => CliError::new(err.to_string()),
                _ => CliError::new(report.to_string()),
            })?;
    built(tools)
}

/// Every `requested` tool is in the spec's `tools`, when it has some (`execute_code` always
/// is in code-only mode).
fn check_allowed(
    args: &SessionArgs,
    spec: &Spec,
    requested: Option<&[String]>,
    code_only: bool,
) -> Result<(), CliError> {
    // A server's tools come with it (narrowed by its own `tools`), whatever the spec's
    // `tools` (the session's own) says.
    if let (Some(requested), Some(allowed)) = (requested, &spec.tools)
        && let Some(outside) = requested.iter().find(|name| {
            let implied = code_only && *name == EXECUTE_CODE;
            !(allowed.contains(name) || servers::of_a_server(&spec.mcp_servers, name) || implied)
        })
    {
        return Err(CliError::new(format!(
            "tool `{outside}` is not in the session spec's tools ({}); add it to `tools` in `{}` or use one of those",
            listed(allowed),
            args.spec.as_deref().unwrap_or(Path::new("")).display(),
        )));
    }
    Ok(())
}
