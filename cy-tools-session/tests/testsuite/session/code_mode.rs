//! A spec with code mode on: the factory wraps its executor, local or remote, so the code calls
//! the session's tools through `cy_sdk.tools`, nested calls logged under the `execute_code`
//! call; with it off, there is no `cy_sdk`.

use std::sync::Arc;

use cy_tools::{BoxFuture, CancellationToken, ToolCall, ToolRegistry, session::ExecutorSpec};
use cy_tools_code_mode::{Approval, ApprovalHook, ApprovalRequest, CodeModeLimits};
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use super::{runtime, spec};

const TOKEN: &str = "code-mode-factory-token-0123456789";

fn factory(dir: &std::path::Path) -> LocalSessionFactory {
    let store = SqliteStore::open(dir.join("sessions.db")).unwrap();
    LocalSessionFactory::with_sqlite(Arc::new(ToolRegistry::linked().unwrap()), store)
        .with_secrets(|name| (name == "CODE_MODE_TOKEN").then(|| TOKEN.to_string()))
}

const CODE: &str = "import cy_sdk\nprint(cy_sdk.tools.read_file('a.txt'))";

#[test]
fn the_factory_honours_code_mode_for_local_and_remote_executors() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let server_root = tempfile::tempdir().unwrap();
        let config = ControlServerConfig {
            token: Some(TOKEN.into()),
            ..ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), server_root.path())
        };
        let server = ControlServer::bind(config).await.unwrap();
        let url = format!("http://{}", server.local_addr().unwrap());
        tokio::spawn(server.run());
        let factory = factory(dir.path());
        let executors = [
            ("s-local", ExecutorSpec::default()),
            (
                "s-remote",
                ExecutorSpec::Remote {
                    url,
                    token_var: "CODE_MODE_TOKEN".into(),
                },
            ),
        ];
        let cancel = CancellationToken::new();
        for (id, executor) in executors {
            let workspace = dir.path().join(id);
            let spec = spec(id, &workspace)
                .with_executor(executor)
                .with_tools(["read_file", "write_file"])
                .with_code_mode(true);
            let session = factory.create(spec).await.unwrap();
            let wrote = session
                .execute(
                    "write_file",
                    ToolCall::new("w", json!({"path": "a.txt", "content": id})),
                    &cancel,
                )
                .await;
            assert!(!wrote.is_error, "{}", crate::support::outcome::text(&wrote));
            let ran = session
                .execute(
                    "execute_code",
                    ToolCall::new("c", json!({ "code": CODE })),
                    &cancel,
                )
                .await;
            assert_eq!(
                crate::support::outcome::text(&ran),
                format!("     1\t{id}"),
                "{id}"
            );
            // The nested call is in the session's log, under the call that ran the code.
            let nested: Vec<(String, Option<String>)> = session
                .entries()
                .await
                .unwrap()
                .into_iter()
                .map(|e| (e.tool, e.parent_call))
                .collect();
            assert!(
                nested.contains(&("read_file".to_string(), Some("c".to_string()))),
                "{id}: {nested:?}"
            );
            // Resumed (a new build from the stored spec): still in code mode.
            drop(session);
            let resumed = factory.resume(id).await.unwrap();
            assert!(resumed.spec().unwrap().code_mode);
            let again = resumed
                .execute(
                    "execute_code",
                    ToolCall::new("c2", json!({ "code": CODE })),
                    &cancel,
                )
                .await;
            assert_eq!(
                crate::support::outcome::text(&again),
                format!("     1\t{id}"),
                "{id}"
            );
        }

        // Off (the default): no module.
        let plain = factory
            .create(
                spec("s-plain", &dir.path().join("plain")).with_executor(ExecutorSpec::default()),
            )
            .await
            .unwrap();
        assert!(!plain.spec().unwrap().code_mode);
        let ran = plain
            .execute(
                "execute_code",
                ToolCall::new("c", json!({ "code": CODE })),
                &cancel,
            )
            .await;
        // The code ran and failed to import it: a normal result with its exit code.
        assert!(!ran.is_error);
        assert!(
            crate::support::outcome::text(&ran)
                .contains("ModuleNotFoundError: No module named 'cy_sdk'"),
            "{}",
            crate::support::outcome::text(&ran)
        );
        let description = plain.tools().get("execute_code").unwrap().description();
        assert!(!description.contains("cy_sdk"), "{description}");
    });
}

