//! The loop over the Anthropic Messages format.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, services::ExecutionLog, session::ModelProvider};
use cy_tools_agent::{Agent, Ending, Usage};
use serde_json::json;

use super::{Recorder, config, setup};
use crate::support::fake_model::{FakeApi, Reply};

const ANTHROPIC: ModelProvider = ModelProvider::Anthropic;

#[tokio::test]
async fn a_plain_answer_ends_the_run_and_the_request_declares_the_tools() {
    let api = FakeApi::start(vec![Reply::ok("anthropic/plain.json")]);
    let setup = setup(&["read_file"]).await;
    let mut config = config(ANTHROPIC, &api);
    config.system = Some("be brief".to_string());
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "what is here?",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Answer("The workspace holds one file, notes.txt.".to_string())
    );
    assert_eq!(
        run.usage,
        Usage {
            input_tokens: 48,
            output_tokens: 10
        }
    );

    let sent = &api.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some("test-key"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert!(sent.header("authorization").is_none());
    assert!(sent.header("anthropic-beta").is_none());
    assert_eq!(sent.body["model"], "claude-fake");
    assert_eq!(sent.body["system"], "be brief");
    assert_eq!(sent.body["max_tokens"], 4096);
    assert_eq!(
        sent.body["messages"],
        json!([{"role": "user", "content": "what is here?"}])
    );
    let tools = sent.body["tools"].as_array().unwrap();
    assert_eq!(tools[1]["name"], "read_file");
    assert_eq!(tools[1]["input_schema"]["type"], "object");
    // Strict is off by default for Anthropic (its per-request caps).
    assert!(tools[1].get("strict").is_none());
    let usage = setup.log.usage("s-1").await.unwrap();
    assert_eq!(
        (
            usage[0].provider.as_str(),
            usage[0].model.as_str(),
            usage[0].input_tokens
        ),
        ("anthropic", "claude-fake-4-5", 48)
    );
}

#[tokio::test]
async fn strict_tools_when_asked_for_carry_the_beta_header() {
    let api = FakeApi::start(vec![Reply::ok("anthropic/plain.json")]);
    let setup = setup(&["read_file"]).await;
    Agent::new(config(ANTHROPIC, &api).with_strict(true))
        .unwrap()
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let sent = &api.requests()[0];
    assert_eq!(
        sent.header("anthropic-beta"),
        Some("structured-outputs-2025-11-13")
    );
    for tool in sent.body["tools"].as_array().unwrap() {
        assert_eq!(tool["strict"], true, "{tool}");
        assert_eq!(tool["input_schema"]["additionalProperties"], false);
    }
}

#[tokio::test]
async fn a_tool_use_runs_through_the_session_and_its_result_goes_back_with_its_id() {
    let api = FakeApi::start(vec![
        Reply::ok("anthropic/one_call.json"),
        Reply::ok("anthropic/after_tools.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let run = Agent::new(config(ANTHROPIC, &api))
        .unwrap()
        .run(
            &setup.session,
            "read the notes",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Answer("Done: I read what the tools returned.".to_string())
    );
    let messages = &api.requests()[1].body["messages"];
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "I will read the notes."},
            {"type": "tool_use", "id": "toolu_read_01", "name": "read_file", "input": {"path": "notes.txt"}},
        ]})
    );
    assert_eq!(messages[2]["role"], "user");
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_read_01");
    assert!(result.get("is_error").is_none());
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("hello from the notes"), "{text}");
    let entries = setup.log.entries("s-1").await.unwrap();
    assert_eq!(entries[0].call_id, "toolu_read_01");
}

#[tokio::test]
async fn parallel_tool_uses_run_at_once_and_come_back_in_one_message() {
    let api = FakeApi::start(vec![
        Reply::ok("anthropic/parallel.json"),
        Reply::ok("anthropic/after_tools.json"),
    ]);
    let setup = setup(&["terminal"]).await;
    let started = Instant::now();
    let run = Agent::new(config(ANTHROPIC, &api))
        .unwrap()
        .run(
            &setup.session,
            "run both",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)), "{:?}", run.ending);
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "{:?}",
        started.elapsed()
    );
    let results = api.requests()[1].body["messages"][2]["content"].clone();
    let ids: Vec<&str> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["toolu_slow_a", "toolu_slow_b"]);
    assert!(
        results[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("first")
    );
    assert!(
        results[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("second")
    );
}

#[tokio::test]
async fn input_that_fails_validation_goes_back_as_an_error_result() {
    let api = FakeApi::start(vec![
        Reply::ok("anthropic/malformed.json"),
        Reply::ok("anthropic/after_tools.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let run = Agent::new(config(ANTHROPIC, &api))
        .unwrap()
        .run(
            &setup.session,
            "read",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)));
    let result = &api.requests()[1].body["messages"][2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_bad_01");
    assert_eq!(result["is_error"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("file") && text.contains("path"), "{text}");
}

#[tokio::test]
async fn a_429_and_an_overload_are_retried() {
    let api = FakeApi::start(vec![
        Reply::status(429, &[("retry-after", "1")], "anthropic/rate_limited.json"),
        Reply::status(529, &[], "anthropic/overloaded.json"),
        Reply::ok("anthropic/plain.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let started = Instant::now();
    let run = Agent::new(config(ANTHROPIC, &api))
        .unwrap()
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)));
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn a_streamed_answer_reaches_the_events_as_it_comes() {
    let api = FakeApi::start(vec![
        Reply::stream("anthropic/stream_call.sse"),
        Reply::stream("anthropic/stream_answer.sse"),
    ]);
    let setup = setup(&["read_file"]).await;
    let mut config = config(ANTHROPIC, &api);
    config.stream = true;
    let events = Recorder::default();
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "read the notes",
            &CancellationToken::new(),
            &events,
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Answer("The notes say hello.".to_string())
    );
    assert_eq!(
        run.usage,
        Usage {
            input_tokens: 77 + 125,
            output_tokens: 24 + 7
        }
    );
    let seen = events.events();
    let pieces: Vec<&str> = seen
        .iter()
        .filter_map(|e| e.strip_prefix("text:"))
        .collect();
    assert_eq!(pieces, ["Let me ", "look.", "The notes ", "say hello."]);
    let requests = api.requests();
    assert_eq!(requests[0].body["stream"], true);
    let messages = &requests[1].body["messages"];
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_stream_01", "name": "read_file", "input": {"path": "notes.txt"}})
    );
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_stream_01");
}
