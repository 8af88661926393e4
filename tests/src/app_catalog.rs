//! The resources and prompt only this application's own binary, `cy-tools-app`, adds: a fixed
//! resource, a URI template over the workspace's files, a prompt embedding one, and the tool
//! that tells subscribers a file changed. Behind the `app` feature, as `app.rs` is.

use cy_tools::call::Content;
use cy_tools::catalog::{PromptMessage, ResourceUpdates, Role, prompt, resource};
use cy_tools::prelude::*;

/// What this application is.
#[resource(uri = "app://about", mime_type = "text/plain", title = "About")]
pub async fn about_app() -> &'static str {
    "cy-tools-app: the integration suite's application"
}

/// A text file at the top of the session's workspace, by name.
#[resource(
    uri = "workspace://{name}",
    mime_type = "text/plain",
    capabilities(env)
)]
pub async fn workspace_file(
    ctx: Ctx<'_>,
    /// The file's name, at the workspace's top level.
    name: String,
) -> Result<String, ToolError> {
    let bytes = ctx.env().read(&name).await?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Asks the model to summarize a file of the workspace in so many words.
#[prompt(title = "Summarize a file", capabilities(env))]
pub async fn summarize_file(
    ctx: Ctx<'_>,
    /// The file's name, at the workspace's top level.
    name: String,
    /// At most this many words [default: 50].
    words: Option<u32>,
) -> Result<Vec<PromptMessage>, ToolError> {
    let text = String::from_utf8_lossy(&ctx.env().read(&name).await?).into_owned();
    Ok(vec![
        PromptMessage::user(format!(
            "Summarize `{name}` in at most {} words.",
            words.unwrap_or(50)
        )),
        PromptMessage::new(
            Role::User,
            Content::embedded_text(format!("workspace://{name}"), "text/plain", text),
        ),
    ])
}

/// Tell the clients subscribed to a workspace file that it changed, so they read it again.
#[tool(destructive = false, idempotent, open_world = false)]
pub async fn touch_file(
    updates: State<'_, ResourceUpdates>,
    /// The file's name, at the workspace's top level.
    name: String,
) -> String {
    updates.updated(&format!("workspace://{name}"));
    format!("told the subscribers of workspace://{name}")
}
