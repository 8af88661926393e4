//! What binding reads of a definition, and the one check of a context against it.
//!
//! A registry binds the same definitions again for every session. What it needs of each
//! (schema, capabilities, state types) is fixed for the process, so it reads them once
//! per registry entry instead of through three virtual calls per tool per session.

use std::sync::OnceLock;

use super::context::ToolContext;
use super::error::BindError;
use crate::capability::{Capabilities, check_provided};
use crate::definition::{Definition, Schema};
use crate::state::StateType;

/// A definition's binding facts, read from it once.
pub(crate) struct Resolved {
    pub(crate) schema: &'static Schema,
    pub(crate) capabilities: Capabilities,
    pub(crate) states: &'static [StateType],
}

impl Resolved {
    /// Whether a context that provides `provides` (its [`ToolContext::provides`], read once
    /// per build) can take a tool of this definition: the fast path's whole check.
    pub(crate) fn fits(&self, provides: Capabilities, context: &ToolContext) -> bool {
        self.capabilities.difference(provides).is_empty()
            && self.states.iter().all(|ty| context.has_state(*ty))
    }
}

/// A registry entry's [`Resolved`], read from `definition` the first time it is bound.
///
/// A schema that cannot be a tool schema is not kept: each bind says so again, as binding
/// without the cache would.
pub(crate) fn resolve<'a>(
    cell: &'a OnceLock<Resolved>,
    definition: &'static dyn Definition,
) -> Result<&'a Resolved, BindError> {
    if let Some(resolved) = cell.get() {
        return Ok(resolved);
    }
    let resolved = Resolved {
        schema: definition.schema()?,
        capabilities: definition.capabilities(),
        states: definition.states(),
    };
    Ok(cell.get_or_init(|| resolved))
}

/// The one check of a context against a definition: every declared capability, then every
/// declared state type, each missing one named in the error.
pub(crate) fn check_context(
    name: &str,
    definition: &dyn Definition,
    context: &ToolContext,
) -> Result<(), BindError> {
    check_provided(name, definition.capabilities(), context)?;
    let missing: Vec<_> = definition
        .states()
        .iter()
        .filter(|ty| !context.has_state(**ty))
        .copied()
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(BindError::MissingState {
        tool: name.to_string(),
        missing,
        session: context.session().session_id.clone(),
    })
}
