//! Approval is one of the session's hooks: after the host's hooks by default, or where the host
//! placed it; a hook that refuses first means nobody is asked; a person's answer is bounded by
//! the approval timeout, not the hooks'; who approved stays in the result's `details`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cy_tools::BoxFuture;
use cy_tools::approval::{Approval, ApprovalPolicy, ApprovalRequest, Approver, Decision};
use cy_tools::call::hook::{After, Before, CallHook, HookCall, HookError, Hooks};
use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::prelude::*;
use cy_tools::{Session, Toolset, binding::bind_tool};
use serde_json::json;

/// Write `text` to `notes.txt`.
#[tool(register = false, capabilities(env), destructive)]
async fn jot(
    env: &dyn Sandbox,
    /** What to write. */
    text: String,
) -> Result<String, ToolError> {
    env.write("notes.txt", text.into_bytes()).await?;
    Ok("jotted".into())
}

/// Writes down, in one shared list, when a hook or the approver is reached.
type Trail = Arc<Mutex<Vec<String>>>;

/// A host hook that records the call and refuses it when told to.
struct Recorder {
    trail: Trail,
    refuse: bool,
    answer: bool,
}

impl CallHook for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        self.trail
            .lock()
            .unwrap()
            .push(format!("recorder before {}", call.tool));
        Box::pin(std::future::ready(Ok(if self.refuse {
            Before::Refuse("jotting is off".into())
        } else if self.answer {
            Before::Answer(ToolResult::text("from the cache"))
        } else {
            Before::Pass
        })))
    }

    fn after<'a>(
        &'a self,
        _call: &'a HookCall<'a>,
        _result: &'a ToolResult,
    ) -> BoxFuture<'a, Result<After, HookError>> {
        self.trail.lock().unwrap().push("recorder after".into());
        Box::pin(std::future::ready(Ok(After::Keep)))
    }
}

/// An approver that takes `delay` to say yes, and writes down that it was asked.
struct SlowYes {
    trail: Trail,
    delay: Duration,
}

impl Approver for SlowYes {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        self.trail
            .lock()
            .unwrap()
            .push(format!("asked about {}", request.tool));
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            Decision::Approved { by: "carol".into() }
        })
    }
}

struct Fixture {
    sandbox: Arc<MemorySandbox>,
    trail: Trail,
    session: Session,
}

fn fixture(hooks: impl FnOnce(Arc<Recorder>) -> Hooks, refuse: bool, delay: Duration) -> Fixture {
    let trail = Trail::default();
    let sandbox = Arc::new(MemorySandbox::new());
    let recorder = Arc::new(Recorder {
        trail: trail.clone(),
        refuse,
        answer: false,
    });
    let approver = Arc::new(SlowYes {
        trail: trail.clone(),
        delay,
    });
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-hook", "acme"))
            .with_env(sandbox.clone())
            .with_approval(Approval::new(ApprovalPolicy::Destructive).with_approver(approver))
            .with_hooks(hooks(recorder)),
    );
    let tools = Toolset::new(vec![bind_tool(&JOT, Arc::clone(&context)).unwrap()]);
    Fixture {
        sandbox,
        trail,
        session: Session::new(context, tools),
    }
}

async fn jot_hello(f: &Fixture) -> ToolResult {
    f.session
        .execute(
            "jot",
            ToolCall::new("c1", json!({"text": "hello"})),
            &CancellationToken::new(),
        )
        .await
}

fn trail(f: &Fixture) -> Vec<String> {
    f.trail.lock().unwrap().clone()
}

#[tokio::test]
async fn approval_runs_after_the_hosts_hooks_and_records_who_approved() {
    let f = fixture(|r| Hooks::default().with(r), false, Duration::ZERO);
    let result = jot_hello(&f).await;
    assert_eq!(result.text_content(), "jotted");
    assert_eq!(
        trail(&f),
        ["recorder before jot", "asked about jot", "recorder after"]
    );
    assert_eq!(
        result.details.unwrap()["approval"],
        json!({"policy": "destructive", "decision": "approved", "by": "carol"})
    );
}

#[tokio::test]
async fn a_host_can_place_approval_first() {
    let f = fixture(
        |r| Hooks::default().with_approval().with(r),
        false,
        Duration::ZERO,
    );
    let result = jot_hello(&f).await;
    assert_eq!(result.text_content(), "jotted");
    assert_eq!(
        trail(&f),
        ["asked about jot", "recorder before jot", "recorder after"]
    );
}

#[tokio::test]
async fn a_hook_that_refuses_first_means_nobody_is_asked() {
    let f = fixture(|r| Hooks::default().with(r), true, Duration::ZERO);
    let result = jot_hello(&f).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "`jot` was refused by hook `recorder`: jotting is off"
    );
    assert_eq!(trail(&f), ["recorder before jot"]);
    assert!(f.sandbox.read("notes.txt").await.is_err(), "the body ran");
}

#[tokio::test]
async fn a_person_is_given_the_approval_timeout_not_the_hooks() {
    // Hooks get 50 ms each; the person answers in 300 ms, within the approval's 5 s.
    let f = fixture(
        |r| {
            Hooks::default()
                .with(r)
                .with_timeout(Duration::from_millis(50))
        },
        false,
        Duration::from_millis(300),
    );
    let result = jot_hello(&f).await;
    assert_eq!(
        (result.is_error, result.text_content().as_str()),
        (false, "jotted")
    );
    assert_eq!(f.sandbox.read("notes.txt").await.unwrap(), b"hello");
}

#[tokio::test]
async fn without_host_hooks_approval_still_asks_in_the_chat() {
    // No hooks at all: the built-in approval hook alone, asking the session's chat.
    let sandbox = Arc::new(MemorySandbox::new());
    let chat = Arc::new(MemoryChat::new());
    chat.answer("dave", "no");
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-hook", "acme"))
            .with_env(sandbox.clone())
            .with_chat(chat.clone())
            .with_approval(Approval::new(ApprovalPolicy::Destructive)),
    );
    let session = Session::new(
        Arc::clone(&context),
        Toolset::new(vec![bind_tool(&JOT, context).unwrap()]),
    );
    let result = session.call("jot", json!({"text": "hello"})).await;
    assert_eq!(
        result.text_content(),
        "the call to `jot` was not run: chat: dave declined it (no); nothing was changed. Do not call it again as it is: ask the user what to do instead"
    );
    assert_eq!(
        result.details.unwrap()["approval"]["decision"],
        json!("declined")
    );
    assert_eq!(chat.messages().len(), 1, "the question was posted once");
    assert!(sandbox.read("notes.txt").await.is_err(), "the body ran");
}

#[tokio::test]
async fn a_hook_can_answer_in_the_tools_place() {
    let trail = Trail::default();
    let sandbox = Arc::new(MemorySandbox::new());
    let recorder = Arc::new(Recorder {
        trail: trail.clone(),
        refuse: false,
        answer: true,
    });
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-hook", "acme"))
            .with_env(sandbox.clone())
            .with_hooks(Hooks::default().with(recorder)),
    );
    let session = Session::new(
        Arc::clone(&context),
        Toolset::new(vec![bind_tool(&JOT, context).unwrap()]),
    );
    let result = session.call("jot", json!({"text": "hello"})).await;
    assert_eq!(
        (result.is_error, result.text_content().as_str()),
        (false, "from the cache")
    );
    // Neither the body nor any `after` step ran.
    assert_eq!(*trail.lock().unwrap(), ["recorder before jot"]);
    assert!(sandbox.read("notes.txt").await.is_err(), "the body ran");
}
