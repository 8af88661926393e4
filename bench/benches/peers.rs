//! cy-tools against rmcp on the same 16 tools, in one criterion run:
//!
//! * `peers_bind`: a new session's tool list. rmcp: `RmcpTools::new()`, which runs the
//!   `#[tool_router]`-generated `Self::tool_router()` (16 `Tool` values with their cached schemas
//!   into the router's map); also, for reference, cloning a router built once. cy-tools:
//!   `ToolRegistry::build` of the 16 names for a session context (one `Arc` of the context,
//!   16 capability checks, 16 bound tools sharing the cached schemas); also `build_shared` for a
//!   context already in an `Arc`, as a session factory hands it over, which is binding alone.
//! * `peers_call_read_file` (strings and optional integers) and `peers_call_schedule_event` (a
//!   nested struct, a `Vec` of structs, enums): one call with its JSON arguments, deserialized
//!   into the shared parameter struct (unknown fields denied on both sides), the body, the
//!   result wrapped. rmcp: `ServerHandler::call_tool`, which `#[tool_handler]` routes through the
//!   server's `ToolRouter` to a `CallToolResult`, with the `CallToolRequestParams` and the
//!   `RequestContext` (request id, a clone of the session's `Peer`, a fresh cancellation token)
//!   rmcp's service makes for each request. cy-tools: `BoundTool::execute` with a `ToolCall` (id
//!   and arguments) and the session's cancellation token, to a `ToolResult`. Both clone the same
//!   argument object first and run on the same current-thread Tokio runtime.
//! * `peers_list`: the whole list as MCP `tools/list` JSON text. rmcp: `ToolRouter::list_all()`
//!   serialized; cy-tools: `Dialect::Mcp.export_toolset_json` (the declarations written from the
//!   borrowed schemas; `export_toolset` builds `Value`s, which copies every schema).
//!
//! Each group first prints a paired ratio (`cy_tools_bench::paired`: the two sides timed in
//! alternating rounds, median of the per-round ratios), which a change of load between
//! criterion's sequential measurements cannot skew.
//!
//! Before measuring, the bench checks that both sides list the same 16 names, descriptions and
//! input schemas (rmcp's keeps a `$schema` key, which cy-tools drops), and that both calls answer
//! the same text. `scripts/bench-peers` runs this and prints the ratios.

#![forbid(unsafe_code)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::{CancellationToken, Dialect, SessionIdentity, ToolCall, ToolContext, Toolset};
use cy_tools_bench::{ours, paired, peer_rmcp::RmcpTools};
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
}

fn session_context() -> ToolContext {
    ToolContext::new(SessionIdentity::root("session-1", "bench"))
}

fn our_toolset() -> Toolset {
    let registry = ours::registry();
    let names = registry.names();
    let tools = registry.build(&names, &session_context());
    assert_eq!(tools.len(), 16);
    tools
}

/// The service and pipe end behind an rmcp peer, kept alive while the peer is used.
type RmcpService = (
    rmcp::service::RunningService<RoleServer, RmcpTools>,
    tokio::io::DuplexStream,
);

/// rmcp's `RequestContext` needs the session's `Peer`, which only rmcp's service loop makes
/// (its constructor is crate-private): serve the server over an in-process pipe without the
/// initialize handshake and take the peer from the running service, as the service loop would
/// hand it to each request.
fn rmcp_peer(runtime: &Runtime) -> (Peer<RoleServer>, RmcpService) {
    runtime.block_on(async {
        let (server_end, client_end) = tokio::io::duplex(4096);
        let running = rmcp::service::serve_directly(RmcpTools::new(), server_end, None);
        (running.peer().clone(), (running, client_end))
    })
}

fn rmcp_text(response: &CallToolResponse) -> String {
    let CallToolResponse::Complete(result) = response else {
        panic!("rmcp answered {response:?}");
    };
    assert_ne!(result.is_error, Some(true), "rmcp call failed: {result:?}");
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

/// Both sides declare the same tools: names, descriptions and input schemas.
fn check_same_tools(rmcp_server: &RmcpTools, tools: &Toolset) -> (usize, usize) {
    let rmcp_list = rmcp_server.router().list_all();
    let ours = Dialect::Mcp.export_toolset(tools).expect("MCP export");
    assert_eq!(rmcp_list.len(), ours.len());
    for declared in &ours {
        let name = declared["name"].as_str().expect("a name");
        let theirs = rmcp_list
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("rmcp has no `{name}`"));
        assert_eq!(
            theirs.description.as_deref(),
            declared["description"].as_str(),
            "description of `{name}`"
        );
        let mut schema = theirs.input_schema.as_ref().clone();
        schema.remove("$schema");
        assert_eq!(
            Value::Object(schema),
            declared["inputSchema"],
            "input schema of `{name}`"
        );
    }
    (
        serde_json::to_vec(&rmcp_list).expect("serializable").len(),
        serde_json::to_vec(&ours).expect("serializable").len(),
    )
}

/// Rounds of the paired measurement: odd, so the median is one round's ratio.
const ROUNDS: usize = 101;

/// Prints the paired ratio (see `cy_tools_bench::paired`) as a BENCHMARKS.md row.
fn report_paired(group: &str, numerator: &str, denominator: &str, ratio: f64) {
    println!("| paired `{group}`: `{numerator}` / `{denominator}` | {ratio:.2}x |");
}

