//! Code-only mode over the 500-tool corpus (`test-support/corpus`), in a stored session (feature
//! `code-mode`): the corpus's definitions registered by name beside the linked tools, so a spec
//! naming them is rebuilt by any process with the same registry. The code calls every tool
//! with a typed call, gets a `ToolError` for a wrong argument, finds a tool by a word of its
//! description and describes tools; another process resuming the session from the same
//! store answers the same.

use std::path::Path;
use std::sync::Arc;

use cy_tools::definition::Definition;
use cy_tools::session::ExecutorSpec;
use cy_tools::{SessionSpec, ToolRegistry, ToolResult};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::{Value, json};

use crate::support::corpus;

const TOTAL: usize = 500;
const ID: &str = "s-corpus";

/// The code the model sends: every case of `cases.json` called as a typed function of its
/// server's module, wrong arguments, a search, descriptions and the modules.
const DISCOVER: &str = r#"
import importlib, json, cy_sdk
cases = json.load(open("cases.json"))
wrong = []
for path, tool, arguments in cases:
    module, _, name = path.rpartition(".")
    got = getattr(importlib.import_module(module), name)(**arguments)
    if got != {"tool": tool, "arguments": arguments}:
        wrong.append([path, got])
errors = []
for call in [
    lambda: cy_sdk.servers.time.get_current_time(timezone=3),
    lambda: cy_sdk.servers.filesystem_3.read_text_file(),
    lambda: cy_sdk.servers.everything.get_annotated_message(messageType="loud"),
]:
    try:
        call()
        errors.append(None)
    except cy_sdk.ToolError as err:
        errors.append([str(err), err.tool])
json.dump({
    "called": len(cases),
    "wrong": wrong[:5],
    "errors": errors,
    "search": [r["path"] for r in cy_sdk.search("current time zone", 5)],
    "word": [r["tool"] for r in cy_sdk.search("knowledge graph entities", 3)],
    "describe": [cy_sdk.describe(p) for p in ["time.get_current_time", "git_7.git_log", "memory_2__read_graph"]],
    "sources": cy_sdk.sources(),
}, open("discovered.json", "w"))
"#;

/// The linked tools and the corpus's first [`TOTAL`] tools, by their session names.
fn registry() -> Arc<ToolRegistry> {
    let mut registry = ToolRegistry::linked().unwrap();
    for definition in corpus::definitions(&corpus::tools(TOTAL)) {
        let name = definition.name().to_string();
        registry
            .register(&name, definition as &'static dyn Definition)
            .unwrap();
    }
    Arc::new(registry)
}

/// A factory over the SQLite store in `state`.
fn factory(state: &Path) -> LocalSessionFactory {
    std::fs::create_dir_all(state).unwrap();
    let store = SqliteStore::open(state.join("sessions.db")).unwrap();
    LocalSessionFactory::with_sqlite(registry(), store)
}

/// Runs [`DISCOVER`] in `session`, whose workspace is `workspace`, and reads what it wrote.
async fn discover(session: &cy_tools::Session, workspace: &Path) -> Value {
    assert_eq!(session.tools().names(), ["execute_code"]);
    let result: ToolResult = session
        .call("execute_code", json!({ "code": DISCOVER }))
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    let path = workspace.join("discovered.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{err}: {}", result.text_content()));
    std::fs::remove_file(&path).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn code_only_over_the_corpus_answers_the_same_after_a_resume_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let tools = corpus::tools(TOTAL);
    let cases: Vec<Value> = tools
        .iter()
        .map(|t| {
            let module = t.server.replace('-', "_");
            let path = format!("cy_sdk.servers.{module}.{}", t.name().replace('-', "_"));
            json!([path, t.session_name(), t.arguments()])
        })
        .collect();
    std::fs::write(
        workspace.join("cases.json"),
        serde_json::to_vec(&cases).unwrap(),
    )
    .unwrap();
    let names: Vec<String> = std::iter::once("execute_code".to_string())
        .chain(tools.iter().map(corpus::CorpusTool::session_name))
        .collect();
    let spec = SessionSpec::root(ID, "acme", workspace.to_str().unwrap())
        .with_executor(ExecutorSpec::Local {
            command: "python3 {file}".to_string(),
        })
        .with_tools(names)
        .with_code_only(true);
    let factory = factory(&dir.path().join("state"));
    let session = factory.create(spec).await.unwrap();
    let here = discover(&session, &workspace).await;
    drop(session);
    drop(factory);

    assert_eq!(here["called"], TOTAL, "{}", here["wrong"]);
    assert_eq!(here["wrong"], json!([]));
    let errors = here["errors"].as_array().unwrap();
    let expected = [
        ("time__get_current_time", "`timezone`"),
        ("filesystem-3__read_text_file", "`path`"),
        ("everything__get-annotated-message", "`messageType`"),
    ];
    for (error, (tool, field)) in errors.iter().zip(expected) {
        assert_eq!(error[1], tool, "{error}");
        assert!(error[0].as_str().unwrap().contains(field), "{error}");
    }
    assert_eq!(here["search"][0], "cy_sdk.servers.time.get_current_time");
    assert!(
        here["word"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.as_str().unwrap().starts_with("memory")),
        "{}",
        here["word"]
    );
    let described = here["describe"].as_array().unwrap();
    assert!(
        described[0].as_str().unwrap().contains(
            "def time__get_current_time(timezone: str) -> time__get_current_time_Result:"
        ),
        "{}",
        described[0]
    );
    assert!(
        described[1]
            .as_str()
            .unwrap()
            .starts_with("# cy_sdk.servers.git_7.git_log\n"),
        "{}",
        described[1]
    );
    assert_eq!(here["sources"].as_array().unwrap().len(), 1 + 50);
    assert_eq!(
        here["sources"][0],
        json!({"module": "cy_sdk.tools", "source": "the session's tools", "functions": TOTAL})
    );

    // Another process resumes it from the same store and finds the same.
    let out = crate::support::alone::alone!(corpus_resumed_elsewhere)
        .env("CY_CORPUS_STATE", dir.path())
        .run();
    let line = out
        .lines()
        .find_map(|l| l.split_once("discovered: ").map(|(_, json)| json))
        .unwrap_or_else(|| panic!("no result in:\n{out}"));
    let there: Value = serde_json::from_str(line).unwrap();
    assert_eq!(there, here);
}

/// The resumed half: run by the test above in a process of its own.
#[tokio::test]
#[ignore = "run by code_only_over_the_corpus_answers_the_same_after_a_resume_in_another_process"]
async fn corpus_resumed_elsewhere() {
    let state = std::path::PathBuf::from(std::env::var_os("CY_CORPUS_STATE").unwrap());
    let factory = factory(&state.join("state"));
    let session = factory.resume(ID).await.unwrap();
    let found = discover(&session, &state.join("w").canonicalize().unwrap()).await;
    println!("discovered: {found}");
}
