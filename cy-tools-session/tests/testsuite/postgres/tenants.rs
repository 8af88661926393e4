//! One tenant cannot read, write or wake another's rows, even with the other's session ids:
//! every query names its tenant.

use std::time::Duration;

use cy_tools::{
    ToolResult,
    services::{Chat, ChatMessage, Coordinator, ExecutionLog, LogEntry, ServiceErrorKind},
    session::SpecStore,
};
use serde_json::json;

use super::{connect, factory, runtime, spec};
use crate::support::postgres::{tenant, url};

#[test]
fn a_tenant_sees_nothing_of_another_with_the_same_session_ids() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let store = connect(&url).await;
        let (a, b) = (tenant("acme"), tenant("globex"));
        let (acme, globex) = (store.tenant(&a), store.tenant(&b));

        // Globex's session, its call, its child, its message and a signal for it.
        let secret = spec("shared-id", &b, dir.path()).with_tools(["read_file"]);
        globex.insert_spec(&secret).await.unwrap();
        let mut child = secret.clone();
        child.identity = secret.identity.child("shared-id.w-1");
        globex.insert_spec(&child).await.unwrap();
        globex
            .record(LogEntry {
                session_id: "shared-id".to_string(),
                call_id: "c1".to_string(),
                parent_call: None,
                tool: "read_file".to_string(),
                arguments: json!({"path": "secret.txt"}),
                result: ToolResult::text("globex's secret"),
                started_at_ms: 1,
                duration_us: 1,
            })
            .await
            .unwrap();
        globex
            .send(ChatMessage {
                session_id: "shared-id".to_string(),
                text: "globex only".to_string(),
            })
            .await
            .unwrap();
        globex
            .signal("shared-id", "go", json!("for globex"))
            .await
            .unwrap();

        // Acme, asking for the same ids, gets nothing.
        assert_eq!(acme.load_spec("shared-id").await.unwrap(), None);
        assert!(acme.children("shared-id").await.unwrap().is_empty());
        assert!(acme.entries("shared-id").await.unwrap().is_empty());
        assert_eq!(acme.call_count().await.unwrap(), 0);
        assert!(acme.messages().await.unwrap().is_empty());
        assert!(acme.session_ids().await.unwrap().is_empty());
        assert_eq!(
            acme.wait("shared-id", "go", Duration::from_millis(200))
                .await
                .unwrap(),
            None
        );
        // Nor can it store a spec in globex's name.
        let err = acme.insert_spec(&secret).await.unwrap_err();
        assert_eq!(err.kind(), ServiceErrorKind::PermissionDenied);
        assert!(
            err.to_string()
                .contains(&format!("this store serves tenant `{a}`")),
            "{err}"
        );
        // Acme's session of the same id is its own, and globex's is untouched.
        acme.insert_spec(&spec("shared-id", &a, dir.path()))
            .await
            .unwrap();
        assert_eq!(globex.load_spec("shared-id").await.unwrap(), Some(secret));

        // Through the factories: acme resumes its own, not globex's.
        let acme_factory = factory(&store, &a);
        let resumed = acme_factory.resume("shared-id").await.unwrap();
        assert_eq!(resumed.identity().tenant, a);
        assert!(resumed.entries().await.unwrap().is_empty());
        let err = acme_factory.resume("shared-id.w-1").await.unwrap_err();
        assert_eq!(err.kind(), ServiceErrorKind::NotFound);
        // The coordinator the application gets for acme does not take globex's signal either.
        let acme_signals = acme_factory.coordinator(&a);
        assert_eq!(
            acme_signals
                .wait("shared-id", "go", Duration::from_millis(100))
                .await
                .unwrap(),
            None
        );
        // Globex's signal is still there for globex.
        let globex_signals = acme_factory.coordinator(&b);
        assert_eq!(
            globex_signals
                .wait("shared-id", "go", Duration::from_millis(100))
                .await
                .unwrap(),
            Some(json!("for globex"))
        );
        assert_eq!(globex.entries("shared-id").await.unwrap().len(), 1);
        assert_eq!(globex.messages().await.unwrap().len(), 1);
    });
}
