//! A child session is narrower than its parent: its own folder, no chat, no tools its profile
//! did not allow, no children past the maximum depth, its log under its own key.

use std::sync::Arc;
use std::time::Duration;

use cy_tools::memory::{MemoryLog, MemorySpecs};
use cy_tools::{
    CancellationToken, ToolCall, ToolRegistry,
    services::{Chat, ChildRequest},
    session::SubagentProfile,
};
use cy_tools_session::tools::delegate::UNAVAILABLE;
use cy_tools_session::{LocalChat, LocalSessionFactory};
use serde_json::json;

use super::runner::{ScriptedRunner, shared, step};
use super::{runtime, spec};

fn factory(
    runner: Option<Arc<dyn cy_tools_session::SubagentRunner>>,
) -> (LocalSessionFactory, Arc<LocalChat>) {
    let registry = Arc::new(ToolRegistry::linked().unwrap());
    let chat = Arc::new(LocalChat::in_memory());
    let mut factory = LocalSessionFactory::new(
        registry,
        Arc::new(MemorySpecs::new()),
        Arc::new(MemoryLog::new()),
    )
    .with_chat(chat.clone());
    if let Some(runner) = runner {
        factory = factory.with_runner(runner);
    }
    (factory, chat)
}

fn call(id: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, args)
}

#[test]
fn a_child_cannot_reach_its_parent_or_talk_to_people() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, dynamic) = shared(ScriptedRunner::new());
        runner.script(
            "snoop",
            vec![
                step("read_file", json!({"path": "../secret.txt"})),
                step("read_file", json!({"path": "/workspace/../secret.txt"})),
                step("read_file", json!({"path": "secret.txt"})),
                step("send_message", json!({"text": "hello people"})),
                step("write_file", json!({"path": "out.txt", "content": "child work"})),
            ],
        );
        let (factory, chat) = factory(Some(dynamic));
        let parent_spec = spec("p", dir.path())
            .with_tools(["read_file", "write_file", "send_message"])
            .with_chat(true)
            .with_subagent(SubagentProfile::new(
                "worker",
                ["read_file", "write_file", "send_message"],
            ));
        let parent = factory.create(parent_spec).await.unwrap();
        assert_eq!(
            parent.tools().names(),
            ["execute_code", "send_message", "read_file", "write_file", "delegate", "workflow"]
        );
        let cancel = CancellationToken::new();
        let wrote = parent
            .execute("write_file", call("c1", json!({"path": "secret.txt", "content": "parent only"})), &cancel)
            .await;
        assert!(!wrote.is_error);

        let answer = parent
            .execute("delegate", call("c2", json!({"agent": "worker", "task": "snoop"})), &cancel)
            .await;
        assert!(!answer.is_error, "{}", answer.text_content());
        let text = answer.text_content();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "subagent `worker` (session `p.worker-1`) answered:");
        assert_eq!(
            lines[1],
            "read_file: [error] path `../secret.txt` is outside the workspace; use a path relative to the workspace root (or under `/workspace/`)"
        );
        assert!(lines[2].starts_with("read_file: [error] path `/workspace/../secret.txt` is outside the workspace"), "{}", lines[2]);
        assert!(lines[3].starts_with("read_file: [error]"), "{}", lines[3]);
        assert!(lines[3].contains("secret.txt"), "{}", lines[3]);
        assert!(!text.contains("parent only"));
        assert_eq!(
            lines[4],
            "send_message: [error] unknown tool `send_message`; available tools are `execute_code`, `read_file`, `write_file`"
        );
        assert!(lines[5].starts_with("write_file: "), "{}", lines[5]);
        assert!(!lines[5].contains("[error]"));
        assert!(chat.messages().is_empty(), "the child reached the chat");

        // The child's file is in its own folder, inside the parent's workspace.
        let child_file = dir.path().join("subagents/worker-1/out.txt");
        assert_eq!(std::fs::read_to_string(child_file).unwrap(), "child work");
        assert!(!dir.path().join("out.txt").exists());

        // Its log sits under its own key, each call pointing at the parent's `delegate` call;
        // the parent's log has only the parent's calls.
        let child_log = factory.log().entries("p.worker-1").await.unwrap();
        assert_eq!(child_log.len(), 5);
        assert!(child_log.iter().all(|e| e.session_id == "p.worker-1"));
        assert!(child_log.iter().all(|e| e.parent_call.as_deref() == Some("c2")));
        let tools: Vec<&str> = child_log.iter().map(|e| e.tool.as_str()).collect();
        assert_eq!(tools, ["read_file", "read_file", "read_file", "send_message", "write_file"]);
        let parent_log = parent.entries().await.unwrap();
        let parent_calls: Vec<&str> = parent_log.iter().map(|e| e.call_id.as_str()).collect();
        assert_eq!(parent_calls, ["c1", "c2"]);

        // The stored child spec: tenant inherited, lineage extended, no chat.
        let child = factory.specs().load_spec("p.worker-1").await.unwrap().unwrap();
        assert_eq!(child.identity.tenant, "acme");
        assert_eq!(child.identity.lineage, ["p"]);
        assert_eq!(child.identity.depth, 1);
        assert!(!child.chat);
        assert!(child.subagents.is_empty(), "the profile has no delegation tools");
    });
}

