//! `McpServerSpec`: an MCP server a session uses the tools of, as its spec names it. Data
//! only: `cy-tools-mcp-client` starts and talks to it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long a server may take to start and list its tools, unless its entry says otherwise.
pub const DEFAULT_MCP_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one call of a server's tool may take, unless its entry says otherwise.
pub const DEFAULT_MCP_CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// An MCP server in a session spec: a local program spoken to over its stdin and stdout, which
/// the session starts confined in its sandbox (`command`), or a server reached over streamable
/// HTTP (`url`, with the bearer token in the host variable `bearer_env`). Its tools join the
/// session as `{name}__{tool}`. The spec names the host variables the server may receive (and
/// the one holding a token), never their values, so a stored spec carries no secret.
///
/// ```
/// use cy_tools::session::McpServerSpec;
/// let spec: McpServerSpec = serde_json::from_value(serde_json::json!({
///     "name": "time", "command": "python3", "args": ["-m", "mcp_server_time"],
///     "env": ["TZ"], "tools": ["get_current_time"],
/// })).unwrap();
/// assert_eq!(spec.name, "time");
/// assert!(spec.problem().is_none());
/// let bad = McpServerSpec { name: "my_server".into(), ..spec };
/// assert_eq!(
///     bad.problem().unwrap(),
///     "MCP server name `my_server` is not valid: use 1 to 32 ASCII letters, digits or `-` (its tools are named `my_server__<tool>`)"
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSpec {
    /// Its name in the session, the prefix of its tools' names: 1 to 32 ASCII letters, digits
    /// or `-`, unique in the session.
    pub name: String,
    /// The program (run with `/bin/sh -c` after quoting, in the session's workspace); empty
    /// for a server reached by `url`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The streamable HTTP endpoint of a server reached over the network (`https://…/mcp`),
    /// instead of a `command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The host variable holding the bearer token sent to `url` (its value is read on the
    /// worker that connects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_env: Option<String>,
    /// The names of the host's environment variables it receives (their values are read on
    /// the worker that starts it). Nothing else of the host's environment reaches it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Which of its tools the session gets, by the server's names (or by the session's name
    /// for one without the `{server}__` in front, as a child's profile names it); all when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Host folders it may read and run besides the system's (its installation: an npm
    /// package folder, a virtual environment).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_only: Vec<String>,
    /// Whether it may use the network (off by default).
    #[serde(default, skip_serializing_if = "is_false")]
    pub network: bool,
    /// Whether its tools' annotations are believed: by default a server's tools are treated as
    /// destructive, whatever they declare, since a third party wrote them.
    #[serde(default, skip_serializing_if = "is_false")]
    pub trust_annotations: bool,
    /// Seconds it may take to start and list its tools
    /// ([`DEFAULT_MCP_STARTUP_TIMEOUT`] when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_secs: Option<u64>,
    /// Seconds one call may take ([`DEFAULT_MCP_CALL_TIMEOUT`] when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_timeout_secs: Option<u64>,
    /// Whether it starts at its first call rather than with the session (off by default:
    /// started with the session, so a server that cannot start fails the session's build).
    /// A session's tools must be known when it is built, so a lazy server is still started
    /// to list them the first time its entry is built in a process; a later build in the
    /// same process (the session resumed or narrowed, a child given the server, another
    /// session with the same entry and workspace) binds its tools from that list, and it is
    /// started at its first call, its tools then listed again.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lazy: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl McpServerSpec {
    /// What is wrong with the entry, as a message saying what to write instead; `None` when
    /// nothing is.
    pub fn problem(&self) -> Option<String> {
        let name = &self.name;
        let valid = !name.is_empty()
            && name.len() <= 32
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid {
            return Some(format!(
                "MCP server name `{name}` is not valid: use 1 to 32 ASCII letters, digits or `-` (its tools are named `{name}__<tool>`)"
            ));
        }
        match (&self.url, self.command.trim().is_empty()) {
            (None, true) => {
                return Some(format!(
                    "MCP server `{name}` has no `command` and no `url`; give the program that serves MCP on its stdin and stdout, or its streamable HTTP endpoint"
                ));
            }
            (Some(_), false) => {
                return Some(format!(
                    "MCP server `{name}` has both `command` and `url`; give one: a local program or a server's endpoint"
                ));
            }
            (Some(url), true) => {
                if !(url.starts_with("https://") || url.starts_with("http://")) {
                    return Some(format!(
                        "MCP server `{name}`'s `url` `{url}` is not an http:// or https:// URL; give its streamable HTTP endpoint"
                    ));
                }
                if !self.args.is_empty()
                    || !self.env.is_empty()
                    || !self.read_only.is_empty()
                    || self.network
                {
                    return Some(format!(
                        "MCP server `{name}` is reached by `url`, so `args`, `env`, `read_only` and `network` (which start and confine a local program) do not apply; remove them"
                    ));
                }
            }
            (None, false) => {
                if self.bearer_env.is_some() {
                    return Some(format!(
                        "MCP server `{name}` is a local program, so `bearer_env` (a token sent to a `url`) does not apply; remove it, or pass the token by name in `env`"
                    ));
                }
            }
        }
        if let Some(var) = self
            .env
            .iter()
            .chain(self.bearer_env.as_ref())
            .find(|v| v.is_empty() || v.contains(['=', '\0']))
        {
            return Some(format!(
                "MCP server `{name}` names `{var}` as a host variable, which is not a variable name; give the names of host variables"
            ));
        }
        if self.startup_timeout_secs == Some(0) || self.call_timeout_secs == Some(0) {
            return Some(format!(
                "MCP server `{name}` has a timeout of 0 seconds; give at least 1"
            ));
        }
        None
    }

    /// How long it may take to start.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout_secs
            .map_or(DEFAULT_MCP_STARTUP_TIMEOUT, Duration::from_secs)
    }

    /// How long one call may take.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout_secs
            .map_or(DEFAULT_MCP_CALL_TIMEOUT, Duration::from_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::McpServerSpec;

    #[test]
    fn an_entry_written_before_lazy_loads_eager_and_is_written_the_same() {
        let old = serde_json::json!({
            "name": "time", "command": "python3", "args": ["-m", "mcp_server_time"],
            "tools": ["get_current_time"], "call_timeout_secs": 60
        });
        let spec: McpServerSpec = serde_json::from_value(old.clone()).unwrap();
        assert!(!spec.lazy);
        assert_eq!(serde_json::to_value(&spec).unwrap(), old);
        let lazy: McpServerSpec =
            serde_json::from_value(serde_json::json!({"name": "t", "command": "x", "lazy": true}))
                .unwrap();
        assert!(lazy.lazy);
        assert_eq!(
            serde_json::to_value(&lazy).unwrap()["lazy"],
            serde_json::json!(true)
        );
    }
}
