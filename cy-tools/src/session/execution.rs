//! Where a session's code runs ([`ExecutorSpec`]) and where its workspace lives when that is
//! an execution host ([`WorkspaceHost`]): the parts of a spec that place a session.

use serde::{Deserialize, Serialize};

/// How a session's `execute_code` runs code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ExecutorSpec {
    /// In the session's own sandbox, with a command line in which `{file}` stands for the
    /// script's path.
    Local {
        /// The command, such as `python3 {file}`; `{python}` stands for the host's Python
        /// runner (`uv run --script` where `uv` is installed, so a script's inline
        /// dependencies are installed; else `python3`).
        command: String,
    },
    /// On a control server, which keeps a workspace for the session.
    Remote {
        /// The server's address, `http://host:port`.
        url: String,
        /// The name of the environment variable that holds the bearer token (never the token).
        token_var: String,
    },
}

impl Default for ExecutorSpec {
    fn default() -> Self {
        ExecutorSpec::Local {
            // The builtin executor's `DEFAULT_COMMAND`.
            command: "{python} {file}".to_string(),
        }
    }
}

/// A session's workspace on an execution host (a control server): the server, the token's
/// variable, the workspace's name there and, for a child, its folder inside that workspace.
///
/// The workspace named `name` is the folder where the server also runs the code of a remote
/// executor for session id `name`, so a session with both has one workspace.
///
/// ```
/// use cy_tools::{SessionSpec, session::WorkspaceHost};
///
/// let host = WorkspaceHost::new("http://10.0.0.7:8700", "CY_CONTROL_TOKEN", "s-1");
/// let spec = SessionSpec::root("s-1", "acme", "/workspace").with_workspace_host(host.clone());
/// let json = serde_json::to_string(&spec).unwrap();
/// assert!(json.contains(r#""workspace_host":{"url":"http://10.0.0.7:8700","token_var":"CY_CONTROL_TOKEN","name":"s-1"}"#));
/// assert_eq!(serde_json::from_str::<SessionSpec>(&json).unwrap().workspace_host, Some(host));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceHost {
    /// The control server's address, `http://host:port`.
    pub url: String,
    /// The name of the environment variable that holds the bearer token (never the token).
    pub token_var: String,
    /// The workspace's name on the server: its folder under the server's root.
    pub name: String,
    /// A child's folder inside the workspace (`subagents/researcher-1`); absent, the whole
    /// workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
}

impl WorkspaceHost {
    /// The whole workspace `name` on the server at `url`, with the token in `token_var`.
    pub fn new(
        url: impl Into<String>,
        token_var: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        WorkspaceHost {
            url: url.into(),
            token_var: token_var.into(),
            name: name.into(),
            folder: None,
        }
    }
}
