//! `mcp-server-time` (PyPI), from its virtual environment, confined: a Python server nobody
//! here wrote, listed and called; only the tools its entry names reach the session.

use cy_tools::session::McpServerSpec;
use serde_json::json;

use crate::support::{installed, session};

#[tokio::test]
async fn the_python_time_server_answers_through_the_session() {
    let Some(venv) = installed("CY_MCP_TIME_VENV") else {
        return;
    };
    let spec = McpServerSpec {
        name: "time".into(),
        command: venv.join("bin/python").to_string_lossy().into_owned(),
        args: vec![
            "-m".into(),
            "mcp_server_time".into(),
            "--local-timezone".into(),
            "UTC".into(),
        ],
        read_only: vec![venv.to_string_lossy().into_owned()],
        tools: Some(vec!["get_current_time".into()]),
        ..McpServerSpec::default()
    };
    let f = session(&[spec]).await;
    assert_eq!(
        f.servers.tool_names().collect::<Vec<_>>(),
        ["time__get_current_time"]
    );
    let now = f
        .session
        .call(
            "time__get_current_time",
            json!({"timezone": "Europe/Paris"}),
        )
        .await;
    assert!(!now.is_error, "{}", now.text_content());
    assert!(
        now.text_content().contains("Europe/Paris"),
        "{}",
        now.text_content()
    );
}
