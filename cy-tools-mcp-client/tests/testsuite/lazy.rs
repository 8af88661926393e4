//! A lazy server (`"lazy": true`): the first start of its entry in a process starts it to list
//! its tools; a later one in the same workspace binds the same tools from that list without
//! starting it, and it starts at its first call. An eager server starts with every session.

use serde_json::json;

use crate::support::{fault_server, session_at, session_in};

fn starts(workspace: &std::path::Path) -> usize {
    std::fs::read_to_string(workspace.join("started.log"))
        .unwrap_or_default()
        .lines()
        .count()
}

#[tokio::test]
async fn a_lazy_server_starts_at_its_first_call_once_its_tools_are_known() {
    let workspace = tempfile::tempdir().unwrap();
    let path = workspace.path().to_path_buf();
    let mut spec = fault_server("lazy");
    spec.lazy = true;
    // Its tools are not known yet: it is started to list them.
    let first = session_in(workspace, std::slice::from_ref(&spec)).await;
    assert_eq!(starts(&path), 1);
    let names: Vec<&str> = first.servers.tool_names().collect();

    // Another session with the same entry and workspace: bound from that list, not started.
    let (second, servers) = session_at(&path, std::slice::from_ref(&spec)).await;
    assert_eq!(servers.tool_names().collect::<Vec<_>>(), names);
    assert_eq!(
        starts(&path),
        1,
        "the lazy server started before its first call"
    );
    let echoed = second
        .call("lazy__echo", json!({"text": "first call"}))
        .await;
    assert_eq!(echoed.text_content(), "echo: first call");
    assert_eq!(starts(&path), 2);

    // An eager server is started by every session.
    spec.lazy = false;
    let _third = session_at(&path, &[spec]).await;
    assert_eq!(starts(&path), 3);
    drop(first);
}
