//! A spec's MCP servers (feature `mcp-client`): the session the factory creates has their
//! tools after the spec's, resumed by a second factory on the same store it starts them again
//! and has the same toolset, a child gets only the servers and tools its profile names, and a
//! server that cannot start fails the creation, naming it, with nothing stored.

use cy_tools::services::{ChildRequest, ServiceErrorKind};
use cy_tools::session::{McpServerSpec, SubagentProfile};
use cy_tools_session::LocalSessionFactory;
use serde_json::json;

use super::spec;

fn fault_server(name: &str) -> McpServerSpec {
    let (script, dir) = crate::support::mcp_servers::fault_server();
    McpServerSpec {
        name: name.into(),
        command: "python3".into(),
        args: vec![script],
        read_only: vec![dir],
        ..McpServerSpec::default()
    }
}

#[tokio::test]
async fn a_specs_servers_are_started_with_the_session_and_again_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
    // `look/around` is no valid tool name: the session names it with a digest.
    let looker = cy_tools_mcp_client::session_name("fault", "look/around");
    let mut spec = spec("s-mcp", &dir.path().join("w"))
        .with_tools(["read_file"])
        .with_subagent(SubagentProfile::new("echoer", ["fault__echo"]))
        .with_subagent(SubagentProfile::new("looker", [looker.as_str()]));
    spec.mcp_servers = vec![fault_server("fault")];
    let session = factory.create(spec).await.unwrap();
    let names = session.tools().names();
    assert_eq!(
        names[..2],
        ["execute_code", "read_file"],
        "the spec's tools first: {names:?}"
    );
    assert!(
        names.contains(&"fault__echo") && names.contains(&"fault__hang"),
        "{names:?}"
    );
    let echoed = session.call("fault__echo", json!({"text": "one"})).await;
    assert_eq!(echoed.text_content(), "echo: one");

    // A child whose profile names one server tool gets that one, from a server of its own.
    let child = factory
        .spawn_child(&session, ChildRequest::new("echoer"))
        .await
        .unwrap();
    let child_names = child.tools().names();
    assert!(child_names.contains(&"fault__echo"), "{child_names:?}");
    assert!(!child_names.contains(&"fault__hang"), "{child_names:?}");
    assert_eq!(
        child
            .call("fault__echo", json!({"text": "child"}))
            .await
            .text_content(),
        "echo: child"
    );
    // A child given a tool by a name the session made up for it gets that tool.
    let child = factory
        .spawn_child(&session, ChildRequest::new("looker"))
        .await
        .unwrap();
    let child_names = child.tools().names();
    assert!(child_names.contains(&looker.as_str()), "{child_names:?}");
    assert!(!child_names.contains(&"fault__echo"), "{child_names:?}");

    // Another factory on the same store (as another worker would): the same toolset.
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    drop((child, session));
    let other = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
    let resumed = other.resume("s-mcp").await.unwrap();
    assert_eq!(resumed.tools().names(), names);
    let echoed = resumed.call("fault__echo", json!({"text": "two"})).await;
    assert_eq!(echoed.text_content(), "echo: two");
}

#[tokio::test]
async fn a_server_that_cannot_start_fails_the_creation_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
    let mut spec = spec("s-broken", &dir.path().join("w"));
    spec.mcp_servers = vec![McpServerSpec {
        name: "broken".into(),
        command: "no-such-mcp-server".into(),
        startup_timeout_secs: Some(5),
        ..McpServerSpec::default()
    }];
    let err = factory.create(spec).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert!(
        err.to_string().starts_with(
            "session `s-broken`: MCP server `broken` did not complete the MCP handshake"
        ),
        "{err}"
    );
    assert!(err.to_string().contains("not found"), "{err}");
    // Nothing was stored: the session can be fixed and created again.
    assert_eq!(
        factory.resume("s-broken").await.unwrap_err().kind(),
        ServiceErrorKind::NotFound
    );
}

const ROLE: &str = "CY_MCP_SESSION_ROLE";
const DIR: &str = "CY_MCP_SESSION_DIR";

/// One process's part: `create` makes the session (two servers, one lazy) and calls a server
/// tool, `resume` resumes it by id and calls one; each writes the session's tools (name,
/// description, parameters, in order) to `{role}.json`.
async fn process_role(role: &str, dir: &std::path::Path) {
    let factory = LocalSessionFactory::embedded(dir.join("state")).unwrap();
    let session = if role == "create" {
        let mut spec = spec("s-mcp-processes", &dir.join("w")).with_tools(["read_file"]);
        let mut lazy = fault_server("lazy");
        lazy.lazy = true;
        spec.mcp_servers = vec![fault_server("fault"), lazy];
        factory.create(spec).await.unwrap()
    } else {
        factory.resume("s-mcp-processes").await.unwrap()
    };
    for server in ["fault", "lazy"] {
        let text = format!("{role} in {}", std::process::id());
        let echoed = session
            .call(&format!("{server}__echo"), json!({ "text": text }))
            .await;
        assert_eq!(echoed.text_content(), format!("echo: {text}"));
    }
    let tools: Vec<(String, String, serde_json::Value)> = session
        .tools()
        .iter()
        .map(|t| {
            (
                t.name().to_string(),
                t.description().to_string(),
                t.parameters().clone(),
            )
        })
        .collect();
    std::fs::write(
        dir.join(format!("{role}.json")),
        serde_json::to_vec(&(std::process::id(), tools)).unwrap(),
    )
    .unwrap();
}

#[test]
#[ignore = "run by `a_session_with_servers_resumed_in_another_process_has_the_same_toolset`, once as each role"]
fn mcp_process_role() {
    let (Ok(r), Ok(dir)) = (std::env::var(ROLE), std::env::var(DIR)) else {
        panic!(
            "run by `a_session_with_servers_resumed_in_another_process_has_the_same_toolset`, which sets `{ROLE}` and `{DIR}`"
        );
    };
    super::runtime().block_on(process_role(&r, std::path::Path::new(&dir)));
}

#[test]
fn a_session_with_servers_resumed_in_another_process_has_the_same_toolset() {
    use crate::support::alone::alone;
    let dir = tempfile::tempdir().unwrap();
    for role in ["create", "resume"] {
        alone!(mcp_process_role)
            .env(ROLE, role)
            .env(DIR, dir.path())
            .run();
    }
    type Report = (u32, Vec<(String, String, serde_json::Value)>);
    let read = |role: &str| -> Report {
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("{role}.json"))).unwrap())
            .unwrap()
    };
    let (created_in, created) = read("create");
    let (resumed_in, resumed) = read("resume");
    assert_ne!(created_in, resumed_in, "two processes");
    let names: Vec<&str> = created.iter().map(|t| t.0.as_str()).collect();
    assert!(
        names.contains(&"fault__echo") && names.contains(&"lazy__echo"),
        "{names:?}"
    );
    assert_eq!(created, resumed);
}
