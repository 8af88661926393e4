//! `CatalogRegistry`: resource and prompt names to definitions, filled at link time and by the
//! application, as `ToolRegistry` is for tools.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::bound::{BoundPrompt, BoundResource};
use super::error::listed;
use super::prompt::Prompt;
use super::resource::Resource;
use super::set::Catalog;
use super::updates::ResourceUpdates;
use crate::binding::{RegistryError, ToolContext};
use crate::definition::name_problem;

/// One link-time registration of a resource: what `#[resource]` submits to `inventory`.
pub struct ResourceRegistration {
    definition: &'static dyn Resource,
    location: &'static str,
}

impl ResourceRegistration {
    /// A registration of `definition`, coming from `location` (for duplicate errors).
    pub const fn new(definition: &'static dyn Resource, location: &'static str) -> Self {
        ResourceRegistration {
            definition,
            location,
        }
    }
}

/// One link-time registration of a prompt: what `#[prompt]` submits to `inventory`.
pub struct PromptRegistration {
    definition: &'static dyn Prompt,
    location: &'static str,
}

impl PromptRegistration {
    /// A registration of `definition`, coming from `location` (for duplicate errors).
    pub const fn new(definition: &'static dyn Prompt, location: &'static str) -> Self {
        PromptRegistration {
            definition,
            location,
        }
    }
}

inventory::collect!(ResourceRegistration);
inventory::collect!(PromptRegistration);

/// Resource and prompt names to their definitions: the bridge between a session spec's names
/// and a session's [`Catalog`].
///
/// ```
/// use cy_tools::prelude::*;
/// use cy_tools::catalog::CatalogRegistry;
///
/// /// Asks for a code review.
/// #[prompt]
/// async fn review(/** The code. */ code: String) -> String {
///     format!("Review this code:\n{code}")
/// }
///
/// let registry = CatalogRegistry::linked().unwrap();
/// assert!(registry.prompt_names().contains(&"review"));
/// let (catalog, left_out) = registry.build(&[] as &[&str], &["review", "nope"], &ToolContext::local().into());
/// assert_eq!(catalog.prompts().len(), 1);
/// assert!(left_out[0].1.contains("no prompt is registered as `nope`"), "{}", left_out[0].1);
/// ```
#[derive(Clone, Default)]
pub struct CatalogRegistry {
    resources: BTreeMap<String, (&'static dyn Resource, String)>,
    prompts: BTreeMap<String, (&'static dyn Prompt, String)>,
}

impl CatalogRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        CatalogRegistry::default()
    }

    /// Every resource and prompt registration linked into this binary.
    ///
    /// # Errors
    /// Two resources (or two prompts) share a name, two resources a URI, or a name is not
    /// valid.
    pub fn linked() -> Result<Self, RegistryError> {
        let mut registry = CatalogRegistry::new();
        for r in inventory::iter::<ResourceRegistration> {
            registry.insert_resource(r.definition, r.location.to_string())?;
        }
        for p in inventory::iter::<PromptRegistration> {
            registry.insert_prompt(p.definition, p.location.to_string())?;
        }
        Ok(registry)
    }

    /// Registers a resource under its own name.
    ///
    /// # Errors
    /// As [`linked`](Self::linked).
    pub fn register_resource(
        &mut self,
        definition: impl Into<&'static dyn Resource>,
    ) -> Result<(), RegistryError> {
        let definition = definition.into();
        let location = format!("registered by hand as `{}`", definition.meta().name());
        self.insert_resource(definition, location)
    }

    /// Registers a prompt under its own name.
    ///
    /// # Errors
    /// As [`linked`](Self::linked).
    pub fn register_prompt(
        &mut self,
        definition: impl Into<&'static dyn Prompt>,
    ) -> Result<(), RegistryError> {
        let definition = definition.into();
        let location = format!("registered by hand as `{}`", definition.meta().name());
        self.insert_prompt(definition, location)
    }

    fn insert_resource(
        &mut self,
        definition: &'static dyn Resource,
        location: String,
    ) -> Result<(), RegistryError> {
        let meta = definition.meta();
        check_name(meta.name())?;
        let duplicate = |name: &str, first: &String| RegistryError::DuplicateEntry {
            kind: "resource",
            name: name.to_string(),
            first: first.clone(),
            second: location.clone(),
        };
        if let Some((_, first)) = self.resources.get(meta.name()) {
            return Err(duplicate(meta.name(), first));
        }
        if let Some((_, first)) = self
            .resources
            .values()
            .find(|(d, _)| d.meta().uri() == meta.uri())
        {
            return Err(duplicate(meta.uri(), first));
        }
        self.resources
            .insert(meta.name().to_string(), (definition, location));
        Ok(())
    }

    fn insert_prompt(
        &mut self,
        definition: &'static dyn Prompt,
        location: String,
    ) -> Result<(), RegistryError> {
        let name = definition.meta().name();
        check_name(name)?;
        if let Some((_, first)) = self.prompts.get(name) {
            return Err(RegistryError::DuplicateEntry {
                kind: "prompt",
                name: name.to_string(),
                first: first.clone(),
                second: location,
            });
        }
        self.prompts
            .insert(name.to_string(), (definition, location));
        Ok(())
    }

