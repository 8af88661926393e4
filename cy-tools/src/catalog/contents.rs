//! What reading a resource answers: `ResourceContents`, and the types a resource function may
//! return (`IntoReadOutput`).

use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use crate::Json;
use crate::call::{Content, ResourceBody};

/// One part of a resource as it is read: its URI, media type and text or bytes (MCP's
/// `TextResourceContents` and `BlobResourceContents`).
///
/// ```
/// use cy_tools::catalog::ResourceContents;
/// let png = ResourceContents::blob("test://logo", "image/png", &[0x89, b'P']);
/// assert_eq!(serde_json::to_value(&png).unwrap()["blob"], "iVA=");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResourceContents {
    /// The URI it was read at.
    pub uri: String,
    /// Its media type, when known.
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text, or its bytes in base64.
    #[serde(flatten)]
    pub body: ResourceBody,
}

impl ResourceContents {
    /// Text contents.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Text { text: text.into() },
        }
    }

    /// Binary contents, from the raw bytes.
    pub fn blob(uri: impl Into<String>, mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        let Content::Resource {
            uri,
            mime_type,
            body,
        } = Content::embedded_blob(uri, mime_type, bytes)
        else {
            unreachable!("`embedded_blob` makes a resource block")
        };
        ResourceContents {
            uri,
            mime_type,
            body,
        }
    }

    /// The same contents as a content block, to embed in a tool's answer or a prompt's
    /// message.
    pub fn into_content(self) -> Content {
        Content::Resource {
            uri: self.uri,
            mime_type: self.mime_type,
            body: self.body,
        }
    }
}

/// What a resource function answered, before the URI it was read at and its media type are
/// put on it.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadOutput {
    /// Text, of the resource's declared media type (`text/plain` when it declares none).
    Text(String),
    /// Bytes, of the resource's declared media type (`application/octet-stream` when none).
    Blob(Vec<u8>),
    /// JSON, sent as its text (`application/json` when the resource declares no type).
    Json(Value),
    /// Whole contents, as the function made them (several parts, or other URIs).
    Contents(Vec<ResourceContents>),
}

impl ReadOutput {
    /// The contents read at `uri` of a resource declaring `mime_type`.
    pub fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents> {
        let typed = |fallback: &str| mime_type.unwrap_or(fallback).to_string();
        match self {
            ReadOutput::Text(text) => vec![ResourceContents::text(uri, typed("text/plain"), text)],
            ReadOutput::Blob(bytes) => vec![ResourceContents::blob(
                uri,
                typed("application/octet-stream"),
                &bytes,
            )],
            ReadOutput::Json(value) => vec![ResourceContents::text(
                uri,
                typed("application/json"),
                value.to_string(),
            )],
            ReadOutput::Contents(contents) => contents,
        }
    }
}

/// A type a `#[resource]` function can return: `String` or `&'static str` (text), `Vec<u8>`
/// (bytes), `serde_json::Value` or `Json<T>` (JSON text), [`ResourceContents`] or a `Vec` of
/// them (whole contents), or a `Result` of one of these whose error is `Display` (the reader
/// is told it).
#[diagnostic::on_unimplemented(
    message = "a resource cannot return `{Self}`",
    label = "not something a resource reads as",
    note = "return `String` (text), `Vec<u8>` (bytes), `serde_json::Value` or `Json<T>` (JSON), `ResourceContents` or `Vec<ResourceContents>`, or a `Result` of one of them with an error that implements `Display`"
)]
pub trait IntoReadOutput {
    /// The output, or the error the reader is told.
    fn into_read_output(self) -> Result<ReadOutput, String>;
}

impl IntoReadOutput for ReadOutput {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(self)
    }
}

impl IntoReadOutput for String {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(ReadOutput::Text(self))
    }
}

impl IntoReadOutput for &'static str {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(ReadOutput::Text(self.to_string()))
    }
}

impl IntoReadOutput for Vec<u8> {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(ReadOutput::Blob(self))
    }
}

impl IntoReadOutput for Value {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(ReadOutput::Json(self))
    }
}

impl<T: Serialize> IntoReadOutput for Json<T> {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        serde_json::to_value(&self.0)
            .map(ReadOutput::Json)
            .map_err(|err| format!("the resource's JSON could not be written: {err}"))
    }
}

impl IntoReadOutput for ResourceContents {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(ReadOutput::Contents(vec![self]))
    }
}

impl IntoReadOutput for Vec<ResourceContents> {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        Ok(ReadOutput::Contents(self))
    }
}

impl<T: IntoReadOutput, E: Display> IntoReadOutput for Result<T, E> {
    fn into_read_output(self) -> Result<ReadOutput, String> {
        self.map_err(|err| err.to_string())?.into_read_output()
    }
}
