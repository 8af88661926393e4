//! Code-only mode over real MCP servers (features `code-mode` and `mcp-client`): the model is
//! declared `execute_code` alone; the code finds the servers' tools (`cy_sdk.sources`,
//! `search`, `describe`) and calls them as typed functions of `cy_sdk.servers.<server>`; and a
//! session resumed by another process, from the same store, answers the same.

use std::path::Path;

use cy_tools::session::{ExecutorSpec, McpServerSpec};
use cy_tools::{SessionSpec, ToolResult};
use cy_tools_session::LocalSessionFactory;
use serde_json::{Value, json};

use crate::support::mcp_servers::installed;

/// What the code does: discover, call both servers, and a wrong argument. The time it reads is
/// left out of the answer (it changes); its shape is kept.
const DISCOVER: &str = r#"
import json, cy_sdk
from cy_sdk.servers import time, memory
now = time.get_current_time(timezone="UTC")
memory.create_entities(entities=[{"name": "cy", "entityType": "project", "observations": ["typed"]}])
try:
    time.get_current_time(zone="UTC")
    wrong = None
except cy_sdk.ToolError as err:
    wrong = str(err)
json.dump({
    "sources": cy_sdk.sources(),
    "search": [r["path"] for r in cy_sdk.search("current time zone", 3)],
    "describe": cy_sdk.describe("time.get_current_time"),
    "now": sorted(now),
    "graph": memory.read_graph()["entities"],
    "wrong": wrong,
}, open("discovered.json", "w"))
"#;

fn spec(id: &str, workspace: &Path) -> Option<SessionSpec> {
    let modules = installed("CY_MCP_SERVERS")?;
    std::fs::create_dir_all(workspace).unwrap();
    let workspace = &workspace.canonicalize().unwrap();
    let venv = installed("CY_MCP_TIME_VENV")?;
    let mut spec = SessionSpec::root(id, "acme", workspace.to_str().unwrap())
        .with_executor(ExecutorSpec::Local {
            command: "python3 {file}".to_string(),
        })
        .with_code_only(true);
    spec.mcp_servers = vec![
        McpServerSpec {
            name: "time".into(),
            command: venv.join("bin/python").to_string_lossy().into_owned(),
            args: vec![
                "-m".into(),
                "mcp_server_time".into(),
                "--local-timezone".into(),
                "UTC".into(),
            ],
            read_only: vec![venv.to_string_lossy().into_owned()],
            ..McpServerSpec::default()
        },
        // Its graph in the workspace (a value, not a host variable's: nothing secret).
        McpServerSpec {
            name: "memory".into(),
            command: "env".into(),
            args: vec![
                format!(
                    "MEMORY_FILE_PATH={}",
                    workspace.join("memory.jsonl").display()
                ),
                "node".into(),
                modules
                    .join("@modelcontextprotocol/server-memory/dist/index.js")
                    .to_string_lossy()
                    .into_owned(),
            ],
            read_only: vec![modules.to_string_lossy().into_owned()],
            ..McpServerSpec::default()
        },
    ];
    Some(spec)
}

async fn discover(session: &cy_tools::Session, workspace: &Path) -> Value {
    let result: ToolResult = session
        .call("execute_code", json!({ "code": DISCOVER }))
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    let text = std::fs::read_to_string(workspace.join("discovered.json"))
        .unwrap_or_else(|err| panic!("{err}: {}", result.text_content()));
    std::fs::remove_file(workspace.join("discovered.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn code_only_over_real_servers_discovers_and_calls_them_the_same_after_a_resume_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    let Some(spec) = spec("s-code-only", &workspace) else {
        return;
    };
    let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
    let session = factory.create(spec).await.unwrap();
    assert_eq!(session.tools().names(), ["execute_code"]);
    let description = session.tools().get("execute_code").unwrap().description();
    assert!(
        description.contains(
            "\n- time__get_current_time(timezone): Get current time in a specific timezone"
        ),
        "{description}"
    );
    let here = discover(&session, &workspace).await;
    assert_eq!(
        here["sources"],
        json!([
            {"module": "cy_sdk.tools", "source": "the session's tools", "functions": 11},
            {"module": "cy_sdk.servers.time", "source": "MCP server `time`", "functions": 2},
            {"module": "cy_sdk.servers.memory", "source": "MCP server `memory`", "functions": 9},
        ])
    );
    assert_eq!(here["search"][0], "cy_sdk.servers.time.get_current_time");
    let described = here["describe"].as_str().unwrap();
    assert!(
        described.contains(
            "def time__get_current_time(timezone: str) -> time__get_current_time_Result:"
        ),
        "{described}"
    );
    assert_eq!(
        here["now"],
        json!(["datetime", "day_of_week", "is_dst", "timezone"])
    );
    assert_eq!(
        here["graph"],
        json!([{"name": "cy", "entityType": "project", "observations": ["typed"]}])
    );
    assert!(
        here["wrong"]
            .as_str()
            .unwrap()
            .contains("unknown field `zone`"),
        "{}",
        here["wrong"]
    );
    drop(session);
    drop(factory);

    // Another process resumes it from the same store and finds the same.
    let out = crate::support::alone::alone!(resumed_elsewhere)
        .env("CY_CODE_ONLY_STATE", dir.path())
        .run();
    let line = out
        .lines()
        .find_map(|l| l.split_once("discovered: ").map(|(_, json)| json))
        .unwrap_or_else(|| panic!("no result in:\n{out}"));
    let there: Value = serde_json::from_str(line).unwrap();
    for key in ["sources", "search", "describe", "now", "wrong"] {
        assert_eq!(there[key], here[key], "{key}");
    }
    // The graph is the memory server's, kept in the workspace: the second run adds nothing new.
    assert_eq!(there["graph"], here["graph"]);
}

/// The resumed half: run by the test above in a process of its own.
#[tokio::test]
#[ignore = "run by code_only_over_real_servers_discovers_and_calls_them_the_same_after_a_resume_elsewhere"]
async fn resumed_elsewhere() {
    let state = std::path::PathBuf::from(std::env::var_os("CY_CODE_ONLY_STATE").unwrap());
    let factory = LocalSessionFactory::embedded(state.join("state")).unwrap();
    let session = factory.resume("s-code-only").await.unwrap();
    assert_eq!(session.tools().names(), ["execute_code"]);
    let found = discover(&session, &state.join("w")).await;
    println!("discovered: {found}");
}
