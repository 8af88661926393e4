//! The loop over the OpenAI Chat Completions format.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, services::ExecutionLog, session::ModelProvider};
use cy_tools_agent::{Agent, AgentErrorKind, Ending, Usage};
use serde_json::json;

use super::{Recorder, config, setup};
use crate::support::fake_model::{FakeApi, Reply};

const OPENAI: ModelProvider = ModelProvider::OpenAi;

#[tokio::test]
async fn a_plain_answer_ends_the_run_and_the_request_declares_the_tools() {
    let api = FakeApi::start(vec![Reply::ok("openai/plain.json")]);
    let setup = setup(&["read_file"]).await;
    let mut config = config(OPENAI, &api);
    config.system = Some("be brief".to_string());
    let agent = Agent::new(config).unwrap();
    let events = Recorder::default();
    let run = agent
        .run(
            &setup.session,
            "what is here?",
            &CancellationToken::new(),
            &events,
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Answer("The workspace holds one file, notes.txt.".to_string())
    );
    assert_eq!(
        (run.turns, run.usage),
        (
            1,
            Usage {
                input_tokens: 52,
                output_tokens: 9
            }
        )
    );
    assert_eq!(events.text(), "The workspace holds one file, notes.txt.");

    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key"));
    assert_eq!(sent.body["model"], "gpt-fake");
    assert_eq!(
        sent.body["messages"],
        json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "what is here?"},
        ])
    );
    // A compatible server's base URL: the older token field, no `strict`.
    assert_eq!(sent.body["max_tokens"], 4096);
    assert!(sent.body.get("parallel_tool_calls").is_none());
    let tools = sent.body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["execute_code", "read_file"]);
    let read_file = &tools[1];
    assert_eq!(read_file["type"], "function");
    assert_eq!(read_file["function"]["parameters"]["type"], "object");
    assert!(read_file["function"].get("strict").is_none(), "{read_file}");
    assert!(sent.body.get("stream").is_none());

    // The turn's usage is in the execution log, under the session.
    let usage = setup.log.usage("s-1").await.unwrap();
    assert_eq!(usage.len(), 1);
    assert_eq!(
        (
            usage[0].turn,
            usage[0].provider.as_str(),
            usage[0].model.as_str()
        ),
        (1, "openai", "gpt-fake-2026-01-01")
    );
    assert_eq!((usage[0].input_tokens, usage[0].output_tokens), (52, 9));
}

#[tokio::test]
async fn strict_tools_are_declared_strict_when_asked_for() {
    let api = FakeApi::start(vec![Reply::ok("openai/plain.json")]);
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config(OPENAI, &api).with_strict(true)).unwrap();
    agent
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let sent = &api.requests()[0].body;
    for tool in sent["tools"].as_array().unwrap() {
        assert_eq!(tool["function"]["strict"], true, "{tool}");
        assert_eq!(
            tool["function"]["parameters"]["additionalProperties"],
            false
        );
    }
}

#[tokio::test]
async fn a_tool_call_runs_through_the_session_and_its_result_goes_back_with_its_id() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/one_call.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let events = Recorder::default();
    let run = agent
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
        Ending::Answer("Done: I read what the tools returned.".to_string())
    );
    assert_eq!(run.turns, 2);
    assert_eq!(run.usage.total(), 97 + 151);
    assert_eq!(
        events.events()[..2],
        ["call:read_file:call_read_1", "result:call_read_1:ok"]
    );

    let second = &api.requests()[1].body["messages"];
    assert_eq!(
        second[1],
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{"id": "call_read_1", "type": "function",
                            "function": {"name": "read_file", "arguments": "{\"path\":\"notes.txt\"}"}}],
        })
    );
    assert_eq!(second[2]["role"], "tool");
    assert_eq!(second[2]["tool_call_id"], "call_read_1");
    let content = second[2]["content"].as_str().unwrap();
    assert!(content.contains("hello from the notes"), "{content}");

    let entries = setup.log.entries("s-1").await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (entries[0].tool.as_str(), entries[0].call_id.as_str()),
        ("read_file", "call_read_1")
    );
    assert_eq!(entries[0].arguments, json!({"path": "notes.txt"}));
    assert_eq!(setup.log.usage("s-1").await.unwrap().len(), 2);
}

#[tokio::test]
async fn parallel_calls_run_at_once_and_their_results_keep_the_calls_order() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/parallel.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(&["terminal"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let started = Instant::now();
    let run = agent
        .run(
            &setup.session,
            "run both",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(matches!(run.ending, Ending::Answer(_)), "{:?}", run.ending);
    // Each command sleeps 1 s: one after the other would take 2 s.
    assert!(took < Duration::from_millis(1800), "took {took:?}");

    let messages = api.requests()[1].body["messages"].clone();
    let results: Vec<(&str, &str)> = messages.as_array().unwrap()[2..]
        .iter()
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, "call_slow_a");
    assert!(results[0].1.contains("first"), "{}", results[0].1);
    assert_eq!(results[1].0, "call_slow_b");
    assert!(results[1].1.contains("second"), "{}", results[1].1);
    let logged: Vec<String> = setup
        .log
        .entries("s-1")
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.call_id)
        .collect();
    assert_eq!(logged.len(), 2);
    assert!(
        logged.contains(&"call_slow_a".to_string()) && logged.contains(&"call_slow_b".to_string())
    );
}

