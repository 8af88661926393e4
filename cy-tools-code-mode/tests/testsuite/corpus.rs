//! Code mode over the fixed 500-tool corpus (`test-support/corpus`: the tool lists of five real
//! MCP servers, replicated under distinct server names): every tool callable with a typed call,
//! a wrong argument is the `ToolError` the model would get, search finds a tool by a word of
//! its description (and ranks as the host's search does), describe matches the schema, the
//! code-only mode declares `execute_code` alone, discovery works under `python3 -I`.

use std::collections::HashMap;
use std::sync::Arc;

use cy_tools::dialect::ToolSearch;
use cy_tools::{
    BoundTool, CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    ToolResult, Toolset, services::Sandbox,
};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
use serde_json::{Value, json};

use crate::support::corpus::{self, CorpusTool};

const TOTAL: usize = 500;

struct Corpus {
    dir: tempfile::TempDir,
    /// The session as the model sees it.
    session: Session,
    /// Every tool, as the code reaches them.
    tools: Toolset,
}

fn corpus_session(code_only: bool, command: Option<&str>) -> Corpus {
    let dir = tempfile::tempdir().unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let mut local = LocalExecutor::new(Arc::clone(&env));
    if let Some(command) = command {
        local = local.with_command(command).unwrap();
    }
    let executor = Arc::new(CodeModeExecutor::new(Arc::new(local)).with_code_only(code_only));
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-corpus", "t"))
            .with_env(env)
            .with_executor(executor.clone()),
    );
    let mut tools: Vec<BoundTool> = ToolRegistry::linked()
        .unwrap()
        .build(&["execute_code"], Arc::clone(&context))
        .iter()
        .cloned()
        .collect();
    tools.extend(corpus::bound(TOTAL, &context));
    let tools = Toolset::new(tools);
    let session = executor
        .attach(Session::new(context, tools.clone()))
        .unwrap();
    Corpus {
        dir,
        session,
        tools,
    }
}

impl Corpus {
    async fn run(&self, code: &str) -> ToolResult {
        self.session
            .execute(
                "execute_code",
                ToolCall::new("run", json!({ "code": code })),
                &CancellationToken::new(),
            )
            .await
    }

    async fn json(&self, code: &str) -> Value {
        let result = self.run(code).await;
        assert!(!result.is_error, "{}", result.text_content());
        let text = crate::support::outcome::text(&result);
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("not JSON ({err}): {text}"))
    }

    /// What the code wrote to `out.json` (a result too large for the model's output).
    async fn written(&self, code: &str) -> Value {
        let result = self.run(code).await;
        assert!(!result.is_error, "{}", result.text_content());
        let text = std::fs::read_to_string(self.dir.path().join("out.json"))
            .unwrap_or_else(|err| panic!("no out.json ({err}): {}", result.text_content()));
        serde_json::from_str(&text).unwrap()
    }

    /// What the model gets for the call `tool(arguments)` made directly.
    async fn direct(&self, tool: &str, arguments: Value) -> ToolResult {
        let session = Session::new(
            Arc::new(ToolContext::new(SessionIdentity::root("s-direct", "t"))),
            self.tools.clone(),
        );
        session
            .execute(
                tool,
                ToolCall::new("direct", arguments),
                &CancellationToken::new(),
            )
            .await
    }
}

/// A Python identifier of a name, as the generated module makes it (the corpus's names are
/// letters, digits, `_` and `-`).
fn py(name: &str) -> String {
    name.replace('-', "_")
}

fn path(tool: &CorpusTool) -> String {
    format!("cy_sdk.servers.{}.{}", py(&tool.server), py(tool.name()))
}

