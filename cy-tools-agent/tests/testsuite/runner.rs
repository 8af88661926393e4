//! `LocalSessionFactory` with no runner of its own runs a profile that names a model with its
//! model runner, the model loop (`ModelRunner`, handed in with `with_model_runner`): the key read
//! through the runner's secrets, the profile's limits kept.

use std::sync::Arc;

use cy_tools::memory::{MemoryLog, MemorySpecs};
use cy_tools::{
    CancellationToken, SessionSpec, ToolCall, ToolRegistry,
    services::ExecutionLog,
    session::{ModelProvider, ModelSpec, SpecStore, SubagentLimits, SubagentProfile},
};
use cy_tools_agent::{Agent, AgentConfig, Ending, ModelRunner, Quiet};
use cy_tools_session::LocalSessionFactory;
use serde_json::json;

use crate::support::fake_model::{FakeApi, Reply};

fn factory(log: &Arc<MemoryLog>, specs: &Arc<MemorySpecs>) -> LocalSessionFactory {
    LocalSessionFactory::new(
        Arc::new(ToolRegistry::linked().unwrap()),
        Arc::clone(specs) as _,
        Arc::clone(log) as _,
    )
    .with_model_runner(Arc::new(ModelRunner::with_secrets(|name| {
        (name == "FAKE_KEY_VAR").then(|| "k-from-secrets".to_string())
    })))
}

fn profile(model: ModelSpec) -> SubagentProfile {
    SubagentProfile::new("helper", ["read_file"]).with_model(model)
}

