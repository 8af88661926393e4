//! The run's limits (turns, tokens, time, cancellation), over the OpenAI format.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, session::ModelProvider};
use cy_tools_agent::{Agent, Ending, LimitReached};

use super::{Recorder, config, setup};
use crate::support::fake_model::{FakeApi, Reply};

const OPENAI: ModelProvider = ModelProvider::OpenAi;

#[tokio::test]
async fn the_turn_limit_ends_a_run_that_keeps_calling_tools() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/one_call.json"),
        Reply::ok("openai/one_call.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let mut config = config(OPENAI, &api);
    config.limits.max_turns = 2;
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "loop",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert_eq!(run.ending, Ending::Limit(LimitReached::Turns(2)));
    assert_eq!(api.requests().len(), 2);
}

#[tokio::test]
async fn the_token_budget_caps_each_answer_and_ends_the_run() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/one_call.json"),
        Reply::ok("openai/one_call.json"),
    ]);
    let setup = setup(&["read_file"]).await;
    let mut config = config(OPENAI, &api);
    config.limits.max_tokens = Some(100);
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "read",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Limit(LimitReached::Tokens {
            used: 194,
            budget: 100
        })
    );
    let requests = api.requests();
    // The first turn used 97 of the 100: the second may write 3 at most.
    assert_eq!(requests[0].body["max_tokens"], 100);
    assert_eq!(requests[1].body["max_tokens"], 3);
}

#[tokio::test]
async fn cancelling_ends_the_run_at_once() {
    let api = FakeApi::start(vec![Reply::ok("openai/parallel.json")]);
    let setup = setup(&["terminal"]).await;
    let agent = Agent::new(config(OPENAI, &api)).unwrap();
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        stopper.cancel();
    });
    let started = Instant::now();
    let run = agent
        .run(&setup.session, "run both", &cancel, &Recorder::default())
        .await
        .unwrap();
    assert_eq!(run.ending, Ending::Limit(LimitReached::Cancelled));
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_time_limit_ends_the_run() {
    let api = FakeApi::start(vec![Reply::ok("openai/parallel.json")]);
    let setup = setup(&["terminal"]).await;
    let mut config = config(OPENAI, &api);
    config.limits.timeout = Some(Duration::from_millis(300));
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "run both",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Limit(LimitReached::Time(Duration::from_millis(300)))
    );
}