/// Refuses `write_file`.
struct NoWrites;

impl ApprovalHook for NoWrites {
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        let deny = request.tool == "write_file";
        Box::pin(async move {
            if deny {
                Approval::Deny("this session may not write files".into())
            } else {
                Approval::Allow
            }
        })
    }
}

#[test]
fn the_factory_holds_nested_calls_to_its_limits_and_approval() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(dir.path())
            .with_code_mode_limits(CodeModeLimits {
                max_calls: 2,
                ..CodeModeLimits::default()
            })
            .with_code_mode_approval(Arc::new(NoWrites));
        let spec = spec("s-held", &dir.path().join("w"))
            .with_executor(ExecutorSpec::default())
            .with_tools(["read_file", "write_file"])
            .with_code_mode(true);
        let session = factory.create(spec).await.unwrap();
        let code = r#"
import json, cy_sdk
out = []
for call in (lambda: cy_sdk.tools.write_file("a.txt", content="x"),
             lambda: cy_sdk.tools.read_file("missing.txt"),
             lambda: cy_sdk.tools.read_file("missing.txt")):
    try:
        call()
    except cy_sdk.ToolError as err:
        out.append(str(err))
print(json.dumps(out))
"#;
        let ran = session
            .execute("execute_code", ToolCall::new("c", json!({ "code": code })), &CancellationToken::new())
            .await;
        assert!(!ran.is_error, "{}", crate::support::outcome::text(&ran));
        let out: Vec<String> = serde_json::from_str(&crate::support::outcome::text(&ran)).unwrap();
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(
            out[0],
            "the call to `write_file` was denied: this session may not write files"
        );
        assert!(out[1].contains("missing.txt"), "{}", out[1]);
        assert_eq!(
            out[2],
            "this execution has made the 2 tool calls it may make; do more per call, or split the work over several `execute_code` runs"
        );
        assert!(!dir.path().join("w/a.txt").exists());
    });
}

/// Approves every call but `write_file`'s.
struct Person;

impl cy_tools::approval::Approver for Person {
    fn ask<'a>(
        &'a self,
        request: &'a cy_tools::approval::ApprovalRequest<'a>,
    ) -> BoxFuture<'a, cy_tools::approval::Decision> {
        let decline = request.tool == "write_file";
        Box::pin(async move {
            if decline {
                cy_tools::approval::Decision::Declined {
                    by: "a person".into(),
                    reason: None,
                }
            } else {
                cy_tools::approval::Decision::Approved {
                    by: "a person".into(),
                }
            }
        })
    }
}

/// The host's approval policy set on the factory (`--approve` over a stored session) reaches
/// the calls the code makes, not only the model's: the spec asks for none, the host for
/// destructive calls, and the code's `write_file` is asked about and declined.
#[test]
fn the_hosts_approval_policy_reaches_the_codes_calls() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(dir.path())
            .with_approval_policy(cy_tools::approval::ApprovalPolicy::Destructive);
        let spec = spec("s-approve", &dir.path().join("w"))
            .with_executor(ExecutorSpec::default())
            .with_tools(["read_file", "write_file"])
            .with_code_mode(true);
        assert_eq!(spec.approve, cy_tools::approval::ApprovalPolicy::None);
        let session = factory.create(spec).await.unwrap();
        let code = "import cy_sdk\ntry:\n    cy_sdk.tools.write_file('a.txt', content='x')\nexcept cy_sdk.ToolError as err:\n    print('refused:', err)";
        let call = ToolCall::new("c", json!({ "code": code })).with_approver(Arc::new(Person));
        let ran = session
            .execute("execute_code", call, &CancellationToken::new())
            .await;
        assert!(!ran.is_error, "{}", crate::support::outcome::text(&ran));
        assert!(
            crate::support::outcome::text(&ran)
                .starts_with("refused: the call to `write_file` was not run: a person declined it"),
            "{}",
            crate::support::outcome::text(&ran)
        );
        assert!(!dir.path().join("w/a.txt").exists());
    });
}
