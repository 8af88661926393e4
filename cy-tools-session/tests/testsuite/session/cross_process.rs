//! A session created in one process is resumed, by id, in another: the same tools and schemas
//! in the same order, the same workspace, and the execution log goes on.
//!
//! The test runs `session_role` in a process of its own twice, with `CY_SESSION_ROLE` set once
//! to create the session and once to resume it; each run writes a report the parent compares.

use std::path::{Path, PathBuf};

use cy_tools::{CancellationToken, ToolCall};
use cy_tools_session::LocalSessionFactory;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use cy_tools::session::SubagentProfile;

use super::{runtime, spec};
use crate::support::alone::alone;

const ROLE: &str = "CY_SESSION_ROLE";
const DIR: &str = "CY_SESSION_DIR";
const SESSION: &str = "s-cross";

#[derive(Debug, Serialize, Deserialize)]
struct Report {
    pid: u32,
    /// (name, description, parameters) of every tool, in order.
    tools: Vec<(String, String, Value)>,
    /// (call id, tool, is_error) of every recorded call, oldest first.
    log: Vec<(String, String, bool)>,
    /// What the resuming process read back.
    seen: Vec<String>,
}

fn report_path(dir: &Path, role: &str) -> PathBuf {
    dir.join(format!("{role}.json"))
}

async fn role(role: &str, dir: &Path) {
    let factory = LocalSessionFactory::embedded(dir.join("state")).unwrap();
    let cancel = CancellationToken::new();
    let call = |id: &str, args: Value| ToolCall::new(id, args);
    let (session, seen) = if role == "create" {
        let spec = spec(SESSION, &dir.join("workspace"))
            .with_tools([
                "write_file",
                "read_file",
                "list_directory",
                "edit_file",
                "find_files",
            ])
            .with_chat(true)
            .with_subagent(SubagentProfile::new("worker", ["read_file"]));
        let session = factory.create(spec).await.unwrap();
        let wrote = session
            .execute(
                "write_file",
                call(
                    "c1",
                    json!({"path": "notes.txt", "content": "from the first process\n"}),
                ),
                &cancel,
            )
            .await;
        assert!(!wrote.is_error, "{}", crate::support::outcome::text(&wrote));
        let ran = session
            .execute("execute_code", call("c2", json!({"code": "echo made by code > made.txt; echo done", "filename": "make.sh"})), &cancel)
            .await;
        assert_eq!(crate::support::outcome::text(&ran), "done");
        let bad = session
            .execute(
                "read_file",
                call("c3", json!({"path": "missing.txt"})),
                &cancel,
            )
            .await;
        assert!(bad.is_error);
        (session, Vec::new())
    } else {
        let session = factory.resume(SESSION).await.unwrap();
        let mut seen = Vec::new();
        for (id, path) in [("c4", "notes.txt"), ("c5", "made.txt")] {
            let read = session
                .execute("read_file", call(id, json!({"path": path})), &cancel)
                .await;
            assert!(!read.is_error, "{}", crate::support::outcome::text(&read));
            seen.push(crate::support::outcome::text(&read));
        }
        (session, seen)
    };
    let tools = session
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
    let log = session
        .entries()
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.call_id, e.tool, e.result.is_error))
        .collect();
    let report = Report {
        pid: std::process::id(),
        tools,
        log,
        seen,
    };
    std::fs::write(report_path(dir, role), serde_json::to_vec(&report).unwrap()).unwrap();
}

fn run_role(role: &str, dir: &Path) {
    alone!(session_role).env(ROLE, role).env(DIR, dir).run();
}

#[test]
#[ignore = "run by `a_second_process_resumes_the_session`, once as each role, in processes of their own"]
fn session_role() {
    let (Ok(r), Ok(dir)) = (std::env::var(ROLE), std::env::var(DIR)) else {
        panic!(
            "run by `a_second_process_resumes_the_session`, which sets `{ROLE}` and `{DIR}`; run that test instead"
        );
    };
    runtime().block_on(role(&r, Path::new(&dir)));
}

#[test]
fn a_second_process_resumes_the_session() {
    let dir = tempfile::tempdir().unwrap();
    run_role("create", dir.path());
    run_role("resume", dir.path());
    let read = |role: &str| -> Report {
        serde_json::from_slice(&std::fs::read(report_path(dir.path(), role)).unwrap()).unwrap()
    };
    let (first, second) = (read("create"), read("resume"));

    assert_ne!(first.pid, second.pid);
    assert_ne!(first.pid, std::process::id());
    let names: Vec<&str> = first.tools.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "execute_code",
            "send_message",
            "write_file",
            "read_file",
            "list_directory",
            "edit_file",
            "find_files",
            "delegate",
            "workflow"
        ]
    );
    assert_eq!(
        first.tools, second.tools,
        "names, descriptions and schemas, in order"
    );

    let calls = |report: &Report| -> Vec<(String, String, bool)> { report.log.clone() };
    let expected_first = vec![
        ("c1".to_string(), "write_file".to_string(), false),
        ("c2".to_string(), "execute_code".to_string(), false),
        ("c3".to_string(), "read_file".to_string(), true),
    ];
    assert_eq!(calls(&first), expected_first);
    let mut expected_second = expected_first;
    expected_second.push(("c4".to_string(), "read_file".to_string(), false));
    expected_second.push(("c5".to_string(), "read_file".to_string(), false));
    assert_eq!(calls(&second), expected_second, "the log goes on");

    assert_eq!(second.seen[0], "     1\tfrom the first process");
    assert_eq!(second.seen[1], "     1\tmade by code");
}
