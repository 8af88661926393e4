//! Tool search for direct calling: a turn that searches, then calls the tool found, in the
//! Anthropic format (the API's own deferred loading and search) and the OpenAI format (the
//! loop's portable `search_tools`).

use cy_tools::{CancellationToken, services::ExecutionLog, session::ModelProvider};
use cy_tools_agent::{Agent, Ending, ToolSearchConfig};
use serde_json::{Value, json};

use super::{Recorder, config, setup};
use crate::support::fake_model::{FakeApi, Reply};

/// File tools of the sandbox: the model is declared `read_file` and finds the others.
const TOOLS: &[&str] = &[
    "read_file",
    "write_file",
    "edit_file",
    "find_files",
    "search_text",
    "list_directory",
];

/// The session's tools, as its factory builds it from `TOOLS`.
const SESSION: [&str; 7] = [
    "execute_code",
    "read_file",
    "write_file",
    "edit_file",
    "find_files",
    "search_text",
    "list_directory",
];

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t.get("name")
                .or_else(|| t.pointer("/function/name"))
                .and_then(Value::as_str)
                .unwrap()
                .to_string()
        })
        .collect()
}

async fn anthropic_run(reply: Reply, stream: bool) -> (FakeApi, Ending) {
    let api = FakeApi::start(vec![reply, Reply::ok("anthropic/after_tools.json")]);
    let setup = setup(TOOLS).await;
    let mut config = config(ModelProvider::Anthropic, &api);
    config.stream = stream;
    config.tool_search = Some(ToolSearchConfig::keeping(["read_file"]));
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "what is in the workspace?",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    (api, run.ending)
}

/// What Anthropic's tool search asks of a request (its tool-search documentation): the
/// search tool declared as `{"type": "tool_search_tool_bm25_20251119", "name":
/// "tool_search_tool_bm25"}`, never deferred; the tools not kept with `"defer_loading": true`;
/// the beta header `advanced-tool-use-2025-11-20`.
fn check_first_anthropic_request(sent: &crate::support::fake_model::Seen) {
    assert_eq!(
        sent.header("anthropic-beta"),
        Some("advanced-tool-use-2025-11-20")
    );
    let tools = sent.body["tools"].as_array().unwrap();
    assert_eq!(
        tools[0],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    // The session's tools (the factory adds `execute_code`), in its order.
    assert_eq!(names(&sent.body["tools"])[1..], SESSION[..]);
    for tool in &tools[1..] {
        let deferred = tool.get("defer_loading") == Some(&json!(true));
        assert_eq!(deferred, tool["name"] != "read_file", "{tool}");
        // Deferred or not, the definition is whole: the API expands it when found.
        assert_eq!(tool["input_schema"]["type"], "object");
    }
}

#[tokio::test]
async fn anthropic_searches_natively_and_the_found_tool_is_called() {
    let (api, ending) = anthropic_run(Reply::ok("anthropic/search_call.json"), false).await;
    assert_eq!(
        ending,
        Ending::Answer("Done: I read what the tools returned.".to_string())
    );
    let requests = api.requests();
    check_first_anthropic_request(&requests[0]);
    // The API's search blocks go back as they came, before the call they led to; the call ran
    // in the session.
    let messages = &requests[1].body["messages"];
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "I will look for a tool that lists a folder.Found one; listing the workspace."},
            {"type": "server_tool_use", "id": "srvtoolu_search_01", "name": "tool_search_tool_bm25", "input": {"query": "list the files of a directory"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_search_01", "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "list_directory"}]}},
            {"type": "tool_use", "id": "toolu_list_01", "name": "list_directory", "input": {"path": "."}},
        ]})
    );
    let result = &messages[2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_list_01");
    assert!(result.get("is_error").is_none(), "{result}");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("notes.txt"),
        "{result}"
    );
    // The next request is deferred the same way: the API remembers what it found.
    check_first_anthropic_request(&requests[1]);
}

#[tokio::test]
async fn anthropic_search_blocks_are_kept_from_a_stream() {
    let (api, ending) = anthropic_run(Reply::stream("anthropic/stream_search.sse"), true).await;
    assert_eq!(
        ending,
        Ending::Answer("Done: I read what the tools returned.".to_string())
    );
    let requests = api.requests();
    check_first_anthropic_request(&requests[0]);
    assert_eq!(requests[0].body["stream"], true);
    let messages = &requests[1].body["messages"];
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "server_tool_use", "id": "srvtoolu_search_02", "name": "tool_search_tool_bm25", "input": {"query": "list the files of a directory"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_search_02", "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "list_directory"}]}},
            {"type": "tool_use", "id": "toolu_list_02", "name": "list_directory", "input": {"path": "."}},
        ])
    );
    assert!(
        messages[2]["content"][0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("notes.txt")
    );
}

