//! The MCP client's cost (issue 43's goals), printed as BENCHMARKS.md rows:
//!
//! * a call of `@modelcontextprotocol/server-everything`'s `echo` through a cy-tools session
//!   (validation, hooks, limits, the confined server) ÷ the same call with rmcp's client talking
//!   to the same server directly: goal at most 1.1x;
//! * five stdio servers (the fault server of the tests, Python) started by one
//!   `McpServers::start` ÷ started one after another.
//!
//! Both sides of each ratio run in alternating rounds (`cy_tools_bench::paired`), so a change
//! of load lands on both. Needs `CY_MCP_SERVERS` (the reference servers' `node_modules`, which
//! `scripts/bench-mcp-client` installs).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Instant;

use cy_tools::session::McpServerSpec;
use cy_tools_bench::{everything, paired};
use cy_tools_mcp_client::McpServers;
use cy_tools_sandbox::LocalSandbox;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

const ROUNDS: usize = 11;

fn main() {
    let modules = everything::modules("scripts/bench-mcp-client");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let script = everything::script(&modules);
    let workspace =
        std::env::temp_dir().join(format!("cy-bench-mcp-client-{}", std::process::id()));

    // Ours: the server confined in the session's sandbox, its `echo` a session tool.
    let session = everything::session(&runtime, &modules, &workspace);

    // rmcp's client, the same server started plainly.
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
    let client = runtime.block_on(().serve((stdout, stdin))).unwrap();
    let peer = client.peer().clone();

    let ours = || {
        let result = runtime.block_on(session.call("everything__echo", json!({"message": "hi"})));
        assert_eq!(result.text_content(), "Echo: hi");
    };
    let theirs = || {
        let mut params = CallToolRequestParams::new("echo");
        params.arguments = Some(json!({"message": "hi"}).as_object().unwrap().clone());
        let result = runtime.block_on(peer.call_tool(params)).unwrap();
        assert!(!result.content.is_empty());
    };
    // Warm both.
    for _ in 0..200 {
        ours();
        theirs();
    }
    let per_call = |f: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..500 {
            f();
        }
        start.elapsed().as_secs_f64() / 500.0 * 1e6
    };
    println!(
        "echo per call: session {:.1} µs, rmcp client {:.1} µs",
        per_call(&ours),
        per_call(&theirs)
    );
    let ratios = paired::round_ratios(ROUNDS, 300, ours, theirs);
    println!(
        "| paired `mcp_client_echo`: session call / rmcp client call_tool | {:.2}x (quartiles {:.2}x-{:.2}x) |",
        ratios[ROUNDS / 2],
        ratios[ROUNDS / 4],
        ratios[3 * ROUNDS / 4]
    );

    // Five servers at once ÷ one after another.
    let fault = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test-support/mcp");
    let specs: Vec<McpServerSpec> = (0..5)
        .map(|i| McpServerSpec {
            name: format!("fault{i}"),
            command: "python3".into(),
            args: vec![fault.join("fault_server.py").to_string_lossy().into_owned()],
            read_only: vec![fault.to_string_lossy().into_owned()],
            ..McpServerSpec::default()
        })
        .collect();
    let view = LocalSandbox::new(&workspace).unwrap().env();
    let parallel = || drop(runtime.block_on(McpServers::start(&specs, &view)).unwrap());
    let sequential = || {
        for spec in &specs {
            drop(
                runtime
                    .block_on(McpServers::start(std::slice::from_ref(spec), &view))
                    .unwrap(),
            );
        }
    };
    let ratios = paired::round_ratios(ROUNDS, 3, parallel, sequential);
    println!(
        "| paired `mcp_client_start`: five servers at once / one after another | {:.2}x (quartiles {:.2}x-{:.2}x) |",
        ratios[ROUNDS / 2],
        ratios[ROUNDS / 4],
        ratios[3 * ROUNDS / 4]
    );
    drop(client);
    let _ = std::fs::remove_dir_all(&workspace);
}
