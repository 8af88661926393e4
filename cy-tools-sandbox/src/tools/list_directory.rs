//! `list_directory`: the entries of a folder, with kind and size.

use cy_tools::prelude::*;
use cy_tools::services::{EntryKind, WalkOptions};

use super::text::size;

/// Entries listed at most in one call.
const MAX_ENTRIES: usize = 1000;
/// Deepest listing accepted.
const MAX_DEPTH: u32 = 10;

/// List a folder of the workspace: one entry per line, sorted, folders ending in `/`, files
/// with their size, symbolic links marked. `depth` above 1 lists subfolders too.
#[tool(
    title = "List directory",
    capabilities(env),
    read_only,
    idempotent,
    open_world = false
)]
pub async fn list_directory(
    ctx: Ctx<'_>,
    /// Folder to list, relative to the workspace root (`.` for the root).
    #[arg(default = ".")]
    path: String,
    /// How many levels to list (1: only this folder's own entries; at most 10).
    #[arg(default = 1)]
    depth: u32,
) -> Result<String, ToolError> {
    if depth == 0 || depth > MAX_DEPTH {
        return Err(ToolError::new(format!(
            "`depth` must be between 1 and {MAX_DEPTH}, got {depth}"
        )));
    }
    let walk = ctx
        .env()
        .walk(
            &path,
            WalkOptions {
                max_depth: depth as usize,
                respect_gitignore: false,
                include_hidden: true,
                max_entries: MAX_ENTRIES,
            },
        )
        .await?;
    if walk.entries.is_empty() {
        return Ok(format!("`{path}` is empty"));
    }
    let mut lines: Vec<String> = walk
        .entries
        .iter()
        .map(|e| match e.kind {
            EntryKind::Dir => format!("{}/", e.path),
            EntryKind::File => format!("{}  ({})", e.path, size(e.size)),
            EntryKind::Symlink => format!("{}  (symbolic link)", e.path),
            EntryKind::Other => format!("{}  (special file)", e.path),
        })
        .collect();
    if walk.truncated {
        lines.push(format!(
            "[stopped at {MAX_ENTRIES} entries; list a subfolder or use a smaller depth]"
        ));
    }
    Ok(lines.join("\n"))
}