#[test]
fn a_child_gets_only_what_its_profile_allows() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (_, dynamic) = shared(ScriptedRunner::new());
        let (factory, _) = factory(Some(dynamic));
        let parent = factory
            .create(
                spec("p", dir.path())
                    .with_tools(["read_file", "write_file", "terminal"])
                    .with_chat(true)
                    .with_subagent(SubagentProfile::new("reader", ["read_file", "delegate"]))
                    .with_subagent(SubagentProfile::new("writer", ["write_file", "terminal"]))
                    .with_max_depth(3),
            )
            .await
            .unwrap();
        let child = factory
            .spawn_child(&parent, ChildRequest::new("reader"))
            .await
            .unwrap();
        assert_eq!(
            child.tools().names(),
            ["execute_code", "read_file", "delegate", "workflow"]
        );
        // Its own profiles are the parent's, cut down to what it may use itself.
        let profiles: Vec<(&str, Vec<&str>)> = child
            .spec()
            .unwrap()
            .subagents
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.tools.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            profiles,
            [
                ("reader", vec!["read_file", "delegate"]),
                ("writer", vec![])
            ]
        );
        let grandchild = factory
            .spawn_child(&child, ChildRequest::new("writer"))
            .await
            .unwrap();
        assert_eq!(grandchild.tools().names(), ["execute_code"]);
        assert_eq!(grandchild.identity().lineage, ["p", "p.reader-1"]);
        assert_eq!(grandchild.id(), "p.reader-1.writer-1");

        let unknown = factory
            .spawn_child(&parent, ChildRequest::new("admin"))
            .await
            .unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "no subagent profile `admin`; valid profiles are `reader`, `writer`"
        );
        let outside = factory
            .spawn_child(
                &parent,
                ChildRequest {
                    workspace: Some("../elsewhere".into()),
                    ..ChildRequest::new("reader")
                },
            )
            .await
            .unwrap_err();
        assert!(
            outside
                .to_string()
                .starts_with("path `../elsewhere` is outside the workspace"),
            "{outside}"
        );
    });
}

#[test]
fn no_child_is_made_past_the_maximum_depth() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, dynamic) = shared(ScriptedRunner::new());
        runner.script("go deeper", vec![step("delegate", json!({"agent": "worker", "task": "deepest"}))]);
        runner.script("deepest", vec![step("delegate", json!({"agent": "worker", "task": "too deep"}))]);
        let (factory, _) = factory(Some(dynamic));
        let parent = factory
            .create(
                spec("p", dir.path())
                    .with_subagent(SubagentProfile::new("worker", ["delegate"]))
                    .with_max_depth(2),
            )
            .await
            .unwrap();
        let cancel = CancellationToken::new();
        let answer = parent
            .execute("delegate", call("c1", json!({"agent": "worker", "task": "go deeper"})), &cancel)
            .await;
        assert!(!answer.is_error, "{}", answer.text_content());
        assert_eq!(
            answer.text_content(),
            "subagent `worker` (session `p.worker-1`) answered:\n\
             delegate: subagent `worker` (session `p.worker-1.worker-1`) answered:\n\
             delegate: [error] unknown tool `delegate`; available tools are `execute_code`"
        );
        // At the maximum depth there is no factory to ask, and the factory itself refuses.
        let deepest = factory.resume("p.worker-1.worker-1").await.unwrap();
        assert_eq!(deepest.identity().depth, 2);
        assert_eq!(deepest.tools().names(), ["execute_code"]);
        let err = factory
            .spawn_child(&deepest, ChildRequest::new("worker"))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "session `p.worker-1.worker-1` is at depth 2, the maximum; it cannot start subagents: do the task in this session"
        );
        let direct = factory.specs().load_spec("p.worker-1").await.unwrap().unwrap();
        assert_eq!(direct.subagents.len(), 1, "the middle child could delegate");
        let deepest_log = factory.log().entries("p.worker-1.worker-1").await.unwrap();
        assert_eq!(deepest_log.len(), 1);
        assert_eq!(deepest_log[0].parent_call.as_deref(), Some("t1"));
    });
}

