//! A server whose tool list changes under the session (`notifications/tools/list_changed`):
//! its list is read again (every page), hosts watching `McpServers::changes` are told, a bound
//! tool the server no longer lists answers an error naming it and the server, a changed schema
//! is what the validator checks, and binding again gives the new toolset.

use std::time::Duration;

use cy_tools::Toolset;
use serde_json::json;

use crate::support::{fault_server, session};

#[tokio::test]
async fn a_changed_tool_list_reaches_the_session_and_its_hosts() {
    let f = session(&[fault_server("fault")]).await;
    let mut changes = f.servers.changes();
    assert_eq!(*changes.borrow_and_update(), 0);
    assert!(!f.servers.tool_names().any(|n| n == "fault__added"));

    let changed = f.session.call("fault__change", json!({})).await;
    assert_eq!(changed.text_content(), "changed");
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .expect("the host was not told within 10 s")
        .unwrap();
    assert_eq!(*changes.borrow_and_update(), 1);

    // The list as it is now, both pages of it (`look/around` and `added` are on the second).
    let names: Vec<&str> = f.servers.tool_names().collect();
    assert!(!names.contains(&"fault__read"), "{names:?}");
    assert!(names.contains(&"fault__added"), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("fault__look_around-")),
        "{names:?}"
    );

    // The tools bound before: the one gone answers an error naming it and the server.
    let gone = f.session.call("fault__read", json!({"path": "x"})).await;
    assert!(gone.is_error);
    assert_eq!(
        gone.text_content(),
        "`fault__read` is gone: MCP server `fault` no longer lists its tool `read`; use the session's other tools"
    );
    // `echo`'s new schema is the one checked: at most 5 characters.
    let refused = f
        .session
        .call("fault__echo", json!({"text": "too long"}))
        .await;
    assert!(refused.is_error);
    assert!(
        refused.text_content().contains("`text`"),
        "{}",
        refused.text_content()
    );
    assert_eq!(
        f.session
            .call("fault__echo", json!({"text": "short"}))
            .await
            .text_content(),
        "echo: short"
    );

    // Bound again: the new toolset, the new tool callable.
    let context = f.session.context();
    let rebound = f
        .session
        .clone()
        .with_tools(Toolset::new(f.servers.bind(context, &[]).unwrap()));
    let names = rebound.tools().names();
    assert!(
        names.contains(&"fault__added") && !names.contains(&"fault__read"),
        "{names:?}"
    );
    assert_eq!(
        rebound.call("fault__added", json!({})).await.text_content(),
        "added answers"
    );
    assert!(f.servers.owns("fault__read") && !f.servers.owns("read_file"));
}
