//! `find_files`: files whose path matches a glob, honouring `.gitignore`.

use cy_tools::prelude::*;
use cy_tools::services::{EntryKind, WalkOptions};
use globset::GlobBuilder;

/// Paths returned at most in one call.
const MAX_RESULTS: usize = 1000;
/// Entries walked at most, so a huge tree cannot stall a call.
const MAX_WALK: usize = 200_000;

/// Find files by glob pattern (`*.rs`, `src/**/*.py`, `**/test_*`), relative to `path`. Skips
/// what `.gitignore` ignores and hidden files. Returns matching paths, sorted, one per line.
#[tool(
    title = "Find files",
    capabilities(env),
    read_only,
    idempotent,
    open_world = false
)]
pub async fn find_files(
    ctx: Ctx<'_>,
    /// Glob matched against each file's path relative to `path`; `*` also crosses folders.
    pattern: String,
    /// Folder to search in, relative to the workspace root.
    #[arg(default = ".")]
    path: String,
) -> Result<String, ToolError> {
    let glob = GlobBuilder::new(&pattern)
        .literal_separator(false)
        .build()
        .map_err(|err| {
            ToolError::new(format!(
                "`{pattern}` is not a valid glob: {err}; use patterns such as `*.rs` or `src/**/*.py`"
            ))
        })?
        .compile_matcher();
    let walk = ctx
        .env()
        .walk(
            &path,
            WalkOptions {
                max_entries: MAX_WALK,
                ..WalkOptions::default()
            },
        )
        .await?;
    let mut found: Vec<&str> = walk
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::File && glob.is_match(&e.path))
        .map(|e| e.path.as_str())
        .collect();
    if found.is_empty() {
        return Ok(format!("no files match `{pattern}` under `{path}`"));
    }
    let total = found.len();
    found.truncate(MAX_RESULTS);
    let mut out = found.join("\n");
    if total > MAX_RESULTS {
        out.push_str(&format!(
            "\n[{total} files match; the first {MAX_RESULTS} are shown: narrow the pattern]"
        ));
    }
    if walk.truncated {
        out.push_str(&format!(
            "\n[the folder has more than {MAX_WALK} entries and was not searched to the end: search a subfolder]"
        ));
    }
    Ok(out)
}
