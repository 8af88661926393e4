//! `edit_file`: exact string replacement in a text file.

use cy_tools::prelude::*;

use super::text::plural;

/// Replace exact text in a file of the workspace. `old_string` must occur exactly once (copy it
/// from the file with enough surrounding lines to be unique), unless `replace_all` is set.
#[tool(
    title = "Edit file",
    capabilities(env),
    destructive,
    open_world = false
)]
pub async fn edit_file(
    ctx: Ctx<'_>,
    /// Path of the file, relative to the workspace root (or under `/workspace/`).
    path: String,
    /// The exact text to replace, including whitespace and indentation.
    old_string: String,
    /// The text to put in its place.
    new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[arg(default)]
    replace_all: bool,
) -> Result<String, ToolError> {
    if old_string.is_empty() {
        return Err(ToolError::new(
            "`old_string` is empty; give the exact text to replace (use write_file to write a whole file)",
        ));
    }
    if old_string == new_string {
        return Err(ToolError::new(
            "`old_string` and `new_string` are the same, so the edit would change nothing",
        ));
    }
    let env = ctx.env();
    let bytes = env.read(&path).await?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "`{path}` is not UTF-8 text, so it cannot be edited as text"
        ))
    })?;
    let count = text.matches(old_string.as_str()).count();
    match count {
        0 => {
            return Err(ToolError::new(format!(
                "`old_string` was not found in `{path}`; read the file and copy the exact text, including whitespace and line breaks"
            )));
        }
        1 => {}
        n if !replace_all => {
            return Err(ToolError::new(format!(
                "`old_string` occurs {n} times in `{path}`; include more surrounding lines to make it unique, or set `replace_all` to true"
            )));
        }
        _ => {}
    }
    let edited = if replace_all {
        text.replace(old_string.as_str(), &new_string)
    } else {
        text.replacen(old_string.as_str(), &new_string, 1)
    };
    env.write(&path, edited.into_bytes()).await?;
    Ok(format!(
        "replaced {} in `{path}`",
        plural(count as u64, "occurrence", "occurrences")
    ))
}
