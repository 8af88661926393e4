//! The rules a spec must follow, and what a child of a session is allowed: checked before
//! anything is stored or built, with errors that name the field and the fix.

use std::path::Path;

use cy_tools::{
    SessionSpec,
    services::{ServiceError, ServiceErrorKind},
    session::SubagentProfile,
};

use super::compose::is_delegation;

pub(super) fn invalid(message: String) -> ServiceError {
    ServiceError::new(ServiceErrorKind::InvalidInput, message)
}

/// The profile `name` of `parent`, if `parent` may start subagents at all.
pub(super) fn child_profile<'s>(
    parent: &'s SessionSpec,
    name: &str,
) -> Result<&'s SubagentProfile, ServiceError> {
    if parent.subagents.is_empty() {
        return Err(invalid(format!(
            "session `{}` declares no subagent profiles, so it cannot start subagents; do the task in this session",
            parent.id()
        )));
    }
    if parent.identity.depth >= parent.max_depth {
        return Err(invalid(format!(
            "session `{}` is at depth {}, the maximum; it cannot start subagents: do the task in this session",
            parent.id(),
            parent.identity.depth
        )));
    }
    parent.subagent(name).ok_or_else(|| {
        invalid(format!(
            "no subagent profile `{name}`; valid profiles are {}",
            listed(parent.subagents.iter().map(|p| p.name.as_str()))
        ))
    })
}

/// `` `a`, `b` ``.
fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The spec of a child of `parent` made from `profile`: the profile's tools and no others, no
/// chat, the parent's executor and maximum depth, the tenant inherited and the lineage extended.
/// It may start subagents only when the profile lets it delegate, and then only with the
/// parent's profiles cut down to its own tools.
pub(super) fn child_spec(
    parent: &SessionSpec,
    profile: &SubagentProfile,
    id: String,
    workspace: &Path,
) -> SessionSpec {
    let allowed = &profile.tools;
    let subagents = if allowed.iter().any(|t| is_delegation(t)) {
        parent
            .subagents
            .iter()
            .map(|p| SubagentProfile {
                tools: within(&p.tools, allowed),
                resources: within(&p.resources, &profile.resources),
                prompts: within(&p.prompts, &profile.prompts),
                ..p.clone()
            })
            .collect()
    } else {
        Vec::new()
    };
    SessionSpec {
        identity: parent.identity.child(id),
        workspace: workspace.to_string_lossy().into_owned(),
        // A child of a session on an execution host works in its folder there.
        workspace_host: parent
            .workspace_host
            .as_ref()
            .map(|host| super::workspace::child_host(host, workspace)),
        // Server tools come with the servers below, not from the registry.
        tools: profile
            .tools
            .iter()
            .filter(|t| {
                !parent
                    .mcp_servers
                    .iter()
                    .any(|s| t.starts_with(&format!("{}__", s.name)))
            })
            .cloned()
            .collect(),
        resources: profile.resources.clone(),
        prompts: profile.prompts.clone(),
        executor: parent.executor.clone(),
        chat: false,
        // A child's code calls only the child's own tools, so code mode widens nothing.
        code_mode: parent.code_mode,
        // The child's model is declared what its parent's was: `execute_code` alone, or all.
        code_only: parent.code_only,
        subagents,
        max_depth: parent.max_depth,
        // A child asks about the same calls as its parent: nothing widens down the tree.
        approve: parent.approve,
        mcp_servers: servers_within(&parent.mcp_servers, allowed),
    }
}

/// The parent's MCP servers a child's profile names tools of (`{server}__{tool}`), each with
/// only those tools: a child starts no server it was not given a tool of.
fn servers_within(
    servers: &[cy_tools::session::McpServerSpec],
    allowed: &[String],
) -> Vec<cy_tools::session::McpServerSpec> {
    servers
        .iter()
        .filter_map(|server| {
            let prefix = format!("{}__", server.name);
            let tools: Vec<String> = allowed
                .iter()
                .filter_map(|name| name.strip_prefix(&prefix))
                .filter(|tool| {
                    server
                        .tools
                        .as_ref()
                        .is_none_or(|listed| listed.iter().any(|t| t == tool))
                })
                .map(str::to_string)
                .collect();
            (!tools.is_empty()).then(|| cy_tools::session::McpServerSpec {
                tools: Some(tools),
                ..server.clone()
            })
        })
        .collect()
}

/// The names of `names` that `allowed` holds too.
fn within(names: &[String], allowed: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| allowed.contains(n))
        .cloned()
        .collect()
}

/// Checks what the rest of the code relies on, naming the field and the fix.
pub(super) fn check_spec(spec: &SessionSpec) -> Result<(), ServiceError> {
    let id = spec.id();
    let id_ok = id.len() <= 128
        && id.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !id_ok {
        return Err(invalid(format!(
            "`identity.session_id` `{id}` is not a valid session id: use 1 to 128 ASCII letters, digits, `-`, `_` or `.`, starting with a letter or digit"
        )));
    }
    if spec.identity.tenant.trim().is_empty() {
        return Err(invalid(format!(
            "`identity.tenant` of session `{id}` is empty; name the tenant the session works for"
        )));
    }
    if spec.identity.depth as usize != spec.identity.lineage.len() {
        return Err(invalid(format!(
            "`identity.depth` of session `{id}` is {} but its lineage has {} ancestors; they must agree",
            spec.identity.depth,
            spec.identity.lineage.len()
        )));
    }
    if spec.workspace.trim().is_empty() {
        return Err(invalid(format!(
            "`workspace` of session `{id}` is empty; give the folder the session works in"
        )));
    }
    let mut seen: Vec<&str> = Vec::new();
    for profile in &spec.subagents {
        let name = profile.name.as_str();
        let name_ok = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
        if !name_ok {
            return Err(invalid(format!(
                "subagent profile name `{name}` is not valid: use 1 to 64 ASCII letters, digits, `-` or `_`"
            )));
        }
        if seen.contains(&name) {
            return Err(invalid(format!(
                "subagent profile `{name}` is declared twice in session `{id}`; give each profile its own name"
            )));
        }
        if profile.limits.timeout_ms == 0 || profile.limits.max_turns == 0 {
            return Err(invalid(format!(
                "subagent profile `{name}` has a zero limit; `max_turns` and `timeout_ms` must be at least 1"
            )));
        }
        seen.push(name);
    }
    Ok(())
}
