//! Runtime costs: binding a 16-tool toolset for a new session, and one typed call against
//! `serde_json::from_value` plus a direct call of the same function; then the calls that also
//! check arguments against the schema (a typed tool whose schema constrains more than its type,
//! and a raw tool), valid and invalid.
//!
//! `typed_call` first prints a paired ratio (`support/paired.rs`: the two sides timed in
//! alternating rounds, the median of the per-round ratios, with their quartiles), which a
//! change of load between criterion's sequential measurements cannot skew; its goal is at
//! most 1.3x.
//!
//! `scripts/bench-runtime` runs this and prints the paired ratio and criterion's medians.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::{
    BoxFuture, CallInfo, CancellationToken, Ctx, SessionIdentity, ToolCall, ToolContext,
    ToolRegistry, ToolResult,
    binding::bind_tool,
    capability::capability_set,
    definition::{RawToolDefinition, ToolDefinition},
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

// `median_ratio` is for `bench/`, which includes the same file.
#[allow(dead_code)]
#[path = "support/paired.rs"]
mod paired;

/// Parameters of the measured tool: a string, an integer, an optional flag.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct GreetParams {
    /// Who to greet.
    name: String,
    /// How many times.
    times: u32,
    /// Shout.
    loud: Option<bool>,
}

async fn greet(p: GreetParams) -> String {
    let mut out = String::with_capacity(p.name.len() * p.times as usize + 8);
    for _ in 0..p.times {
        out.push_str(&p.name);
    }
    if p.loud == Some(true) {
        out.make_ascii_uppercase();
    }
    out
}

capability_set!(GreetCaps: env);

fn greet_body<'a>(
    p: GreetParams,
    _: Ctx<'a, GreetCaps>,
    _: CallInfo<'a>,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move { ToolResult::text(greet(p).await) })
}

macro_rules! sixteen {
    ($($name:ident),*) => {
        $(
            #[allow(non_upper_case_globals)]
            static $name: ToolDefinition<GreetParams, GreetCaps> =
                ToolDefinition::new(stringify!($name), "Greets someone.", greet_body);
        )*
        const DEFS: &[&ToolDefinition<GreetParams, GreetCaps>] = &[$(&$name),*];
    };
}

sixteen!(
    t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t12, t13, t14, t15
);

fn context(id: &str) -> ToolContext {
    ToolContext::new(SessionIdentity::root(id, "bench"))
        .with_env(Arc::new(MemorySandbox::new()))
        .with_chat(Arc::new(MemoryChat::new()))
}

fn bind(c: &mut Criterion) {
    let mut registry = ToolRegistry::new();
    for def in DEFS {
        registry
            .register(cy_tools::definition::Definition::name(*def), *def)
            .unwrap();
    }
    let names: Vec<&str> = registry.names();
    let ctx = context("s-1");
    // Warm the shared schemas so the measurement is the per-session cost.
    assert_eq!(registry.build(&names, &ctx).len(), 16);
    c.bench_function("bind_16_tools", |b| {
        b.iter(|| black_box(registry.build(black_box(&names), black_box(&ctx))))
    });
}

fn call(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let args = json!({"name": "ada", "times": 3, "loud": true});
    let tool = bind_tool(&t00, context("s-1")).unwrap();
    let token = CancellationToken::new();
    assert_eq!(
        runtime
            .block_on(tool.execute(ToolCall::new("c", args.clone()), &token))
            .text_content(),
        "ADAADAADA"
    );

    // Paired: 201 rounds of 1,000 calls a side, alternating which side goes first.
    let baseline = || {
        runtime.block_on(async {
            let p: GreetParams = serde_json::from_value(black_box(args.clone())).unwrap();
            greet(p).await
        })
    };
    let ours = || {
        runtime.block_on(async {
            let call = ToolCall::new("c", black_box(args.clone()));
            tool.execute(call, &token).await
        })
    };
    let ratios = paired::round_ratios(201, 1_000, ours, baseline);
    let quartile = |q: usize| ratios[(ratios.len() - 1) * q / 4];
    println!(
        "| paired `typed_call`: `cy_tools_execute` / `baseline_from_value_and_direct_call` | {:.2}x | quartiles {:.2}x-{:.2}x |",
        quartile(2),
        quartile(1),
        quartile(3)
    );

    let mut group = c.benchmark_group("typed_call");
    group.bench_function("baseline_from_value_and_direct_call", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let p: GreetParams = serde_json::from_value(black_box(args.clone())).unwrap();
                black_box(greet(p).await)
            })
        })
    });
    group.bench_function("cy_tools_execute", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let call = ToolCall::new("c", black_box(args.clone()));
                black_box(tool.execute(call, &token).await)
            })
        })
    });
    group.finish();
}

/// `GreetParams` with constraints only the schema states, so every call is also checked against
/// the schema.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CheckedGreetParams {
    /// Who to greet.
    #[schemars(length(min = 1, max = 64), regex(pattern = r"^[a-z]+$"))]
    name: String,
    /// How many times.
    #[schemars(range(min = 1, max = 10))]
    times: u32,
    /// Shout.
    loud: Option<bool>,
}

fn checked_greet_body<'a>(
    p: CheckedGreetParams,
    _: Ctx<'a, GreetCaps>,
    _: CallInfo<'a>,
) -> BoxFuture<'a, ToolResult> {
    let p = GreetParams {
        name: p.name,
        times: p.times,
        loud: p.loud,
    };
    Box::pin(async move { ToolResult::text(greet(p).await) })
}

static CHECKED: ToolDefinition<CheckedGreetParams, GreetCaps> =
    ToolDefinition::new("checked", "Greets someone.", checked_greet_body);

/// The schema of a code-running tool, as `execute_code` writes it by hand.
fn code_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 1},
            "filename": {"type": "string", "default": "main.py"},
            "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000}
        },
        "required": ["code"]
    })
}

fn run_code<'a>(args: Value, _: Ctx<'a, GreetCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        ToolResult::text(args["code"].as_str().unwrap_or_default().len().to_string())
    })
}

static RAW: RawToolDefinition<GreetCaps> =
    RawToolDefinition::new("run_code", "Runs code.", code_schema, run_code);

fn checked_calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let token = CancellationToken::new();
    let typed = bind_tool(&CHECKED, context("s-1")).unwrap();
    let raw = bind_tool(&RAW, context("s-1")).unwrap();
    let cases = [
        (
            "typed_checked_valid",
            &typed,
            json!({"name": "ada", "times": 3, "loud": true}),
            false,
        ),
        (
            "typed_checked_invalid",
            &typed,
            json!({"name": "Ada", "times": 0}),
            true,
        ),
        (
            "raw_valid",
            &raw,
            json!({"code": "print(1)", "timeout_ms": 1000}),
            false,
        ),
        (
            "raw_invalid",
            &raw,
            json!({"code": "", "timeout_ms": 0}),
            true,
        ),
    ];
    let mut group = c.benchmark_group("checked_call");
    for (name, tool, args, invalid) in cases {
        let result = runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &token));
        assert_eq!(
            result.is_error,
            invalid,
            "{name}: {}",
            result.text_content()
        );
        group.bench_function(name, |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let call = ToolCall::new("c", black_box(args.clone()));
                    black_box(tool.execute(call, &token).await)
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bind, call, checked_calls);
criterion_main!(benches);
