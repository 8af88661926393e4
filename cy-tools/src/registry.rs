//! `ToolRegistry`: tool names to factories, filled at link time and by the application.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::Arc;

use crate::name::name_problem;
use crate::{AgentTool, BindError, DynTool, RegistryError, ToolContext, Toolset};

/// The recipe for a session's tool: a context-free definition that [`bind`](Self::bind) turns
/// into an [`AgentTool`] for one context. `const`-constructible, so `inventory::submit!` takes it.
#[derive(Clone, Copy)]
pub struct ToolFactory {
    definition: &'static dyn DynTool,
}

impl ToolFactory {
    /// The factory of `definition`.
    pub const fn new(definition: &'static dyn DynTool) -> Self {
        ToolFactory { definition }
    }

    /// The definition it binds.
    pub fn definition(&self) -> &'static dyn DynTool {
        self.definition
    }

    /// Binds the definition under its own name.
    ///
    /// # Errors
    /// As [`bind_tool`](crate::bind_tool).
    pub fn bind(&self, context: &Arc<ToolContext>) -> Result<AgentTool, BindError> {
        AgentTool::bind(Arc::from(self.definition.name()), self.definition, context)
    }
}

impl fmt::Debug for ToolFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolFactory")
            .field(&self.definition.name())
            .finish()
    }
}

/// One link-time registration: what `#[tool]` submits to `inventory`.
#[derive(Debug)]
pub struct ToolRegistration {
    factory: ToolFactory,
    location: &'static str,
}

impl ToolRegistration {
    /// A registration of `definition`; `location` names where it comes from (the `#[tool]`
    /// attribute passes `module_path!()` and the function name) for duplicate-name errors.
    pub const fn new(definition: &'static dyn DynTool, location: &'static str) -> Self {
        ToolRegistration {
            factory: ToolFactory::new(definition),
            location,
        }
    }
}

inventory::collect!(ToolRegistration);

struct Entry {
    name: Arc<str>,
    factory: ToolFactory,
    location: Cow<'static, str>,
}

type OnUnknown = Arc<dyn Fn(&str) + Send + Sync>;
type OnUnavailable = Arc<dyn Fn(&str, &BindError) + Send + Sync>;

/// Names to tool factories: the bridge between a session spec (names only) and live tools.
///
/// [`linked`](Self::linked) collects every definition linked into the binary (built-ins and the
/// application's own `#[tool]` functions); [`register`](Self::register) adds more by hand.
/// [`build`](Self::build) binds a list of names to one session's context.
///
/// A crate that nothing references is not linked, and its tools vanish from `linked()`: an
/// application that only wants a tool crate's registrations should still name it, as in
/// `use cy_tools_builtin as _;`.
///
/// ```
/// use cy_tools::{capability_set, BoxFuture, CallInfo, Ctx, SessionIdentity, ToolContext, ToolDefinition, ToolFactory, ToolRegistry, ToolResult};
///
/// fn ping<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
///     Box::pin(async { ToolResult::text("pong") })
/// }
/// static PING: ToolDefinition<()> = ToolDefinition::new("ping", "Answers pong.", ping);
///
/// let mut registry = ToolRegistry::new();
/// registry.register("ping", ToolFactory::new(&PING)).unwrap();
/// let tools = registry.build(&["ping"], &ToolContext::new(SessionIdentity::root("s-1", "acme")));
/// assert_eq!(tools.names(), ["ping"]);
/// ```
pub struct ToolRegistry {
    entries: BTreeMap<Arc<str>, Entry>,
    on_unknown: OnUnknown,
    on_unavailable: OnUnavailable,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        ToolRegistry::new()
    }
}

impl ToolRegistry {
    /// An empty registry whose callbacks log a `tracing` warning.
    pub fn new() -> Self {
        ToolRegistry {
            entries: BTreeMap::new(),
            on_unknown: Arc::new(|name| {
                tracing::warn!(
                    tool = name,
                    "session spec names tool `{name}`, which is not registered in this process; the session starts without it"
                );
            }),
            on_unavailable: Arc::new(|name, err| {
                tracing::warn!(tool = name, "tool `{name}` left out of the session: {err}");
            }),
        }
    }

    /// Every tool registration linked into this binary.
    ///
    /// # Errors
    /// [`RegistryError::Duplicate`] when two registrations share a name (naming both), or
    /// [`RegistryError::InvalidName`].
    pub fn linked() -> Result<Self, RegistryError> {
        let mut registry = ToolRegistry::new();
        for registration in inventory::iter::<ToolRegistration> {
            let name = registration.factory.definition.name();
            registry.insert(
                name,
                registration.factory,
                Cow::Borrowed(registration.location),
            )?;
        }
        Ok(registry)
    }

