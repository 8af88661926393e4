//! What to do with one line of input: hand it to `rmcp` as a message, answer it with a JSON-RPC
//! error, or drop it.
//!
//! `rmcp`'s stdio transport drops a line that is not JSON without a word (a client waiting for
//! that request's answer waits forever), answers an invalid request without its `id`, and
//! answers malformed notifications, which JSON-RPC 2.0 says are never answered. Lines are
//! checked here first, with the parse `rmcp` does (into its [`ClientJsonRpcMessage`]):
//!
//! * a message `rmcp` takes goes to it unchanged;
//! * a line that is not JSON is answered `-32700` (parse error) with `"id": null`;
//! * a request that is not valid is answered `-32600` (invalid request) with its `id` when a
//!   string or number can be read there, else with `"id": null`, as is a value that is neither
//!   a request nor a notification (`{}`, `5`, a batch);
//! * a malformed notification (a `method` and no `id`), or response, is dropped with a debug
//!   log: nothing may answer it.
//!
//! Every error message says what is wrong and what to send instead.

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Map, Value, json};

/// JSON-RPC 2.0's code for input that is not JSON.
pub(super) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0's code for JSON that is not a valid request.
pub(super) const INVALID_REQUEST: i64 = -32600;

/// A request that works, for the error messages.
const EXAMPLE: &str = r#"`{"jsonrpc": "2.0", "id": 1, "method": "ping"}`"#;

/// What to do with a line.
#[derive(Debug)]
pub(super) enum Checked {
    /// Hand it to `rmcp`.
    Message(Box<ClientJsonRpcMessage>),
    /// Answer it with this line (a JSON-RPC error response, newline included).
    Reply(Vec<u8>),
    /// Nothing: it is empty, or a malformed notification or response.
    Drop,
}

/// How messages arrive, for the wording of the errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    /// One message per line (stdio).
    Lines,
    /// One message per HTTP request body (streamable HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Bodies,
}

impl Framing {
    /// What carries one message.
    fn unit(self) -> &'static str {
        match self {
            Framing::Lines => "line",
            Framing::Bodies => "request body",
        }
    }

    /// How many messages go in each.
    fn one_each(self) -> &'static str {
        match self {
            Framing::Lines => "per line",
            Framing::Bodies => "per request",
        }
    }

    /// Where each message of a batch goes instead.
    fn each_apart(self) -> &'static str {
        match self {
            Framing::Lines => "on a line of its own",
            Framing::Bodies => "in a request of its own",
        }
    }
}

/// Checks one line (without its newline).
pub(super) fn check(line: &[u8]) -> Checked {
    check_framed(line, Framing::Lines)
}

/// Checks one message as `framing` carries it.
pub(super) fn check_framed(line: &[u8], framing: Framing) -> Checked {
    // As `rmcp` reads a line: without a final `\r`, or a UTF-8 byte order mark.
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Drop;
    }
    let rejected = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => return Checked::Message(Box::new(message)),
        Err(err) => err,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(err) => {
            tracing::debug!(%err, "a line that is not JSON");
            return reply(
                PARSE_ERROR,
                Value::Null,
                format!(
                    "parse error: the {} is not JSON ({err}); send one JSON-RPC 2.0 message {}, such as {EXAMPLE}",
                    framing.unit(),
                    framing.one_each()
                ),
            );
        }
    };
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return invalid(
                Value::Null,
                &format!(
                    "a batch (a JSON array) is not supported; send each message {}",
                    framing.each_apart()
                ),
            );
        }
        other => {
            return invalid(
                Value::Null,
                &format!(
                    "a message is a JSON object, not {}; send one such as {EXAMPLE}",
                    kind(&other)
                ),
            );
        }
    };
    let problem = problem(&object).unwrap_or_else(|| {
        // The envelope is right; what is inside does not fit.
        format!("it is not a message MCP defines ({rejected})")
    });
    match object.get("id") {
        None if object.contains_key("method") => {
            tracing::debug!(%problem, "a malformed notification, dropped unanswered");
            Checked::Drop
        }
        Some(_) if is_response(&object) => {
            tracing::debug!(%problem, "a malformed response, dropped unanswered");
            Checked::Drop
        }
        Some(id @ (Value::String(_) | Value::Number(_))) => invalid(
            id.clone(),
            &format!("invalid request: {problem}; send a request such as {EXAMPLE}"),
        ),
        Some(id) => invalid(
            Value::Null,
            &format!(
                "invalid request: `id` is {}, and must be a string or a number; send a request such as {EXAMPLE}",
                kind(id)
            ),
        ),
        None => invalid(
            Value::Null,
            &format!(
                "invalid request: it has neither `method` nor `id`; send a request such as {EXAMPLE}"
            ),
        ),
    }
}

