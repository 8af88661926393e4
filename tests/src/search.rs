//! A search tool whose arguments use every schema feature: enums, nested structs, `Vec`, maps,
//! renames and defaults.

use std::collections::BTreeMap;

use cy_tools::prelude::*;
use cy_tools::services::Sandbox;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a line is compared with the pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// The line contains the pattern exactly.
    Literal,
    /// The line contains the pattern, ignoring ASCII case.
    IgnoreCase,
}

/// An inclusive range of 1-based line numbers.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineRange {
    /// The first line.
    pub start: u64,
    /// The last line.
    pub end: u64,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Match {
    /// The file.
    pub path: String,
    /// The 1-based line number.
    pub line: u64,
    /// The line's text.
    pub text: String,
    /// The labels the caller asked to attach.
    pub labels: BTreeMap<String, String>,
}

/// Find the lines of some files that contain a pattern.
///
/// Returns the matches as JSON, in file order.
#[tool(capabilities(env), read_only, open_world = false)]
pub async fn find_lines(
    env: &dyn Sandbox,
    /// The text to look for.
    pattern: String,
    /// Files to search, relative to the workspace root.
    paths: Vec<String>,
    /// How to compare lines with the pattern.
    #[arg(default = MatchMode::Literal)]
    mode: MatchMode,
    /// Only search these lines of each file.
    lines: Option<LineRange>,
    /// Labels copied into every match.
    #[arg(default)]
    labels: BTreeMap<String, String>,
    /// The most matches to return.
    #[arg(rename = "max_results", default = 50)]
    limit: usize,
) -> Result<Vec<Match>, ToolError> {
    let needle = match mode {
        MatchMode::Literal => pattern.clone(),
        MatchMode::IgnoreCase => pattern.to_ascii_lowercase(),
    };
    let mut found = Vec::new();
    for path in &paths {
        let text = String::from_utf8(env.read(path).await?)
            .map_err(|_| ToolError::new(format!("`{path}` is not UTF-8 text; leave it out")))?;
        for (number, line) in (1u64..).zip(text.lines()) {
            if lines.is_some_and(|r| number < r.start || number > r.end) {
                continue;
            }
            let hit = match mode {
                MatchMode::Literal => line.contains(&needle),
                MatchMode::IgnoreCase => line.to_ascii_lowercase().contains(&needle),
            };
            if hit && found.len() < limit {
                found.push(Match {
                    path: path.clone(),
                    line: number,
                    text: line.to_string(),
                    labels: labels.clone(),
                });
            }
        }
    }
    Ok(found)
}