#[tokio::test]
async fn code_only_declares_execute_code_alone_and_says_how_to_discover() {
    let c = corpus_session(true, None);
    assert_eq!(c.session.tools().names(), ["execute_code"]);
    let description = c.session.tools().get("execute_code").unwrap().description();
    for expected in [
        "There are 500 functions; find them from the code: `cy_sdk.search(\"words\")`",
        "\nThe MCP servers' modules, `cy_sdk.servers.NAME` (tools): everything (13), filesystem (14), memory (9), git (12), time (2), everything_2 (13),",
        " time_10 (2).",
    ] {
        assert!(
            description.contains(expected),
            "`{expected}` not in:\n{description}"
        );
    }
    // A tool the model is not declared is not callable directly...
    let direct = c
        .session
        .execute(
            "time__get_current_time",
            ToolCall::new("d", json!({"timezone": "UTC"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(direct.is_error);
    // ...but is from the code.
    let out = c
        .json("import json, cy_sdk\nprint(json.dumps(cy_sdk.servers.time.get_current_time('UTC')))")
        .await;
    assert_eq!(
        out,
        json!({"tool": "time__get_current_time", "arguments": {"timezone": "UTC"}})
    );
}

#[tokio::test]
async fn every_corpus_tool_is_callable_with_a_typed_call() {
    let c = corpus_session(true, None);
    let tools = corpus::tools(TOTAL);
    let cases: Vec<Value> = tools
        .iter()
        .map(|t| json!([path(t), t.session_name(), t.arguments()]))
        .collect();
    std::fs::write(
        c.dir.path().join("cases.json"),
        serde_json::to_vec(&cases).unwrap(),
    )
    .unwrap();
    let code = r#"
import importlib, json, cy_sdk
cases = json.load(open("cases.json"))
wrong = []
for path, tool, arguments in cases:
    module, _, name = path.rpartition(".")
    function = getattr(importlib.import_module(module), name)
    got = function(**arguments)
    if got != {"tool": tool, "arguments": arguments}:
        wrong.append([path, got])
    # The same function in the flat module, by the tool's own name.
    assert getattr(cy_sdk.tools, tool.replace("-", "_")) is function, path
print(json.dumps({"called": len(cases), "wrong": wrong[:5]}))
"#;
    let out = c.json(code).await;
    assert_eq!(out, json!({"called": TOTAL, "wrong": []}));
}

#[tokio::test]
async fn a_wrong_argument_raises_the_tool_error_the_model_would_get() {
    let c = corpus_session(false, None);
    let code = r#"
import json, cy_sdk
from cy_sdk.servers import time, filesystem_3
out = {}
for key, call in [
    ("type", lambda: time.get_current_time(timezone=3)),
    ("unknown", lambda: time.get_current_time("UTC", colour="red")),
    ("missing", lambda: filesystem_3.read_text_file()),
    ("enum", lambda: cy_sdk.servers.everything.get_annotated_message(messageType="loud")),
    ("positional", lambda: time.get_current_time("UTC", "extra")),
]:
    try:
        call()
        out[key] = None
    except cy_sdk.ToolError as err:
        out[key] = [str(err), err.tool]
print(json.dumps(out))
"#;
    let out = c.json(code).await;
    for (key, tool, arguments) in [
        ("type", "time__get_current_time", json!({"timezone": 3})),
        (
            "unknown",
            "time__get_current_time",
            json!({"timezone": "UTC", "colour": "red"}),
        ),
        ("missing", "filesystem-3__read_text_file", json!({})),
        (
            "enum",
            "everything__get-annotated-message",
            json!({"messageType": "loud"}),
        ),
    ] {
        let direct = c.direct(tool, arguments).await;
        assert!(direct.is_error, "{key}: {}", direct.text_content());
        assert_eq!(out[key], json!([direct.text_content(), tool]), "{key}");
    }
    assert_eq!(
        out["positional"][0],
        "`time__get_current_time` takes 1 argument(s) by position (timezone), got 2; give the others by name"
    );
}

/// The word of each captured tool's description that the fewest other tools' descriptions
/// have.
fn rare_words() -> Vec<(String, String)> {
    let tools = corpus::tools(50);
    let words = |t: &CorpusTool| -> Vec<String> {
        let mut w: Vec<String> = t.tool["description"]
            .as_str()
            .unwrap_or_default()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 4 && w.chars().all(|c| c.is_ascii_alphabetic()))
            .map(str::to_ascii_lowercase)
            .collect();
        w.sort();
        w.dedup();
        w
    };
    let mut count: HashMap<String, usize> = HashMap::new();
    for t in &tools {
        for w in words(t) {
            *count.entry(w).or_default() += 1;
        }
    }
    tools
        .iter()
        .filter_map(|t| {
            let word = words(t).into_iter().min_by_key(|w| (count[w], w.clone()))?;
            Some((word, t.session_name()))
        })
        .collect()
}

#[tokio::test]
async fn search_finds_tools_by_words_of_their_descriptions_as_the_host_does() {
    let c = corpus_session(true, None);
    let cases = rare_words();
    assert!(cases.len() >= 48, "{}", cases.len());
    let queries = [
        "current time zone",
        "list directory",
        "git commit",
        "knowledge graph entities",
        "tiny image",
        "repo_path",
        "the list of a directory",
    ];
    let code = format!(
        r#"
import json, cy_sdk
cases = {cases}
missing = [[w, t] for w, t in cases if t not in [r["tool"] for r in cy_sdk.search(w, limit=500)]]
ranked = {{q: [r["tool"] for r in cy_sdk.search(q, limit=8)] for q in {queries}}}
first = cy_sdk.search("current time", limit=1)[0]
try:
    cy_sdk.search("  ")
    empty = None
except cy_sdk.ToolError as err:
    empty = str(err)
print(json.dumps({{"missing": missing, "ranked": ranked, "first": first, "empty": empty, "none": cy_sdk.search("xyzzy")}}))
"#,
        cases = serde_json::to_string(&cases).unwrap(),
        queries = serde_json::to_string(&queries).unwrap(),
    );
    let out = c.json(&code).await;
    assert_eq!(out["missing"], json!([]));
    assert_eq!(
        out["first"],
        json!({
            "path": "cy_sdk.servers.time.get_current_time",
            "tool": "time__get_current_time",
            "shape": "time__get_current_time(timezone)",
            "summary": "Get current time in a specific timezone",
        })
    );
    assert_eq!(
        out["empty"],
        "search needs at least one word (letters or digits, not only words like `the`) to look for"
    );
    assert_eq!(out["none"], json!([]));
    // The host's search (tool search for direct calling) ranks alike.
    let index = ToolSearch::new(&c.tools);
    for query in queries {
        let host: Vec<&str> = index.find(query, 8);
        assert!(!host.is_empty(), "{query}");
        assert_eq!(out["ranked"][query], json!(host), "{query}");
    }
}

/// A signature's parameters, split at the commas outside brackets and strings.
fn split_params(params: &str) -> Vec<&str> {
    let (mut out, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, c) in params.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '(' if !quoted => depth += 1,
            ']' | ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(params[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(params[start..].trim());
    out
}

#[tokio::test]
async fn describe_matches_the_schema() {
    let c = corpus_session(true, None);
    let tools = corpus::tools(TOTAL);
    let paths: Vec<String> = tools.iter().map(path).collect();
    let code = format!(
        r#"
import json, cy_sdk
paths = {paths}
out = [cy_sdk.describe(p) for p in paths]
same = cy_sdk.describe("time.get_current_time") == cy_sdk.describe("time__get_current_time") == cy_sdk.describe(paths[{time}])
try:
    cy_sdk.describe("time.get_curent_time")
    unknown = None
except cy_sdk.ToolError as err:
    unknown = str(err)
json.dump({{"described": out, "same": same, "unknown": unknown, "sources": cy_sdk.sources()[:3]}}, open("out.json", "w"))
"#,
        paths = serde_json::to_string(&paths).unwrap(),
        time = tools
            .iter()
            .position(|t| t.session_name() == "time__get_current_time")
            .unwrap(),
    );
    let out = c.written(&code).await;
    assert_eq!(out["same"], true);
    assert!(
        out["unknown"].as_str().unwrap().starts_with(
            "no tool is named `time.get_curent_time`; similar: cy_sdk.servers.time.get_current_time"
        ),
        "{}",
        out["unknown"]
    );
    assert_eq!(
        out["sources"],
        json!([
            {"module": "cy_sdk.tools", "source": "the session's tools", "functions": 500},
            {"module": "cy_sdk.servers.everything", "source": "MCP server `everything`", "functions": 13},
            {"module": "cy_sdk.servers.filesystem", "source": "MCP server `filesystem`", "functions": 14},
        ])
    );
    for (tool, described) in tools.iter().zip(out["described"].as_array().unwrap()) {
        let text = described.as_str().unwrap();
        let name = tool.session_name();
        assert!(text.starts_with(&format!("# {}\n", path(tool))), "{text}");
        let def = text
            .lines()
            .find(|l| l.starts_with("def "))
            .unwrap_or_else(|| panic!("no def in {text}"));
        assert!(def.starts_with(&format!("def {}(", py(&name))), "{def}");
        let schema = &tool.tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let params = &def[def.find('(').unwrap() + 1..def.rfind(") ->").unwrap()];
        for (property, _) in schema["properties"].as_object().into_iter().flatten() {
            let param = split_params(params)
                .into_iter()
                .find(|p| p.starts_with(&format!("{}: ", py(property))))
                .unwrap_or_else(|| panic!("`{property}` not in {def}"));
            assert_eq!(
                param.contains(" = "),
                !required.contains(&property.as_str()),
                "{name}: {param}"
            );
        }
        // The description is the docstring's start.
        let description = tool.tool["description"].as_str().unwrap_or_default();
        let first = description.lines().next().unwrap_or_default().trim();
        let start: String = first.chars().take(40).collect();
        assert!(
            text.contains(&start.replace('\\', "\\\\")),
            "{name}: `{start}` not in {text}"
        );
        // A tool with an object output schema returns its `TypedDict`.
        if let Some(properties) = tool.tool["outputSchema"]["properties"].as_object() {
            let result = format!("{}_Result", py(&name));
            assert!(def.ends_with(&format!("-> {result}:")), "{def}");
            let typed = text
                .lines()
                .find(|l| l.starts_with(&format!("{result} = _t.TypedDict(")))
                .unwrap_or_else(|| panic!("no TypedDict in {text}"));
            for key in properties.keys() {
                assert!(typed.contains(&format!("\"{key}\": ")), "{typed}");
            }
        } else {
            assert!(def.ends_with("-> _t.Any:"), "{def}");
        }
    }
}

#[tokio::test]
async fn discovery_works_in_isolated_python() {
    let c = corpus_session(true, Some("python3 -I {file}"));
    let out = c
        .json(
            "import json, sys, cy_sdk\nfrom cy_sdk.servers.git_10 import git_status\nprint(json.dumps([sys.flags.isolated, cy_sdk.search('git status', 1)[0]['tool'], 'def git_10__git_status(repo_path: str)' in cy_sdk.describe('git-10__git_status'), git_status('.')]))",
        )
        .await;
    assert_eq!(
        out,
        json!([1, "git__git_status", true, {"tool": "git-10__git_status", "arguments": {"repo_path": "."}}])
    );
}