fn bind(c: &mut Criterion) {
    let registry = ours::registry();
    let names = registry.names();
    let context = session_context();
    // Warm both schema caches, so what is measured is the per-session cost.
    assert_eq!(registry.build(&names, &context).len(), 16);
    let prototype = RmcpTools::new();
    assert_eq!(prototype.router().list_all().len(), 16);

    let shared = std::sync::Arc::new(context.clone());
    let ours_build = || registry.build(black_box(&names), black_box(&context));
    let ours_shared = || registry.build(black_box(&names), std::sync::Arc::clone(&shared));
    let ratio = paired::median_ratio(ROUNDS, 200, ours_build, RmcpTools::new);
    report_paired("peers_bind", "cy_tools_build", "rmcp_tool_router", ratio);
    let rmcp_clone = || black_box(&prototype).clone();
    let ratio = paired::median_ratio(ROUNDS, 200, ours_build, rmcp_clone);
    report_paired("peers_bind", "cy_tools_build", "rmcp_clone_router", ratio);
    let ratio = paired::median_ratio(ROUNDS, 200, ours_shared, rmcp_clone);
    report_paired(
        "peers_bind",
        "cy_tools_build_shared",
        "rmcp_clone_router",
        ratio,
    );

    let mut group = c.benchmark_group("peers_bind");
    group.bench_function("rmcp_tool_router", |b| {
        b.iter(|| black_box(RmcpTools::new()))
    });
    group.bench_function("rmcp_clone_router", |b| {
        b.iter(|| black_box(black_box(&prototype).clone()))
    });
    group.bench_function("cy_tools_build", |b| {
        b.iter(|| black_box(registry.build(black_box(&names), black_box(&context))))
    });
    // A session factory makes the context in an `Arc` itself and hands it over: binding alone.
    group.bench_function("cy_tools_build_shared", |b| {
        b.iter(|| {
            black_box(registry.build(black_box(&names), std::sync::Arc::clone(&shared)))
        })
    });
    group.finish();
}

fn call_pair(c: &mut Criterion, tool: &'static str, args: Value, expected: &str) {
    let runtime = runtime();
    let tools = our_toolset();
    let ours = tools.get(tool).expect("the tool is bound").clone();
    let server = RmcpTools::new();
    let (peer, _service) = rmcp_peer(&runtime);
    let token = CancellationToken::new();
    let args_object = object(args.clone());

    let rmcp_call = |args: Map<String, Value>| {
        let params = CallToolRequestParams::new(tool).with_arguments(args);
        let context = RequestContext::new(NumberOrString::Number(1), peer.clone());
        server.call_tool(params, context)
    };
    let response = runtime
        .block_on(rmcp_call(args_object.clone()))
        .expect("rmcp call");
    assert_eq!(rmcp_text(&response), expected);
    let result = runtime.block_on(ours.execute(ToolCall::new("call-1", args.clone()), &token));
    assert!(!result.is_error, "{}", result.text_content());
    assert_eq!(result.text_content(), expected);

    let rmcp_once = || runtime.block_on(rmcp_call(black_box(&args_object).clone()));
    let ours_once = || {
        runtime.block_on(ours.execute(ToolCall::new("call-1", black_box(&args).clone()), &token))
    };
    let ratio = paired::median_ratio(ROUNDS, 200, ours_once, rmcp_once);
    let group_name = format!("peers_call_{tool}");
    report_paired(&group_name, "cy_tools_execute", "rmcp_call_tool", ratio);

    let mut group = c.benchmark_group(group_name);
    group.bench_function("rmcp_call_tool", |b| {
        b.iter(|| {
            runtime.block_on(async { black_box(rmcp_call(black_box(&args_object).clone()).await) })
        })
    });
    group.bench_function("cy_tools_execute", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let call = ToolCall::new("call-1", black_box(&args).clone());
                black_box(ours.execute(call, &token).await)
            })
        })
    });
    group.finish();
}

fn call(c: &mut Criterion) {
    call_pair(
        c,
        "read_file",
        json!({"path": "src/main.rs", "offset": 120, "limit": 40}),
        "src/main.rs: lines 120..+40",
    );
    call_pair(
        c,
        "schedule_event",
        json!({
            "title": "Release review",
            "start": {"date": "2026-12-03", "time": "14:30", "zone": "Europe/Paris"},
            "duration_minutes": 45,
            "attendees": [
                {"email": "ada@example.com"},
                {"email": "grace@example.com", "optional": true},
                {"email": "linus@example.com", "optional": false}
            ],
            "recurrence": "weekly"
        }),
        "Release review on 2026-12-03 at 14:30 Europe/Paris for 45 min, 3 invited (2 required), \
         Some(Weekly)",
    );
}

fn list(c: &mut Criterion) {
    let tools = our_toolset();
    let server = RmcpTools::new();
    let (rmcp_bytes, our_bytes) = check_same_tools(&server, &tools);
    println!("tools/list JSON: rmcp {rmcp_bytes} bytes, cy-tools {our_bytes} bytes");

    let rmcp_list = || serde_json::to_vec(&black_box(&server).router().list_all());
    let ours_list = || {
        Dialect::Mcp
            .export_toolset_json(black_box(&tools))
            .map(String::into_bytes)
    };
    let ratio = paired::median_ratio(ROUNDS, 20, ours_list, rmcp_list);
    report_paired(
        "peers_list",
        "cy_tools_mcp_export_json",
        "rmcp_list_all_json",
        ratio,
    );

    let mut group = c.benchmark_group("peers_list");
    group.bench_function("rmcp_list_all_json", |b| {
        b.iter(|| {
            let listed = black_box(&server).router().list_all();
            black_box(serde_json::to_vec(&listed).expect("serializable"))
        })
    });
    group.bench_function("cy_tools_mcp_export_json", |b| {
        b.iter(|| {
            let text = Dialect::Mcp
                .export_toolset_json(black_box(&tools))
                .expect("MCP export");
            black_box(text.into_bytes())
        })
    });
    group.finish();
}

criterion_group!(benches, bind, call, list);
criterion_main!(benches);
