//! Errors of binding tools and of filling a registry: host-side mistakes, never the model's.

use std::fmt;

use crate::capability::Capabilities;
use crate::state::StateType;

/// Why a definition could not be bound into a session.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BindError {
    /// The session's context lacks capabilities the tool declares.
    MissingCapabilities {
        /// The tool.
        tool: String,
        /// The declared capabilities the context does not provide.
        missing: Capabilities,
        /// The session's id.
        session: String,
    },
    /// The session's context lacks application state the tool declares.
    MissingState {
        /// The tool.
        tool: String,
        /// The declared state types the context does not hold.
        missing: Vec<StateType>,
        /// The session's id.
        session: String,
    },
    /// The definition's parameter schema cannot be a tool schema.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindError::MissingCapabilities {
                tool,
                missing,
                session,
            } => write!(
                f,
                "tool `{tool}` needs capability `{missing}`, which session `{session}` does not provide; \
                 give the session's context that service, or leave the tool out of this session"
            ),
            BindError::MissingState {
                tool,
                missing,
                session,
            } => write!(
                f,
                "tool `{tool}` needs application state `{}`, which session `{session}` does not provide; \
                 give the session's context one (`ToolContext::with_state`, or `with_state` on the \
                 session factory), or leave the tool out of this session",
                missing
                    .iter()
                    .map(|ty| ty.name())
                    .collect::<Vec<_>>()
                    .join("`, `")
            ),
            BindError::InvalidSchema { tool, reason } => {
                write!(f, "tool `{tool}` has an invalid parameter schema: {reason}")
            }
        }
    }
}

impl std::error::Error for BindError {}

/// A problem with the tools registered in a [`ToolRegistry`](crate::ToolRegistry).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two registrations share a name.
    Duplicate {
        /// The name.
        name: String,
        /// Where the first registration comes from.
        first: String,
        /// Where the second registration comes from.
        second: String,
    },
    /// Two resources or two prompts share a name, or two resources one URI.
    DuplicateEntry {
        /// `resource` or `prompt`.
        kind: &'static str,
        /// The name, or the URI.
        name: String,
        /// Where the first registration comes from.
        first: String,
        /// Where the second registration comes from.
        second: String,
    },
    /// A name is not a valid tool name.
    InvalidName {
        /// What is wrong, with the rule.
        message: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate {
                name,
                first,
                second,
            } => write!(
                f,
                "two tools are registered as `{name}`: `{first}` and `{second}`; rename one (`#[tool(name = \"...\")]`) or register one with `register = false`"
            ),
            RegistryError::DuplicateEntry {
                kind,
                name,
                first,
                second,
            } if name.contains(':') => write!(
                f,
                "two {kind}s answer the URI `{name}`: `{first}` and `{second}`; give one another URI, or register one with `register = false`"
            ),
            RegistryError::DuplicateEntry {
                kind,
                name,
                first,
                second,
            } => write!(
                f,
                "two {kind}s are registered as `{name}`: `{first}` and `{second}`; rename one (`#[{kind}(name = \"...\")]`) or register one with `register = false`"
            ),
            RegistryError::InvalidName { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for RegistryError {}
