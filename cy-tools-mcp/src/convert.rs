//! Our results in MCP's shape.

use cy_tools::{ToolResult, call::Content};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// A tool result as a `tools/call` result.
///
/// Text and images map block for block. A JSON block becomes `structuredContent` and, in its
/// place among the blocks, a text copy: the specification asks for one so clients that ignore
/// `structuredContent` still show it. MCP has one `structuredContent` per result, so several
/// JSON blocks are carried as an array of their values. `details` is host-only and never sent.
pub(super) fn call_tool_result(result: ToolResult) -> CallToolResult {
    let mut blocks = Vec::with_capacity(result.content.len());
    let mut structured = Vec::new();
    for block in result.content {
        match block {
            Content::Text { text } => blocks.push(ContentBlock::text(text)),
            Content::Image { data, mime_type } => blocks.push(ContentBlock::image(data, mime_type)),
            Content::Json { value } => {
                blocks.push(ContentBlock::text(value.to_string()));
                structured.push(value);
            }
        }
    }
    let mut out = if result.is_error {
        CallToolResult::error(blocks)
    } else {
        CallToolResult::success(blocks)
    };
    out.structured_content = match structured.len() {
        0 => None,
        1 => structured.pop(),
        _ => Some(Value::Array(structured)),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_becomes_structured_content_and_a_text_copy() {
        let result = ToolResult::text("found 1").with_content(Content::json(json!({"n": 1})));
        let wire = serde_json::to_value(call_tool_result(result)).unwrap();
        assert_eq!(
            wire,
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "found 1"}, {"type": "text", "text": "{\"n\":1}"}],
                "structuredContent": {"n": 1},
                "isError": false,
            })
        );
    }

    #[test]
    fn several_json_blocks_are_an_array_and_details_stay_home() {
        let result = ToolResult::json(json!(1))
            .with_content(Content::json(json!([2])))
            .with_details(json!({"secret": true}));
        let wire = serde_json::to_value(call_tool_result(result)).unwrap();
        assert_eq!(wire["structuredContent"], json!([1, [2]]));
        assert!(!wire.to_string().contains("secret"));
    }

    #[test]
    fn images_and_errors_keep_their_shape() {
        let result =
            ToolResult::error("no such file").with_content(Content::image(b"\x89PNG", "image/png"));
        let wire = serde_json::to_value(call_tool_result(result)).unwrap();
        assert_eq!(wire["isError"], true);
        assert_eq!(
            wire["content"],
            json!([
                {"type": "text", "text": "no such file"},
                {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            ])
        );
        assert!(wire.get("structuredContent").is_none());
    }
}
