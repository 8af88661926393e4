//! The Anthropic Messages wire format (`POST {base}/v1/messages`).
//!
//! A turn's answer is a list of content blocks: `text`, and `tool_use` blocks with an `id`, a
//! `name` and an `input` object. Results go back in the next `user` message as `tool_result`
//! blocks carrying the `tool_use_id` (all of a turn's results in one message), with `is_error`
//! for failures. Streamed: `message_start` (the input tokens), per block `content_block_start`,
//! `content_block_delta` (`text_delta`, or `input_json_delta` pieces of a call's input) and
//! `content_block_stop`, then `message_delta` (the stop reason and output tokens) and
//! `message_stop`.

use std::collections::{BTreeMap, HashSet};

use cy_tools::call::{Content, ResourceBody};
use cy_tools::{ToolResult, dialect::Dialect};
use serde_json::{Value, json};

use super::error::AgentError;
use super::provider::{Declared, Provider, RequestParts, StreamReader, malformed};
use super::sse::Event;
use super::tool_search::{ADVANCED_TOOL_USE_BETA, anthropic_search_tool};
use super::transcript::{Message, ModelCall, Reply, Usage, result_text};
use super::turn_budget::Written;

/// The version of the Messages API the requests are written for.
const API_VERSION: &str = "2023-06-01";

/// The beta that strict tool use came out under (its launch documentation asks for the
/// header); sent only when tools are declared strict, which is never the default.
const STRICT_BETA: &str = "structured-outputs-2025-11-13";

/// The Anthropic Messages format.
#[derive(Debug, Default)]
pub(crate) struct Anthropic;

impl Provider for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn endpoint(&self) -> &'static str {
        "/v1/messages"
    }

    fn headers(
        &self,
        key: Option<&str>,
        strict: bool,
        tool_search: bool,
    ) -> Vec<(&'static str, String)> {
        let mut headers = vec![("anthropic-version", API_VERSION.to_string())];
        // Several betas go in one header, separated by commas.
        let betas: Vec<&str> = [(strict, STRICT_BETA), (tool_search, ADVANCED_TOOL_USE_BETA)]
            .into_iter()
            .filter_map(|(on, beta)| on.then_some(beta))
            .collect();
        if !betas.is_empty() {
            headers.push(("anthropic-beta", betas.join(",")));
        }
        if let Some(key) = key {
            headers.push(("x-api-key", key.to_string()));
        }
        headers
    }

    fn dialects(&self) -> (Dialect, Dialect) {
        (Dialect::AnthropicStrict, Dialect::Anthropic)
    }

    fn search_declarations(&self, declared: &Declared, loaded: &HashSet<String>) -> Vec<Value> {
        // Deferred loading: every tool is declared, but one not kept or found enters the
        // model's context only when the API's search tool returns it.
        let mut tools = Vec::with_capacity(declared.tools.len() + 1);
        tools.push(anthropic_search_tool());
        for (tool, name) in declared.tools.iter().zip(&declared.order) {
            let mut tool = tool.clone();
            if !loaded.contains(name) {
                tool["defer_loading"] = Value::Bool(true);
            }
            tools.push(tool);
        }
        tools
    }

    fn searches_itself(&self) -> bool {
        true
    }

    fn request(&self, parts: &RequestParts<'_>) -> Value {
        let messages: Vec<Value> = parts
            .messages
            .iter()
            .map(|message| match message {
                Message::User(text) => json!({"role": "user", "content": text}),
                Message::Assistant {
                    text,
                    calls,
                    server_blocks,
                } => {
                    let mut blocks = Vec::new();
                    if !text.is_empty() {
                        blocks.push(json!({"type": "text", "text": text}));
                    }
                    // The API's own tool uses and results (its tool search), as they came.
                    blocks.extend(server_blocks.iter().cloned());
                    for call in calls {
                        blocks.push(json!({
                            "type": "tool_use",
                            "id": call.id,
                            "name": call.name,
                            "input": call.arguments_object(),
                        }));
                    }
                    json!({"role": "assistant", "content": blocks})
                }
                Message::Results(results) => {
                    let blocks: Vec<Value> = results
                        .iter()
                        .map(|(call, result)| {
                            let mut block = json!({
                                "type": "tool_result",
                                "tool_use_id": call.id,
                                "content": result_blocks(result),
                            });
                            if result.is_error {
                                block["is_error"] = Value::Bool(true);
                            }
                            block
                        })
                        .collect();
                    json!({"role": "user", "content": blocks})
                }
            })
            .collect();
        let mut body = json!({
            "model": parts.model,
            "max_tokens": parts.max_tokens,
            "messages": messages,
        });
        if let Some(system) = parts.system {
            body["system"] = json!(system);
        }
        if !parts.tools.is_empty() {
            body["tools"] = Value::Array(parts.tools.to_vec());
        }
        if parts.stream {
            body["stream"] = Value::Bool(true);
        }
        body
    }

    fn parse(&self, body: &Value) -> Result<Reply, AgentError> {
        let blocks = body
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed("anthropic", "a `content` list", body))?;
        let mut reply = Reply {
            usage: usage(body.get("usage")),
            model: body
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_string),
            stop_reason: body
                .get("stop_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
            ..Reply::default()
        };
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    reply.text.push_str(
                        block
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    );
                }
                Some("tool_use") => {
                    let (Some(id), Some(name)) = (
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                    ) else {
                        return Err(malformed(
                            "anthropic",
                            "an `id` and a `name` in each `tool_use` block",
                            body,
                        ));
                    };
                    reply.calls.push(ModelCall {
                        id: id.to_string(),
                        name: name.to_string(),
                        arguments: block.get("input").cloned().unwrap_or(json!({})),
                    });
                }
                Some(kind) if is_server_block(kind) => reply.server_blocks.push(block.clone()),
                // Thinking and other blocks are the model's own; the loop keeps to text and
                // tool use.
                _ => {}
            }
        }
        Ok(reply)
    }

    fn stream(&self) -> Box<dyn StreamReader> {
        Box::new(Stream::default())
    }

    fn error_message(&self, body: &Value) -> Option<String> {
        let error = body.get("error")?;
        let message = error.get("message").and_then(Value::as_str)?;
        Some(match error.get("type").and_then(Value::as_str) {
            Some(kind) => format!("{kind}: {message}"),
            None => message.to_string(),
        })
    }
}

