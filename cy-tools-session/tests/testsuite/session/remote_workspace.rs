//! One workspace per session on an execution host: a session whose code runs on a control
//! server writes a file with `write_file`, its code reads that file and writes another, and the
//! session, resumed by a second worker process, reads what the code wrote. No worker has a
//! folder of the session's: every tool used the server's.
//!
//! The control server runs in this (parent) process; each worker is this binary again, in a
//! process of its own, with `CY_REMOTE_ROLE` set to `create` or `resume`.

use std::path::Path;

use cy_tools::{
    CancellationToken, SessionSpec, ToolCall,
    services::ChildRequest,
    session::{ExecutorSpec, SubagentProfile, WorkspaceHost},
};
use cy_tools_session::LocalSessionFactory;
use serde_json::json;

use super::runtime;
use crate::support::alone::alone;
use crate::support::loopback_server::{Server, TOKEN};

const ROLE: &str = "CY_REMOTE_ROLE";
const DIR: &str = "CY_REMOTE_DIR";
const URL: &str = "CY_REMOTE_URL";
const SESSION: &str = "s-remote";
/// The variable the spec names for the token; the workers' secrets lookup answers it.
const TOKEN_VAR: &str = "CY_TEST_WORKSPACE_TOKEN";

fn factory(dir: &Path) -> LocalSessionFactory {
    LocalSessionFactory::embedded(dir.join("state"))
        .unwrap()
        .with_base_dir(dir.join("worker"))
        .with_secrets(|name| (name == TOKEN_VAR).then(|| TOKEN.to_string()))
}

async fn role(role: &str, dir: &Path, url: &str) {
    let factory = factory(dir);
    let cancel = CancellationToken::new();
    let run = |tool: &'static str, id: &'static str, args: serde_json::Value| {
        let factory = &factory;
        let cancel = &cancel;
        async move {
            let session = factory.resume(SESSION).await.unwrap();
            let result = session.execute(tool, ToolCall::new(id, args), cancel).await;
            assert!(
                !result.is_error,
                "{tool}: {}",
                crate::support::outcome::text(&result)
            );
            crate::support::outcome::text(&result)
        }
    };
    if role == "create" {
        let spec = SessionSpec::root(SESSION, "acme", "w")
            .with_tools(["write_file", "read_file", "terminal"])
            .with_executor(ExecutorSpec::Remote {
                url: url.to_string(),
                token_var: TOKEN_VAR.to_string(),
            });
        let session = factory.create(spec).await.unwrap();
        let stored = factory.specs().load_spec(SESSION).await.unwrap().unwrap();
        assert_eq!(
            stored.workspace_host,
            Some(WorkspaceHost::new(url, TOKEN_VAR, SESSION))
        );
        assert_eq!(stored.workspace, "/workspace");
        let wrote = session
            .execute(
                "write_file",
                ToolCall::new(
                    "c1",
                    json!({"path": "notes/in.txt", "content": "written by write_file\n"}),
                ),
                &cancel,
            )
            .await;
        assert!(!wrote.is_error, "{}", crate::support::outcome::text(&wrote));
        assert_eq!(
            run(
                "execute_code",
                "c2",
                json!({"code": "tr a-z A-Z < notes/in.txt > out.txt && cat out.txt"})
            )
            .await,
            "WRITTEN BY WRITE_FILE"
        );
    } else {
        assert_eq!(
            run("read_file", "c3", json!({"path": "out.txt"})).await,
            "     1\tWRITTEN BY WRITE_FILE"
        );
        let listed = run(
            "terminal",
            "c4",
            json!({"command": "ls notes; cat out.txt"}),
        )
        .await;
        assert!(listed.contains("in.txt\nWRITTEN BY WRITE_FILE"), "{listed}");
    }
    // Neither worker made a folder for the session: its workspace is the server's.
    assert!(!dir.join("worker").exists());
}

#[test]
#[ignore = "run by `a_remote_session_has_one_workspace_and_a_second_worker_finds_it`, once as each role"]
fn remote_workspace_role() {
    let (Ok(r), Ok(dir), Ok(url)) = (std::env::var(ROLE), std::env::var(DIR), std::env::var(URL))
    else {
        panic!(
            "run by `a_remote_session_has_one_workspace_and_a_second_worker_finds_it`, which sets `{ROLE}`, `{DIR}` and `{URL}`; run that test instead"
        );
    };
    runtime().block_on(role(&r, Path::new(&dir), &url));
}