    /// Registered resource names, sorted.
    pub fn resource_names(&self) -> Vec<&str> {
        self.resources.keys().map(String::as_str).collect()
    }

    /// Registered prompt names, sorted.
    pub fn prompt_names(&self) -> Vec<&str> {
        self.prompts.keys().map(String::as_str).collect()
    }

    /// The resource registered as `name`.
    pub fn resource(&self, name: &str) -> Option<&'static dyn Resource> {
        self.resources.get(name).map(|(d, _)| *d)
    }

    /// The prompt registered as `name`.
    pub fn prompt(&self, name: &str) -> Option<&'static dyn Prompt> {
        self.prompts.get(name).map(|(d, _)| *d)
    }

    /// Where the resource or prompt registered as `name` comes from.
    pub fn origin(&self, name: &str) -> Option<&str> {
        self.resources
            .get(name)
            .map(|(_, l)| l.as_str())
            .or_else(|| self.prompts.get(name).map(|(_, l)| l.as_str()))
    }

    /// Binds the resources and prompts named to `context`, in the order named (a name given
    /// twice once): the catalog, and each name left out with why.
    ///
    /// The catalog announces its resources' changes on the context's [`ResourceUpdates`]
    /// state when it has one (so a tool taking `State<'_, ResourceUpdates>` tells the same
    /// subscribers; the command line and `cy-tools-session`'s factory give every session one),
    /// else on a hub of its own.
    pub fn build<R: AsRef<str>, P: AsRef<str>>(
        &self,
        resources: &[R],
        prompts: &[P],
        context: &Arc<ToolContext>,
    ) -> (Catalog, Vec<(String, String)>) {
        let mut left_out = Vec::new();
        let mut bound_resources: Vec<BoundResource> = Vec::new();
        for name in resources.iter().map(AsRef::as_ref) {
            if bound_resources.iter().any(|r| r.name() == name) {
                continue;
            }
            match self.resource(name) {
                None => left_out.push((
                    name.to_string(),
                    format!(
                        "no resource is registered as `{name}`; registered resources are {}",
                        listed(self.resource_names().into_iter())
                    ),
                )),
                Some(definition) => match BoundResource::bind(definition, context) {
                    Ok(bound) => bound_resources.push(bound),
                    Err(why) => left_out.push((name.to_string(), why)),
                },
            }
        }
        let mut bound_prompts: Vec<BoundPrompt> = Vec::new();
        for name in prompts.iter().map(AsRef::as_ref) {
            if bound_prompts.iter().any(|p| p.name() == name) {
                continue;
            }
            match self.prompt(name) {
                None => left_out.push((
                    name.to_string(),
                    format!(
                        "no prompt is registered as `{name}`; registered prompts are {}",
                        listed(self.prompt_names().into_iter())
                    ),
                )),
                Some(definition) => match BoundPrompt::bind(definition, context) {
                    Ok(bound) => bound_prompts.push(bound),
                    Err(why) => left_out.push((name.to_string(), why)),
                },
            }
        }
        for (name, why) in &left_out {
            tracing::warn!(name = name.as_str(), "left out of the session: {why}");
        }
        let updates = context
            .state::<ResourceUpdates>()
            .cloned()
            .unwrap_or_default();
        let catalog = Catalog::new(bound_resources, bound_prompts, updates);
        (catalog, left_out)
    }

    /// Every registered resource and prompt bound to `context` (those that cannot be are left
    /// out, with why): what `cy-tools mcp` serves.
    pub fn build_all(&self, context: &Arc<ToolContext>) -> (Catalog, Vec<(String, String)>) {
        self.build(&self.resource_names(), &self.prompt_names(), context)
    }
}

fn check_name(name: &str) -> Result<(), RegistryError> {
    match name_problem(name) {
        Some(message) => Err(RegistryError::InvalidName { message }),
        None => Ok(()),
    }
}

impl fmt::Debug for CatalogRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatalogRegistry")
            .field("resources", &self.resource_names())
            .field("prompts", &self.prompt_names())
            .finish()
    }
}

impl Catalog {
    /// The linked resources and prompts named, bound to `context`: every name must be
    /// registered and bind.
    ///
    /// # Errors
    /// Each name left out, with why, one per line; or the linked registrations clash.
    pub fn linked<R: AsRef<str>, P: AsRef<str>>(
        context: &Arc<ToolContext>,
        resources: &[R],
        prompts: &[P],
    ) -> Result<Catalog, String> {
        let registry = CatalogRegistry::linked().map_err(|err| err.to_string())?;
        let (catalog, left_out) = registry.build(resources, prompts, context);
        if left_out.is_empty() {
            return Ok(catalog);
        }
        Err(left_out
            .iter()
            .map(|(name, why)| format!("`{name}`: {why}"))
            .collect::<Vec<_>>()
            .join("\n"))
    }
}
