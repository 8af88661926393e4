//! `ResultLimits`: how much of one call's result reaches its caller, and where the rest goes.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine as _;

use crate::call::{Content, ResourceBody, ToolResult};
use crate::services::Sandbox;

/// Text a result may carry by default: 200,000 bytes (about 50,000 tokens).
pub const DEFAULT_TEXT_BYTES: usize = 200_000;

/// An image a result may carry by default: 5 MiB, the most the model providers take.
pub const DEFAULT_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// Where in the workspace a cut result is written whole.
pub const RESULTS_FOLDER: &str = ".cy-tools/results";

/// How much of one call's result reaches its caller: text up to a limit per session and per
/// tool, each image up to its own. Past it the text is cut, the whole result written to
/// [`RESULTS_FOLDER`] in the workspace, and a notice says how much was cut and where it is;
/// an image past its bound is written there too and replaced by a notice. Every tool is held
/// to it, built-in, application or proxied. Audio and other binary blocks count as text by
/// their base64 size.
///
/// ```
/// use cy_tools::call::hook::ResultLimits;
/// let limits = ResultLimits::default().with_text_bytes(50_000).with_tool_text_bytes("read_file", 1_000_000);
/// assert_eq!(limits.text_bytes_for("search_text"), 50_000);
/// assert_eq!(limits.text_bytes_for("read_file"), 1_000_000);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultLimits {
    text_bytes: usize,
    image_bytes: usize,
    per_tool: Option<Arc<BTreeMap<String, usize>>>,
}

impl Default for ResultLimits {
    fn default() -> Self {
        ResultLimits {
            text_bytes: DEFAULT_TEXT_BYTES,
            image_bytes: DEFAULT_IMAGE_BYTES,
            per_tool: None,
        }
    }
}

impl ResultLimits {
    /// The same limits with `bytes` of text per result for every tool without its own.
    #[must_use]
    pub fn with_text_bytes(mut self, bytes: usize) -> Self {
        self.text_bytes = bytes.max(1);
        self
    }

    /// The same limits with `bytes` per image.
    #[must_use]
    pub fn with_image_bytes(mut self, bytes: usize) -> Self {
        self.image_bytes = bytes.max(1);
        self
    }

    /// The same limits with `bytes` of text for the tool named `tool`.
    #[must_use]
    pub fn with_tool_text_bytes(mut self, tool: impl Into<String>, bytes: usize) -> Self {
        let mut map = self.per_tool.as_deref().cloned().unwrap_or_default();
        map.insert(tool.into(), bytes.max(1));
        self.per_tool = Some(Arc::new(map));
        self
    }

    /// The text limit of `tool`'s results.
    pub fn text_bytes_for(&self, tool: &str) -> usize {
        self.per_tool
            .as_ref()
            .and_then(|map| map.get(tool).copied())
            .unwrap_or(self.text_bytes)
    }

    /// The limit of each image.
    pub fn image_bytes(&self) -> usize {
        self.image_bytes
    }
}

/// How many bytes of text a block counts for.
fn text_len(block: &Content) -> usize {
    match block {
        Content::Text { text } => text.len(),
        Content::Json { value } => json_len(value),
        Content::Audio { data, .. } => data.len(),
        Content::Resource {
            body: ResourceBody::Text { text },
            ..
        } => text.len(),
        Content::Resource {
            body: ResourceBody::Blob { blob },
            ..
        } => blob.len(),
        Content::ResourceLink { .. } | Content::Image { .. } => 0,
    }
}

/// The length of `value` as compact JSON text, counted without writing it out.
fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// An image's size in bytes from its base64 length.
fn image_len(block: &Content) -> usize {
    match block {
        Content::Image { data, .. } => data.len() / 4 * 3,
        _ => 0,
    }
}

/// Whether `result` is within `limits` as it is: the question every call asks, answered
/// without a future (only a result over them needs [`apply`]'s).
pub(crate) fn within(limits: &ResultLimits, tool: &str, result: &ToolResult) -> bool {
    let text_limit = limits.text_bytes_for(tool);
    let mut text = 0usize;
    for block in &result.content {
        if image_len(block) > limits.image_bytes {
            return false;
        }
        text = text.saturating_add(text_len(block));
        if text > text_limit {
            return false;
        }
    }
    true
}