#[tokio::test]
async fn a_profile_naming_a_model_runs_on_it_with_the_key_from_the_secrets() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/one_call.json"),
        Reply::ok("openai/child_answer.json"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello from the notes\n").unwrap();
    let (log, specs) = (Arc::new(MemoryLog::new()), Arc::new(MemorySpecs::new()));
    let model = ModelSpec::new(ModelProvider::OpenAi, "gpt-fake")
        .with_base_url(format!("{}/v1", api.url()))
        .with_key_var("FAKE_KEY_VAR");
    let limits = SubagentLimits {
        max_tokens: Some(10_000),
        ..SubagentLimits::default()
    };
    let spec = SessionSpec::root("p", "acme", dir.path().to_str().unwrap())
        .with_subagent(profile(model).with_limits(limits));
    let root = factory(&log, &specs).create(spec).await.unwrap();
    let result = root
        .execute(
            "delegate",
            ToolCall::new(
                "d1",
                json!({"agent": "helper", "task": "what do the notes say?"}),
            ),
            &CancellationToken::new(),
        )
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    assert!(
        result
            .text_content()
            .contains("notes.txt says: hello from the notes"),
        "{}",
        result.text_content()
    );
    let requests = api.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer k-from-secrets")
    );
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "what do the notes say?"
    );
    let child = specs.children("p").await.unwrap();
    assert_eq!(child, ["p.helper-1"]);
    let calls = log.entries("p.helper-1").await.unwrap();
    assert_eq!(
        (calls[0].tool.as_str(), calls[0].parent_call.as_deref()),
        ("read_file", Some("d1"))
    );
    assert_eq!(log.usage("p.helper-1").await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_profile_on_an_official_api_without_its_key_says_which_variable_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let (log, specs) = (Arc::new(MemoryLog::new()), Arc::new(MemorySpecs::new()));
    let model = ModelSpec::new(ModelProvider::Anthropic, "claude-fake");
    let spec =
        SessionSpec::root("p", "acme", dir.path().to_str().unwrap()).with_subagent(profile(model));
    let root = factory(&log, &specs).create(spec).await.unwrap();
    let result = root
        .execute(
            "delegate",
            ToolCall::new("d1", json!({"agent": "helper", "task": "anything"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(result.is_error);
    let text = result.text_content();
    assert!(
        text.contains("`ANTHROPIC_API_KEY`, which is not set"),
        "{text}"
    );
}

#[tokio::test]
async fn without_a_model_or_a_runner_delegation_stays_inert() {
    let dir = tempfile::tempdir().unwrap();
    let (log, specs) = (Arc::new(MemoryLog::new()), Arc::new(MemorySpecs::new()));
    let spec = SessionSpec::root("p", "acme", dir.path().to_str().unwrap())
        .with_subagent(SubagentProfile::new("helper", ["read_file"]));
    let root = factory(&log, &specs).create(spec).await.unwrap();
    let result = root
        .execute(
            "delegate",
            ToolCall::new("d1", json!({"agent": "helper", "task": "anything"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(result.is_error);
    assert!(
        result
            .text_content()
            .contains("delegation is unavailable here")
    );
}

#[tokio::test]
async fn an_https_base_url_goes_through_tls_and_reports_a_failed_handshake() {
    // A plain-HTTP server behind an https:// URL: the TLS client (rustls, ring) is built and
    // tried, and its failure named.
    let api = FakeApi::start(vec![Reply::ok("openai/plain.json")]);
    let dir = tempfile::tempdir().unwrap();
    let (log, specs) = (Arc::new(MemoryLog::new()), Arc::new(MemorySpecs::new()));
    let url = api.url().replace("http://", "https://");
    let spec = SessionSpec::root("p", "acme", dir.path().to_str().unwrap()).with_subagent(profile(
        ModelSpec::new(ModelProvider::OpenAi, "gpt-fake").with_base_url(format!("{url}/v1")),
    ));
    let root = factory(&log, &specs).create(spec).await.unwrap();
    let result = root
        .execute(
            "delegate",
            ToolCall::new("d1", json!({"agent": "helper", "task": "anything"})),
            &CancellationToken::new(),
        )
        .await;
    let text = result.text_content();
    assert!(result.is_error);
    assert!(
        text.contains(&format!("cannot reach the model API at {url}/v1: "))
            && text.contains("tls handshake"),
        "{text}"
    );
}

#[tokio::test]
async fn workflow_runs_its_subagents_on_their_model_and_strict_nulls_mean_left_out() {
    // Strict mode makes `mode` (optional, not nullable) "required but nullable", so the model
    // sends `"mode": null`: the loop drops it, and the call runs with the default mode.
    let api = FakeApi::start(vec![
        Reply::ok("openai/workflow_call.json"),
        Reply::ok("openai/child_answer.json"),
        Reply::ok("openai/child_answer.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let (log, specs) = (Arc::new(MemoryLog::new()), Arc::new(MemorySpecs::new()));
    let base = format!("{}/v1", api.url());
    let model = ModelSpec::new(ModelProvider::OpenAi, "gpt-fake").with_base_url(&base);
    let spec =
        SessionSpec::root("p", "acme", dir.path().to_str().unwrap()).with_subagent(profile(model));
    let root = factory(&log, &specs).create(spec).await.unwrap();
    let mut config = AgentConfig::new(ModelProvider::OpenAi, "gpt-fake")
        .with_base_url(&base)
        .with_strict(true);
    config.retry.base_delay = std::time::Duration::from_millis(50);
    let run = Agent::new(config)
        .unwrap()
        .run(&root, "do both", &CancellationToken::new(), &Quiet)
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Answer("Done: I read what the tools returned.".to_string())
    );
    let requests = api.requests();
    let workflow = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "workflow")
        .unwrap()
        .clone();
    assert_eq!(workflow["function"]["strict"], true);
    let result = &requests[3].body["messages"][2];
    assert_eq!(result["tool_call_id"], "call_workflow_1");
    let text = result["content"].as_str().unwrap();
    assert_eq!(
        text.matches("notes.txt says: hello from the notes").count(),
        2,
        "{text}"
    );
    let calls = log.entries("p").await.unwrap();
    assert!(!calls[0].result.is_error, "{:?}", calls[0].result);
    assert_eq!(calls[0].arguments.get("mode"), None);
    let children = specs.children("p").await.unwrap();
    assert_eq!(children.len(), 2);
    for child in &children {
        assert_eq!(log.usage(child).await.unwrap().len(), 1, "{child}");
    }
}