#[test]
fn without_a_runner_delegation_answers_that_it_is_unavailable() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (factory, _) = factory(None);
        let parent = factory
            .create(
                spec("p", dir.path()).with_subagent(SubagentProfile::new("worker", ["read_file"])),
            )
            .await
            .unwrap();
        assert_eq!(
            parent.tools().names(),
            ["execute_code", "delegate", "workflow"]
        );
        let cancel = CancellationToken::new();
        for (tool, args) in [
            ("delegate", json!({"agent": "worker", "task": "anything"})),
            (
                "workflow",
                json!({"tasks": [{"agent": "worker", "task": "anything"}]}),
            ),
        ] {
            let answer = parent.execute(tool, call("c1", args), &cancel).await;
            assert!(answer.is_error);
            assert_eq!(answer.text_content(), UNAVAILABLE);
        }
        assert!(factory.specs().children("p").await.unwrap().is_empty());
    });
}

#[test]
fn workflow_runs_tasks_in_parallel_within_the_limit_and_in_sequence() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, dynamic) = shared(ScriptedRunner::holding(Duration::from_millis(50)));
        for n in 1..=5 {
            runner.script(
                &format!("write {n}"),
                vec![step("write_file", json!({"path": "f.txt", "content": format!("{n}")}))],
            );
        }
        runner.script("fail", vec![step("read_file", json!({"path": "nope.txt"}))]);
        let (factory, _) = factory(Some(dynamic));
        let parent = factory
            .create(spec("p", dir.path()).with_subagent(SubagentProfile::new("worker", ["write_file"])))
            .await
            .unwrap();
        let cancel = CancellationToken::new();
        let tasks: Vec<_> = (1..=5)
            .map(|n| json!({"agent": "worker", "task": format!("write {n}")}))
            .collect();
        let answer = parent
            .execute("workflow", call("c1", json!({"tasks": tasks, "max_concurrency": 2})), &cancel)
            .await;
        assert!(!answer.is_error, "{}", answer.text_content());
        let text = answer.text_content();
        assert!(text.starts_with("5 of 5 tasks finished (in parallel, at most 2 at a time)"), "{text}");
        assert_eq!(runner.peak.load(std::sync::atomic::Ordering::SeqCst), 2);
        // Each answer under its own task, in the order given.
        let mut at = 0;
        for n in 1..=5 {
            let label = format!("## task {n}: `worker` (session `p.worker-");
            let found = text[at..].find(&label).unwrap_or_else(|| panic!("task {n} missing: {text}"));
            at += found + label.len();
        }
        // Each child wrote in its own folder.
        let mut contents: Vec<String> = (1..=5)
            .map(|n| std::fs::read_to_string(dir.path().join(format!("subagents/worker-{n}/f.txt"))).unwrap())
            .collect();
        contents.sort();
        assert_eq!(contents, ["1", "2", "3", "4", "5"]);

        let seq = json!({"mode": "sequence", "tasks": [
            {"agent": "worker", "task": "write 1"},
            {"agent": "worker", "task": "not scripted"},
            {"agent": "worker", "task": "write 2"},
        ]});
        let answer = parent.execute("workflow", call("c2", seq), &cancel).await;
        assert!(answer.is_error);
        let text = answer.text_content();
        assert!(text.starts_with("1 of 3 tasks finished (in sequence)"), "{text}");
        assert!(text.contains("## task 2: `worker` failed\nsubagent `worker` (session `p.worker-7`) failed: the scripted model has no script for task `not scripted`"), "{text}");
        assert!(text.ends_with("## task 3: `worker` was not run, because an earlier task failed"), "{text}");
    });
}

