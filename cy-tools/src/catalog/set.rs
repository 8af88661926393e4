//! `Catalog`: one session's bound resources and prompts, and the reads, gets and completions
//! a host asks of them.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::bound::{BoundPrompt, BoundResource};
use super::contents::ResourceContents;
use super::error::{CatalogError, listed};
use super::message::PromptReply;
use super::updates::ResourceUpdates;

/// A session's resources and prompts, bound to its context: what its MCP server lists and
/// serves beside its tools. Cloning is cheap and shares them.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use cy_tools::prelude::*;
/// use cy_tools::catalog::Catalog;
///
/// /// The notes of one day.
/// #[resource(uri = "notes://{day}", mime_type = "text/markdown")]
/// async fn day_notes(/** The day, as 2026-12-04. */ day: String) -> String {
///     format!("# Notes of {day}")
/// }
///
/// let catalog = Catalog::linked(&ToolContext::local().into(), &["day_notes"], &[] as &[&str]).unwrap();
/// let cancel = CancellationToken::new();
/// let contents = catalog.read("notes://2026-12-04", &cancel).await.unwrap();
/// assert_eq!(contents[0].mime_type.as_deref(), Some("text/markdown"));
/// let err = catalog.read("notes://a/b", &cancel).await.unwrap_err();
/// assert!(err.to_string().contains("`notes://{day}`"), "{err}");
/// # });
/// ```
#[derive(Clone, Default)]
pub struct Catalog {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    resources: Vec<BoundResource>,
    prompts: Vec<BoundPrompt>,
    updates: ResourceUpdates,
}

/// What a completion completes: an argument of a prompt, or a variable of a resource
/// template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionTarget<'a> {
    /// The prompt of this name.
    Prompt(&'a str),
    /// The resource of this URI template (or a URI it answers).
    Resource(&'a str),
}

impl Catalog {
    /// A catalog of `resources` and `prompts`, in that order, announcing its resources'
    /// changes on `updates`.
    pub fn new(
        resources: Vec<BoundResource>,
        prompts: Vec<BoundPrompt>,
        updates: ResourceUpdates,
    ) -> Self {
        Catalog {
            inner: Arc::new(Inner {
                resources,
                prompts,
                updates,
            }),
        }
    }

    /// The same resources and prompts, announcing changes on `updates`: a hub the application
    /// also gives its tools (as state, say), so a tool that changes a resource can say so.
    ///
    /// ```
    /// use cy_tools::catalog::{Catalog, ResourceUpdates};
    /// let updates = ResourceUpdates::default();
    /// let catalog = Catalog::default().with_updates(updates.clone());
    /// let mut listener = catalog.updates().listen();
    /// updates.updated("test://watched-resource");
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(listener.next().await.as_deref(), Some("test://watched-resource"));
    /// # });
    /// ```
    #[must_use]
    pub fn with_updates(self, updates: ResourceUpdates) -> Self {
        Catalog::new(
            self.inner.resources.clone(),
            self.inner.prompts.clone(),
            updates,
        )
    }

    /// The session's resources, in order (fixed URIs and templates alike).
    pub fn resources(&self) -> &[BoundResource] {
        &self.inner.resources
    }

    /// The session's prompts, in order.
    pub fn prompts(&self) -> &[BoundPrompt] {
        &self.inner.prompts
    }

    /// Whether it has neither resources nor prompts.
    pub fn is_empty(&self) -> bool {
        self.inner.resources.is_empty() && self.inner.prompts.is_empty()
    }

    /// Where the session says a resource changed, and subscribers hear it.
    pub fn updates(&self) -> &ResourceUpdates {
        &self.inner.updates
    }

    /// The resource answering `uri` with its variables' values: a fixed URI first, then the
    /// templates in order.
    pub fn resource(&self, uri: &str) -> Option<(&BoundResource, Vec<(String, String)>)> {
        let resources = &self.inner.resources;
        resources
            .iter()
            .filter(|r| !r.template().is_template())
            .chain(resources.iter().filter(|r| r.template().is_template()))
            .find_map(|r| r.template().matches(uri).map(|vars| (r, vars)))
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&BoundPrompt> {
        self.inner.prompts.iter().find(|p| p.name() == name)
    }

    /// Reads the resource at `uri`.
    ///
    /// # Errors
    /// No resource answers `uri` (the message lists those that do), or the read failed.
    pub async fn read(
        &self,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Vec<ResourceContents>, CatalogError> {
        let Some((resource, vars)) = self.resource(uri) else {
            return Err(CatalogError::UnknownResource {
                uri: uri.to_string(),
                known: listed(self.inner.resources.iter().map(|r| r.template().as_str())),
            });
        };
        resource.read(uri, vars, cancel).await
    }

    /// Gets the prompt `name` with `args`.
    ///
    /// # Errors
    /// No prompt has that name (the message lists those there are), or getting it failed.
    pub async fn get_prompt(
        &self,
        name: &str,
        args: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<PromptReply, CatalogError> {
        match self.prompt(name) {
            Some(prompt) => prompt.get(args, cancel).await,
            None => Err(self.unknown_prompt(name)),
        }
    }

    /// Values to offer for `argument` of `target` when `typed` has been typed.
    ///
    /// # Errors
    /// No prompt or resource template is `target`; an argument it does not take answers no
    /// values rather than an error (a client completes as the user types).
    pub fn complete(
        &self,
        target: CompletionTarget<'_>,
        argument: &str,
        typed: &str,
    ) -> Result<Vec<String>, CatalogError> {
        match target {
            CompletionTarget::Prompt(name) => match self.prompt(name) {
                Some(prompt) => Ok(prompt.definition().complete(argument, typed)),
                None => Err(self.unknown_prompt(name)),
            },
            CompletionTarget::Resource(uri) => {
                let resource = self
                    .inner
                    .resources
                    .iter()
                    .find(|r| r.template().as_str() == uri)
                    .or_else(|| self.resource(uri).map(|(r, _)| r));
                match resource {
                    Some(resource) => Ok(resource.definition().complete(argument, typed)),
                    None => Err(CatalogError::UnknownResource {
                        uri: uri.to_string(),
                        known: listed(self.inner.resources.iter().map(|r| r.template().as_str())),
                    }),
                }
            }
        }
    }

    fn unknown_prompt(&self, name: &str) -> CatalogError {
        CatalogError::UnknownPrompt {
            name: name.to_string(),
            known: listed(self.inner.prompts.iter().map(BoundPrompt::name)),
        }
    }
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("resources", &self.inner.resources)
            .field("prompts", &self.inner.prompts)
            .finish()
    }
}
