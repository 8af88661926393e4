//! The OpenAI Chat Completions wire format (`POST {base}/chat/completions`), which vLLM,
//! Ollama, llama.cpp's server and OpenRouter speak too.
//!
//! A turn's tool calls come in `choices[0].message.tool_calls`, each with its arguments as JSON
//! *text*; results go back as one `role: "tool"` message per call, carrying its
//! `tool_call_id`. Streamed, the same arrives as `delta`s: text in `delta.content`, each call
//! in pieces under `delta.tool_calls[].index`, and (with `stream_options.include_usage`) the
//! usage in a last chunk whose `choices` is empty, then `data: [DONE]`.

use std::collections::{BTreeMap, HashSet};

use cy_tools::dialect::Dialect;
use serde_json::{Value, json};

use super::error::AgentError;
use super::provider::{Declared, Provider, RequestParts, StreamReader, malformed};
use super::sse::Event;
use super::tool_search::openai_search_tool;
use super::transcript::{Message, ModelCall, Reply, Usage, result_text};
use super::turn_budget::Written;

/// The OpenAI Chat Completions format.
#[derive(Debug, Default)]
pub(crate) struct OpenAi;

impl Provider for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn endpoint(&self) -> &'static str {
        "/chat/completions"
    }

    fn headers(
        &self,
        key: Option<&str>,
        _strict: bool,
        _tool_search: bool,
    ) -> Vec<(&'static str, String)> {
        key.map(|key| vec![("authorization", format!("Bearer {key}"))])
            .unwrap_or_default()
    }

    fn search_declarations(&self, declared: &Declared, loaded: &HashSet<String>) -> Vec<Value> {
        // No native form: the kept and found tools, and the loop's own search tool.
        let mut tools: Vec<Value> = declared
            .tools
            .iter()
            .zip(&declared.order)
            .filter(|(_, name)| loaded.contains(*name))
            .map(|(tool, _)| tool.clone())
            .collect();
        tools.push(openai_search_tool());
        tools
    }

    fn searches_itself(&self) -> bool {
        false
    }

    fn dialects(&self) -> (Dialect, Dialect) {
        (Dialect::OpenAiStrict, Dialect::OpenAi)
    }

    fn request(&self, parts: &RequestParts<'_>) -> Value {
        let mut messages = Vec::new();
        if let Some(system) = parts.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        for message in parts.messages {
            match message {
                Message::User(text) => messages.push(json!({"role": "user", "content": text})),
                // OpenAI runs no tool itself: there are no server blocks to send back.
                Message::Assistant { text, calls, .. } => {
                    let mut out = json!({
                        "role": "assistant",
                        "content": if text.is_empty() { Value::Null } else { json!(text) },
                    });
                    if !calls.is_empty() {
                        out["tool_calls"] = calls
                            .iter()
                            .map(|call| {
                                json!({
                                    "id": call.id,
                                    "type": "function",
                                    "function": {"name": call.name, "arguments": call.arguments_text()},
                                })
                            })
                            .collect();
                    }
                    messages.push(out);
                }
                Message::Results(results) => {
                    for (call, result) in results {
                        messages.push(json!({
                            "role": "tool",
                            "tool_call_id": call.id,
                            "content": result_text(result),
                        }));
                    }
                }
            }
        }
        let mut body = json!({"model": parts.model, "messages": messages});
        if !parts.tools.is_empty() {
            // Parallel calls are the default; the field is left out, as some compatible servers
            // refuse fields they do not know.
            body["tools"] = Value::Array(parts.tools.to_vec());
        }
        // OpenAI's own API has replaced `max_tokens` (which its reasoning models refuse) with
        // `max_completion_tokens`; the compatible servers know the older name.
        let limit = if parts.official {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[limit] = json!(parts.max_tokens);
        if parts.stream {
            body["stream"] = Value::Bool(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }

    fn parse(&self, body: &Value) -> Result<Reply, AgentError> {
        let choice = body
            .get("choices")
            .and_then(|c| c.get(0))
            .ok_or_else(|| malformed("openai", "`choices[0]`", body))?;
        let message = choice
            .get("message")
            .ok_or_else(|| malformed("openai", "`choices[0].message`", body))?;
        let mut calls = Vec::new();
        for call in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(id), Some(name)) = (
                call.get("id").and_then(Value::as_str),
                call.pointer("/function/name").and_then(Value::as_str),
            ) else {
                return Err(malformed(
                    "openai",
                    "an `id` and a `function.name` in each tool call",
                    body,
                ));
            };
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => Value::String(text.clone()),
                // Some compatible servers send an object instead of its text.
                Some(value @ Value::Object(_)) => value.clone(),
                _ => Value::String(String::new()),
            };
            calls.push(ModelCall {
                id: id.to_string(),
                name: name.to_string(),
                arguments,
            });
        }
        Ok(Reply {
            text: message
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            calls,
            usage: usage(body.get("usage")),
            model: body
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_string),
            stop_reason: choice
                .get("finish_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
            server_blocks: Vec::new(),
        })
    }

    fn stream(&self) -> Box<dyn StreamReader> {
        Box::new(Stream::default())
    }

    fn error_message(&self, body: &Value) -> Option<String> {
        let error = body.get("error")?;
        error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str())
            .map(str::to_string)
    }
}

