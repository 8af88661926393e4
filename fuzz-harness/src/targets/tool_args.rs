//! Every linked tool, any arguments: a call must end in a `ToolResult` (errors are fine), never
//! a panic, and nothing outside the workspace may change or be shown.
//!
//! Input: byte 0 picks the tool (index into the sorted names, modulo their number); byte 1
//! picks the form. Form 0: the rest is the arguments as JSON text, as OpenAI sends them.
//! Other forms: the rest drives a JSON value built from the tool's schema (mostly valid, with
//! wrong types and unknown fields mixed in).

use std::sync::{LazyLock, Mutex, PoisonError};

use arbitrary::Unstructured;
use cy_tools::{CancellationToken, ToolCall};

use crate::fixture::{SECRET, contains};
use crate::{Bench, json_gen, panics};

static BENCH: LazyLock<Mutex<Bench>> = LazyLock::new(|| {
    panics::install();
    Mutex::new(Bench::new())
});

/// Runs one input.
///
/// # Panics
/// When the tool panicked, showed a sentinel from outside the workspace, or changed anything
/// outside it.
pub fn run(data: &[u8]) {
    // A finding panics with the lock held; the next input rebuilds what it needs anyway.
    let mut guard = BENCH.lock().unwrap_or_else(PoisonError::into_inner);
    let bench = &mut *guard;
    let [pick, form, rest @ ..] = data else {
        return;
    };
    let index = usize::from(*pick) % bench.names.len();
    let name = bench.names[index].clone();
    let tool = bench.tools.get(&name).expect("a bound tool");
    let call = if *form % 4 == 0 {
        ToolCall::from_json_text("fuzz-call", String::from_utf8_lossy(rest))
    } else {
        let mut u = Unstructured::new(rest);
        let schema = tool.parameters();
        let Ok(arguments) = json_gen::object_for(&mut u, schema, schema, 0) else {
            return;
        };
        ToolCall::new("fuzz-call", arguments)
    };
    // The arguments as the tool would read them, for the supplementary check below.
    let decoded = match &call.arguments {
        serde_json::Value::String(text) => serde_json::from_str::<serde_json::Value>(text)
            .map_or_else(|_| text.clone(), |v| v.to_string()),
        other => other.to_string(),
    };
    bench.fixture.new_secret();
    bench.fixture.reset();
    bench.coordinator.reset();
    let cancel = CancellationToken::new();
    let panics_before = panics::count();
    // A panic in a tool is caught by `execute` and turned into an error result; libFuzzer's
    // panic hook aborts first, so it is still reported. The count catches it everywhere else.
    let result = bench.runtime.block_on(tool.execute(call, &cancel));
    let text = result.text_content();
    assert_eq!(panics::count(), panics_before, "`{name}` panicked: {text}");
    // The nonce is new for this input and in no input, so this check has no exemption.
    assert!(
        !text.contains(bench.fixture.nonce()),
        "ESCAPE: `{name}` showed a file from outside the workspace: {text}"
    );
    // The fixed text also catches a read too short to hold the nonce, but an input may carry
    // it (and a tool echo it), so there it proves nothing.
    assert!(
        decoded.contains(SECRET) || !contains(text.as_bytes(), SECRET.as_bytes()),
        "ESCAPE: `{name}` showed a file from outside the workspace: {text}"
    );
    bench.fixture.check_outside();
}
