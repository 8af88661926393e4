//! Resources and prompts: what an MCP server offers beside tools, designed as tools are.
//!
//! A resource is data a client reads by URI (`test://static-text`), or by a URI template
//! whose variables are its function's typed arguments (`test://template/{id}/data`); a prompt
//! is a message template a person picks, its arguments typed too. Each is a context-free
//! definition written with an attribute ([`macro@resource`], [`macro@prompt`]),
//! registered at link time ([`CatalogRegistry::linked`]), named by a session spec
//! (`resources`, `prompts`) and bound per session with the same compile-time capability
//! checks as tools: a resource function that touches `ctx.chat()` without declaring `chat`
//! does not compile, and binding leaves it out of a session without a chat.
//!
//! A session's bound set is its [`Catalog`] ([`Session::catalog`](crate::Session::catalog));
//! the MCP server lists, reads, gets and completes through it, and forwards the changes said
//! on its [`ResourceUpdates`] to subscribed clients.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use cy_tools::prelude::*;
//! use cy_tools::catalog::{Catalog, PromptMessage};
//!
//! /// The greeting of the day, by language.
//! #[resource(uri = "greetings://{language}", mime_type = "text/plain")]
//! async fn greeting(/** `en` or `fr`. */ language: String) -> Result<&'static str, ToolError> {
//!     match language.as_str() {
//!         "en" => Ok("hello"),
//!         "fr" => Ok("bonjour"),
//!         other => Err(ToolError::new(format!("no greeting in `{other}`: ask for `en` or `fr`"))),
//!     }
//! }
//!
//! /// Asks the model to greet someone.
//! #[prompt(title = "Greet someone")]
//! async fn greet_prompt(/** Who to greet. */ name: String, /** How many times. */ times: u32) -> Vec<PromptMessage> {
//!     vec![PromptMessage::user(format!("Greet {name} {times} times."))]
//! }
//!
//! let catalog = Catalog::linked(&ToolContext::local().into(), &["greeting"], &["greet_prompt"]).unwrap();
//! let cancel = CancellationToken::new();
//! let read = catalog.read("greetings://fr", &cancel).await.unwrap();
//! assert_eq!(serde_json::to_value(&read[0]).unwrap()["text"], "bonjour");
//! let args = serde_json::json!({"name": "Ada", "times": "2"}); // MCP sends strings
//! let reply = catalog.get_prompt("greet_prompt", args.as_object().unwrap().clone(), &cancel).await.unwrap();
//! assert_eq!(reply.messages, [PromptMessage::user("Greet Ada 2 times.")]);
//! # });
//! ```

mod body;
mod bound;
mod complete;
mod contents;
mod error;
mod message;
mod prompt;
mod registry;
mod resource;
mod set;
mod template;
mod updates;

pub use body::Body;
pub use bound::{BoundPrompt, BoundResource};
pub use complete::{Completer, MAX_VALUES};
pub use contents::{IntoReadOutput, ReadOutput, ResourceContents};
pub use cy_tools_macros::{prompt, resource};
pub use error::CatalogError;
pub use message::{IntoPromptReply, PromptMessage, PromptReply, Role};
pub use prompt::{Prompt, PromptArgument, PromptDefinition, PromptMeta};
pub use registry::{CatalogRegistry, PromptRegistration, ResourceRegistration};
pub use resource::{Resource, ResourceDefinition, ResourceMeta};
pub use set::{Catalog, CompletionTarget};
pub use template::UriTemplate;
pub use updates::{ResourceUpdates, UpdateListener};
