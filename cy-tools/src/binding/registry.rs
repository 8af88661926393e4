//! `ToolRegistry`: tool names to factories, filled at link time and by the application.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

use super::bound::BoundTool;
use super::context::{IntoSharedContext, ToolContext};
use super::error::{BindError, RegistryError};
use super::name::ToolName;
use super::report::{BuildReport, LeftOut};
use super::resolved::{Resolved, resolve};
use super::toolset::Toolset;
use crate::catalog::CatalogRegistry;
use crate::definition::{Definition, name_problem};

/// One link-time registration: what `#[tool]` submits to `inventory`.
pub struct ToolRegistration {
    definition: &'static dyn Definition,
    location: &'static str,
}

impl ToolRegistration {
    /// A registration of `definition`; `location` names where it comes from (the `#[tool]`
    /// attribute passes `module_path!()` and the function name) for duplicate-name errors.
    pub const fn new(definition: &'static dyn Definition, location: &'static str) -> Self {
        ToolRegistration {
            definition,
            location,
        }
    }
}

impl fmt::Debug for ToolRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistration")
            .field("name", &self.definition.name())
            .field("location", &self.location)
            .finish()
    }
}

inventory::collect!(ToolRegistration);

struct Entry {
    /// The name a tool bound from this entry answers to (the key's text).
    name: ToolName,
    definition: &'static dyn Definition,
    location: Cow<'static, str>,
    /// What binding needs of the definition, read at its first bind (not at registration:
    /// `linked()` would then build every linked tool's schema at start).
    resolved: OnceLock<Resolved>,
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
/// use cy_tools::{BoxFuture, CallInfo, Ctx, SessionIdentity, ToolContext, ToolRegistry, ToolResult, capability::capability_set, definition::ToolDefinition};
///
/// fn ping<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
///     Box::pin(async { ToolResult::text("pong") })
/// }
/// static PING: ToolDefinition<()> = ToolDefinition::new("ping", "Answers pong.", ping);
///
/// let mut registry = ToolRegistry::new();
/// registry.register("ping", &PING).unwrap();
/// let tools = registry.build(&["ping"], &ToolContext::new(SessionIdentity::root("s-1", "acme")));
/// assert_eq!(tools.names(), ["ping"]);
/// ```
pub struct ToolRegistry {
    /// By name, hashed with FNV-1a: binding a session looks up every name it lists, and for
    /// short tool names that is several times cheaper than a sorted map's comparisons or
    /// `std`'s SipHash. The keys are the application's own tool names, not input.
    entries: HashMap<Arc<str>, Entry, BuildHasherDefault<Fnv>>,
    /// The resources and prompts, filled as the tools are.
    catalog: CatalogRegistry,
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
            entries: HashMap::default(),
            catalog: CatalogRegistry::new(),
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

    /// Every tool, resource and prompt registration linked into this binary.
    ///
    /// # Errors
    /// [`RegistryError::Duplicate`] when two registrations share a name (naming both), or
    /// [`RegistryError::InvalidName`].
    pub fn linked() -> Result<Self, RegistryError> {
        let mut registry = ToolRegistry::new();
        registry.catalog = CatalogRegistry::linked()?;
        for registration in inventory::iter::<ToolRegistration> {
            registry.insert(
                registration.definition.name(),
                registration.definition,
                Cow::Borrowed(registration.location),
            )?;
        }
        Ok(registry)
    }

    /// Registers `definition` under `name`, which is the name the model sees (it may differ
    /// from the definition's own, to rename a tool for one deployment).
    ///
    /// # Errors
    /// [`RegistryError::Duplicate`] when `name` is taken, [`RegistryError::InvalidName`] when it
    /// is not a valid tool name.
    pub fn register(
        &mut self,
        name: &str,
        definition: impl Into<&'static dyn Definition>,
    ) -> Result<(), RegistryError> {
        let location = Cow::Owned(format!("registered by hand as `{name}`"));
        self.insert(name, definition.into(), location)
    }

    fn insert(
        &mut self,
        name: &str,
        definition: &'static dyn Definition,
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
        self.entries.insert(
            Arc::from(name),
            Entry {
                name: ToolName::new(name, definition.name()),
                definition,
                location,
                resolved: OnceLock::new(),
            },
        );
        Ok(())
    }

    /// The resources and prompts registered beside the tools: what a session spec's
    /// `resources` and `prompts` name.
    pub fn catalog(&self) -> &CatalogRegistry {
        &self.catalog
    }

    /// The same, to register resources and prompts by hand.
    pub fn catalog_mut(&mut self) -> &mut CatalogRegistry {
        &mut self.catalog
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
        let mut names: Vec<&str> = self.entries.keys().map(|k| &**k).collect();
        names.sort_unstable();
        names
    }

    /// The definition registered under `name`.
    pub fn definition(&self, name: &str) -> Option<&'static dyn Definition> {
        self.entries.get(name).map(|e| e.definition)
    }