/// `result` held to `limits`; what is cut is written to the workspace through `env`.
pub(crate) async fn apply(
    limits: &ResultLimits,
    tool: &str,
    call_id: &str,
    env: Option<&Arc<dyn Sandbox>>,
    result: ToolResult,
) -> ToolResult {
    if within(limits, tool, &result) {
        return result;
    }
    let text_limit = limits.text_bytes_for(tool);
    // Unique in this process: a client's call ids repeat across its connections.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stem = format!("{}-{}-{n}", file_stem(call_id), std::process::id());
    let ToolResult {
        content,
        is_error,
        details,
    } = result;
    let mut kept = Vec::new();
    let mut notices = Vec::new();
    for (index, block) in content.into_iter().enumerate() {
        match block {
            Content::Image { data, mime_type } if data.len() / 4 * 3 > limits.image_bytes => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&data)
                    .unwrap_or_default();
                let path = format!("{RESULTS_FOLDER}/{stem}-{index}.{}", extension(&mime_type));
                let size = bytes.len();
                let kept_at = keep(env, &path, bytes).await;
                notices.push(format!(
                    "[image cut: {mime_type}, {size} bytes, over this session's bound of {} bytes per image; {kept_at}]",
                    limits.image_bytes
                ));
            }
            other => kept.push(other),
        }
    }
    let text_now: usize = kept.iter().map(text_len).sum();
    let mut content = Vec::new();
    if text_now > text_limit {
        // The whole answer as text, kept whole; its start goes to the caller.
        let mut whole = String::new();
        let mut others = Vec::new();
        for block in kept {
            match block {
                Content::Image { .. } | Content::ResourceLink { .. } => others.push(block),
                textual => {
                    if !whole.is_empty() {
                        whole.push('\n');
                    }
                    textual.write_text(&mut whole);
                }
            }
        }
        let mut cut = text_limit.min(whole.len());
        while !whole.is_char_boundary(cut) {
            cut -= 1;
        }
        let total = whole.len();
        let shown = whole[..cut].to_string();
        let path = format!("{RESULTS_FOLDER}/{stem}.txt");
        let kept_at = keep(env, &path, whole.into_bytes()).await;
        content.push(Content::text(shown));
        content.extend(others);
        notices.push(format!(
            "[result cut: {total} bytes of text, over this session's limit of {text_limit} for `{tool}`; the first {cut} bytes are above, {} were cut; {kept_at}]",
            total - cut
        ));
    } else {
        content = kept;
    }
    for notice in notices {
        content.push(Content::text(notice));
    }
    ToolResult {
        content,
        is_error,
        details,
    }
}

/// Writes `bytes` to `path` in the workspace; says where, or why it could not.
async fn keep(env: Option<&Arc<dyn Sandbox>>, path: &str, bytes: Vec<u8>) -> String {
    let Some(env) = env else {
        return "the whole of it could not be kept, as this session has no workspace: ask for less (a narrower query, a range)".to_string();
    };
    match env.write(path, bytes).await {
        Ok(()) => format!(
            "the whole of it is in `{path}` in the workspace: read it in parts with `read_file` (`offset`, `limit`) or from code"
        ),
        Err(err) => format!(
            "the whole of it could not be written to `{path}` ({err}): ask for less (a narrower query, a range)"
        ),
    }
}

/// A file name made from a call id: letters, digits, `-` and `_` kept, the rest `_`.
fn file_stem(call_id: &str) -> String {
    let stem: String = call_id
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "call".to_string()
    } else {
        stem
    }
}

fn extension(mime_type: &str) -> &'static str {
    match mime_type {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => "bin",
    }
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn call_ids_become_safe_file_names() {
        assert_eq!(file_stem("call_1-a"), "call_1-a");
        assert_eq!(file_stem("../../etc/passwd"), "______etc_passwd");
        assert_eq!(file_stem(""), "call");
    }
}
