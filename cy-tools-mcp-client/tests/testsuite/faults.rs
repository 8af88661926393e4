//! A server that misbehaves: one that never answers is stopped at the call timeout and told it
//! was cancelled; one that dies mid-call answers an error naming it and is started again for
//! the next call; a cancelled call is cancelled at the server; a server cannot read outside
//! the session's sandbox; a tool name the protocol allows but a session does not is mapped; a
//! schema the validator cannot check goes through unchecked, and the report says so; names
//! never collide with the session's other tools; what a server asks (sampling, elicitation)
//! goes to whoever the call's host asks, else is declined with the reason.

use std::time::Duration;

use cy_tools::prelude::*;
use serde_json::json;

use crate::support::{fault_server, session};

#[tokio::test]
async fn a_silent_server_is_stopped_at_the_call_timeout_and_told() {
    let mut spec = fault_server("fault");
    spec.call_timeout_secs = Some(1);
    let f = session(&[spec]).await;
    let result = f.session.call("fault__hang", json!({})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "`fault__hang` timed out after 1s and was stopped; retry with a smaller task or split the work into several calls"
    );
    // The server was told (rmcp sends `notifications/cancelled` when the call is dropped).
    let log = f.workspace.path().join("cancelled.log");
    let mut told = String::new();
    for _ in 0..50 {
        told = std::fs::read_to_string(&log).unwrap_or_default();
        if !told.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(told.lines().count(), 1, "{told:?}");
    // It still answers.
    let echoed = f.session.call("fault__echo", json!({"text": "hi"})).await;
    assert_eq!(echoed.text_content(), "echo: hi");
}

#[tokio::test]
async fn a_cancelled_call_is_cancelled_at_the_server() {
    let f = session(&[fault_server("fault")]).await;
    let cancel = CancellationToken::new();
    let call = f
        .session
        .execute("fault__hang", ToolCall::new("c1", json!({})), &cancel);
    let stop = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, stop);
    assert!(result.is_error);
    assert!(
        result.text_content().contains("was cancelled"),
        "{}",
        result.text_content()
    );
    let log = f.workspace.path().join("cancelled.log");
    for _ in 0..50 {
        if log.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server was not told of the cancellation");
}

#[tokio::test]
async fn a_server_that_dies_mid_call_is_named_and_started_again() {
    let f = session(&[fault_server("fault")]).await;
    let result = f.session.call("fault__die", json!({})).await;
    assert!(result.is_error);
    let said = result.text_content();
    assert!(
        said.starts_with("MCP server `fault` stopped while `die` ran")
            && said.contains("it is started again for the next call"),
        "{said}"
    );
    // A call in flight when it dies is answered too, naming it: never left hanging.
    let (hung, died) = tokio::join!(f.session.call("fault__hang", json!({})), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        f.session.call("fault__die", json!({})).await
    });
    assert!(died.is_error);
    assert!(
        hung.is_error
            && hung
                .text_content()
                .starts_with("MCP server `fault` stopped while `hang` ran"),
        "{}",
        hung.text_content()
    );
    let echoed = f
        .session
        .call("fault__echo", json!({"text": "again"}))
        .await;
    assert_eq!(
        (echoed.is_error, echoed.text_content().as_str()),
        (false, "echo: again")
    );
}

#[tokio::test]
async fn a_server_cannot_read_outside_the_sandbox() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "the host's secret").unwrap();
    let f = session(&[fault_server("fault")]).await;
    std::fs::write(f.workspace.path().join("mine.txt"), "mine").unwrap();
    let inside = f
        .session
        .call("fault__read", json!({"path": "mine.txt"}))
        .await;
    assert_eq!(inside.text_content(), "mine");
    let result = f
        .session
        .call("fault__read", json!({"path": secret.to_str().unwrap()}))
        .await;
    assert!(result.is_error);
    assert!(
        result
            .text_content()
            .starts_with("could not read: [Errno 13] Permission denied"),
        "{}",
        result.text_content()
    );
}

#[tokio::test]
async fn names_schemas_and_annotations_as_a_session_takes_them() {
    let f = session(&[fault_server("fault")]).await;
    let names: Vec<&str> = f.servers.tool_names().collect();
    assert_eq!(
        names[..5],
        [
            "fault__echo",
            "fault__hang",
            "fault__die",
            "fault__read",
            "fault__ask"
        ]
    );
    let odd = names[5];
    assert!(odd.starts_with("fault__look_around-"), "{odd}");
    // `unevaluatedProperties` is not checked here: the arguments go to the server as they are.
    assert_eq!(f.servers.report().len(), 1);
    assert!(f.servers.report()[0].starts_with(&format!(
        "`{odd}`: its arguments go to MCP server `fault` unchecked"
    )));
    let answered = f.session.call(odd, json!({"a": "x"})).await;
    assert_eq!(answered.text_content(), "echo: x");
    // Bad arguments for a checked tool are refused before the server sees them.
    let refused = f.session.call("fault__echo", json!({"text": 3})).await;
    assert!(refused.is_error);
    assert!(
        refused.text_content().contains("`text`"),
        "{}",
        refused.text_content()
    );
    // The server says `echo` is read-only; the session does not believe it unless told to.
    let echo = f.session.tools().get("fault__echo").unwrap();
    assert!(echo.annotations().destructive && !echo.annotations().read_only);
    let mut trusted = crate::support::fault_server("trusted");
    trusted.trust_annotations = true;
    let g = session(&[trusted]).await;
    assert!(
        g.session
            .tools()
            .get("trusted__echo")
            .unwrap()
            .annotations()
            .read_only
    );
}