#[test]
fn a_remote_session_has_one_workspace_and_a_second_worker_finds_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("host"), |config| {
        // `sh`, so no Python is needed.
        config.command = "sh {file}".to_string();
    });
    for role in ["create", "resume"] {
        alone!(remote_workspace_role)
            .env(ROLE, role)
            .env(DIR, dir.path())
            .env(URL, server.endpoint())
            .run();
    }
    // Both files are in the one workspace, on the execution host.
    let workspace = server.root.join(SESSION);
    assert_eq!(
        std::fs::read_to_string(workspace.join("notes/in.txt")).unwrap(),
        "written by write_file\n"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.join("out.txt")).unwrap(),
        "WRITTEN BY WRITE_FILE\n"
    );
}

#[test]
fn a_child_of_a_remote_session_works_and_runs_code_in_its_folder_there() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("host"), |config| {
        config.command = "sh {file}".to_string();
    });
    runtime().block_on(async {
        let factory = factory(dir.path());
        let spec = SessionSpec::root("s-parent", "acme", "w")
            .with_tools(["write_file"])
            .with_executor(ExecutorSpec::Remote {
                url: server.endpoint(),
                token_var: TOKEN_VAR.to_string(),
            })
            .with_subagent(SubagentProfile::new("worker", ["write_file", "read_file"]));
        let parent = factory.create(spec).await.unwrap();
        let child = factory
            .spawn_child(&parent, ChildRequest::new("worker"))
            .await
            .unwrap();
        let stored = factory
            .specs()
            .load_spec(child.id())
            .await
            .unwrap()
            .unwrap();
        let host = stored.workspace_host.unwrap();
        assert_eq!(
            (host.name.as_str(), host.folder.as_deref()),
            ("s-parent", Some("subagents/worker-1"))
        );
        let cancel = CancellationToken::new();
        let wrote = child
            .execute(
                "write_file",
                ToolCall::new(
                    "c1",
                    json!({"path": "mine.txt", "content": "the child's\n"}),
                ),
                &cancel,
            )
            .await;
        assert!(!wrote.is_error, "{}", crate::support::outcome::text(&wrote));
        let ran = child
            .execute(
                "execute_code",
                ToolCall::new("c2", json!({"code": "cat mine.txt; pwd"})),
                &cancel,
            )
            .await;
        let folder = server.root.join("s-parent/subagents/worker-1");
        assert_eq!(
            crate::support::outcome::text(&ran),
            format!("the child's\n{}", folder.display())
        );
        assert!(folder.join("mine.txt").exists());
        // The child's own id has no folder on the server: one workspace, the parent's.
        assert!(!server.root.join(child.id()).exists());
        let resumed = factory.resume(child.id()).await.unwrap();
        let read = resumed
            .execute(
                "read_file",
                ToolCall::new("c3", json!({"path": "mine.txt"})),
                &cancel,
            )
            .await;
        assert_eq!(crate::support::outcome::text(&read), "     1\tthe child's");
    });
    assert!(!dir.path().join("worker").exists());
}

/// A spec stored before `workspace_host` existed, of a session whose code ran on a control
/// server: its JSON as that code wrote it loads and resumes as it did then, its file tools in
/// its local folder (so nothing it left there is lost).
#[test]
fn a_remote_executor_spec_stored_before_workspace_hosts_resumes_with_its_local_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("old-folder");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("left.txt"), "left here\n").unwrap();
    let old = format!(
        r#"{{"identity":{{"session_id":"s-old","tenant":"acme","lineage":[],"depth":0}},"workspace":{},"tools":["read_file"],"executor":{{"kind":"remote","url":"http://127.0.0.1:9","token_var":"{TOKEN_VAR}"}},"chat":false,"subagents":[],"max_depth":2}}"#,
        serde_json::to_string(folder.to_str().unwrap()).unwrap()
    );
    let spec: SessionSpec = serde_json::from_str(&old).unwrap();
    assert_eq!(spec.workspace_host, None);
    runtime().block_on(async {
        let factory = factory(dir.path());
        factory.specs().insert_spec(&spec).await.unwrap();
        let session = factory.resume("s-old").await.unwrap();
        let read = session
            .execute(
                "read_file",
                ToolCall::new("c1", json!({"path": "left.txt"})),
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(crate::support::outcome::text(&read), "     1\tleft here");
    });
}