#[tokio::test]
async fn openai_searches_through_the_loop_and_calls_the_tool_found_next_turn() {
    let api = FakeApi::start(vec![
        Reply::ok("openai/search_call.json"),
        Reply::ok("openai/list_call.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(TOOLS).await;
    let mut config = config(ModelProvider::OpenAi, &api);
    config.tool_search = Some(ToolSearchConfig::keeping(["read_file"]));
    let recorder = Recorder::default();
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "what is in the workspace?",
            &CancellationToken::new(),
            &recorder,
        )
        .await
        .unwrap();
    assert!(matches!(run.ending, Ending::Answer(_)), "{:?}", run.ending);
    let requests = api.requests();
    assert_eq!(requests.len(), 3);
    // First turn: the kept tool and the search tool only.
    assert!(requests[0].header("anthropic-beta").is_none());
    assert_eq!(
        names(&requests[0].body["tools"]),
        ["read_file", "search_tools"]
    );
    let search = &requests[0].body["tools"][1]["function"];
    assert_eq!(
        search["parameters"]["required"],
        json!(["query"]),
        "{search}"
    );
    // The loop answered the search with the tools found, best first...
    let answer = &requests[1].body["messages"][2];
    assert_eq!(answer["role"], "tool");
    assert_eq!(answer["tool_call_id"], "call_search_1");
    let text = answer["content"].as_str().unwrap();
    assert!(
        text.starts_with("Found 3 tool(s); they are declared to you from your next turn on"),
        "{text}"
    );
    assert!(text.contains("\n- list_directory: "), "{text}");
    let found: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("- ")?.split(':').next())
        .collect();
    assert_eq!(found.len(), 3, "{text}");
    // ...declared from the next turn on, in the toolset's order, with the search tool.
    let mut expected: Vec<&str> = SESSION
        .into_iter()
        .filter(|n| *n == "read_file" || found.contains(n))
        .collect();
    expected.push("search_tools");
    assert_eq!(names(&requests[1].body["tools"]), expected);
    // The found tool ran in the session.
    let listed = &requests[2].body["messages"][4];
    assert_eq!(listed["tool_call_id"], "call_list_1");
    assert!(
        listed["content"].as_str().unwrap().contains("notes.txt"),
        "{listed}"
    );
    // The search is the loop's own: it is not a session tool, and never reached the session.
    let log = setup.log.entries("s-1").await.unwrap();
    let logged: Vec<&str> = log.iter().map(|e| e.tool.as_str()).collect();
    assert_eq!(logged, ["list_directory"]);
}

#[tokio::test]
async fn a_search_without_words_or_matches_is_an_error_the_model_reads() {
    let api = FakeApi::start(vec![
        Reply::Json {
            status: 200,
            headers: Vec::new(),
            body: crate::support::fake_model::fixture("openai/search_call.json").replace(
                r#"{\"query\":\"list the files of a directory\",\"limit\":3}"#,
                r#"{\"query\":\"xyzzy\"}"#,
            ),
        },
        Reply::ok("openai/after_tools.json"),
    ]);
    let setup = setup(TOOLS).await;
    let mut config = config(ModelProvider::OpenAi, &api);
    config.tool_search = Some(ToolSearchConfig::keeping(["read_file"]));
    Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let answer = &api.requests()[1].body["messages"][2];
    assert_eq!(
        answer["content"],
        "no tool matches `xyzzy`; try other words (a verb, an object: `list files`, `time zone`)"
    );
    // Nothing found, nothing more declared.
    assert_eq!(
        names(&api.requests()[1].body["tools"]),
        ["read_file", "search_tools"]
    );
}

/// An application's tool named like the portable search tool.
#[cy_tools::tool(read_only, open_world = false)]
async fn search_tools(
    /// What to look for.
    query: String,
) -> String {
    query
}

#[tokio::test]
async fn a_session_tool_named_search_tools_is_refused_where_the_loop_searches() {
    let api = FakeApi::start(vec![Reply::ok("anthropic/plain.json")]);
    let setup = setup(&["search_tools"]).await;
    let mut openai = config(ModelProvider::OpenAi, &api);
    openai.tool_search = Some(ToolSearchConfig::keeping(["search_tools"]));
    let err = Agent::new(openai)
        .unwrap()
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the session has a tool named `search_tools`, the name tool search gives its own search tool; rename that tool, or turn tool search off"
    );
    assert!(api.requests().is_empty());
    // Anthropic's search tool has a name of its own: the session's tool is declared as any.
    let mut anthropic = config(ModelProvider::Anthropic, &api);
    anthropic.tool_search = Some(ToolSearchConfig::keeping(["search_tools"]));
    Agent::new(anthropic)
        .unwrap()
        .run(
            &setup.session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let sent = &api.requests()[0].body["tools"];
    assert!(names(sent).contains(&"search_tools".to_string()), "{sent}");
}
