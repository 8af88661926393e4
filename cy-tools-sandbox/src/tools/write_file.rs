//! `write_file`: create or replace a file, atomically.

use cy_tools::prelude::*;
use cy_tools::services::{EntryKind, ServiceErrorKind};

use super::text::size;

/// Write a text file in the workspace, replacing it if it exists and creating missing parent
/// folders. The write is atomic: the file holds the old or the new contents, never a mix.
#[tool(
    title = "Write file",
    capabilities(env),
    destructive,
    idempotent,
    open_world = false
)]
pub async fn write_file(
    ctx: Ctx<'_>,
    /// Path of the file, relative to the workspace root (or under `/workspace/`).
    path: String,
    /// The complete new contents.
    content: String,
) -> Result<String, ToolError> {
    let env = ctx.env();
    let existed = match env.stat(&path).await {
        Ok(info) => info.kind == EntryKind::File,
        Err(err) if err.kind() == ServiceErrorKind::NotFound => false,
        Err(err) => return Err(err.into()),
    };
    let bytes = content.len() as u64;
    env.write(&path, content.into_bytes()).await?;
    let verb = if existed { "replaced" } else { "created" };
    Ok(format!("{verb} `{path}` ({})", size(bytes)))
}
