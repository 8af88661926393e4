//! The session spec file (`--spec`): read as a [`SessionSpec`], what it left out told apart
//! from what it set, the fields these commands cannot serve refused by name, and the workspace
//! folder it (or `--root`) names.

use std::path::{Path, PathBuf};

use cy_tools::SessionSpec;
use cy_tools::approval::ApprovalPolicy;
use cy_tools::session::{ExecutorSpec, McpServerSpec, SpecDefaults};
use serde::de::DeserializeSeed as _;

use super::error::CliError;
use super::session::SessionArgs;

/// What the spec file (`--spec`) asks for, read as a [`SessionSpec`](cy_tools::SessionSpec):
/// the fields a person left out are `None` here (the command line's options and defaults fill
/// them).
#[derive(Debug, Default)]
pub(super) struct Spec {
    pub(super) session_id: Option<String>,
    pub(super) tenant: Option<String>,
    pub(super) workspace: Option<PathBuf>,
    pub(super) tools: Option<Vec<String>>,
    pub(super) resources: Option<Vec<String>>,
    pub(super) prompts: Option<Vec<String>>,
    pub(super) code_mode: Option<bool>,
    pub(super) code_only: Option<bool>,
    pub(super) approve: Option<ApprovalPolicy>,
    /// The MCP servers whose tools the session serves beside its own (none when left out).
    pub(super) mcp_servers: Vec<McpServerSpec>,
}

pub(super) const SPEC_EXAMPLE: &str = r#"{"session_id": "s-1", "tenant": "acme", "workspace": ".", "tools": ["read_file"], "code_mode": false}"#;

pub(super) fn workspace(args: &SessionArgs, spec: &Spec) -> Result<PathBuf, CliError> {
    let root = match (&args.root, &spec.workspace, &args.spec) {
        (Some(root), _, _) => root.clone(),
        (None, Some(workspace), Some(spec_path)) => {
            spec_path.parent().unwrap_or(Path::new("")).join(workspace)
        }
        _ => PathBuf::from("."),
    };
    match std::fs::metadata(&root) {
        Ok(meta) if meta.is_dir() => {
            // The host reads the session file again at every start: no command may write it.
            if let Some(spec) = &args.spec {
                cy_tools_session::spec_outside(&root, spec)
                    .map_err(|err| CliError::new(err.to_string()))?;
            }
            Ok(root)
        }
        Ok(_) => Err(CliError::new(format!(
            "workspace `{}` is not a folder; pass a folder with --root",
            root.display()
        ))),
        Err(err) => Err(CliError::new(format!(
            "workspace folder `{}` cannot be used: {err}; pass an existing folder with --root",
            root.display()
        ))),
    }
}

pub(super) fn load_spec(path: &Path) -> Result<Spec, CliError> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        CliError::new(format!(
            "cannot read session spec `{}`: {err}",
            path.display()
        ))
    })?;
    let invalid = |at: String, err: &dyn std::fmt::Display| {
        CliError::new(format!(
            "invalid session spec `{}`: {at}{err}; expected for example {SPEC_EXAMPLE}",
            path.display()
        ))
    };
    // Read as a `SessionSpec`, so errors keep the file's line and column; what the file left
    // out is filled in here, and told apart below by the keys the file has.
    let defaults = SpecDefaults {
        session_id: "cli",
        tenant: "local",
        workspace: ".",
    };
    // Hooks are the host's (`--pre-tool-hook`): a spec that names them is told why, not only
    // that the field is unknown.
    if serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
        .is_ok_and(|keys| keys.contains_key("hooks"))
    {
        return Err(CliError::new(format!(
            "invalid session spec `{}`: {}",
            path.display(),
            cy_tools::session::NO_HOOKS
        )));
    }
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let mut track = serde_path_to_error::Track::new();
    let read = defaults.deserialize(serde_path_to_error::Deserializer::new(
        &mut deserializer,
        &mut track,
    ));
    let spec = read.map_err(|err| {
        let at = track.path();
        let at = if at.iter().next().is_some() {
            format!("field `{at}`: ")
        } else {
            String::new()
        };
        invalid(at, &err)
    })?;
    deserializer.end().map_err(|err| {
        CliError::new(format!(
            "invalid session spec `{}`: {err}; expected one JSON object, for example {SPEC_EXAMPLE}",
            path.display()
        ))
    })?;
    let keys: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|err| invalid(String::new(), &err))?;
    refuse_unserved(path, &spec)?;
    let given = |key: &str| keys.contains_key(key);
    let named = given("identity") || given("session_id");
    Ok(Spec {
        session_id: named.then(|| spec.identity.session_id.clone()),
        tenant: (given("identity") || given("tenant")).then(|| spec.identity.tenant.clone()),
        workspace: given("workspace").then(|| PathBuf::from(&spec.workspace)),
        tools: given("tools").then(|| spec.tools.clone()),
        resources: given("resources").then(|| spec.resources.clone()),
        prompts: given("prompts").then(|| spec.prompts.clone()),
        code_mode: given("code_mode").then_some(spec.code_mode),
        code_only: given("code_only").then_some(spec.code_only),
        approve: given("approve").then_some(spec.approve),
        mcp_servers: spec.mcp_servers.clone(),
    })
}

/// Refuses what a spec may hold that these commands do not serve (they serve a root session's
/// tools over a folder of this host, with the local executor): saying so beats leaving it out
/// unseen.
fn refuse_unserved(path: &Path, spec: &SessionSpec) -> Result<(), CliError> {
    let unserved = if !spec.identity.lineage.is_empty() {
        Some("`identity` (a child's: its lineage is not empty)")
    } else if spec.workspace_host.is_some() {
        Some("`workspace_host`")
    } else if spec.executor != ExecutorSpec::default() {
        Some("`executor`")
    } else if spec.chat {
        Some("`chat`")
    } else if !spec.subagents.is_empty() {
        Some("`subagents`")
    } else {
        None
    };
    match unserved {
        None => Ok(()),
        Some(field) => Err(CliError::new(format!(
            "session spec `{}`: {field} is not served by the command line, which serves a root session's tools in a folder of this host with the local executor; remove it, or build the session with `cy_tools_session::LocalSessionFactory` in an application",
            path.display()
        ))),
    }
}