#[tokio::test]
async fn malformed_arguments_go_back_as_an_error_result_and_the_run_goes_on() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/malformed.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let events = Recorder::default();
    let run = agent
        .run(
            &setup.session,
            "read the notes",
            &CancellationToken::new(),
            &events,
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)), "{:?}", run.ending);
    assert!(
        events
            .events()
            .contains(&"result:call_broken_1:error".to_string())
    );
    let result = &api.requests()[1].body["messages"][2];
    assert_eq!(result["tool_call_id"], "call_broken_1");
    let text = result["content"].as_str().unwrap();
    assert!(text.contains("not JSON"), "{text}");
    // The broken text is sent back as the model wrote it.
    assert_eq!(
        api.requests()[1].body["messages"][1]["tool_calls"][0]["function"]["arguments"],
        "{\"path\": \"notes.txt\""
    );
    let entries = setup.log.entries("s-1").await.unwrap();
    assert_eq!(entries.len(), 1);
    assert!(entries[0].result.is_error);
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after() {
    let api = FakeApi::start(vec![
        Reply::status(429, &[("retry-after", "1")], "openai/rate_limited.json"),
        Reply::ok("openai/plain.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let started = Instant::now();
    let run = agent
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)));
    // The server's `Retry-After: 1`, not the 50 ms backoff.
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let requests = api.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, requests[1].body);
    assert_eq!(run.turns, 1);
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_with_the_providers_message() {
    let api = FakeApi::start(vec![
        Reply::status(503, &[], "openai/rate_limited.json"),
        Reply::status(502, &[], "openai/rate_limited.json"),
        Reply::status(500, &[], "openai/rate_limited.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let err = agent
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), AgentErrorKind::Provider);
    let text = err.to_string();
    assert!(
        text.contains("500") && text.contains("Rate limit reached"),
        "{text}"
    );
    assert!(text.contains("gave up after 3 tries"), "{text}");
    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn a_refused_request_is_not_retried() {
    let api = FakeApi::start(vec![Reply::status(404, &[], "openai/bad_request.json")]);
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let err = agent
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("does not exist") && err.contains("check the base URL and the model name"),
        "{err}"
    );
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn a_streamed_answer_reaches_the_events_as_it_comes() {
    let api = FakeApi::start(vec![
        Reply::stream("openai/stream_call.sse"),
        Reply::stream("openai/stream_answer.sse"),
    ]);
    let setup = setup(&["read_file"]).await;
    let mut config = config(OPENAI, &api);
    config.stream = true;
    let agent = Agent::new(config).unwrap();
    let events = Recorder::default();
    let run = agent
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
            input_tokens: 75 + 120,
            output_tokens: 21 + 6
        }
    );
    let seen = events.events();
    let pieces: Vec<&str> = seen
        .iter()
        .filter_map(|e| e.strip_prefix("text:"))
        .collect();
    assert_eq!(pieces, ["Let me ", "look.", "The notes ", "say hello."]);
    assert!(
        seen.contains(&"result:call_stream_1:ok".to_string()),
        "{seen:?}"
    );

    let requests = api.requests();
    assert_eq!(requests[0].body["stream"], true);
    assert_eq!(
        requests[0].body["stream_options"],
        json!({"include_usage": true})
    );
    let second = &requests[1].body["messages"];
    assert_eq!(second[1]["content"], "Let me look.");
    assert_eq!(
        second[1]["tool_calls"][0]["function"]["arguments"],
        "{\"path\": \"notes.txt\"}"
    );
    assert_eq!(second[2]["tool_call_id"], "call_stream_1");
    assert!(
        second[2]["content"]
            .as_str()
            .unwrap()
            .contains("hello from the notes")
    );
}

/// Count the lines of the notes: a tool whose name OpenAI's rule refuses (it has a `.`).
#[cy_tools::tool(name = "notes.count", capabilities(env), read_only)]
async fn count_notes(env: &dyn cy_tools::services::Sandbox) -> Result<usize, cy_tools::ToolError> {
    Ok(String::from_utf8_lossy(&env.read("notes.txt").await?)
        .lines()
        .count())
}

#[tokio::test]
async fn a_name_the_provider_refuses_is_declared_mapped_and_its_calls_mapped_back() {
    // The model calls the tool by the name it was shown.
    let call = crate::support::fake_model::fixture("openai/one_call.json")
        .replace(r#""name":"read_file""#, r#""name":"notes_count""#)
        .replace(r#"{\"path\":\"notes.txt\"}"#, "{}");
    let api = FakeApi::start(vec![
        Reply::Json {
            status: 200,
            headers: Vec::new(),
            body: call,
        },
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(&["notes.count"]).await;
    let run = Agent::new(config(OPENAI, &api))
        .unwrap()
        .run(
            &setup.session,
            "count the notes",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)), "{:?}", run.ending);
    let requests = api.requests();
    let declared: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(declared.contains(&"notes_count"), "{declared:?}");
    assert!(!declared.contains(&"notes.count"), "{declared:?}");
    // The call ran the session's `notes.count`, and its result went back under the call's id.
    let messages = &requests[1].body["messages"];
    let result = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool result");
    assert_eq!(result["tool_call_id"], "call_read_1");
    assert_eq!(result["content"], "1");
    let entries = setup.log.entries("s-1").await.unwrap();
    assert_eq!(entries[0].tool, "notes.count");
}
