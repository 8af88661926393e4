//! The composition root: which tools a session gets, in which order.
//!
//! The order is the design's: `execute_code` always (it is the core affordance); then the tools
//! the chat brings ([`Chat::tools`](cy_tools::services::Chat::tools)), only when a chat is bound; then the spec's other tools, in
//! its order; then the caller's [`Extras`] for this session; then the delegation tools when the
//! session may start subagents. A name in the spec that belongs to one of the other groups is
//! placed with its group, so the order does not depend on how the spec was written.
//!
//! The spec holds names only; the chat's tools come from the chat each time the session is
//! built, and the extras from whoever builds it (`create_with`, `resume_with`): they may be
//! the caller's own definitions and objects, which no spec can hold.

use std::sync::Arc;

use cy_tools::definition::Definition;
use cy_tools::services::ChatTool;
use cy_tools::state::{AppState, StateMap};
use cy_tools::{SessionSpec, ToolContext, ToolRegistry, Toolset};

use crate::tools::{delegate, workflow};

/// The tool every session gets first.
pub const EXECUTE_CODE: &str = "execute_code";

/// The tools a session gets when its spec declares subagents and it is above the maximum depth.
pub const DELEGATION_TOOLS: &[&str] = &["delegate", "workflow"];

/// Tools (and the objects they take) that the caller of
/// [`create_with`](super::LocalSessionFactory::create_with) or
/// [`resume_with`](super::LocalSessionFactory::resume_with) adds to one session, without
/// registering them for every session.
///
/// They are bound to that session's context like the spec's tools (a tool whose capability or
/// state the session lacks is refused) and their calls are recorded in its log, but they are
/// not stored in the spec: a resumed session has the extras its resumer passes, and a child
/// none of its parent's.
///
/// ```
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::prelude::*;
/// use cy_tools::SessionSpec;
/// use cy_tools_session::{compose::Extras, LocalSessionFactory};
///
/// struct Ticket(u32);
///
/// /// Close the ticket this session works on.
/// #[tool(register = false)]
/// async fn close_ticket(ticket: State<'_, Ticket>) -> String {
///     format!("ticket {} closed", ticket.0)
/// }
///
/// let dir = tempfile::tempdir().unwrap();
/// let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
/// let spec = SessionSpec::root("s-1", "acme", dir.path().join("w").to_str().unwrap())
///     .with_tools(["read_file"]);
/// let extras = Extras::new().with_tool(&CLOSE_TICKET).with_state(Ticket(42));
/// let session = factory.create_with(spec, extras).await.unwrap();
/// assert_eq!(session.tools().names(), ["execute_code", "read_file", "close_ticket"]);
/// let call = ToolCall::new("c1", serde_json::json!({}));
/// let closed = session.execute("close_ticket", call, &CancellationToken::new()).await;
/// assert_eq!(closed.text_content(), "ticket 42 closed");
/// // Not stored: resumed without extras, the session has the spec's tools only.
/// assert_eq!(factory.resume("s-1").await.unwrap().tools().names(), ["execute_code", "read_file"]);
/// # });
/// ```
#[derive(Clone, Default)]
pub struct Extras {
    tools: Vec<&'static dyn Definition>,
    state: StateMap,
}

impl Extras {
    /// No extra tools.
    pub fn new() -> Self {
        Extras::default()
    }

    /// The same extras with `definition` added after the others.
    #[must_use]
    pub fn with_tool(mut self, definition: &'static dyn Definition) -> Self {
        self.tools.push(definition);
        self
    }

    /// The same extras with the object `value`, which this session's tools (the extras and
    /// the others) take as `State<'_, T>`; it replaces an object of the same type the factory
    /// gives every session.
    #[must_use]
    pub fn with_state<T: AppState>(mut self, value: T) -> Self {
        self.state = std::mem::take(&mut self.state).insert(value);
        self
    }

    /// The extra tools' names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|d| d.name()).collect()
    }

    /// The objects for this session.
    pub fn state(&self) -> &StateMap {
        &self.state
    }

    /// Whether there are no tools and no objects.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.state.is_empty()
    }
}

impl std::fmt::Debug for Extras {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extras")
            .field("tools", &self.names())
            .field("state", &self.state)
            .finish()
    }
}

/// Which group of the order a tool belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// `execute_code`.
    Core,
    /// Brought by the bound chat.
    Chat,
    /// Named in the spec.
    Spec,
    /// Given by the caller for this session.
    Extra,
    /// `delegate` and `workflow`.
    Delegation,
}

/// One tool of a session's plan: its name, its group and, for a chat's own definition or an
/// extra, the definition (the others are looked up in the registry by name).
#[derive(Clone, Copy)]
pub struct Planned<'a> {
    /// The name the model sees.
    pub name: &'a str,
    /// Its group.
    pub group: Group,
    /// The definition, when it does not come from the registry.
    pub definition: Option<&'static dyn Definition>,
}

impl std::fmt::Debug for Planned<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planned")
            .field("name", &self.name)
            .field("group", &self.group)
            .field("registered", &self.definition.is_none())
            .finish()
    }
}