#[test]
fn sessions_signal_each_other_and_talk_to_the_chat() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (factory, chat) = factory(None);
        let tools = ["signal", "wait_for_signal"];
        let a = factory
            .create(spec("a", &dir.path().join("a")).with_tools(tools).with_chat(true))
            .await
            .unwrap();
        let b = factory
            .create(spec("b", &dir.path().join("b")).with_tools(tools))
            .await
            .unwrap();
        assert_eq!(a.tools().names(), ["execute_code", "send_message", "signal", "wait_for_signal"]);
        assert_eq!(b.tools().names(), ["execute_code", "signal", "wait_for_signal"]);
        let cancel = CancellationToken::new();
        let waiting = {
            let a = a.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move {
                a.execute("wait_for_signal", call("w1", json!({"name": "data-ready", "timeout_ms": 5000})), &cancel)
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let sent = b
            .execute("signal", call("s1", json!({"to": "a", "name": "data-ready", "payload": "rows.csv"})), &cancel)
            .await;
        assert_eq!(sent.text_content(), "signal `data-ready` sent to session `a`");
        let got = waiting.await.unwrap();
        assert_eq!(got.text_content(), "signal `data-ready` from session `b`: rows.csv");

        let none = b
            .execute("wait_for_signal", call("w2", json!({"name": "never", "timeout_ms": 20})), &cancel)
            .await;
        assert!(none.is_error);
        assert_eq!(none.text_content(), "no signal `never` arrived for session `b` within 20 ms; wait again, or go on without it");
        let bad = b
            .execute("signal", call("s2", json!({"to": "a", "name": "has space"})), &cancel)
            .await;
        assert!(bad.text_content().starts_with("signal name `has space` is not valid"));

        // A session of another tenant with the same id as `a` never sees `a`'s signals, and
        // `b` cannot reach it.
        let mut other = spec("a", &dir.path().join("other")).with_tools(tools);
        other.identity.tenant = "globex".into();
        let other_factory_session = factory.create(other).await;
        assert!(other_factory_session.is_err(), "ids are unique across tenants in one store");
        let mut stranger = spec("x", &dir.path().join("x")).with_tools(tools);
        stranger.identity.tenant = "globex".into();
        let stranger = factory.create(stranger).await.unwrap();
        let sent = stranger
            .execute("signal", call("s3", json!({"to": "a", "name": "data-ready", "payload": "forged"})), &cancel)
            .await;
        assert!(!sent.is_error);
        let nothing = a
            .execute("wait_for_signal", call("w3", json!({"name": "data-ready", "timeout_ms": 20})), &cancel)
            .await;
        assert!(nothing.is_error, "a signal crossed tenants: {}", nothing.text_content());
        // The application reaches a session through its tenant's view.
        factory
            .coordinator("acme")
            .signal("a", "go", json!({"from": "the host", "payload": "now"}))
            .await
            .unwrap();
        let go = a
            .execute("wait_for_signal", call("w4", json!({"name": "go", "timeout_ms": 1000})), &cancel)
            .await;
        assert_eq!(go.text_content(), "signal `go` from session `the host`: now");

        let said = a.execute("send_message", call("m1", json!({"text": "halfway"})), &cancel).await;
        assert_eq!(said.text_content(), "message sent (7 characters)");
        let empty = a.execute("send_message", call("m2", json!({"text": "  "})), &cancel).await;
        assert_eq!(empty.text_content(), "`text` is empty; write the message to send");
        let messages = chat.messages();
        assert_eq!(messages.len(), 1);
        assert_eq!((messages[0].session_id.as_str(), messages[0].text.as_str()), ("a", "halfway"));
        let _: &dyn Chat = &*chat;
    });
}

cy_tools::capability::capability_set!(FactoryCaps: factory);

#[test]
fn the_context_factory_is_one_level_shallower_for_each_child_and_absent_at_the_maximum() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (factory, _) = factory(None);
        let parent = factory
            .create(
                spec("p", dir.path())
                    .with_subagent(SubagentProfile::new("worker", ["write_file", "delegate"]))
                    .with_max_depth(2),
            )
            .await
            .unwrap();
        let ctx = cy_tools::Ctx::<FactoryCaps>::new(parent.context()).unwrap();
        assert_eq!(ctx.factory().remaining_depth(), 2);
        assert_eq!(ctx.factory().profiles(), ["worker"]);
        let request = ChildRequest {
            parent_call: Some("c9".into()),
            ..ChildRequest::new("worker")
        };
        let child = ctx.factory().spawn_child(request).await.unwrap();
        assert_eq!(child.identity().lineage, ["p"]);
        assert_eq!(
            child.tools().names(),
            ["execute_code", "write_file", "delegate", "workflow"]
        );
        let wrote = child
            .execute(
                "write_file",
                call("k1", json!({"path": "a.txt", "content": "x"})),
                &CancellationToken::new(),
            )
            .await;
        assert!(!wrote.is_error, "{}", wrote.text_content());
        let logged = factory.log().entries("p.worker-1").await.unwrap();
        assert_eq!(logged.len(), 1);
        assert_eq!(logged[0].parent_call.as_deref(), Some("c9"));

        let child = factory.resume("p.worker-1").await.unwrap();
        let ctx = cy_tools::Ctx::<FactoryCaps>::new(child.context()).unwrap();
        assert_eq!(ctx.factory().remaining_depth(), 1);
        let grandchild = ctx
            .factory()
            .spawn_child(ChildRequest::new("worker"))
            .await
            .unwrap();
        assert_eq!(grandchild.identity().depth, 2);
        let deepest = factory.resume(grandchild.id()).await.unwrap();
        let err = cy_tools::Ctx::<FactoryCaps>::new(deepest.context()).unwrap_err();
        assert!(
            err.to_string().contains("needs capability `factory`"),
            "{err}"
        );
        // The grandchild was made inside the child's folder, which is inside the parent's.
        assert!(
            dir.path()
                .join("subagents/worker-1/subagents/worker-1")
                .is_dir()
        );
    });
}
