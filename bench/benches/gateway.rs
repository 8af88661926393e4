//! The gateway's cost (issue 44), printed as a BENCHMARKS.md row: a call of
//! `@modelcontextprotocol/server-everything`'s `echo` made by rmcp's client through cy-tools'
//! MCP server fronting that server (`everything__echo`: the server's approval check, the
//! session's validator, hooks and limits, the MCP client's connection and liveness watch, the
//! upstream confined in the session's sandbox) ÷ the same call made by the same client to the
//! same server directly.
//!
//! The client reaches the gateway over a Unix socket pair, a kernel hop like the pipes of a
//! gateway run as `cy-tools mcp`, and the upstream over its stdin and stdout in both cases.
//! Both sides run in alternating rounds (`cy_tools_bench::paired`), so a change of load lands
//! on both. Needs `CY_MCP_SERVERS` (the reference servers' `node_modules`, which
//! `scripts/bench-gateway` installs).

use std::process::Stdio;
use std::time::Instant;

use cy_tools_bench::{everything, paired};
use cy_tools_builtin::mcp::McpServer;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

const ROUNDS: usize = 11;
const CALLS_PER_ROUND: usize = 300;

fn main() {
    let modules = everything::modules("scripts/bench-gateway");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let script = everything::script(&modules);
    let workspace = std::env::temp_dir().join(format!("cy-bench-gateway-{}", std::process::id()));

    // The gateway: a session whose tools are the server's, confined in its sandbox, served by
    // cy-tools' MCP server on one end of a socket pair.
    let session = everything::session(&runtime, &modules, &workspace);
    let gateway = McpServer::for_session(session).unwrap();
    let (near, far) = {
        let _entered = runtime.enter();
        tokio::net::UnixStream::pair().unwrap()
    };
    let (far_read, far_write) = far.into_split();
    runtime.spawn(async move {
        let _ = cy_tools_builtin::mcp::serve(gateway, far_read, far_write).await;
    });
    let (near_read, near_write) = near.into_split();
    let through = runtime.block_on(().serve((near_read, near_write))).unwrap();
    let through_peer = through.peer().clone();

    // The same client, the same server started plainly.
    let entered = runtime.enter();
    let mut child = tokio::process::Command::new("node")
        .arg(&script)
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    drop(entered);
    let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let direct = runtime.block_on(().serve((stdout, stdin))).unwrap();
    let direct_peer = direct.peer().clone();

    let call = |peer: &rmcp::Peer<rmcp::RoleClient>, name: &str| {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(json!({"message": "hi"}).as_object().unwrap().clone());
        let result = runtime.block_on(peer.call_tool(params)).unwrap();
        assert_ne!(result.is_error, Some(true), "{result:?}");
        let text = serde_json::to_value(&result.content).unwrap();
        assert_eq!(text[0]["text"], "Echo: hi", "{text}");
    };
    let gateway_call = || call(&through_peer, "everything__echo");
    let direct_call = || call(&direct_peer, "echo");
    // Warm both.
    for _ in 0..200 {
        gateway_call();
        direct_call();
    }
    let per_call = |f: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..500 {
            f();
        }
        start.elapsed().as_secs_f64() / 500.0 * 1e6
    };
    println!(
        "echo per call: through the gateway {:.1} µs, direct {:.1} µs",
        per_call(&gateway_call),
        per_call(&direct_call)
    );
    let ratios = paired::round_ratios(ROUNDS, CALLS_PER_ROUND, gateway_call, direct_call);
    println!(
        "| paired `gateway_echo`: rmcp client through the gateway / the same client direct | {:.2}x (quartiles {:.2}x-{:.2}x) |",
        ratios[ROUNDS / 2],
        ratios[ROUNDS / 4],
        ratios[3 * ROUNDS / 4]
    );
    drop(through);
    drop(direct);
    let _ = std::fs::remove_dir_all(&workspace);
}