    /// Registers `factory` under `name`, which is the name the model sees (it may differ from
    /// the definition's own, to rename a tool for one deployment).
    ///
    /// # Errors
    /// [`RegistryError::Duplicate`] when `name` is taken, [`RegistryError::InvalidName`] when it
    /// is not a valid tool name.
    pub fn register(&mut self, name: &str, factory: ToolFactory) -> Result<(), RegistryError> {
        let location = Cow::Owned(format!("registered by hand as `{name}`"));
        self.insert(name, factory, location)
    }

    fn insert(
        &mut self,
        name: &str,
        factory: ToolFactory,
        location: Cow<'static, str>,
    ) -> Result<(), RegistryError> {
        if let Some(message) = name_problem(name) {
            return Err(RegistryError::InvalidName { message });
        }
        if let Some(existing) = self.entries.get(name) {
            return Err(RegistryError::Duplicate {
                name: name.to_string(),
                first: existing.location.to_string(),
                second: location.into_owned(),
            });
        }
        let name: Arc<str> = Arc::from(name);
        self.entries.insert(
            Arc::clone(&name),
            Entry {
                name,
                factory,
                location,
            },
        );
        Ok(())
    }

    /// Sets what happens when [`build`](Self::build) meets a name nothing is registered under.
    #[must_use]
    pub fn on_unknown(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_unknown = Arc::new(callback);
        self
    }

    /// Sets what happens when [`build`](Self::build) leaves out a tool that cannot be bound to
    /// the context (typically a capability the session does not provide).
    #[must_use]
    pub fn on_unavailable(
        mut self,
        callback: impl Fn(&str, &BindError) + Send + Sync + 'static,
    ) -> Self {
        self.on_unavailable = Arc::new(callback);
        self
    }

    /// Registered names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(|k| &**k).collect()
    }

    /// The factory registered under `name`.
    pub fn get(&self, name: &str) -> Option<ToolFactory> {
        self.entries.get(name).map(|e| e.factory)
    }

    /// Where the tool registered as `name` comes from: for a `#[tool]` function its module path
    /// and name (`cy_tools_builtin::tools::read_file::read_file`), for a hand registration
    /// `registered by hand as ...`.
    pub fn origin(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| &*e.location)
    }

    /// Registered definitions with their names, sorted by name.
    pub fn definitions(&self) -> impl Iterator<Item = (&str, &'static dyn DynTool)> {
        self.entries
            .values()
            .map(|e| (&*e.name, e.factory.definition))
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none are.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Binds the tools named in `names` to `context`, in that order.
    ///
    /// Unknown names go to the `on_unknown` callback and tools that cannot be bound (a missing
    /// capability: a subagent without chat gets no messaging tools) to `on_unavailable`; both are
    /// left out, so the session starts narrower instead of failing. A name listed twice is bound
    /// once, where it first appears.
    pub fn build<S: AsRef<str>>(&self, names: &[S], context: &ToolContext) -> Toolset {
        self.build_shared(names, Arc::new(context.clone()))
    }

    /// [`build`](Self::build) for a context already in an `Arc`.
    pub fn build_shared<S: AsRef<str>>(&self, names: &[S], context: Arc<ToolContext>) -> Toolset {
        let mut tools = Vec::with_capacity(names.len());
        // A linear scan is cheaper than hashing for the usual dozen names.
        let mut seen_small: Vec<&str> = Vec::with_capacity(names.len().min(32));
        let mut seen_large: Option<HashSet<&str>> = (names.len() > 32).then(HashSet::new);
        for name in names {
            let name = name.as_ref();
            let repeated = match seen_large.as_mut() {
                Some(seen) => !seen.insert(name),
                None if seen_small.contains(&name) => true,
                None => {
                    seen_small.push(name);
                    false
                }
            };
            if repeated {
                continue;
            }
            let Some(entry) = self.entries.get(name) else {
                (self.on_unknown)(name);
                continue;
            };
            match AgentTool::bind(Arc::clone(&entry.name), entry.factory.definition, &context) {
                Ok(tool) => tools.push(tool),
                Err(err) => (self.on_unavailable)(name, &err),
            }
        }
        Toolset::new(tools)
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("names", &self.names())
            .finish()
    }
}