/// A block of a tool the API runs itself: its use (`server_tool_use`) or its result
/// (`tool_search_tool_result`, `web_search_tool_result`, ...), which the next request must
/// send back for the model to keep what it found.
fn is_server_block(kind: &str) -> bool {
    kind == "server_tool_use" || kind.ends_with("_tool_result")
}

fn image(data: &str, mime_type: &str) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": mime_type, "data": data},
    })
}

/// A result's content as Anthropic's `tool_result` blocks: text (JSON as its text), images,
/// embedded resources as documents (text, or a PDF; an image resource as an image), and what
/// Anthropic has no block for (audio, other binary resources, resource links) as the line
/// naming it ([`Content::write_text`]).
fn result_blocks(result: &ToolResult) -> Value {
    let mut blocks = Vec::new();
    for content in &result.content {
        blocks.push(match content {
            Content::Text { text } => json!({"type": "text", "text": text}),
            Content::Json { value } => json!({"type": "text", "text": value.to_string()}),
            Content::Image { data, mime_type } => image(data, mime_type),
            Content::Resource {
                uri,
                body: ResourceBody::Text { text },
                ..
            } => json!({
                "type": "document",
                "title": uri,
                "source": {"type": "text", "media_type": "text/plain", "data": text},
            }),
            Content::Resource {
                uri,
                mime_type: Some(mime_type),
                body: ResourceBody::Blob { blob },
            } if mime_type == "application/pdf" => json!({
                "type": "document",
                "title": uri,
                "source": {"type": "base64", "media_type": mime_type, "data": blob},
            }),
            Content::Resource {
                mime_type: Some(mime_type),
                body: ResourceBody::Blob { blob },
                ..
            } if mime_type.starts_with("image/") => image(blob, mime_type),
            other => {
                let mut text = String::new();
                other.write_text(&mut text);
                json!({"type": "text", "text": text})
            }
        });
    }
    if blocks.is_empty() {
        // An empty result is still an answer; an empty text block is refused.
        let text = result_text(result);
        let text = if text.is_empty() {
            "(no output)".to_string()
        } else {
            text
        };
        blocks.push(json!({"type": "text", "text": text}));
    }
    Value::Array(blocks)
}

