//! What bounds one turn: how many of its tool calls run at once, and how much of an answer is
//! read (its bytes, and the tokens it writes, counted as it streams) against a fake API that
//! streams without end; and the key kept off plain `http://` to another machine.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, session::ModelProvider};
use cy_tools_agent::{Agent, AgentErrorKind, AgentRun, Ending, LimitReached, Usage};
use serde_json::json;

use super::{Recorder, config, setup};
use crate::support::fake_model::{FakeApi, Reply};

const OPENAI: ModelProvider = ModelProvider::OpenAi;
const ANTHROPIC: ModelProvider = ModelProvider::Anthropic;

/// An OpenAI answer calling `terminal` once per command, ids `c1`, `c2`...
fn terminal_calls(commands: &[String]) -> Reply {
    let calls: Vec<_> = commands
        .iter()
        .enumerate()
        .map(|(i, command)| {
            json!({"id": format!("c{}", i + 1), "type": "function", "function": {
                "name": "terminal", "arguments": json!({"command": command}).to_string()}})
        })
        .collect();
    let body = json!({"id": "x", "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": calls}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10}});
    Reply::Json {
        status: 200,
        headers: Vec::new(),
        body: body.to_string(),
    }
}

#[tokio::test]
async fn a_turns_calls_run_at_most_the_cap_at_once_and_the_rest_wait() {
    // Each command counts the commands running beside it (itself included) as it starts.
    let commands: Vec<String> = (1..=9)
        .map(|i| {
            format!(
                "mkdir -p running && touch running/{i} && ls running | wc -l > seen-{i}; sleep 0.4; rm running/{i}"
            )
        })
        .collect();
    let api = FakeApi::start(vec![
        terminal_calls(&commands),
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(&["terminal"]).await;
    let mut config = config(OPENAI, &api);
    config.limits.max_parallel_calls = 3;
    let events = Recorder::default();
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "run them",
            &CancellationToken::new(),
            &events,
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)), "{run:?}");
    let workspace = setup.session.spec().unwrap().workspace.clone();
    let seen: Vec<usize> = (1..=9)
        .map(|i| {
            let path = std::path::Path::new(&workspace).join(format!("seen-{i}"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{i}: {err}"));
            text.trim().parse().unwrap()
        })
        .collect();
    let most = seen.iter().copied().max().unwrap();
    assert!((2..=3).contains(&most), "running at once: {seen:?}");
    // The fourth starts only once one of the first three has answered.
    let events = events.events();
    let fourth = events.iter().position(|e| e == "call:terminal:c4").unwrap();
    let first_result = events
        .iter()
        .position(|e| e.starts_with("result:"))
        .unwrap();
    assert!(first_result < fourth, "{events:?}");
    // Every result goes back to the model, in the calls' order.
    let results = &api.requests()[1].body["messages"];
    let ids: Vec<&str> = (2..11)
        .map(|i| results[i]["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"]);
}

/// Runs `config` against `api` with a 10 s bound (the answers never end by themselves), and
/// says how long it took.
async fn bounded_run(
    config: cy_tools_agent::AgentConfig,
) -> (Result<AgentRun, cy_tools_agent::AgentError>, Instant) {
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(config).unwrap();
    let run = tokio::time::timeout(
        Duration::from_secs(10),
        agent.run(
            &setup.session,
            "write",
            &CancellationToken::new(),
            &Recorder::default(),
        ),
    )
    .await
    .expect("the run ends although the answer does not");
    (run, Instant::now())
}

/// The server saw the connection closed soon after the run ended. (It waits on the runtime,
/// which closes the connection.)
async fn hung_up_by(api: &FakeApi, ended: Instant) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        if let Some(end) = api.ended().first() {
            let at = end.hung_up.expect("the client closed the connection");
            assert!(
                at < ended + Duration::from_secs(2),
                "hung up {:?} after the run ended",
                at - ended
            );
            return end.sent;
        }
        assert!(Instant::now() < deadline, "the stream is still being read");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

const OPENAI_HEAD: &str = "data: {\"model\":\"gpt-fake\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
const OPENAI_TEXT: &str =
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n";
const OPENAI_ARGS: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"read_file\",\"arguments\":\"a\"}}]},\"finish_reason\":null}]}\n\n";
const ANTHROPIC_HEAD: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-fake\",\"usage\":{\"input_tokens\":0,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read_file\",\"input\":{}}}\n\n";
const ANTHROPIC_ARGS: &str = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"a\"}}\n\n";
const OPENAI_REASONING: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"a\"},\"finish_reason\":null}]}\n\n";
const ANTHROPIC_THINKING: &str = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"a\"}}\n\n";
const ANTHROPIC_TEXT: &str = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\n";

#[tokio::test]
async fn an_endless_stream_of_text_arguments_or_thinking_stops_at_the_token_budget() {
    let cases = [
        (OPENAI, OPENAI_HEAD, OPENAI_TEXT),
        (OPENAI, OPENAI_HEAD, OPENAI_ARGS),
        (OPENAI, OPENAI_HEAD, OPENAI_REASONING),
        (ANTHROPIC, ANTHROPIC_HEAD, ANTHROPIC_ARGS),
        (ANTHROPIC, ANTHROPIC_HEAD, ANTHROPIC_TEXT),
        (ANTHROPIC, ANTHROPIC_HEAD, ANTHROPIC_THINKING),
    ];
    for (provider, head, piece) in cases {
        let api = FakeApi::start(vec![Reply::endless_stream(head, piece)]);
        let mut config = config(provider, &api);
        config.stream = true;
        config.limits.max_tokens = Some(100);
        let started = Instant::now();
        let (run, ended) = bounded_run(config).await;
        let run = run.unwrap();
        // Cut off at the 101st piece of one token: the answer was allowed 100.
        assert_eq!(
            run.ending,
            Ending::Limit(LimitReached::Tokens {
                used: 101,
                budget: 100
            }),
            "{piece}"
        );
        assert_eq!(
            run.usage,
            Usage {
                input_tokens: 0,
                output_tokens: 101
            }
        );
        assert!(ended - started < Duration::from_secs(3), "{piece}");
        let sent = hung_up_by(&api, ended).await;
        // What the server got out before it saw the connection closed: the pieces read, and
        // what the kernel's buffers held (up to a few MB each way on loopback), nowhere near
        // the GBs of an unbounded read.
        assert!(sent < 64 << 20, "{sent} bytes sent: {piece}");
    }
}

#[tokio::test]
async fn a_stream_past_what_the_answer_may_write_fails_without_a_token_budget() {
    let api = FakeApi::start(vec![Reply::endless_stream(OPENAI_HEAD, OPENAI_TEXT)]);
    let mut config = config(OPENAI, &api);
    config.stream = true;
    config.max_output_tokens = 50;
    let (run, ended) = bounded_run(config).await;
    let err = run.unwrap_err();
    assert_eq!(err.kind(), AgentErrorKind::Provider);
    assert!(
        err.to_string().contains(
            "streamed past the 50 tokens the answer was allowed (at least 51 counted) and was cut off"
        ),
        "{err}"
    );
    hung_up_by(&api, ended).await;
}

#[tokio::test]
async fn an_endless_answer_stops_at_the_byte_budget_streamed_or_not() {
    // Events that write nothing (Anthropic's `ping`), and a JSON body that never closes.
    let ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n".repeat(32);
    let cases = [
        (true, Reply::endless_stream(ANTHROPIC_HEAD, &ping)),
        (
            false,
            Reply::Endless {
                content_type: "application/json",
                head: "{\"content\":[{\"type\":\"text\",\"text\":\"".to_string(),
                piece: "a".repeat(4096),
            },
        ),
    ];
    for (stream, reply) in cases {
        let api = FakeApi::start(vec![reply]);
        let mut config = config(ANTHROPIC, &api);
        config.stream = stream;
        config.limits.max_turn_bytes = 256 << 10;
        let started = Instant::now();
        let (run, ended) = bounded_run(config).await;
        let Ending::Limit(LimitReached::AnswerBytes { received, budget }) = run.unwrap().ending
        else {
            panic!("not stopped at the byte budget (streamed: {stream})");
        };
        assert_eq!(budget, 256 << 10);
        // Within one piece (as hyper reads them) of the budget.
        assert!(
            received > budget && received < budget + (512 << 10),
            "{received}"
        );
        assert!(
            ended - started < Duration::from_secs(3),
            "streamed: {stream}"
        );
        let sent = hung_up_by(&api, ended).await;
        assert!(sent < 64 << 20, "{sent} bytes sent (streamed: {stream})");
    }
}

#[test]
fn the_key_is_not_sent_over_plain_http_to_another_machine() {
    let config = |url: &str, key: Option<&str>| {
        let mut config =
            cy_tools_agent::AgentConfig::new(OPENAI, "m").with_base_url(url.to_string());
        config.api_key = key.map(str::to_string);
        config
    };
    let err = Agent::new(config("http://192.0.2.7:8000/v1", Some("secret"))).unwrap_err();
    assert_eq!(err.kind(), AgentErrorKind::Usage);
    let text = err.to_string();
    assert!(
        text.starts_with("base URL `http://192.0.2.7:8000/v1` is plain http:// to another machine, so the API key would cross the network unencrypted")
            && text.contains("`--allow-http-key`"),
        "{text}"
    );
    // Allowed when asked for, with no key to send, over TLS, or on this machine.
    let mut allowed = config("http://192.0.2.7:8000/v1", Some("secret"));
    allowed.allow_http_key = true;
    assert!(Agent::new(allowed).is_ok());
    for (url, key) in [
        ("http://192.0.2.7:8000/v1", None),
        ("https://192.0.2.7/v1", Some("secret")),
        ("http://127.0.0.1:11434/v1", Some("secret")),
        ("http://localhost:11434/v1", Some("secret")),
        ("http://[::1]:11434/v1", Some("secret")),
    ] {
        assert!(Agent::new(config(url, key)).is_ok(), "{url}");
    }
}
