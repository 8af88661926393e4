//! Every linked tool, any arguments: a call must end in a `ToolResult` (errors are fine), never
//! a panic, and nothing outside the workspace may change or be shown.
//!
//! Input: byte 0 picks the tool (index into the sorted names, modulo their number); byte 1
//! picks the form. Form 0: the rest is the arguments as JSON text, as OpenAI sends them.
//! Other forms: the rest drives a JSON value built from the tool's schema (mostly valid, with
//! wrong types and unknown fields mixed in).

#![no_main]

use std::sync::LazyLock;

use cy_tools::{CancellationToken, ToolCall};
use cy_tools_fuzz::fixture::{SECRET, contains};
use cy_tools_fuzz::{Bench, json_gen};
use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

static BENCH: LazyLock<Bench> = LazyLock::new(Bench::new);

fuzz_target!(|data: &[u8]| {
    let bench = &*BENCH;
    let [pick, form, rest @ ..] = data else {
        return;
    };
    let index = usize::from(*pick) % bench.names.len();
    let name = &bench.names[index];
    let tool = bench.tools.get(name).expect("a bound tool");
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
    // The fuzzer may learn the sentinel text and write it into the workspace itself; then
    // seeing it proves nothing, and only the outside check below applies.
    let decoded = match &call.arguments {
        serde_json::Value::String(text) => serde_json::from_str::<serde_json::Value>(text)
            .map_or_else(|_| text.clone(), |v| v.to_string()),
        other => other.to_string(),
    };
    let may_show_secret = decoded.contains("SENTINEL");
    bench.fixture.reset();
    bench.coordinator.reset();
    let cancel = CancellationToken::new();
    // A panic in a tool is caught by `execute` and turned into an error result; libFuzzer's
    // panic hook aborts first, so it is still reported. The check below catches it too.
    let result = bench.runtime.block_on(tool.execute(call, &cancel));
    let text = result.text_content();
    // How `execute` words a caught panic; an input that carries the words proves nothing.
    let panic_text = format!("`{name}` failed with an internal error (");
    assert!(
        decoded.contains("internal error") || !text.starts_with(&panic_text),
        "`{name}` panicked: {text}"
    );
    assert!(
        may_show_secret || !contains(text.as_bytes(), SECRET.as_bytes()),
        "ESCAPE: `{name}` showed a file from outside the workspace: {text}"
    );
    bench.fixture.check_outside();
});
