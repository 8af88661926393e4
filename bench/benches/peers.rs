//! cy-tools against rmcp on the same 16 tools, in one criterion run:
//!
//! * `peers_bind`: a new session's tool list. The baseline is what an rmcp server that builds
//!   its `ToolRouter` once does per session: clone it (`rmcp_clone_router`). cy-tools:
//!   `ToolRegistry::build` of the 16 names for a session context (one `Arc` of the context, 16
//!   capability checks, 16 bound tools sharing the cached schemas), and `build_shared` for a
//!   context already in an `Arc`, as a session factory hands it over. Also, as a second
//!   baseline, rmcp building the router per session (`RmcpTools::new()`, the
//!   `#[tool_router]`-generated `Self::tool_router()`).
//! * `peers_call_read_file` (strings and optional integers) and `peers_call_schedule_event` (a
//!   nested struct, a `Vec` of structs, enums): one `tools/call` through the same path on both
//!   sides: the server's `ServerHandler::call_tool` with the `CallToolRequestParams` and the
//!   `RequestContext` (request id, a clone of the session's `Peer`, a fresh cancellation
//!   token) rmcp's service makes for each request, to a `CallToolResult`. rmcp: the
//!   `#[tool_handler]` server, through its `ToolRouter`. cy-tools: its MCP server
//!   (`cy_tools_builtin::mcp::McpServer`, as `cy-tools mcp --http` runs calls: on the
//!   protocol's own runtime), through the toolset to `BoundTool::execute` and the conversion.
//!   The bare `BoundTool::execute` (a `ToolCall` and a token made once, to a `ToolResult`) is a
//!   second row: what an application calling a tool in-process pays, not an MCP request. Both
//!   clone the same argument object first and run on the same current-thread Tokio runtime.
//! * `peers_list`: `tools/list` through the same path: each server's
//!   `ServerHandler::list_tools` with a per-request context, serialized to JSON text. Second
//!   row: the list written from the toolset (`ToolRouter::list_all()` serialized, against
//!   `Dialect::Mcp.export_toolset_json`), what a server that keeps no list pays.
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
use cy_tools::{
    CancellationToken, SessionIdentity, ToolCall, ToolContext, Toolset, dialect::Dialect,
};
use cy_tools_bench::{ours, paired, peer_rmcp::RmcpTools};
use cy_tools_builtin::mcp::McpServer;
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
    let tools = registry.build(&names, session_context());
    assert_eq!(tools.len(), 16);
    tools
}

/// The service and pipe end behind a peer, kept alive while the peer is used.
type Service<S> = (
    rmcp::service::RunningService<RoleServer, S>,
    tokio::io::DuplexStream,
);

/// An rmcp `RequestContext` needs the session's `Peer`, which only rmcp's service loop makes
/// (its constructor is crate-private): serve `server` over an in-process pipe without the
/// initialize handshake and take the peer from the running service, as the service loop would
/// hand it to each request. Each side gets the peer of its own service.
fn peer_of<S: ServerHandler>(runtime: &Runtime, server: S) -> (Peer<RoleServer>, Service<S>) {
    runtime.block_on(async {
        let (server_end, client_end) = tokio::io::duplex(4096);
        let running = rmcp::service::serve_directly(server, server_end, None);
        (running.peer().clone(), (running, client_end))
    })
}

/// The text of a completed, successful `tools/call` answer.
fn answer_text(side: &str, response: &CallToolResponse) -> String {
    let CallToolResponse::Complete(result) = response else {
        panic!("{side} answered {response:?}");
    };
    assert_ne!(
        result.is_error,
        Some(true),
        "{side} call failed: {result:?}"
    );
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
    // The baseline first: a router built once and cloned per session.
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
    let ratio = paired::median_ratio(ROUNDS, 200, ours_build, RmcpTools::new);
    report_paired("peers_bind", "cy_tools_build", "rmcp_tool_router", ratio);

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
        b.iter(|| black_box(registry.build(black_box(&names), std::sync::Arc::clone(&shared))))
    });
    group.finish();
}