fn usage(usage: Option<&Value>) -> Usage {
    let count = |name: &str| {
        usage
            .and_then(|u| u.get(name))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Usage {
        input_tokens: count("prompt_tokens"),
        output_tokens: count("completion_tokens"),
    }
}

/// A streamed answer being put together.
#[derive(Default)]
struct Stream {
    reply: Reply,
    /// The calls by their `index`, as their pieces arrive: id, name, arguments text.
    calls: BTreeMap<u64, (String, String, String)>,
    written: Written,
}

impl StreamReader for Stream {
    fn event(&mut self, event: &Event, text: &mut dyn FnMut(&str)) -> Result<bool, AgentError> {
        if event.data.trim() == "[DONE]" {
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(&event.data).map_err(|err| {
            AgentError::provider(format!(
                "the openai API streamed a chunk that is not JSON ({err}): {}; check that the base URL serves the OpenAI format",
                event.data
            ))
        })?;
        if let Some(message) = OpenAi.error_message(&chunk) {
            return Err(AgentError::provider(format!(
                "the openai API failed mid-answer: {message}"
            )));
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str) {
            self.reply.model = Some(model.to_string());
        }
        if chunk.get("usage").is_some_and(Value::is_object) {
            self.reply.usage = usage(chunk.get("usage"));
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(false);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.reply.stop_reason = Some(reason.to_string());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(false);
        };
        if let Some(piece) = delta.get("content").and_then(Value::as_str) {
            self.written.add(piece);
            text(piece);
            self.reply.text.push_str(piece);
        }
        // What the loop does not keep is still written (and billed): compatible servers stream
        // a reasoning model's thinking so, and OpenAI a refusal.
        for field in ["reasoning_content", "reasoning", "refusal"] {
            if let Some(piece) = delta.get(field).and_then(Value::as_str) {
                self.written.add(piece);
            }
        }
        for piece in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = piece.get("index").and_then(Value::as_u64).unwrap_or(0);
            let call = self.calls.entry(index).or_default();
            if let Some(id) = piece.get("id").and_then(Value::as_str) {
                call.0 = id.to_string();
            }
            if let Some(name) = piece.pointer("/function/name").and_then(Value::as_str) {
                call.1.push_str(name);
            }
            if let Some(arguments) = piece.pointer("/function/arguments").and_then(Value::as_str) {
                self.written.add(arguments);
                call.2.push_str(arguments);
            }
        }
        Ok(false)
    }

    fn written(&self) -> Written {
        self.written
    }

    fn finish(self: Box<Self>) -> Result<Reply, AgentError> {
        let mut reply = self.reply;
        for (index, (id, name, arguments)) in self.calls {
            if id.is_empty() || name.is_empty() {
                return Err(AgentError::provider(format!(
                    "the openai API streamed tool call {index} without an id or a name; check that the base URL serves the OpenAI format"
                )));
            }
            reply.calls.push(ModelCall {
                id,
                name,
                arguments: Value::String(arguments),
            });
        }
        Ok(reply)
    }
}
