//! Plain (not `async`) functions as tools: they run on the blocking pool, so a slow one does
//! not hold up the runtime, and they take the same parameters as `async` ones.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use cy_tools::prelude::*;

/// Say hello.
#[tool]
fn hello(/** Who. */ name: String) -> String {
    format!("hello, {name}")
}

/// The application's counter.
struct Counter(AtomicUsize);

/// Count a call, seeing the session, the call and the application's counter.
#[tool(capabilities(session))]
fn count(ctx: Ctx<'_>, call: CallInfo, counter: State<'_, Counter>) -> String {
    let n = counter.0.fetch_add(1, Ordering::SeqCst) + 1;
    format!(
        "call {} of session {}: {n} (progress wanted: {})",
        call.id,
        ctx.session().session_id,
        call.wants_progress()
    )
}

/// Sleep, blocking the thread, then answer.
#[tool]
fn nap(/** Milliseconds. */ ms: u64) -> &'static str {
    std::thread::sleep(Duration::from_millis(ms));
    "rested"
}

/// Panic.
#[tool]
fn boom() -> String {
    panic!("the tool's own bug")
}

fn main() {
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_state(Counter(AtomicUsize::new(0)));
    let tools = ToolRegistry::linked()
        .unwrap()
        .try_build(&["hello", "count", "nap", "boom"], &context)
        .unwrap();
    // One thread: a sync tool that ran on it would stop everything else.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let cancel = CancellationToken::new();
    let call = |name: &str, args: serde_json::Value| {
        runtime.block_on(tools.execute(name, ToolCall::new("c1", args), &cancel))
    };
    assert_eq!(
        call("hello", serde_json::json!({"name": "Ada"})).text_content(),
        "hello, Ada"
    );
    assert_eq!(
        call("count", serde_json::json!({})).text_content(),
        "call c1 of session s-1: 1 (progress wanted: false)"
    );
    let failed = call("boom", serde_json::json!({}));
    assert!(failed.is_error);
    assert!(
        failed
            .text_content()
            .starts_with("`boom` failed with an internal error (the tool's own bug)"),
        "{}",
        failed.text_content()
    );

    // While `nap` blocks a thread, a task on the runtime's only thread keeps ticking: the nap
    // is still running when the ticker is done.
    let napped = AtomicBool::new(false);
    let result = runtime.block_on(async {
        let nap = async {
            let args = serde_json::json!({"ms": 2000});
            let result = tools.execute("nap", ToolCall::new("c2", args), &cancel).await;
            napped.store(true, Ordering::SeqCst);
            result
        };
        let ticker = async {
            for _ in 0..5 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert!(!napped.load(Ordering::SeqCst), "the nap blocked the runtime");
        };
        tokio::join!(nap, ticker).0
    });
    assert_eq!(result.text_content(), "rested");
}