fn call_pair(c: &mut Criterion, tool: &'static str, args: Value, expected: &str) {
    let runtime = runtime();
    let tools = our_toolset();
    let ours = tools.get(tool).expect("the tool is bound").clone();
    let our_server = McpServer::new(tools.clone()).expect("an MCP server over the 16 tools");
    let rmcp_server = RmcpTools::new();
    let (our_peer, _our_service) = peer_of(&runtime, our_server.clone());
    let (rmcp_peer, _rmcp_service) = peer_of(&runtime, RmcpTools::new());
    let token = CancellationToken::new();
    let args_object = object(args.clone());

    // What each service does per `tools/call` request: params, a context, the handler.
    let rmcp_call = |args: Map<String, Value>| {
        let params = CallToolRequestParams::new(tool).with_arguments(args);
        let context = RequestContext::new(NumberOrString::Number(1), rmcp_peer.clone());
        rmcp_server.call_tool(params, context)
    };
    let our_call = |args: Map<String, Value>| {
        let params = CallToolRequestParams::new(tool).with_arguments(args);
        let context = RequestContext::new(NumberOrString::Number(1), our_peer.clone());
        our_server.call_tool(params, context)
    };
    let response = runtime
        .block_on(rmcp_call(args_object.clone()))
        .expect("rmcp call");
    assert_eq!(answer_text("rmcp", &response), expected);
    let response = runtime
        .block_on(our_call(args_object.clone()))
        .expect("cy-tools MCP call");
    assert_eq!(answer_text("cy-tools", &response), expected);
    let result = runtime.block_on(ours.execute(ToolCall::new("call-1", args.clone()), &token));
    assert!(!result.is_error, "{}", result.text_content());
    assert_eq!(result.text_content(), expected);

    // What a host moves on every call before running it (into a task, into `block_on`): the
    // size of each side's call future.
    println!(
        "call future of `{tool}`: rmcp's `call_tool` {} bytes, cy-tools' `call_tool` {} bytes, `BoundTool::execute` {} bytes",
        std::mem::size_of_val(&rmcp_call(args_object.clone())),
        std::mem::size_of_val(&our_call(args_object.clone())),
        std::mem::size_of_val(&ours.execute(ToolCall::new("call-1", args.clone()), &token))
    );
    let rmcp_once = || runtime.block_on(rmcp_call(black_box(&args_object).clone()));
    let our_mcp_once = || runtime.block_on(our_call(black_box(&args_object).clone()));
    let ours_once = || {
        runtime.block_on(ours.execute(ToolCall::new("call-1", black_box(&args).clone()), &token))
    };
    let group_name = format!("peers_call_{tool}");
    let ratio = paired::median_ratio(ROUNDS, 200, our_mcp_once, rmcp_once);
    report_paired(
        &group_name,
        "cy_tools_mcp_call_tool",
        "rmcp_call_tool",
        ratio,
    );
    let ratio = paired::median_ratio(ROUNDS, 200, ours_once, rmcp_once);
    report_paired(&group_name, "cy_tools_execute", "rmcp_call_tool", ratio);

    let mut group = c.benchmark_group(group_name);
    group.bench_function("rmcp_call_tool", |b| {
        b.iter(|| {
            runtime.block_on(async { black_box(rmcp_call(black_box(&args_object).clone()).await) })
        })
    });
    group.bench_function("cy_tools_mcp_call_tool", |b| {
        b.iter(|| {
            runtime.block_on(async { black_box(our_call(black_box(&args_object).clone()).await) })
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
    let runtime = runtime();
    let tools = our_toolset();
    let server = RmcpTools::new();
    let (rmcp_bytes, our_bytes) = check_same_tools(&server, &tools);
    println!("tools/list JSON: rmcp {rmcp_bytes} bytes, cy-tools {our_bytes} bytes");
    let our_server = McpServer::new(tools.clone()).expect("an MCP server over the 16 tools");
    let (our_peer, _our_service) = peer_of(&runtime, our_server.clone());
    let (rmcp_peer, _rmcp_service) = peer_of(&runtime, RmcpTools::new());

    // `tools/list` as each service answers it: the handler with a per-request context, the
    // result serialized.
    let rmcp_list_tools = || {
        let context = RequestContext::new(NumberOrString::Number(1), rmcp_peer.clone());
        let listed = runtime.block_on(black_box(&server).list_tools(None, context));
        serde_json::to_vec(&listed.expect("rmcp tools/list")).expect("serializable")
    };
    let our_list_tools = || {
        let context = RequestContext::new(NumberOrString::Number(1), our_peer.clone());
        let listed = runtime.block_on(black_box(&our_server).list_tools(None, context));
        serde_json::to_vec(&listed.expect("cy-tools tools/list")).expect("serializable")
    };
    let (theirs, ours) = (rmcp_list_tools(), our_list_tools());
    let count = |bytes: &[u8]| {
        let listed: Value = serde_json::from_slice(bytes).expect("JSON");
        listed["tools"].as_array().map_or(0, Vec::len)
    };
    assert_eq!(
        (count(&theirs), count(&ours)),
        (16, 16),
        "both list the 16 tools"
    );
    let ratio = paired::median_ratio(ROUNDS, 20, our_list_tools, rmcp_list_tools);
    report_paired(
        "peers_list",
        "cy_tools_mcp_list_tools",
        "rmcp_list_tools",
        ratio,
    );

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
    group.bench_function("rmcp_list_tools", |b| {
        b.iter(|| black_box(rmcp_list_tools()))
    });
    group.bench_function("cy_tools_mcp_list_tools", |b| {
        b.iter(|| black_box(our_list_tools()))
    });
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
