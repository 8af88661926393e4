//! A tool's questions in a session the model loop runs: `CallInfo::sample` asks the loop's own
//! model (one request, without tools), and the tool's answer goes back into the run;
//! `CallInfo::elicit` is told nobody can be asked.

use cy_tools::call::{ElicitForm, SampleMessage, SampleRequest};
use cy_tools::prelude::*;
use cy_tools::session::ModelProvider;
use cy_tools_agent::{Agent, Ending};
use serde_json::json;

use super::{Recorder, config, setup};
use crate::support::fake_model::{FakeApi, Reply};

/// Ask the model a question and answer what it said.
#[tool(read_only, open_world = false)]
async fn ask_the_model(
    call: CallInfo<'_>,
    /** The question. */
    question: String,
) -> Result<String, ToolError> {
    let asked = SampleRequest::new(vec![SampleMessage::user(question)], 20)
        .with_system_prompt("Answer in one word.");
    let answer = call.sample(asked).await?;
    Ok(format!("{} said: {}", answer.model, answer.text()))
}

/// Ask the user to confirm.
#[tool(read_only, open_world = false)]
async fn ask_the_user(call: CallInfo<'_>) -> Result<String, ToolError> {
    call.elicit("Go on?", &ElicitForm::new()).await?;
    Ok("asked".to_string())
}

#[tokio::test]
async fn a_tool_samples_the_loops_own_model() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/sample_call.json"),
        Reply::ok("openai/sampled.json"),
        Reply::ok("openai/after_sample.json"),
    ]);
    let setup = setup(&["ask_the_model"]).await;
    let agent = Agent::new(config(ModelProvider::OpenAi, &api)).unwrap();
    let run = agent
        .run(
            &setup.session,
            "what colour is the sky?",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        run.ending,
        Ending::Answer("The model says the sky is blue.".to_string())
    );
    let requests = api.requests();
    assert_eq!(requests.len(), 3);
    // The tool's question: its own conversation and system prompt, no tools, its token budget.
    let asked = &requests[1].body;
    assert_eq!(
        asked["messages"],
        json!([
            {"role": "system", "content": "Answer in one word."},
            {"role": "user", "content": "The colour of the sky?"},
        ])
    );
    assert!(
        asked
            .get("tools")
            .is_none_or(|tools| tools.as_array().is_some_and(Vec::is_empty)),
        "{asked}"
    );
    assert_eq!(asked["model"], "gpt-fake");
    // The tool's answer reached the run's next turn.
    let next = requests[2].body["messages"].to_string();
    assert!(next.contains("gpt-fake-2026-01-01 said: blue"), "{next}");
}

#[tokio::test]
async fn a_tool_that_elicits_is_told_nobody_can_be_asked() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/elicit_call.json"),
        Reply::ok("openai/after_sample.json"),
    ]);
    let setup = setup(&["ask_the_user"]).await;
    let agent = Agent::new(config(ModelProvider::OpenAi, &api)).unwrap();
    agent
        .run(
            &setup.session,
            "go",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let answer = api.requests()[1].body["messages"].to_string();
    assert!(
        answer.contains("nobody can be asked: this session is run by the model loop, which has no user to answer a form"),
        "{answer}"
    );
}
