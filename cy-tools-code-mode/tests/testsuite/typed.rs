//! `cy_sdk.tools`: the module generated from a session's tools. What it looks like (a reviewed
//! snapshot), what `help` shows, calls through it, `python3 -I`, and tracebacks that keep the
//! code's own line numbers.

use std::sync::Arc;

use cy_tools::{
    CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry, ToolResult,
    services::Sandbox,
};
use cy_tools_code_mode::{CodeModeExecutor, ToolsModule};
use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
use serde_json::{Value, json};

/// The test toolset: text and structured results, required and optional arguments, defaults,
/// an enum.
const TOOLS: &[&str] = &[
    "execute_code",
    "read_file",
    "write_file",
    "list_directory",
    "process",
    "tally",
];

struct Typed {
    dir: tempfile::TempDir,
    session: Session,
}

/// A code-mode session over a fresh folder, its code run with `command` (the default runner
/// when `None`).
fn typed(command: Option<&str>) -> Typed {
    let dir = tempfile::tempdir().unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let mut local = LocalExecutor::new(Arc::clone(&env));
    if let Some(command) = command {
        local = local.with_command(command).unwrap();
    }
    let executor = Arc::new(CodeModeExecutor::new(Arc::new(local)));
    let context = ToolContext::new(SessionIdentity::root("s-typed", "t"))
        .with_env(env)
        .with_executor(executor.clone());
    let tools = ToolRegistry::linked().unwrap().build(TOOLS, &context);
    assert_eq!(tools.names(), TOOLS);
    let session = executor
        .attach(Session::new(Arc::new(context), tools))
        .unwrap();
    Typed { dir, session }
}

impl Typed {
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
        serde_json::from_str(&crate::support::outcome::text(&result))
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", result.text_content()))
    }
}

#[tokio::test]
async fn the_generated_module_of_the_test_toolset() {
    let t = typed(None);
    let module = ToolsModule::of(t.session.tools(), false);
    assert_eq!(
        module.functions(),
        [
            "read_file",
            "write_file",
            "list_directory",
            "process",
            "tally"
        ]
    );
    insta::assert_snapshot!("tools_module", module.source().as_ref());
    // The functions' sources, as `cy_sdk.describe` and the first use see them.
    let sources: Vec<&str> = module
        .functions()
        .iter()
        .map(|f| module.function_source(f).unwrap())
        .collect();
    insta::assert_snapshot!("tools_module_functions", sources.join("\n\n"));
    // Made once per toolset: another session with the same tools gets the same module.
    let again = typed(None);
    assert!(Arc::ptr_eq(
        &module,
        &ToolsModule::of(again.session.tools(), false)
    ));
}

#[tokio::test]
async fn help_shows_the_signature_and_the_descriptions() {
    let t = typed(None);
    let result = t.run("import cy_sdk\nhelp(cy_sdk.tools.read_file)").await;
    let text = result.text_content();
    assert!(!result.is_error, "{text}");
    for expected in [
        "read_file(path: str, *, limit: Optional[int] = None, offset: int = 1) -> Any",
        "Read a UTF-8 text file from the workspace, with line numbers",
        "path: Path of the file, relative to the workspace root",
        "offset: 1-based number of the first line to return.",
        "ToolError: the call failed or was refused",
    ] {
        assert!(text.contains(expected), "`{expected}` not in:\n{text}");
    }
}