/// What is wrong with the envelope of a message, if anything.
fn problem(object: &Map<String, Value>) -> Option<String> {
    match object.get("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        Some(other) => return Some(format!("`jsonrpc` is {other}, and must be \"2.0\"")),
        None => return Some("`jsonrpc` is missing, and must be \"2.0\"".to_string()),
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "`method` is {}, and must be a string such as \"tools/list\"",
                kind(other)
            ));
        }
        None if is_response(object) => return None,
        None => return Some("it has no `method`".to_string()),
    }
    match object.get("id") {
        Some(Value::Number(n)) if n.as_i64().is_none() => {
            return Some(format!(
                "`id` is the number {n}, and must be an integer or a string"
            ));
        }
        _ => {}
    }
    match object.get("params") {
        // MCP names its parameters: positional ones (an array) are not taken.
        None | Some(Value::Object(_) | Value::Null) => None,
        Some(other) => Some(format!(
            "`params` is {}, and must be an object",
            kind(other)
        )),
    }
}

/// A response (what a client sends back for a server's request) rather than a request.
fn is_response(object: &Map<String, Value>) -> bool {
    !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"))
}

/// A value's JSON type, and the value when short, for a message.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() <= 40 => format!("the string {value}"),
        Value::String(_) => "a string".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

fn invalid(id: Value, message: &str) -> Checked {
    tracing::debug!(%id, message, "an invalid request");
    reply(INVALID_REQUEST, id, message.to_string())
}

fn reply(code: i64, id: Value, message: String) -> Checked {
    let response = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut line = response.to_string().into_bytes();
    line.push(b'\n');
    Checked::Reply(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_to(line: &str) -> Value {
        match check(line.as_bytes()) {
            Checked::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
            other => panic!("{line}: not answered: {other:?}"),
        }
    }

    fn dropped(line: &str) {
        assert!(matches!(check(line.as_bytes()), Checked::Drop), "{line}");
    }

    fn passed(line: &str) {
        assert!(
            matches!(check(line.as_bytes()), Checked::Message(_)),
            "{line}"
        );
    }

    #[test]
    fn what_rmcp_takes_passes_unchanged() {
        passed(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        passed("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}\r");
        passed(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        passed(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#);
        dropped("");
        dropped(" \t\r");
    }

    #[test]
    fn not_json_is_a_parse_error_with_a_null_id() {
        let answer = reply_to("hello {");
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], PARSE_ERROR);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("parse error: the line is not JSON (expected value at line 1 column 1); send one JSON-RPC 2.0 message per line, such as `{"),
            "{message}"
        );
    }

    #[test]
    fn an_invalid_request_is_answered_with_its_id() {
        let answer = reply_to(r#"{"jsonrpc":"2.0","id":7,"method":5}"#);
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": INVALID_REQUEST, "message":
                "invalid request: `method` is the number 5, and must be a string such as \"tools/list\"; send a request such as `{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}`"}})
        );
        let answer = reply_to(r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#);
        assert_eq!(answer["id"], "x");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("invalid request: `jsonrpc` is \"1.0\", and must be \"2.0\"; ")
        );
        let answer = reply_to(r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":5}"#);
        assert_eq!(answer["id"], 3);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        for (line, says) in [
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1]}"#,
                "invalid request: `params` is an array, and must be an object; ",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                "invalid request: `id` is the number 1.5, and must be an integer or a string; ",
            ),
        ] {
            let answer = reply_to(line);
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.starts_with(says), "{line}: {message}");
            assert_ne!(answer["id"], Value::Null, "{line}");
        }
    }

    #[test]
    fn no_readable_id_is_a_null_id() {
        for (line, says) in [
            ("{}", "it has neither `method` nor `id`"),
            ("5", "a message is a JSON object, not the number 5"),
            ("[]", "a batch (a JSON array) is not supported"),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                "a batch (a JSON array) is not supported",
            ),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                "`id` is an object, and must be a string or a number",
            ),
        ] {
            let answer = reply_to(line);
            assert_eq!(answer["id"], Value::Null, "{line}");
            assert_eq!(answer["error"]["code"], INVALID_REQUEST, "{line}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(says), "{line}: {message}");
        }
    }

    #[test]
    fn malformed_notifications_and_responses_are_never_answered() {
        dropped(r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#);
        dropped(r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#);
        dropped(r#"{"method":5}"#);
        dropped(r#"{"jsonrpc":"2.0","id":4,"error":{"code":"x"}}"#);
    }
}