    /// Where the tool registered as `name` comes from: for a `#[tool]` function its module path
    /// and name (`cy_tools_builtin::tools::read_file::read_file`), for a hand registration
    /// `registered by hand as ...`.
    pub fn origin(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| &*e.location)
    }

    /// Registered definitions with their names, sorted by name.
    pub fn definitions(&self) -> impl Iterator<Item = (&str, &'static dyn Definition)> {
        let mut definitions: Vec<(&str, &'static dyn Definition)> = self
            .entries
            .values()
            .map(|e| (&*e.name, e.definition))
            .collect();
        definitions.sort_unstable_by_key(|(name, _)| *name);
        definitions.into_iter()
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none are.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Binds the tools named in `names` to `context`, in that order: how a session gets its
    /// tools.
    ///
    /// Unknown names go to the `on_unknown` callback and tools that cannot be bound (a missing
    /// capability: a subagent without chat gets no messaging tools) to `on_unavailable`; both are
    /// left out, so the session starts narrower instead of failing. A name listed twice is bound
    /// once, where it first appears. [`try_build`](Self::try_build) says what was left out
    /// instead.
    pub fn build<S: AsRef<str>>(&self, names: &[S], context: impl IntoSharedContext) -> Toolset {
        self.bind_names(
            names,
            &context.into_shared(),
            |name, left_out| match left_out {
                LeftOut::Unknown => (self.on_unknown)(name),
                LeftOut::Unavailable(err) => (self.on_unavailable)(name, &err),
            },
        )
    }

    /// [`build`](Self::build), but every requested name must be bound: the error is a report
    /// of which names were left out and why, beside the tools that were bound.
    ///
    /// # Errors
    /// [`BuildReport`] when a name is unknown or its tool cannot be bound to `context`.
    ///
    /// ```
    /// use cy_tools::{BoxFuture, CallInfo, Ctx, SessionIdentity, ToolContext, ToolRegistry, ToolResult, capability::capability_set, definition::ToolDefinition};
    ///
    /// capability_set!(ChatCaps: chat);
    /// fn say<'a>(_: (), _: Ctx<'a, ChatCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    ///     Box::pin(async { ToolResult::text("said") })
    /// }
    /// static SAY: ToolDefinition<(), ChatCaps> = ToolDefinition::new("say", "Says it.", say);
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register("say", &SAY).unwrap();
    /// let report = registry
    ///     .try_build(&["say", "fly"], &ToolContext::new(SessionIdentity::root("s-1", "acme")))
    ///     .unwrap_err();
    /// assert!(report.tools.is_empty());
    /// assert_eq!(report.left_out_names(), ["say", "fly"]);
    /// assert!(report.to_string().contains("`fly`: no tool is registered under this name"));
    /// ```
    pub fn try_build<S: AsRef<str>>(
        &self,
        names: &[S],
        context: impl IntoSharedContext,
    ) -> Result<Toolset, BuildReport> {
        let mut left_out = Vec::new();
        let tools = self.bind_names(names, &context.into_shared(), |name, why| {
            left_out.push((name.to_string(), why));
        });
        if left_out.is_empty() {
            Ok(tools)
        } else {
            Err(BuildReport {
                tools,
                left_out,
                registered: self.names().iter().map(|n| n.to_string()).collect(),
            })
        }
    }

    fn bind_names<S: AsRef<str>>(
        &self,
        names: &[S],
        context: &Arc<ToolContext>,
        mut left_out: impl FnMut(&str, LeftOut),
    ) -> Toolset {
        let mut tools = Vec::with_capacity(names.len());
        // A name listed twice is bound once. Compared by entry (an address), not by name: a
        // linear scan of a dozen addresses is cheaper than hashing or comparing the strings.
        let mut seen_small: Vec<*const Entry> = Vec::with_capacity(names.len().min(32));
        let mut seen_large: Option<HashSet<*const Entry>> = (names.len() > 32).then(HashSet::new);
        let mut unknown: Vec<&str> = Vec::new();
        // Read once: every tool's capabilities are checked against it.
        let provides = context.provides();
        for name in names {
            let name = name.as_ref();
            let Some(entry) = self.entries.get(name) else {
                // Reported once, however often it is listed (the rare path: compared by name).
                if !unknown.contains(&name) {
                    unknown.push(name);
                    left_out(name, LeftOut::Unknown);
                }
                continue;
            };
            let at: *const Entry = entry;
            let repeated = match seen_large.as_mut() {
                Some(seen) => !seen.insert(at),
                None if seen_small.contains(&at) => true,
                None => {
                    seen_small.push(at);
                    false
                }
            };
            if repeated {
                continue;
            }
            // The tool is made where it is kept: returned through a `Result`, it was copied
            // out of it with a store-forwarding stall a profile put at a tenth of binding.
            match resolve(&entry.resolved, entry.definition) {
                Ok(resolved) if resolved.fits(provides, context) => tools.push(BoundTool::checked(
                    entry.name.clone(),
                    entry.definition,
                    resolved.schema,
                    context,
                )),
                // Bound the long way, which names what the context lacks.
                Ok(_) => match BoundTool::bind_as(entry.name.clone(), entry.definition, context) {
                    Ok(tool) => tools.push(tool),
                    Err(err) => left_out(name, LeftOut::Unavailable(err)),
                },
                Err(err) => left_out(name, LeftOut::Unavailable(err)),
            }
        }
        Toolset::new(tools)
    }
}

/// FNV-1a over the bytes of a key, for the registry's map of short names.
#[derive(Default)]
pub(super) struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("names", &self.names())
            .finish()
    }
}
