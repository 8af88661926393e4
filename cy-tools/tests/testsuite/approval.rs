//! Approval through the session's chat, without MCP: the question is posted in the chat and the
//! answer awaited; yes runs the body, anything else or no answer in time does not, and the log
//! records who decided. Read-only tools never ask; a session with nobody to ask refuses.

use std::sync::Arc;
use std::time::Duration;

use cy_tools::approval::{Approval, ApprovalPolicy};
use cy_tools::memory::{MemoryChat, MemoryLog, MemorySandbox};
use cy_tools::prelude::*;
use cy_tools::{Session, Toolset, binding::bind_tool};
use serde_json::json;

/// Write `text` to `notes.txt`.
#[tool(register = false, capabilities(env), destructive)]
async fn note(
    env: &dyn Sandbox,
    /** What to write. */
    text: String,
) -> Result<String, ToolError> {
    env.write("notes.txt", text.into_bytes()).await?;
    Ok("noted".into())
}

/// Read `notes.txt`.
#[tool(register = false, capabilities(env), read_only)]
async fn peek(env: &dyn Sandbox) -> Result<String, ToolError> {
    Ok(String::from_utf8_lossy(&env.read("notes.txt").await?).into_owned())
}

struct Fixture {
    sandbox: Arc<MemorySandbox>,
    chat: Arc<MemoryChat>,
    session: Session,
}

fn session(policy: ApprovalPolicy, with_chat: bool, timeout: Duration) -> Fixture {
    let sandbox = Arc::new(MemorySandbox::new());
    let chat = Arc::new(MemoryChat::new());
    let log = Arc::new(MemoryLog::new());
    let mut context = ToolContext::new(SessionIdentity::root("s-chat", "acme"))
        .with_env(sandbox.clone())
        .with_log(log)
        .with_approval(Approval::new(policy).with_timeout(timeout));
    if with_chat {
        context = context.with_chat(chat.clone());
    }
    let context = Arc::new(context);
    let tools = Toolset::new(vec![
        bind_tool(&NOTE, Arc::clone(&context)).unwrap(),
        bind_tool(&PEEK, Arc::clone(&context)).unwrap(),
    ]);
    Fixture {
        sandbox,
        chat,
        session: Session::new(context, tools),
    }
}

async fn call(f: &Fixture, tool: &str, id: &str, args: serde_json::Value) -> ToolResult {
    f.session
        .execute(tool, ToolCall::new(id, args), &CancellationToken::new())
        .await
}

async fn approval_logged(f: &Fixture, id: &str) -> serde_json::Value {
    let entries = f.session.entries().await.unwrap();
    let entry = entries.iter().find(|e| e.call_id == id).unwrap();
    entry.result.details.as_ref().unwrap()["approval"].clone()
}

#[tokio::test]
async fn a_yes_in_the_chat_runs_the_call_and_the_log_says_who() {
    let f = session(ApprovalPolicy::Destructive, true, Duration::from_secs(5));
    f.chat.answer("alice", "Yes.");
    let result = call(&f, "note", "c1", json!({"text": "hello"})).await;
    assert_eq!(
        (result.is_error, result.text_content().as_str()),
        (false, "noted")
    );
    assert_eq!(f.sandbox.read("notes.txt").await.unwrap(), b"hello");
    let asked = f.chat.messages();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].text,
        r#"Allow `note` with {"text":"hello"}? (session s-chat, call c1)"#
    );
    assert_eq!(
        approval_logged(&f, "c1").await,
        json!({"policy": "destructive", "decision": "approved", "by": "chat: alice"})
    );
    // Read-only: no question.
    let result = call(&f, "peek", "c2", json!({})).await;
    assert_eq!(result.text_content(), "hello");
    assert_eq!(f.chat.messages().len(), 1);
}

#[tokio::test]
async fn a_no_in_the_chat_leaves_everything_as_it_was() {
    let f = session(ApprovalPolicy::Destructive, true, Duration::from_secs(5));
    f.chat.answer("bob", "no, keep the notes");
    let result = call(&f, "note", "c1", json!({"text": "hello"})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "the call to `note` was not run: chat: bob declined it (no, keep the notes); nothing was changed. Do not call it again as it is: ask the user what to do instead"
    );
    assert!(f.sandbox.read("notes.txt").await.is_err(), "the body ran");
    assert_eq!(
        approval_logged(&f, "c1").await,
        json!({"policy": "destructive", "decision": "declined", "by": "chat: bob"})
    );
}

#[tokio::test]
async fn no_answer_in_time_is_a_refusal_saying_so() {
    let f = session(ApprovalPolicy::All, true, Duration::from_millis(50));
    let result = call(&f, "peek", "c1", json!({})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "the call to `peek` was not run: it needs a person's approval (policy `all`) and nobody answered within 50ms; nothing was changed. Ask the user to watch for the approval request, then call it again"
    );
    assert_eq!(
        approval_logged(&f, "c1").await,
        json!({"policy": "all", "decision": "unanswered", "by": "nobody"})
    );
}

#[tokio::test]
async fn a_session_with_nobody_to_ask_refuses_and_names_the_setting() {
    let f = session(ApprovalPolicy::Destructive, false, Duration::from_secs(5));
    let result = call(&f, "note", "c1", json!({"text": "hello"})).await;
    assert!(result.is_error);
    assert!(
        result.text_content().contains("`--approve none`"),
        "{}",
        result.text_content()
    );
    assert!(f.sandbox.read("notes.txt").await.is_err(), "the body ran");
    // Policy `none` (the default) asks nobody.
    let f = session(ApprovalPolicy::None, false, Duration::from_secs(5));
    let result = call(&f, "note", "c1", json!({"text": "hello"})).await;
    assert_eq!(result.text_content(), "noted");
    assert_eq!(f.session.entries().await.unwrap()[0].result.details, None);
}
