//! The names a server's tools take in a session: `{server}__{tool}`, valid under MCP's rule for
//! tool names, and distinct.

use std::collections::HashSet;

use cy_tools::definition::{MAX_TOOL_NAME_LEN, is_valid_tool_name};
use sha2::{Digest, Sha256};

/// The session's name for `tool` of `server`: `{server}__{tool}` when that is a valid tool name;
/// otherwise each character MCP does not allow becomes `_`, a name past 128 bytes is cut, and
/// either way eight hex digits of the original name's SHA-256 are added, so two tools whose
/// names clean up alike stay apart. A server name has no `_` (its spec checks), so no two
/// servers' names can meet.
///
/// ```
/// use cy_tools_mcp_client::session_name;
/// assert_eq!(session_name("time", "get_current_time"), "time__get_current_time");
/// assert_eq!(session_name("gh", "issues/create"), "gh__issues_create-ee7a18aa");
/// ```
pub fn session_name(server: &str, tool: &str) -> String {
    let plain = format!("{server}__{tool}");
    if is_valid_tool_name(&plain) {
        return plain;
    }
    let cleaned: String = plain
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    with_digest(&cleaned, tool)
}

/// Whether `wanted`, a tool a server's spec names, is the server's tool `tool`: by its own
/// name, or by its session name without the `{server}__` in front. A child session's profile
/// names tools as its parent's session does, and when that name had to be cleaned up (the
/// tool's own name is no valid tool name) only the session name leads back to the tool.
pub(crate) fn names_tool(server: &str, wanted: &str, tool: &str) -> bool {
    wanted == tool
        || session_name(server, tool)
            .strip_prefix(server)
            .and_then(|rest| rest.strip_prefix("__"))
            == Some(wanted)
}

/// `name` cut to leave room for `-` and eight hex digits of `of`'s SHA-256, then those.
fn with_digest(name: &str, of: &str) -> String {
    let digest = Sha256::digest(of.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    let room = MAX_TOOL_NAME_LEN - hex.len() - 1;
    let mut cut = name.to_string();
    cut.truncate(room);
    format!("{cut}-{hex}")
}

/// Names already given in one session, so two tools never share one.
#[derive(Default)]
pub(crate) struct Taken(HashSet<String>);

impl Taken {
    /// A set holding `names`.
    pub(crate) fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Taken(names.into_iter().map(str::to_string).collect())
    }

    /// Whether `name` is given.
    pub(crate) fn holds(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// Takes `name`.
    pub(crate) fn take(&mut self, name: String) {
        self.0.insert(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_names_a_tool_by_its_own_name_or_its_session_name() {
        assert!(names_tool("gh", "issues/create", "issues/create"));
        assert!(names_tool("gh", "issues_create-ee7a18aa", "issues/create"));
        assert!(names_tool("time", "get_current_time", "get_current_time"));
        assert!(!names_tool("gh", "issues_create", "issues/create"));
        assert!(!names_tool("gh", "issues_create-00000000", "issues/create"));
        assert!(!names_tool(
            "gh",
            "gh__issues_create-ee7a18aa",
            "issues/create"
        ));
        let long = "x".repeat(200);
        let tail = session_name("srv", &long)["srv__".len()..].to_string();
        assert!(names_tool("srv", &tail, &long));
    }

    #[test]
    fn names_are_valid_and_apart() {
        let a = session_name("s", "a/b");
        let b = session_name("s", "a b");
        assert_ne!(a, b);
        assert!(is_valid_tool_name(&a) && is_valid_tool_name(&b));
        let long = session_name("s", &"x".repeat(300));
        assert_eq!(long.len(), MAX_TOOL_NAME_LEN);
        assert!(is_valid_tool_name(&long));
    }
}