fn usage(usage: Option<&Value>) -> Usage {
    let count = |name: &str| {
        usage
            .and_then(|u| u.get(name))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Usage {
        // Tokens read from or written to the prompt cache are input too.
        input_tokens: count("input_tokens")
            + count("cache_creation_input_tokens")
            + count("cache_read_input_tokens"),
        output_tokens: count("output_tokens"),
    }
}

/// A streamed answer being put together.
#[derive(Default)]
struct Stream {
    reply: Reply,
    /// `tool_use` blocks by their index: id, name, input JSON text so far.
    calls: BTreeMap<u64, (String, String, String)>,
    /// Server tool blocks by their index: the block as it started, and a `server_tool_use`'s
    /// input JSON text so far.
    server: BTreeMap<u64, (Value, String)>,
    written: Written,
}

impl StreamReader for Stream {
    fn event(&mut self, event: &Event, text: &mut dyn FnMut(&str)) -> Result<bool, AgentError> {
        let data: Value = serde_json::from_str(&event.data).map_err(|err| {
            AgentError::provider(format!(
                "the anthropic API streamed an event that is not JSON ({err}): {}; check that the base URL serves the Anthropic format",
                event.data
            ))
        })?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&event.name);
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                let message = data.get("message");
                self.reply.usage = usage(message.and_then(|m| m.get("usage")));
                self.reply.model = message
                    .and_then(|m| m.get("model"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            "content_block_start" => {
                let block = data.get("content_block");
                match block.and_then(|b| b.get("type")).and_then(Value::as_str) {
                    Some("tool_use") => {
                        let field = |name: &str| {
                            block
                                .and_then(|b| b.get(name))
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string()
                        };
                        self.calls
                            .insert(index, (field("id"), field("name"), String::new()));
                    }
                    Some(kind) if is_server_block(kind) => {
                        if let Some(block) = block {
                            self.server.insert(index, (block.clone(), String::new()));
                        }
                    }
                    Some("text") => {
                        let start = block
                            .and_then(|b| b.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        self.written.add(start);
                        text(start);
                        self.reply.text.push_str(start);
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = data.get("delta");
                match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => {
                        let piece = delta
                            .and_then(|d| d.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        self.written.add(piece);
                        text(piece);
                        self.reply.text.push_str(piece);
                    }
                    // Thinking is not kept, but written (and billed) all the same.
                    Some("thinking_delta") => {
                        if let Some(piece) = delta
                            .and_then(|d| d.get("thinking"))
                            .and_then(Value::as_str)
                        {
                            self.written.add(piece);
                        }
                    }
                    Some("input_json_delta") => {
                        let piece = delta
                            .and_then(|d| d.get("partial_json"))
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        // Counted even for a block never started: the server wrote it.
                        self.written.add(piece);
                        if let Some(call) = self.calls.get_mut(&index) {
                            call.2.push_str(piece);
                        } else if let Some(server) = self.server.get_mut(&index) {
                            server.1.push_str(piece);
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.reply.stop_reason = Some(reason.to_string());
                }
                if let Some(output) = data.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.reply.usage.output_tokens = output;
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                let message = Anthropic
                    .error_message(&data)
                    .unwrap_or_else(|| data.to_string());
                return Err(AgentError::provider(format!(
                    "the anthropic API failed mid-answer: {message}"
                )));
            }
            // `ping`, `content_block_stop` and events added later.
            _ => {}
        }
        Ok(false)
    }

    fn written(&self) -> Written {
        self.written
    }

    fn finish(self: Box<Self>) -> Result<Reply, AgentError> {
        let mut reply = self.reply;
        for (_, (mut block, input)) in self.server {
            if !input.trim().is_empty() {
                block["input"] = serde_json::from_str(&input).unwrap_or(Value::String(input));
            }
            reply.server_blocks.push(block);
        }
        for (index, (id, name, input)) in self.calls {
            if id.is_empty() || name.is_empty() {
                return Err(AgentError::provider(format!(
                    "the anthropic API streamed tool use block {index} without an id or a name; check that the base URL serves the Anthropic format"
                )));
            }
            // A call without input streams no pieces: its input is `{}`. Text that is not JSON
            // is kept as text, so the session answers it with an error result.
            let arguments = if input.trim().is_empty() {
                json!({})
            } else {
                serde_json::from_str(&input).unwrap_or(Value::String(input))
            };
            reply.calls.push(ModelCall {
                id,
                name,
                arguments,
            });
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_content_has_a_block_or_a_line() {
        let result = ToolResult::text("t")
            .with_content(Content::audio(b"RIFF", "audio/wav"))
            .with_content(Content::embedded_text("test://a", "text/markdown", "# A"))
            .with_content(Content::embedded_blob(
                "file:///a.pdf",
                "application/pdf",
                b"%PDF",
            ))
            .with_content(Content::embedded_blob(
                "file:///a.png",
                "image/png",
                b"\x89PNG",
            ))
            .with_content(Content::embedded_blob(
                "file:///a.bin",
                "application/octet-stream",
                b"\x00",
            ))
            .with_content(Content::link("file:///big.csv", "big.csv"));
        assert_eq!(
            result_blocks(&result),
            json!([
                {"type": "text", "text": "t"},
                {"type": "text", "text": "[audio: audio/wav, 4 bytes]"},
                {"type": "document", "title": "test://a", "source": {"type": "text", "media_type": "text/plain", "data": "# A"}},
                {"type": "document", "title": "file:///a.pdf", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
                {"type": "text", "text": "[resource file:///a.bin (application/octet-stream), 1 bytes]"},
                {"type": "text", "text": "[resource link: big.csv <file:///big.csv>]"},
            ])
        );
    }
}
