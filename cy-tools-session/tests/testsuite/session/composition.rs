//! The order of a session's tools, as the design composes it: `execute_code`, the tools the
//! bound chat brings, the spec's, the caller's extras, delegation; and what a child (no chat,
//! no extras) keeps of them.

use std::sync::Arc;

use cy_tools::memory::{MemoryLog, MemorySpecs};
use cy_tools::prelude::*;
use cy_tools::services::{ChatTool, ServiceError};
use cy_tools::{BoxFuture, services::ChildRequest, session::SubagentProfile};
use cy_tools_session::compose::Extras;
use cy_tools_session::{LocalChat, LocalSessionFactory};
use serde_json::json;

use super::{runtime, spec};

/// React to the user's last message with an emoji.
#[tool(register = false, capabilities(chat, session))]
async fn react(
    _chat: &dyn Chat,
    session: &SessionIdentity,
    /// The emoji's name, such as `eyes`.
    emoji: String,
) -> String {
    format!("{} reacted with :{emoji}:", session.session_id)
}

/// A Slack-like chat: `LocalChat`'s messages, plus a `react` tool of its own that no registry
/// has.
struct ReactingChat(LocalChat);

impl Chat for ReactingChat {
    fn send(&self, message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>> {
        self.0.send(message)
    }

    fn tools(&self, _session: &ToolContext) -> Vec<ChatTool> {
        vec![ChatTool::SEND_MESSAGE, ChatTool::Definition(&REACT)]
    }
}

struct Ticket(u32);

/// Close the ticket this session works on.
#[tool(register = false, capabilities(session))]
async fn close_ticket(session: &SessionIdentity, ticket: State<'_, Ticket>) -> String {
    format!("{} closed ticket {}", session.session_id, ticket.0)
}

/// Tell the people something (needs the chat, so only a session with one can take it).
#[tool(register = false, capabilities(chat))]
async fn shout(_chat: &dyn Chat) -> &'static str {
    "shouted"
}

fn factory(chat: Arc<dyn Chat>) -> LocalSessionFactory {
    LocalSessionFactory::new(
        Arc::new(ToolRegistry::linked().unwrap()),
        Arc::new(MemorySpecs::new()),
        Arc::new(MemoryLog::new()),
    )
    .with_chat(chat)
}

fn call(id: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, args)
}

#[test]
fn a_chat_brings_its_tools_after_execute_code_and_a_child_gets_none_of_them() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(Arc::new(ReactingChat(LocalChat::in_memory())));
        let parent = factory
            .create_with(
                spec("p", dir.path())
                    .with_tools(["read_file", "send_message", "write_file"])
                    .with_chat(true)
                    .with_subagent(SubagentProfile::new(
                        "worker",
                        ["read_file", "send_message", "react"],
                    )),
                Extras::new().with_tool(&CLOSE_TICKET).with_state(Ticket(7)),
            )
            .await
            .unwrap();
        assert_eq!(
            parent.tools().names(),
            [
                "execute_code",
                "send_message",
                "react",
                "read_file",
                "write_file",
                "close_ticket",
                "delegate",
                "workflow"
            ]
        );
        let cancel = CancellationToken::new();
        let reacted = parent
            .execute("react", call("c1", json!({"emoji": "eyes"})), &cancel)
            .await;
        assert_eq!(reacted.text_content(), "p reacted with :eyes:");
        let closed = parent
            .execute("close_ticket", call("c2", json!({})), &cancel)
            .await;
        assert_eq!(closed.text_content(), "p closed ticket 7");
        // The chat's tool and the extra are recorded like the others.
        let logged: Vec<String> = parent
            .entries()
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.tool)
            .collect();
        assert_eq!(logged, ["react", "close_ticket"]);

        // A child has no chat: neither `send_message` nor the chat's own `react` (which is
        // not even registered), and none of its parent's extras.
        let child = factory
            .spawn_child(&parent, ChildRequest::new("worker"))
            .await
            .unwrap();
        assert_eq!(child.tools().names(), ["execute_code", "read_file"]);
    });
}

