//! What only the remote executor shows of code mode: a code-mode executor with the wrong token
//! for the control server is refused before anything runs.

use std::sync::Arc;

use cy_tools_code_mode::CodeModeLimits;

use super::harness::Harness;
use crate::support::backend::Backend;

#[tokio::test]
async fn a_wrong_server_token_is_refused_before_anything_runs() {
    use cy_tools::services::{CodeExecutor, CodeOptions};
    use cy_tools_code_mode::CodeModeExecutor;
    use cy_tools_remote::RemoteExecutor;

    let h = Harness::start(Backend::Remote, CodeModeLimits::default(), None).await;
    let addr = h.server.unwrap();
    let remote = RemoteExecutor::new(
        &format!("http://{addr}"),
        "s-code",
        "not-the-token-0123456789",
    )
    .unwrap();
    let executor = CodeModeExecutor::new(Arc::new(remote));
    executor.bind(h.session()).unwrap();
    let err = executor
        .execute("open('ran', 'w')", CodeOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the control server at http://{addr} answered 401 Unauthorized: missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `CY_CONTROL_TOKEN`)"
        )
    );
    assert!(!h.root().join("ran").exists());
}