#[tokio::test]
async fn a_server_tool_never_shadows_another_tool() {
    let f = session(&[fault_server("fault")]).await;
    let context = f.session.context();
    let err = f
        .servers
        .bind(context, &["read_file", "fault__echo"])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP server `fault`'s tool `echo` would be named `fault__echo`, which another tool of the session already is; rename the server"
    );
}

#[tokio::test]
async fn wrong_entries_are_refused_naming_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let view = cy_tools_sandbox::LocalSandbox::new(dir.path())
        .unwrap()
        .env();
    let mut missing = fault_server("fault");
    missing.tools = Some(vec!["frobnicate".into()]);
    let err = cy_tools_mcp_client::McpServers::start(&[missing], &view)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP server `fault` has no tool `frobnicate` (its tools are `echo`, `hang`, `die`, `read`, `ask`, `look/around`, `change`, `count`); fix the server's `tools` in the spec"
    );
    let mut not_a_server = fault_server("nothing");
    not_a_server.command = "true".into();
    not_a_server.args.clear();
    not_a_server.startup_timeout_secs = Some(5);
    let err = cy_tools_mcp_client::McpServers::start(&[not_a_server], &view)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("MCP server `nothing` did not complete the MCP handshake"),
        "{err}"
    );
}

/// Answers a model's part with "hi from the model" and a form with the name Ada.
struct Answering;

impl cy_tools::call::Asker for Answering {
    fn sample<'a>(
        &'a self,
        request: &'a cy_tools::call::SampleRequest,
    ) -> cy_tools::BoxFuture<'a, Result<cy_tools::call::Sampled, cy_tools::call::AskError>> {
        assert_eq!(
            request.messages[0].content,
            cy_tools::call::Content::text("Say hi")
        );
        Box::pin(async {
            Ok(cy_tools::call::Sampled {
                role: cy_tools::catalog::Role::Assistant,
                content: cy_tools::call::Content::text("hi from the model"),
                model: "fake".into(),
                stop_reason: None,
            })
        })
    }

    fn elicit<'a>(
        &'a self,
        message: &'a str,
        form: &'a cy_tools::call::ElicitForm,
    ) -> cy_tools::BoxFuture<'a, Result<cy_tools::call::Elicited, cy_tools::call::AskError>> {
        assert_eq!(message, "Your name?");
        assert_eq!(form.schema()["required"], json!(["name"]));
        Box::pin(async {
            Ok(cy_tools::call::Elicited::Accept(
                json!({"name": "Ada"}).as_object().unwrap().clone(),
            ))
        })
    }
}

#[tokio::test]
async fn a_servers_questions_go_to_whoever_the_call_asks_else_are_declined() {
    let f = session(&[fault_server("fault")]).await;
    let call = ToolCall::new("c1", json!({})).with_asker(std::sync::Arc::new(Answering));
    let result = f
        .session
        .execute("fault__ask", call, &CancellationToken::new())
        .await;
    let seen: serde_json::Value = serde_json::from_str(&result.text_content()).unwrap();
    assert_eq!(
        seen["sampled"]["result"]["content"]["text"],
        "hi from the model"
    );
    assert_eq!(seen["elicited"]["result"]["action"], "accept");
    assert_eq!(seen["elicited"]["result"]["content"]["name"], "Ada");
    // A call whose host cannot be asked: the server is told why.
    let result = f.session.call("fault__ask", json!({})).await;
    let seen: serde_json::Value = serde_json::from_str(&result.text_content()).unwrap();
    let said = seen["sampled"]["error"]["message"].as_str().unwrap();
    assert!(
        said.starts_with("the cy-tools session using MCP server `fault` cannot ask a model now"),
        "{said}"
    );
}

#[tokio::test]
async fn a_servers_progress_reaches_the_call_with_its_totals_and_messages() {
    let f = session(&[fault_server("fault")]).await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let call = ToolCall::new("c1", json!({})).with_progress(std::sync::Arc::new(
        move |p: cy_tools::call::Progress| sink.lock().unwrap().push(p.to_string()),
    ));
    let result = f
        .session
        .execute("fault__count", call, &CancellationToken::new())
        .await;
    assert_eq!(result.text_content(), "counted");
    assert_eq!(
        *seen.lock().unwrap(),
        ["1/3 step 1 of 3", "2/3 step 2 of 3", "3/3 step 3 of 3"]
    );
}
