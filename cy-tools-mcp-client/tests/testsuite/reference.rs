//! The reference filesystem and memory servers (npm), confined in the session's sandbox:
//! `server-filesystem` given the workspace reads and writes there, and is refused a folder
//! outside it by the sandbox even when it is told it may use it; `server-memory` keeps its
//! graph in the workspace (its `MEMORY_FILE_PATH`, set with `env` in its command), the only
//! place it may write.

use cy_tools::session::McpServerSpec;
use serde_json::json;

use crate::support::{installed, session, session_in};

fn node_server(
    modules: &std::path::Path,
    name: &str,
    package: &str,
    args: &[&str],
) -> McpServerSpec {
    let script = modules.join(format!("@modelcontextprotocol/{package}/dist/index.js"));
    McpServerSpec {
        name: name.into(),
        command: "node".into(),
        args: std::iter::once(script.to_string_lossy().into_owned())
            .chain(args.iter().map(|a| a.to_string()))
            .collect(),
        read_only: vec![modules.to_string_lossy().into_owned()],
        ..McpServerSpec::default()
    }
}

#[tokio::test]
async fn the_filesystem_server_works_in_the_workspace_and_nowhere_else() {
    let Some(modules) = installed("CY_MCP_SERVERS") else {
        return;
    };
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "the host's secret").unwrap();
    // Told it may use the workspace (`.`, its working folder) and the folder outside.
    let spec = node_server(
        &modules,
        "fs",
        "server-filesystem",
        &[".", outside.path().to_str().unwrap()],
    );
    let f = session(&[spec]).await;
    let ws = f.workspace.path().canonicalize().unwrap();
    let written = f
        .session
        .call(
            "fs__write_file",
            json!({"path": ws.join("note.txt"), "content": "from the server"}),
        )
        .await;
    assert!(!written.is_error, "{}", written.text_content());
    assert_eq!(
        std::fs::read_to_string(ws.join("note.txt")).unwrap(),
        "from the server"
    );
    let read = f
        .session
        .call("fs__read_text_file", json!({"path": ws.join("note.txt")}))
        .await;
    assert!(read.text_content().contains("from the server"), "{read:?}");
    let secret = outside.path().canonicalize().unwrap().join("secret.txt");
    let refused = f
        .session
        .call("fs__read_text_file", json!({"path": secret}))
        .await;
    assert!(refused.is_error, "{}", refused.text_content());
    assert!(!refused.text_content().contains("the host's secret"));
}

#[tokio::test]
async fn the_memory_server_keeps_its_graph_in_the_workspace() {
    let Some(modules) = installed("CY_MCP_SERVERS") else {
        return;
    };
    // Its file is set by `env` (a value, not a host variable's: nothing secret).
    let workspace = tempfile::tempdir().unwrap();
    let file = workspace
        .path()
        .canonicalize()
        .unwrap()
        .join("memory.jsonl");
    let mut spec = node_server(&modules, "memory", "server-memory", &[]);
    spec.args.insert(0, spec.command.clone());
    spec.args
        .insert(0, format!("MEMORY_FILE_PATH={}", file.display()));
    spec.command = "env".into();
    let f = session_in(workspace, &[spec]).await;
    let created = f
        .session
        .call(
            "memory__create_entities",
            json!({"entities": [{"name": "cy-tools", "entityType": "project", "observations": ["written in Rust"]}]}),
        )
        .await;
    assert!(!created.is_error, "{}", created.text_content());
    let found = f
        .session
        .call("memory__search_nodes", json!({"query": "Rust"}))
        .await;
    assert!(found.text_content().contains("cy-tools"), "{found:?}");
    let kept = std::fs::read_to_string(f.workspace.path().join("memory.jsonl")).unwrap();
    assert!(kept.contains("written in Rust"), "{kept}");
}
