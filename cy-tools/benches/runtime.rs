//! Runtime costs: binding a 16-tool toolset for a new session, and one typed call against
//! `serde_json::from_value` plus a direct call of the same function.
//!
//! `scripts/bench-runtime` runs this and prints the ratios from criterion's medians.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::{
    BoxFuture, CallInfo, CancellationToken, Ctx, SessionIdentity, ToolCall, ToolContext,
    ToolDefinition, ToolRegistry, ToolResult, bind_tool, capability_set,
};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

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

criterion_group!(benches, bind, call);
criterion_main!(benches);
