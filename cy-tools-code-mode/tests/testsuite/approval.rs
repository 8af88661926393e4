//! Calls the code makes go through the same approval as the model's: a nested `write_file`
//! that needs approval asks the `execute_code` call's own approver (the person its host asks),
//! runs when approved, and when declined reaches Python as a `cy_sdk.ToolError` with nothing
//! written; the log records who decided.

use std::sync::{Arc, Mutex};

use cy_tools::approval::{Approval, ApprovalPolicy, ApprovalRequest, Approver, Decision};
use cy_tools::memory::MemoryLog;
use cy_tools::{
    BoxFuture, CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    services::{ExecutionLog, Sandbox},
};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
use serde_json::json;

/// Approves every call but those of `declines`, and remembers what it was asked.
struct Person {
    declines: &'static str,
    asked: Mutex<Vec<String>>,
}

impl Approver for Person {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("{} {}", request.tool, request.call_id));
        let decline = request.tool == self.declines;
        Box::pin(async move {
            if decline {
                Decision::Declined {
                    by: "test person".into(),
                    reason: Some("not that file".into()),
                }
            } else {
                Decision::Approved {
                    by: "test person".into(),
                }
            }
        })
    }
}

async fn run_nested_write(
    declines: &'static str,
) -> (tempfile::TempDir, Vec<String>, String, Arc<MemoryLog>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "read-only calls do not ask").unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let executor = Arc::new(CodeModeExecutor::new(Arc::new(LocalExecutor::new(
        Arc::clone(&env),
    ))));
    let log = Arc::new(MemoryLog::new());
    // No chat and no approver of the session's own: a call that needs approval and is not
    // given one by its host is refused, so an approved nested write proves the host's
    // approver reached it.
    let context = ToolContext::new(SessionIdentity::root("s-approve", "tenant"))
        .with_env(env)
        .with_executor(executor.clone())
        .with_log(log.clone())
        .with_approval(Approval::new(ApprovalPolicy::Destructive));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["execute_code", "read_file", "write_file"], &context);
    let session = Arc::new(Session::new(Arc::new(context), tools));
    executor.bind(&session).unwrap();
    let person = Arc::new(Person {
        declines,
        asked: Mutex::new(Vec::new()),
    });
    let code = "import cy_sdk\ntry:\n    print(cy_sdk.call('write_file', path='out.txt', content='hi'))\nexcept cy_sdk.ToolError as err:\n    print('refused:', err)\nprint(cy_sdk.call('read_file', path='notes.txt'))";
    let call = ToolCall::new("top", json!({ "code": code })).with_approver(person.clone());
    let result = session
        .execute("execute_code", call, &CancellationToken::new())
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    let asked = person.asked.lock().unwrap().clone();
    (dir, asked, crate::support::outcome::text(&result), log)
}

#[tokio::test]
async fn a_nested_write_asks_the_execute_code_calls_approver_and_runs_when_approved() {
    let (dir, asked, printed, log) = run_nested_write("nothing").await;
    assert_eq!(asked, ["execute_code top", "write_file top/sdk-1"]);
    let lines: Vec<&str> = printed.lines().collect();
    assert!(lines[0].contains("`out.txt`"), "{printed}");
    assert_eq!(lines[1], "     1\tread-only calls do not ask");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "hi"
    );
    let entries = log.entries("s-approve").await.unwrap();
    let write = entries.iter().find(|e| e.tool == "write_file").unwrap();
    assert_eq!(write.parent_call.as_deref(), Some("top"));
    assert_eq!(
        write.result.details.as_ref().unwrap()["approval"],
        json!({"policy": "destructive", "decision": "approved", "by": "test person"})
    );
}

#[tokio::test]
async fn a_declined_nested_write_is_a_tool_error_in_python_and_writes_nothing() {
    let (dir, asked, printed, log) = run_nested_write("write_file").await;
    assert_eq!(asked, ["execute_code top", "write_file top/sdk-1"]);
    assert_eq!(
        printed,
        "refused: the call to `write_file` was not run: test person declined it (not that file); nothing was changed. Do not call it again as it is: ask the user what to do instead\n     1\tread-only calls do not ask"
    );
    assert!(!dir.path().join("out.txt").exists());
    let entries = log.entries("s-approve").await.unwrap();
    let write = entries.iter().find(|e| e.tool == "write_file").unwrap();
    assert!(write.result.is_error);
    assert_eq!(
        write.result.details.as_ref().unwrap()["approval"],
        json!({"policy": "destructive", "decision": "declined", "by": "test person"})
    );
}