#[tokio::test]
async fn typed_calls_reach_the_tools_and_a_bad_argument_is_a_tool_error() {
    let t = typed(None);
    std::fs::write(t.dir.path().join("in.txt"), "one\ntwo\n").unwrap();
    let code = r#"
import json, cy_sdk
from cy_sdk import tools
tools.write_file("out/copy.txt", content=tools.read_file("in.txt", limit=1))
try:
    tools.read_file(path=3)
except cy_sdk.ToolError as err:
    bad = str(err)
try:
    tools.read_file("in.txt", colour="red")
except cy_sdk.ToolError as err:
    unknown = str(err)
print(json.dumps({
    "listing": tools.list_directory(path="out"),
    "tally": tools.tally("a b a"),
    "bad": bad,
    "unknown": unknown,
    "names": cy_sdk.tools(),
    "has": [hasattr(tools, n) for n in ("execute_code", "search_text", "tally")],
}))
"#;
    let out = t.json(code).await;
    assert!(
        std::fs::read_to_string(t.dir.path().join("out/copy.txt"))
            .unwrap()
            .starts_with("     1\tone\n[lines 1-1 shown; the file continues")
    );
    assert!(
        out["listing"].as_str().unwrap().contains("copy.txt"),
        "{out}"
    );
    assert_eq!(out["tally"], json!({"words": 3, "distinct": 2}));
    // The same message the model gets for the same call.
    let direct = t
        .session
        .execute(
            "read_file",
            ToolCall::new("direct", json!({"path": 3})),
            &CancellationToken::new(),
        )
        .await;
    assert!(direct.is_error);
    assert_eq!(out["bad"], direct.text_content());
    // An argument the signature does not have: the host's message too.
    let direct = t
        .session
        .execute(
            "read_file",
            ToolCall::new("direct", json!({"path": "in.txt", "colour": "red"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(direct.is_error);
    assert_eq!(out["unknown"], direct.text_content());
    assert_eq!(
        out["names"],
        json!([
            "read_file",
            "write_file",
            "list_directory",
            "process",
            "tally"
        ])
    );
    // A tool the session lacks, and `execute_code` itself, are not in the module.
    assert_eq!(out["has"], json!([false, false, true]));
}

#[tokio::test]
async fn execute_code_tells_the_model_about_the_functions() {
    let t = typed(None);
    let description = t
        .session
        .tools()
        .get("execute_code")
        .unwrap()
        .description()
        .to_string();
    assert!(description.starts_with("Run Python code in the workspace"));
    for line in [
        "\n- read_file(path, *, limit=None, offset=1): Read a UTF-8 text file from the workspace, with line numbers (`cat -n` style).",
        "\n- write_file(path, content): Write a text file in the workspace, replacing it if it exists and creating missing parent folders.",
        "\n- tally(text): Count the words of a text, and the distinct ones, as structured JSON.",
    ] {
        assert!(
            description.contains(line),
            "`{line}` not in:\n{description}"
        );
    }
    assert!(!description.contains("- execute_code("), "{description}");
    // The other tools keep their definitions' descriptions.
    let read_file = t.session.tools().get("read_file").unwrap();
    assert_eq!(
        read_file.description(),
        read_file.definition().description()
    );
}

#[tokio::test]
async fn isolated_python_imports_the_module() {
    let t = typed(Some("python3 -I {file}"));
    let out = t
        .json("import json, sys, cy_sdk\nprint(json.dumps([sys.flags.isolated, cy_sdk.tools.tally('x y')]))")
        .await;
    assert_eq!(out, json!([1, {"words": 2, "distinct": 2}]));
}

/// The failure's traceback names the code's file and line as `python3 file` would, and nothing
/// of the bootstrap that ran it.
async fn check_tracebacks(t: &Typed) {
    let code = "from __future__ import annotations\nimport cy_sdk, os\n\nprint(__name__, os.path.dirname(os.path.abspath(__file__)) != os.getcwd())\nraise ValueError('boom')\n";
    let result = t.run(code).await;
    // The code ran and raised: a normal result with its exit code and traceback.
    assert!(!result.is_error);
    let text = result.text_content();
    assert!(text.contains("stdout:\n__main__ True"), "{text}");
    assert!(
        text.contains(", line 5, in <module>\n    raise ValueError('boom')\nValueError: boom"),
        "{text}"
    );
    assert_eq!(text.matches("File \"").count(), 1, "{text}");
    assert!(!text.contains("_cy_run"), "{text}");

    let result = t.run("import cy_sdk\nprint((1\n").await;
    let text = result.text_content();
    assert!(text.contains(", line 2\n"), "{text}");
    assert!(text.contains("SyntaxError: '(' was never closed"), "{text}");
    assert!(
        !text.contains("_cy_run") && !text.contains("Traceback"),
        "{text}"
    );
}

#[tokio::test]
async fn tracebacks_keep_the_code_s_line_numbers() {
    check_tracebacks(&typed(None)).await;
    check_tracebacks(&typed(Some("python3 -I {file}"))).await;
}
