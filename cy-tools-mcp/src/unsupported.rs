//! The answer to a method this server does not serve: what it does serve, and what to do.

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use serde_json::json;

/// The methods a client may call.
pub(super) const SUPPORTED: [&str; 5] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
];

/// `-32601` naming `method`, what is served instead, and what to do; logged at debug (a
/// client probing for resources or prompts is routine, not a problem of this server).
pub(super) fn method(method: &str) -> ErrorData {
    tracing::debug!(method, "a method this server does not serve");
    let what = if method.starts_with("resources/") || method.starts_with("prompts/") {
        "this server offers tools only, no resources or prompts"
    } else if method.starts_with("completion/") {
        "this server offers no prompts or resource templates to complete"
    } else {
        "it is not a method of this server"
    };
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "`{method}` is not supported: {what}; the methods served are {}; list the tools with `tools/list` and call one with `tools/call`",
            SUPPORTED.map(|m| format!("`{m}`")).join(", ")
        ),
        Some(json!({ "method": method, "supported": SUPPORTED })),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_method_and_what_is_served() {
        let err = method("resources/list");
        assert_eq!(err.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(err.message.starts_with(
            "`resources/list` is not supported: this server offers tools only, no resources or prompts; the methods served are `initialize`, `ping`, `tools/list`"
        ));
        assert_eq!(err.data.unwrap()["supported"][3], "tools/call");
    }
}
