//! `search_text`: regex search with file and line, honouring `.gitignore`.

use cy_tools::prelude::*;
use cy_tools::services::ProgressCounter;
use cy_tools::services::SearchOptions;

use super::progress::{Measure, files_searched, reporting};
use super::text::plural;

/// Matching lines returned at most.
const MAX_RESULTS: u32 = 1000;

/// Search file contents with a regular expression (Rust regex syntax). Answers
/// `path:line: text`, one match per line, in file order. Skips binary files, hidden files and
/// what `.gitignore` ignores.
#[tool(
    title = "Search text",
    capabilities(env),
    read_only,
    idempotent,
    open_world = false
)]
pub async fn search_text(
    ctx: Ctx<'_>,
    call: CallInfo<'_>,
    /// The regular expression to look for.
    pattern: String,
    /// Folder to search in, relative to the workspace root.
    #[arg(default = ".")]
    path: String,
    /// Only search files whose path (relative to `path`) matches this glob, such as `*.rs`.
    glob: Option<String>,
    /// Ignore case.
    #[arg(default)]
    case_insensitive: bool,
    /// Stop after this many matching lines (default 100, at most 1000).
    #[arg(default = 100)]
    max_results: u32,
) -> Result<String, ToolError> {
    if max_results == 0 || max_results > MAX_RESULTS {
        return Err(ToolError::new(format!(
            "`max_results` must be between 1 and {MAX_RESULTS}, got {max_results}"
        )));
    }
    let searched = ProgressCounter::default();
    let search = ctx.env().search(
        &path,
        SearchOptions {
            pattern: pattern.clone(),
            glob,
            case_insensitive,
            max_matches: max_results as usize,
            respect_gitignore: true,
            files_searched: call.wants_progress().then(|| searched.clone()),
        },
    );
    let result = reporting(&call, Measure::Count(&searched, files_searched), search).await?;
    if result.matches.is_empty() {
        return Ok(format!(
            "no matches for `{pattern}` in {} under `{path}`",
            plural(result.files_searched, "file", "files")
        ));
    }
    let mut out: Vec<String> = result
        .matches
        .iter()
        .map(|m| format!("{}:{}: {}", m.path, m.line_number, m.line))
        .collect();
    if result.truncated {
        out.push(format!(
            "[stopped at {max_results} matches; narrow the pattern or the folder, or raise max_results]"
        ));
    }
    Ok(out.join("\n"))
}
