//! Our results in MCP's shape.

use cy_tools::ToolResult;
use cy_tools::call::{Content, ResourceBody};
use cy_tools::definition::OutputSchema;
use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents};
use serde_json::json;

/// A tool result as a `tools/call` result.
///
/// Text, images, audio, embedded resources and resource links map block for block. A JSON block becomes `structuredContent` and, in its
/// place among the blocks, a text copy of it: the specification asks for one so clients that
/// ignore `structuredContent` still show it. `structuredContent` is an object, as MCP's schema
/// says: a value that is not one, or that the tool's output schema wraps
/// ([`OutputSchema::structured`]), is sent as `{"result": value}`, and several JSON blocks as
/// `{"result": [values]}` (each keeping its own text copy). `details` is host-only and never
/// sent.
pub(super) fn call_tool_result(
    result: ToolResult,
    output: Option<&OutputSchema>,
) -> CallToolResult {
    let json_blocks = result
        .content
        .iter()
        .filter(|block| matches!(block, Content::Json { .. }))
        .count();
    let mut blocks = Vec::with_capacity(result.content.len());
    let mut values = Vec::new();
    for item in result.content {
        match item {
            Content::Json { value } if json_blocks == 1 => {
                let value = match output {
                    Some(schema) => schema.structured(value),
                    None if value.is_object() => value,
                    None => json!({ "result": value }),
                };
                blocks.push(ContentBlock::text(value.to_string()));
                values.push(value);
            }
            Content::Json { value } => {
                blocks.push(ContentBlock::text(value.to_string()));
                values.push(value);
            }
            other => blocks.push(block(other)),
        }
    }
    let mut out = if result.is_error {
        CallToolResult::error(blocks)
    } else {
        CallToolResult::success(blocks)
    };
    out.structured_content = match values.len() {
        0 => None,
        1 => values.pop(),
        _ => Some(json!({ "result": values })),
    };
    out
}

/// One block in MCP's shape; JSON as its text (a prompt's message has no structured content).
pub(super) fn block(content: Content) -> ContentBlock {
    match content {
        Content::Text { text } => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        Content::Resource {
            uri,
            mime_type,
            body,
        } => ContentBlock::resource(resource_contents(uri, mime_type, body)),
        Content::ResourceLink {
            uri,
            name,
            description,
            mime_type,
        } => {
            let mut link = Resource::new(uri, name);
            link.description = description;
            link.mime_type = mime_type;
            ContentBlock::resource_link(link)
        }
        Content::Json { value } => ContentBlock::text(value.to_string()),
    }
}

/// A resource's contents in MCP's shape.
pub(super) fn resource_contents(
    uri: String,
    mime_type: Option<String>,
    body: ResourceBody,
) -> ResourceContents {
    match body {
        ResourceBody::Text { text } => ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta: None,
        },
        ResourceBody::Blob { blob } => ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            meta: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_becomes_structured_content_and_a_text_copy() {
        let result = ToolResult::text("found 1").with_content(Content::json(json!({"n": 1})));
        let wire = serde_json::to_value(call_tool_result(result, None)).unwrap();
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
    fn several_json_blocks_are_one_result_array_and_details_stay_home() {
        let result = ToolResult::json(json!(1))
            .with_content(Content::json(json!([2])))
            .with_details(json!({"secret": true}));
        let wire = serde_json::to_value(call_tool_result(result, None)).unwrap();
        assert_eq!(wire["structuredContent"], json!({"result": [1, [2]]}));
        assert_eq!(wire["content"][0]["text"], "1");
        assert!(!wire.to_string().contains("secret"));
    }

    #[test]
    fn structured_content_is_always_an_object() {
        let wire =
            serde_json::to_value(call_tool_result(ToolResult::json(json!([1, 2])), None)).unwrap();
        assert_eq!(wire["structuredContent"], json!({"result": [1, 2]}));
        assert_eq!(wire["content"][0]["text"], "{\"result\":[1,2]}");
        // An enum payload whose schema was wrapped: even its object values are wrapped.
        let schema = OutputSchema::new(json!({"oneOf": [{"type": "object"}, {"type": "string"}]}));
        let object = ToolResult::json(json!({"kind": "a"}));
        let wire = serde_json::to_value(call_tool_result(object, Some(&schema))).unwrap();
        assert_eq!(wire["structuredContent"], json!({"result": {"kind": "a"}}));
    }

    #[test]
    fn images_and_errors_keep_their_shape() {
        let result =
            ToolResult::error("no such file").with_content(Content::image(b"\x89PNG", "image/png"));
        let wire = serde_json::to_value(call_tool_result(result, None)).unwrap();
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

    #[test]
    fn audio_resources_and_links_map_block_for_block() {
        let mut link = Content::link("file:///big.csv", "big.csv");
        if let Content::ResourceLink {
            description,
            mime_type,
            ..
        } = &mut link
        {
            *description = Some("every row".into());
            *mime_type = Some("text/csv".into());
        }
        let result = ToolResult::text("three")
            .with_content(Content::audio(b"RIFF", "audio/wav"))
            .with_content(Content::embedded_text("test://a", "text/plain", "a"))
            .with_content(Content::embedded_blob(
                "test://b",
                "application/octet-stream",
                b"\x01",
            ))
            .with_content(link);
        let wire = serde_json::to_value(call_tool_result(result, None)).unwrap();
        assert_eq!(
            wire["content"],
            json!([
                {"type": "text", "text": "three"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "test://a", "mimeType": "text/plain", "text": "a"}},
                {"type": "resource", "resource": {"uri": "test://b", "mimeType": "application/octet-stream", "blob": "AQ=="}},
                {"type": "resource_link", "uri": "file:///big.csv", "name": "big.csv", "description": "every row", "mimeType": "text/csv"},
            ])
        );
    }
}
