//! `Content`: one block of what a call answers, as MCP's content blocks are.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One block of what the model sees: MCP's content blocks (text, image, audio, embedded
/// resource, resource link), plus structured JSON.
///
/// Every host carries every kind: the MCP server block for block; a provider that has no place
/// for a kind gets the line [`write_text`](Self::write_text) makes of it (the dialect notes in
/// [`dialect`](crate::dialect) say which).
///
/// ```
/// use cy_tools::{ToolResult, call::Content};
/// let result = ToolResult::text("the recording and its transcript")
///     .with_content(Content::audio(b"RIFF....WAVE", "audio/wav"))
///     .with_content(Content::embedded_text("file:///notes.md", "text/markdown", "# Notes"))
///     .with_content(Content::link("file:///big.csv", "big.csv"));
/// assert_eq!(
///     result.text_content(),
///     "the recording and its transcript\n[audio: audio/wav, 12 bytes]\n[resource file:///notes.md (text/markdown)]\n# Notes\n[resource link: big.csv <file:///big.csv>]"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded as every provider expects it.
    Image {
        /// Base64 (standard alphabet, padded) of the image bytes.
        data: String,
        /// The image's media type, for example `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded (MCP `audio`).
    Audio {
        /// Base64 (standard alphabet, padded) of the audio bytes.
        data: String,
        /// The audio's media type, for example `audio/wav`.
        mime_type: String,
    },
    /// A resource's contents carried in the answer (MCP `resource`): text or bytes.
    Resource {
        /// Where the resource lives, as a URI (`file:///…`, `test://…`).
        uri: String,
        /// Its media type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its contents.
        #[serde(flatten)]
        body: ResourceBody,
    },
    /// A pointer to a resource the client may read (MCP `resource_link`), not its contents.
    ResourceLink {
        /// Where the resource lives, as a URI.
        uri: String,
        /// Its name, for a person and the model.
        name: String,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its media type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// Structured JSON (MCP `structuredContent`; providers without it get it as text).
    Json {
        /// The value.
        value: Value,
    },
}

/// The contents of an embedded resource: text, or bytes in base64.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceBody {
    /// Text contents.
    Text {
        /// The text.
        text: String,
    },
    /// Binary contents.
    Blob {
        /// Base64 (standard alphabet, padded) of the bytes.
        blob: String,
    },
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// An image block from raw bytes.
    ///
    /// ```
    /// use cy_tools::call::Content;
    /// let img = Content::image(&[0x89, b'P', b'N', b'G'], "image/png");
    /// assert_eq!(img, Content::Image { data: "iVBORw==".into(), mime_type: "image/png".into() });
    /// ```
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block from raw bytes.
    ///
    /// ```
    /// use cy_tools::call::Content;
    /// let audio = Content::audio(b"RIFF", "audio/wav");
    /// assert_eq!(audio, Content::Audio { data: "UklGRg==".into(), mime_type: "audio/wav".into() });
    /// ```
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// An embedded resource of text.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Text { text: text.into() },
        }
    }

    /// An embedded resource of bytes.
    ///
    /// ```
    /// use cy_tools::call::{Content, ResourceBody};
    /// let pdf = Content::embedded_blob("file:///a.pdf", "application/pdf", b"%PDF");
    /// let Content::Resource { body: ResourceBody::Blob { blob }, .. } = pdf else { unreachable!() };
    /// assert_eq!(blob, "JVBERg==");
    /// ```
    pub fn embedded_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: &[u8],
    ) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Blob {
                blob: base64(bytes),
            },
        }
    }

    /// A link to the resource at `uri`, called `name` (set `description` and `mime_type` on
    /// the variant when there is more to say).
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// A structured JSON block.
    pub fn json(value: Value) -> Self {
        Content::Json { value }
    }

    /// Appends what a text-only reader is shown of this block: text as it is, JSON compact,
    /// an embedded text resource as a line naming it and then its text, and the other kinds as
    /// one line naming them (`[image: image/png]`, `[audio: audio/wav, 4 bytes]`,
    /// `[resource file:///a.pdf (application/pdf), 4 bytes]`,
    /// `[resource link: a.csv <file:///a.csv>]`). Hosts whose provider has no place for a
    /// kind send this instead.
    pub fn write_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        match self {
            Content::Text { text } => out.push_str(text),
            Content::Json { value } => out.push_str(&value.to_string()),
            Content::Image { mime_type, .. } => {
                let _ = write!(out, "[image: {mime_type}]");
            }
            Content::Audio { data, mime_type } => {
                let _ = write!(out, "[audio: {mime_type}, {} bytes]", decoded_len(data));
            }
            Content::Resource {
                uri,
                mime_type,
                body,
            } => {
                let _ = write!(out, "[resource {uri}");
                if let Some(mime_type) = mime_type {
                    let _ = write!(out, " ({mime_type})");
                }
                match body {
                    ResourceBody::Text { text } => {
                        let _ = write!(out, "]\n{text}");
                    }
                    ResourceBody::Blob { blob } => {
                        let _ = write!(out, ", {} bytes]", decoded_len(blob));
                    }
                }
            }
            Content::ResourceLink {
                uri,
                name,
                description,
                ..
            } => {
                let _ = write!(out, "[resource link: {name} <{uri}>");
                if let Some(description) = description {
                    let _ = write!(out, ": {description}");
                }
                out.push(']');
            }
        }
    }
}

/// How many bytes padded base64 of this length holds.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}
