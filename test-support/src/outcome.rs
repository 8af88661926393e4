//! The two parts of a `terminal` or `execute_code` result: the text the model reads, and the
//! structured copy of a run that exited (its exit code and streams) that follows it.

use cy_tools::ToolResult;
use cy_tools::call::Content;
use serde_json::Value;

/// The result's text blocks, as `text_content` shows them, without the structured copy.
pub fn text(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            Content::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The structured copy of a run that exited, checked to follow the text it repeats.
pub fn structured(result: &ToolResult) -> Option<&Value> {
    match result.content.as_slice() {
        [Content::Text { .. }, Content::Json { value }] => Some(value),
        _ => None,
    }
}
