//! A server's `tools/call` answer as the session's `ToolResult`: every content type kept,
//! `isError` kept, structured content kept.

use cy_tools::ToolResult;
use cy_tools::call::{Content, ResourceBody};
use rmcp::model::CallToolResult;
use serde_json::Value;

/// The answer of `tool` (the session's name) as a result.
pub(crate) fn to_result(answer: CallToolResult) -> ToolResult {
    let mut content = Vec::with_capacity(answer.content.len() + 1);
    for block in &answer.content {
        // Through the wire form: each block is read as the protocol writes it, whatever
        // rmcp's Rust types for it are.
        match serde_json::to_value(block) {
            Ok(block) => content.push(content_of(block)),
            Err(err) => content.push(Content::text(format!(
                "[a content block that could not be read: {err}]"
            ))),
        }
    }
    if let Some(structured) = answer.structured_content {
        // A server that also sent the JSON as text has it twice; the text is what a model
        // without structured content reads, so both stay.
        content.push(Content::json(structured));
    }
    ToolResult {
        content,
        is_error: answer.is_error.unwrap_or(false),
        details: None,
    }
}

/// One content block, as MCP's JSON, as ours.
fn content_of(block: Value) -> Content {
    let text = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let optional =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    match block.get("type").and_then(Value::as_str) {
        Some("text") => Content::text(text(&block, "text")),
        Some("image") => Content::Image {
            data: text(&block, "data"),
            mime_type: text(&block, "mimeType"),
        },
        Some("audio") => Content::Audio {
            data: text(&block, "data"),
            mime_type: text(&block, "mimeType"),
        },
        Some("resource") => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let body = match resource.get("blob").and_then(Value::as_str) {
                Some(blob) => ResourceBody::Blob {
                    blob: blob.to_string(),
                },
                None => ResourceBody::Text {
                    text: text(&resource, "text"),
                },
            };
            Content::Resource {
                uri: text(&resource, "uri"),
                mime_type: optional(&resource, "mimeType"),
                body,
            }
        }
        Some("resource_link") => Content::ResourceLink {
            uri: text(&block, "uri"),
            name: text(&block, "name"),
            description: optional(&block, "description"),
            mime_type: optional(&block, "mimeType"),
        },
        // A type this side does not know yet reaches the model as its JSON.
        _ => Content::json(block),
    }
}

#[cfg(test)]
mod tests {
    use super::content_of;
    use cy_tools::call::{Content, ResourceBody};
    use serde_json::json;

    #[test]
    fn each_content_type_is_kept() {
        assert_eq!(
            content_of(json!({"type": "text", "text": "hi"})),
            Content::text("hi")
        );
        assert_eq!(
            content_of(
                json!({"type": "resource", "resource": {"uri": "test://a", "mimeType": "application/octet-stream", "blob": "AAE="}})
            ),
            Content::Resource {
                uri: "test://a".into(),
                mime_type: Some("application/octet-stream".into()),
                body: ResourceBody::Blob {
                    blob: "AAE=".into()
                },
            }
        );
        assert_eq!(
            content_of(json!({"type": "resource_link", "uri": "file:///x", "name": "x"})),
            Content::ResourceLink {
                uri: "file:///x".into(),
                name: "x".into(),
                description: None,
                mime_type: None,
            }
        );
    }
}
