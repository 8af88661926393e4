//! `@modelcontextprotocol/server-everything` (npm), confined in the session's sandbox: listed,
//! called, every content type it answers mapped (text, image, resource links, an embedded
//! resource, structured content), bad arguments refused before it sees them, a long operation
//! stopped at the call timeout and its progress reaching the call in order, and nothing of the host's environment reaching it but what its
//! entry names.

use cy_tools::call::{Content, Progress, ResourceBody};
use cy_tools::session::McpServerSpec;
use cy_tools::{CancellationToken, ToolCall};
use serde_json::json;

use crate::support::{installed, session};

fn everything(modules: &std::path::Path) -> McpServerSpec {
    let script = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    McpServerSpec {
        name: "everything".into(),
        command: "node".into(),
        args: vec![script.to_string_lossy().into_owned(), "stdio".into()],
        read_only: vec![modules.to_string_lossy().into_owned()],
        // Cargo sets these in every test process: one is given, the other must not reach it.
        env: vec!["CARGO_PKG_NAME".into()],
        ..McpServerSpec::default()
    }
}

#[tokio::test]
async fn the_reference_server_is_listed_called_and_its_content_mapped() {
    let Some(modules) = installed("CY_MCP_SERVERS") else {
        return;
    };
    let f = session(&[everything(&modules)]).await;
    let names: Vec<&str> = f.servers.tool_names().collect();
    for wanted in [
        "everything__echo",
        "everything__get-sum",
        "everything__get-tiny-image",
        "everything__trigger-long-running-operation",
    ] {
        assert!(names.contains(&wanted), "{wanted} not in {names:?}");
    }
    let call = async |tool: &str, args| f.session.call(&format!("everything__{tool}"), args).await;

    assert_eq!(
        call("echo", json!({"message": "hi"})).await.text_content(),
        "Echo: hi"
    );
    assert_eq!(
        call("get-sum", json!({"a": 2, "b": 3}))
            .await
            .text_content(),
        "The sum of 2 and 3 is 5."
    );
    let refused = call("get-sum", json!({"a": "two", "b": 3})).await;
    assert!(refused.is_error);
    assert!(
        refused.text_content().contains("`a`"),
        "{}",
        refused.text_content()
    );

    let image = call("get-tiny-image", json!({})).await;
    assert!(
        image.content.iter().any(|c| matches!(c, Content::Image { mime_type, data } if mime_type == "image/png" && !data.is_empty())),
        "{image:?}"
    );
    let links = call("get-resource-links", json!({"count": 2})).await;
    let uris: Vec<&str> = links
        .content
        .iter()
        .filter_map(|c| match c {
            Content::ResourceLink { uri, .. } => Some(uri.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(uris.len(), 2, "{links:?}");
    let embedded = call("get-resource-reference", json!({"resourceId": 2})).await;
    assert!(
        embedded.content.iter().any(|c| matches!(c, Content::Resource { uri, body: ResourceBody::Text { .. }, .. } if uri == "demo://resource/dynamic/text/2")),
        "{embedded:?}"
    );
    let structured = call("get-structured-content", json!({"location": "Chicago"})).await;
    assert!(
        structured
            .content
            .iter()
            .any(|c| matches!(c, Content::Json { value } if value.get("temperature").is_some())),
        "{structured:?}"
    );

    let env = call("get-env", json!({})).await.text_content();
    assert!(
        env.contains("\"CARGO_PKG_NAME\": \"cy-tools-mcp-client\""),
        "{env}"
    );
    assert!(!env.contains("CARGO_MANIFEST_DIR"), "{env}");
}

#[tokio::test]
async fn a_long_operation_is_stopped_at_the_call_timeout() {
    let Some(modules) = installed("CY_MCP_SERVERS") else {
        return;
    };
    let mut spec = everything(&modules);
    spec.call_timeout_secs = Some(1);
    spec.env.clear();
    let f = session(&[spec]).await;
    let result = f
        .session
        .call(
            "everything__trigger-long-running-operation",
            json!({"duration": 30, "steps": 3}),
        )
        .await;
    assert!(result.is_error);
    assert!(
        result.text_content().contains("timed out after 1s"),
        "{}",
        result.text_content()
    );
    // The server goes on answering.
    let echoed = f
        .session
        .call("everything__echo", json!({"message": "still"}))
        .await;
    assert_eq!(echoed.text_content(), "Echo: still");
}

#[tokio::test]
async fn a_long_operations_progress_reaches_the_call_in_order() {
    let Some(modules) = installed("CY_MCP_SERVERS") else {
        return;
    };
    let mut spec = everything(&modules);
    spec.env.clear();
    let f = session(&[spec]).await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let call = ToolCall::new("c1", json!({"duration": 2, "steps": 4})).with_progress(
        std::sync::Arc::new(move |p: Progress| sink.lock().unwrap().push(p)),
    );
    let result = f
        .session
        .execute(
            "everything__trigger-long-running-operation",
            call,
            &CancellationToken::new(),
        )
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    let seen = seen.lock().unwrap().clone();
    let steps: Vec<(f64, Option<f64>)> = seen.iter().map(|p| (p.done, p.total)).collect();
    assert_eq!(
        steps,
        [
            (1.0, Some(4.0)),
            (2.0, Some(4.0)),
            (3.0, Some(4.0)),
            (4.0, Some(4.0))
        ],
        "{seen:?}"
    );
    // A call nobody listens to runs as before.
    let quiet = f
        .session
        .call(
            "everything__trigger-long-running-operation",
            json!({"duration": 1, "steps": 2}),
        )
        .await;
    assert!(!quiet.is_error, "{}", quiet.text_content());
}