#[test]
fn without_a_chat_there_are_no_chat_tools_and_extras_come_after_the_spec() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(Arc::new(ReactingChat(LocalChat::in_memory())));
        let session = factory
            .create_with(
                spec("s", dir.path()).with_tools(["send_message", "read_file"]),
                Extras::new().with_tool(&CLOSE_TICKET).with_state(Ticket(1)),
            )
            .await
            .unwrap();
        assert_eq!(
            session.tools().names(),
            ["execute_code", "read_file", "close_ticket"]
        );
    });
}

#[test]
fn the_default_chat_brings_send_message_through_the_trait() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let chat = Arc::new(LocalChat::in_memory());
        let context = ToolContext::new(SessionIdentity::root("s", "acme"));
        let names: Vec<String> = chat
            .tools(&context)
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        assert_eq!(names, ["send_message"]);
        let session = factory(chat.clone())
            .create(spec("s", dir.path()).with_chat(true))
            .await
            .unwrap();
        assert_eq!(session.tools().names(), ["execute_code", "send_message"]);
        let sent = session
            .execute(
                "send_message",
                call("c1", json!({"text": "hello"})),
                &CancellationToken::new(),
            )
            .await;
        assert!(!sent.is_error, "{}", sent.text_content());
        assert_eq!(chat.messages()[0].text, "hello");
    });
}

#[test]
fn extras_are_not_stored_and_a_resume_has_those_its_caller_passes() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(Arc::new(LocalChat::in_memory()));
        factory
            .create_with(
                spec("s", dir.path()).with_tools(["read_file"]),
                Extras::new().with_tool(&CLOSE_TICKET).with_state(Ticket(1)),
            )
            .await
            .unwrap();
        let stored = factory.specs().load_spec("s").await.unwrap().unwrap();
        assert_eq!(stored.tools, ["read_file"]);
        let plain = factory.resume("s").await.unwrap();
        assert_eq!(plain.tools().names(), ["execute_code", "read_file"]);
        let again = factory
            .resume_with(
                "s",
                Extras::new().with_tool(&CLOSE_TICKET).with_state(Ticket(2)),
            )
            .await
            .unwrap();
        let closed = again
            .execute(
                "close_ticket",
                call("c1", json!({})),
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(closed.text_content(), "s closed ticket 2");
    });
}

#[test]
fn an_extra_is_refused_when_its_name_is_taken_or_the_session_lacks_what_it_needs() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(Arc::new(ReactingChat(LocalChat::in_memory())));
        let clash = factory
            .create_with(
                spec("a", dir.path()).with_chat(true),
                Extras::new().with_tool(&REACT),
            )
            .await
            .unwrap_err();
        assert_eq!(
            clash.to_string(),
            "extra tool `react` has the name of a tool session `a` has already (brought by its chat); rename the extra (register it under another name) or leave the other out"
        );
        let no_state = factory
            .create_with(spec("b", dir.path()), Extras::new().with_tool(&CLOSE_TICKET))
            .await
            .unwrap_err();
        assert!(
            no_state
                .to_string()
                .starts_with("extra tool `close_ticket` cannot be bound: tool `close_ticket` needs"),
            "{no_state}"
        );
        let no_chat = factory
            .create_with(spec("c", dir.path()), Extras::new().with_tool(&SHOUT))
            .await
            .unwrap_err();
        assert_eq!(
            no_chat.to_string(),
            "extra tool `shout` cannot be bound: tool `shout` needs capability `chat`, which session `c` does not provide; give the session's context that service, or leave the tool out of this session"
        );
        // Nothing refused was stored, so the ids are free again.
        for id in ["a", "b", "c"] {
            assert!(factory.specs().load_spec(id).await.unwrap().is_none());
        }
    });
}
