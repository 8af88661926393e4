//! Discovery in the sandbox over the 500-tool corpus (`test-support/corpus`): what `import
//! cy_sdk`, `cy_sdk.search`, `cy_sdk.describe` and a function's first use cost in the code,
//! against one SDK round trip over the channel (`cy_sdk.tools()`, which asks the host), timed
//! in the same run on the Python side (`time.perf_counter_ns`) and printed as p50 and p99.
//!
//! One `execute_code` run of a code-only session over the 500 tools (local executor):
//! * `round trip` (the baseline): 500 `cy_sdk.tools()` calls;
//! * `search`: 20 queries (two to four words), each 25 times; the first search of a run builds
//!   the word index and is reported apart (`first search`);
//! * `describe`: each of the 500 tools once, by its path;
//! * `first use`: each of the 500 functions' first access (its source run);
//! * `import cy_sdk`: the package forgotten and imported again, 20 times (what each run pays).
//!
//! Reproduce: `cargo bench -p cy-tools-code-mode --bench discovery`.

use std::sync::Arc;

use cy_tools::{
    BoundTool, CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    Toolset, services::Sandbox,
};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_test_support::corpus;
use serde_json::{Value, json};

const TIMED: &str = r#"
import json, sys, time
t0 = time.perf_counter_ns()
import cy_sdk
imported = time.perf_counter_ns() - t0

def timed(fn, args):
    out = []
    for a in args:
        t = time.perf_counter_ns()
        fn(a)
        out.append(time.perf_counter_ns() - t)
    return out

QUERIES = ["current time zone", "list directory", "git commit", "knowledge graph entities",
           "tiny image", "read file text", "create branch", "search nodes query",
           "write file content", "delete relations", "move rename file", "long running operation",
           "environment variables", "structured content weather", "diff staged changes",
           "convert time between zones", "file info metadata", "add observations", "echo message",
           "directory tree json"]
first = timed(cy_sdk.search, QUERIES[:1])
search = timed(cy_sdk.search, QUERIES * 25)
round_trip = timed(lambda _: cy_sdk.tools(), range(500))
paths = [e[1] for e in cy_sdk.tools._TOOLS.values()]
describe = timed(cy_sdk.describe, paths)
names = list(cy_sdk.tools._TOOLS)
first_use = timed(lambda n: getattr(cy_sdk.tools, n), names)
# `import cy_sdk` as each run pays it: the package forgotten, then imported again (its folder
# is read-only to the run, so nothing is cached between imports).
def reimport(_):
    for name in [m for m in sys.modules if m == "cy_sdk" or m.startswith("cy_sdk.")]:
        del sys.modules[name]
    import cy_sdk  # noqa: F811
fresh = timed(reimport, range(20))

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] / 1000.0

json.dump({k: {"n": len(v), "p50_us": pct(v, 0.5), "p99_us": pct(v, 0.99)} for k, v in
           [("round trip", round_trip), ("first search", first), ("search", search),
            ("describe", describe), ("first use", first_use), ("import cy_sdk", fresh)]},
          open("discovery.json", "w"))
"#;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
        let executor = Arc::new(
            CodeModeExecutor::new(Arc::new(LocalExecutor::new(Arc::clone(&env))))
                .with_code_only(true),
        );
        let context = Arc::new(
            ToolContext::new(SessionIdentity::root("s-discovery", "t"))
                .with_env(env)
                .with_executor(executor.clone()),
        );
        let mut tools: Vec<BoundTool> = ToolRegistry::linked()
            .unwrap()
            .build(&["execute_code"], Arc::clone(&context))
            .iter()
            .cloned()
            .collect();
        tools.extend(corpus::bound(500, &context));
        let session = executor
            .attach(Session::new(context, Toolset::new(tools)))
            .unwrap();
        let result = session
            .execute(
                "execute_code",
                ToolCall::new("bench", json!({ "code": TIMED, "timeout_ms": 300_000 })),
                &CancellationToken::new(),
            )
            .await;
        assert!(!result.is_error, "{}", result.text_content());
        let text = std::fs::read_to_string(dir.path().join("discovery.json"))
            .unwrap_or_else(|err| panic!("{err}: {}", result.text_content()));
        let figures: Value = serde_json::from_str(&text).unwrap();
        let base = figures["round trip"]["p50_us"].as_f64().unwrap();
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "discovery over 500 tools (load average {})",
            load.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!("| operation | samples | p50 (µs) | p99 (µs) | p50 / round trip |");
        println!("|---|---|---|---|---|");
        for key in [
            "round trip",
            "first search",
            "search",
            "describe",
            "first use",
            "import cy_sdk",
        ] {
            let f = &figures[key];
            let p50 = f["p50_us"].as_f64().unwrap();
            println!(
                "| {key} | {} | {p50:.0} | {:.0} | {:.2} |",
                f["n"],
                f["p99_us"].as_f64().unwrap(),
                p50 / base
            );
        }
    });
}
