//! Workspace file tools: a `Ctx` parameter, a context field taken directly, defaults and
//! optional arguments.

use cy_tools::prelude::*;
use cy_tools::services::Sandbox;

/// Read a UTF-8 text file from the session workspace.
#[tool(capabilities(env), read_only)]
pub async fn read_lines(
    ctx: Ctx<'_>,
    /// Path relative to the workspace root.
    path: String,
    /// 1-based line to start from.
    #[arg(default = 1)]
    offset: u64,
    /// Maximum number of lines to return.
    limit: Option<u64>,
) -> Result<String, ToolError> {
    let bytes = ctx.env().read(&path).await?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(format!("`{path}` is not UTF-8 text; read another file")))?;
    let lines = text
        .lines()
        .skip(usize::try_from(offset.saturating_sub(1)).unwrap_or(usize::MAX));
    let taken: Vec<&str> = match limit {
        Some(n) => lines
            .take(usize::try_from(n).unwrap_or(usize::MAX))
            .collect(),
        None => lines.collect(),
    };
    Ok(taken.join("\n"))
}

/// Write a UTF-8 text file in the session workspace, replacing what was there.
#[tool(capabilities(env), idempotent, title = "Write file", timeout = "30s")]
pub async fn save_text(
    env: &dyn Sandbox,
    /// Path relative to the workspace root.
    path: String,
    /// The new contents.
    contents: String,
) -> Result<String, ToolError> {
    let bytes = contents.len();
    env.write(&path, contents.into_bytes()).await?;
    Ok(format!("wrote {bytes} bytes to `{path}`"))
}