/// A session's tools in order: `spec`'s, with the tools of its bound chat (`chat`, empty when
/// none is bound) and the caller's `extras`.
///
/// # Errors
/// An extra has the name of a tool the session already has (from the spec, the chat or
/// another extra): the message names both, so the caller can rename one.
///
/// ```
/// use cy_tools::{SessionSpec, session::SubagentProfile};
/// use cy_tools::services::ChatTool;
/// use cy_tools_session::compose::{plan, Extras, Group};
///
/// let spec = SessionSpec::root("s-1", "acme", "/w")
///     .with_tools(["delegate", "read_file", "send_message", "write_file"])
///     .with_subagent(SubagentProfile::new("worker", ["read_file"]));
/// let names = |chat: &[ChatTool]| -> Vec<String> {
///     plan(&spec, chat, &Extras::new()).unwrap().iter().map(|p| p.name.to_string()).collect()
/// };
/// assert_eq!(
///     names(&[ChatTool::SEND_MESSAGE]),
///     ["execute_code", "send_message", "read_file", "write_file", "delegate", "workflow"]
/// );
/// // Without a chat, `send_message` stays where the spec put it, and binding leaves it out
/// // (it needs the chat capability).
/// assert_eq!(names(&[]), ["execute_code", "read_file", "send_message", "write_file", "delegate", "workflow"]);
/// assert_eq!(plan(&spec, &[], &Extras::new()).unwrap()[1].group, Group::Spec);
/// ```
pub fn plan<'a>(
    spec: &'a SessionSpec,
    chat: &'a [ChatTool],
    extras: &'a Extras,
) -> Result<Vec<Planned<'a>>, String> {
    let mut planned: Vec<Planned<'a>> = Vec::with_capacity(spec.tools.len() + chat.len() + 4);
    let taken = |planned: &[Planned<'_>], name: &str| planned.iter().any(|p| p.name == name);
    planned.push(Planned {
        name: EXECUTE_CODE,
        group: Group::Core,
        definition: None,
    });
    for tool in chat {
        let name = tool.name();
        if taken(&planned, name) || is_delegation(name) {
            tracing::warn!(
                tool = name,
                "the chat brings a tool `{name}`, but the session has one by that name already; the chat's is left out"
            );
            continue;
        }
        planned.push(Planned {
            name,
            group: Group::Chat,
            definition: match tool {
                ChatTool::Named(_) => None,
                ChatTool::Definition(definition) => Some(*definition),
            },
        });
    }
    for name in &spec.tools {
        if !is_delegation(name) && !taken(&planned, name) {
            planned.push(Planned {
                name,
                group: Group::Spec,
                definition: None,
            });
        }
    }
    let delegation: &[&str] = if spec.can_delegate() {
        DELEGATION_TOOLS
    } else {
        &[]
    };
    for definition in &extras.tools {
        let name = definition.name();
        if let Some(first) = planned.iter().find(|p| p.name == name) {
            return Err(format!(
                "extra tool `{name}` has the name of a tool session `{}` has already ({}); rename the extra (register it under another name) or leave the other out",
                spec.id(),
                match first.group {
                    Group::Core => "the core tool",
                    Group::Chat => "brought by its chat",
                    Group::Spec => "named in its spec",
                    Group::Extra => "another extra",
                    Group::Delegation => "a delegation tool",
                }
            ));
        }
        if delegation.contains(&name) {
            return Err(format!(
                "extra tool `{name}` has the name of a delegation tool of session `{}`; rename the extra",
                spec.id()
            ));
        }
        planned.push(Planned {
            name,
            group: Group::Extra,
            definition: Some(*definition),
        });
    }
    for name in delegation {
        planned.push(Planned {
            name,
            group: Group::Delegation,
            definition: None,
        });
    }
    Ok(planned)
}

/// Binds a plan to `context`. Registry names go through `registry` (an unknown or unbindable
/// one is left out through its callbacks, as for any spec); a chat's own definition that
/// cannot be bound is left out with a warning; an extra that cannot be bound is an error,
/// since its caller asked for it for this very session. Without `runner`, the delegation tools
/// are the inert ones that say delegation is unavailable.
pub(super) fn bind(
    plan: &[Planned<'_>],
    registry: &ToolRegistry,
    context: &Arc<ToolContext>,
    runner: bool,
) -> Result<Toolset, String> {
    let mut tools = Toolset::default();
    for planned in plan {
        match (planned.group, planned.definition) {
            (Group::Delegation, _) if !runner => {
                let inert: &'static dyn Definition = match planned.name {
                    "delegate" => &delegate::DELEGATE_UNAVAILABLE,
                    _ => &workflow::WORKFLOW_UNAVAILABLE,
                };
                match cy_tools::binding::bind_tool(inert, Arc::clone(context)) {
                    Ok(tool) => tools.push(tool),
                    Err(err) => tracing::warn!("inert `{}` left out: {err}", inert.name()),
                }
            }
            (_, None) => {
                for tool in registry.build(&[planned.name], Arc::clone(context)) {
                    tools.push(tool);
                }
            }
            (group, Some(definition)) => {
                match cy_tools::binding::bind_tool(definition, Arc::clone(context)) {
                    Ok(tool) => tools.push(tool),
                    Err(err) if group == Group::Extra => {
                        return Err(format!(
                            "extra tool `{}` cannot be bound: {err}",
                            planned.name
                        ));
                    }
                    Err(err) => tracing::warn!(
                        tool = planned.name,
                        "tool `{}` of the chat left out of the session: {err}",
                        planned.name
                    ),
                }
            }
        }
    }
    Ok(tools)
}

/// Whether `name` is one of the delegation tools.
pub fn is_delegation(name: &str) -> bool {
    DELEGATION_TOOLS.contains(&name)
}
