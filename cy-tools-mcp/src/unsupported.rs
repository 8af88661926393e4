//! The answer to a method this server does not serve: what it does serve, and what to do.

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use serde_json::json;

/// The methods every server serves.
pub(super) const SUPPORTED: [&str; 5] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
];

/// The methods a server serves: [`SUPPORTED`], and those of resources, prompts and completion
/// when its session has them.
pub(super) fn served(resources: bool, prompts: bool) -> Vec<&'static str> {
    let mut methods = SUPPORTED.to_vec();
    if resources {
        methods.extend([
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "resources/unsubscribe",
        ]);
    }
    if prompts {
        methods.extend(["prompts/list", "prompts/get"]);
    }
    if resources || prompts {
        methods.push("completion/complete");
    }
    methods
}

/// `-32601` naming `method`, what is served instead (`served`), and what to do; logged at
/// debug (a client probing for resources or prompts is routine, not a problem of this server).
pub(super) fn method(method: &str, served: &[&str]) -> ErrorData {
    tracing::debug!(method, "a method this server does not serve");
    let resources = served.contains(&"resources/list");
    let prompts = served.contains(&"prompts/list");
    let what = if (method.starts_with("resources/") || method.starts_with("prompts/"))
        && !resources
        && !prompts
    {
        "this server offers tools only, no resources or prompts"
    } else if method.starts_with("resources/") && !resources {
        "this server offers no resources"
    } else if method.starts_with("prompts/") && !prompts {
        "this server offers no prompts"
    } else if method.starts_with("completion/") && !resources && !prompts {
        "this server offers no prompts or resource templates to complete"
    } else {
        "it is not a method of this server"
    };
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "`{method}` is not supported: {what}; the methods served are {}; list the tools with `tools/list` and call one with `tools/call`",
            served
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(json!({ "method": method, "supported": served })),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_method_and_what_is_served() {
        let err = method("resources/list", &served(false, false));
        assert_eq!(err.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(err.message.starts_with(
            "`resources/list` is not supported: this server offers tools only, no resources or prompts; the methods served are `initialize`, `ping`, `tools/list`"
        ));
        assert_eq!(err.data.unwrap()["supported"][3], "tools/call");
        let err = method("prompts/get", &served(true, false));
        assert!(err.message.starts_with("`prompts/get` is not supported: this server offers no prompts; the methods served are `initialize`, `ping`, `tools/list`, `tools/call`, `logging/setLevel`, `resources/list`"), "{}", err.message);
    }
}
