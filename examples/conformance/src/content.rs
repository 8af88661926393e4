//! Tools answering each kind of content block.

use cy_tools::call::Content;
use cy_tools::prelude::*;

/// A 1x1 red PNG.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The shortest valid WAV: a header and one silent 16-bit sample at 8 kHz.
pub const WAV: &[u8] = &[
    b'R', b'I', b'F', b'F', 38, 0, 0, 0, b'W', b'A', b'V', b'E', b'f', b'm', b't', b' ', 16, 0, 0,
    0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0, b'd', b'a', b't', b'a', 2, 0,
    0, 0, 0, 0,
];

/// Answers with one line of text.
#[tool(read_only)]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Answers with a small PNG image.
#[tool(read_only)]
async fn test_image_content() -> ToolResult {
    ToolResult {
        content: vec![Content::image(PNG, "image/png")],
        is_error: false,
        details: None,
    }
}

/// Answers with a short WAV recording.
#[tool(read_only)]
async fn test_audio_content() -> ToolResult {
    ToolResult {
        content: vec![Content::audio(WAV, "audio/wav")],
        is_error: false,
        details: None,
    }
}

/// Answers with a text resource carried in the answer.
#[tool(read_only)]
async fn test_embedded_resource() -> ToolResult {
    ToolResult {
        content: vec![Content::embedded_text(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )],
        is_error: false,
        details: None,
    }
}

/// Answers with text, an image and a resource at once.
#[tool(read_only)]
async fn test_multiple_content_types() -> ToolResult {
    ToolResult::text("Multiple content types test:")
        .with_content(Content::image(PNG, "image/png"))
        .with_content(Content::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}

/// Always fails, with a message the model reads.
#[tool(read_only)]
async fn test_error_handling() -> Result<&'static str, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}
