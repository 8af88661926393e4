//! What the model receives, counted in tokens (OpenAI's `o200k_base`, whose vocabulary ships in
//! `tiktoken-rs`): the 500-tool corpus declared directly, under tool search, and in the
//! code-only mode, taken from the first request the loop sends a fake API; and the tokens of
//! intermediate results of a scripted three-step task, direct against code mode. The goals
//! (tool search at most 15 % of direct, code-only at most 2 %) are asserted; run with
//! `--nocapture` for the figures BENCHMARKS.md reports.

use std::sync::{Arc, LazyLock};

use cy_tools::{
    BoundTool, CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    ToolResult, Toolset, services::Sandbox, session::ModelProvider,
};
use cy_tools_agent::{Agent, ToolSearchConfig};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

use super::{Recorder, config};
use crate::support::corpus;
use crate::support::fake_model::{FakeApi, Reply};

static BPE: LazyLock<CoreBPE> = LazyLock::new(|| tiktoken_rs::o200k_base().unwrap());

fn tokens(text: &str) -> usize {
    BPE.encode_ordinary(text).len()
}

/// The tools the corpus session keeps declared under tool search: the few a user would.
const KEEP: [&str; 3] = [
    "time__get_current_time",
    "filesystem__read_text_file",
    "git__git_status",
];

struct Built {
    _dir: tempfile::TempDir,
    session: Session,
}

/// The 500 corpus tools; in code-only mode, `execute_code` over them (the code reaches them).
fn corpus_session(code_only: bool) -> Built {
    let dir = tempfile::tempdir().unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let executor = Arc::new(
        CodeModeExecutor::new(Arc::new(LocalExecutor::new(Arc::clone(&env))))
            .with_code_only(code_only),
    );
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-tokens", "t"))
            .with_env(env)
            .with_executor(executor.clone()),
    );
    let mut tools: Vec<BoundTool> = Vec::new();
    if code_only {
        tools.extend(
            ToolRegistry::linked()
                .unwrap()
                .build(&["execute_code"], Arc::clone(&context))
                .iter()
                .cloned(),
        );
    }
    tools.extend(corpus::bound(500, &context));
    let session = Session::new(context, Toolset::new(tools));
    let session = if code_only {
        executor.attach(session).unwrap()
    } else {
        session
    };
    Built { _dir: dir, session }
}

/// The tools of the first request the loop sends `provider` for `session`, as the model gets
/// them: Anthropic's deferred definitions enter its context only when a search finds them, so
/// they are left out.
async fn first_request_tools(
    provider: ModelProvider,
    session: &Session,
    search: bool,
) -> Vec<Value> {
    let fixture = match provider {
        ModelProvider::OpenAi => "openai/plain.json",
        ModelProvider::Anthropic => "anthropic/plain.json",
    };
    let api = FakeApi::start(vec![Reply::ok(fixture)]);
    let mut config = config(provider, &api);
    if search {
        config.tool_search = Some(ToolSearchConfig::keeping(KEEP));
    }
    Agent::new(config)
        .unwrap()
        .run(
            session,
            "hi",
            &CancellationToken::new(),
            &Recorder::default(),
        )
        .await
        .unwrap();
    let sent = api.requests()[0].body["tools"].as_array().unwrap().clone();
    sent.into_iter()
        .filter(|t| t.get("defer_loading") != Some(&json!(true)))
        .collect()
}

fn count(tools: &[Value]) -> usize {
    tokens(&serde_json::to_string(tools).unwrap())
}

#[tokio::test]
async fn tool_search_and_code_only_cut_what_500_definitions_cost() {
    let direct = corpus_session(false);
    let code_only = corpus_session(true);
    let mut rows = Vec::new();
    for provider in [ModelProvider::Anthropic, ModelProvider::OpenAi] {
        let all = first_request_tools(provider, &direct.session, false).await;
        assert_eq!(all.len(), 500);
        let searched = first_request_tools(provider, &direct.session, true).await;
        assert_eq!(searched.len(), KEEP.len() + 1, "{searched:?}");
        let only = first_request_tools(provider, &code_only.session, false).await;
        assert_eq!(only.len(), 1);
        assert_eq!(
            only[0]
                .get("name")
                .or_else(|| only[0].pointer("/function/name")),
            Some(&json!("execute_code"))
        );
        let (all, searched, only) = (count(&all), count(&searched), count(&only));
        let share = |n: usize| 100.0 * n as f64 / all as f64;
        rows.push(format!(
            "| {} | {all} | {searched} ({:.1} %) | {only} ({:.2} %) |",
            provider.name(),
            share(searched),
            share(only)
        ));
        assert!(share(searched) <= 15.0, "{}", rows.last().unwrap());
        assert!(share(only) <= 2.0, "{}", rows.last().unwrap());
    }
    println!(
        "| dialect | all 500 definitions | tool search (3 kept + search) | code-only (`execute_code`) |\n|---|---|---|---|\n{}",
        rows.join("\n")
    );
}

/// Tokens of a result as the model reads it.
fn result_tokens(result: &ToolResult) -> usize {
    assert!(!result.is_error, "{}", result.text_content());
    tokens(&result.text_content())
}

#[tokio::test]
async fn a_three_step_task_passes_fewer_tokens_through_the_model_in_code_mode() {
    // The task: find the orders file, keep the 5 rows over 990 of its 1,000, write them out.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data/2026");
    std::fs::create_dir_all(&data).unwrap();
    let mut csv = String::from("id,customer,amount\n");
    for i in 1..=1000 {
        csv.push_str(&format!("{i},customer-{:03},{}\n", i % 97, i));
    }
    std::fs::write(data.join("orders.csv"), &csv).unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let executor = Arc::new(CodeModeExecutor::new(Arc::new(LocalExecutor::new(
        Arc::clone(&env),
    ))));
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-task", "t"))
            .with_env(env)
            .with_executor(executor.clone()),
    );
    let tools = ToolRegistry::linked().unwrap().build(
        &["execute_code", "find_files", "read_file", "write_file"],
        Arc::clone(&context),
    );
    let session = executor.attach(Session::new(context, tools)).unwrap();
    let call = |tool: &'static str, arguments: Value| {
        let session = session.clone();
        async move {
            session
                .execute(
                    tool,
                    ToolCall::new("c", arguments),
                    &CancellationToken::new(),
                )
                .await
        }
    };
    // Direct: each result passes through the model, which writes the next call's arguments.
    let found = call("find_files", json!({"pattern": "**/orders.csv"})).await;
    let read = call(
        "read_file",
        json!({"path": "data/2026/orders.csv", "limit": 2000}),
    )
    .await;
    let kept: String = csv
        .lines()
        .filter(|l| {
            l.rsplit(',')
                .next()
                .and_then(|a| a.parse::<u32>().ok())
                .is_some_and(|a| a > 995)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let write_args =
        json!({"path": "big_orders.csv", "content": format!("id,customer,amount\n{kept}")});
    let written = call("write_file", write_args.clone()).await;
    let direct = result_tokens(&found)
        + result_tokens(&read)
        + tokens(&write_args.to_string())
        + result_tokens(&written);
    // Code mode: one program; only what it prints comes back.
    let code = r#"import csv, io, cy_sdk
t = cy_sdk.tools
path = t.find_files("**/orders.csv").split()[0]
text = t.read_file(path, limit=2000)
rows = [line.split("\t", 1)[1] for line in text.splitlines() if "\t" in line]
big = [r for r in csv.DictReader(io.StringIO("\n".join(rows))) if int(r["amount"]) > 995]
t.write_file("big_orders_code.csv", content="id,customer,amount\n" + "".join("%s,%s,%s\n" % (r["id"], r["customer"], r["amount"]) for r in big))
print(len(big), "rows written to big_orders_code.csv")
"#;
    let run = call("execute_code", json!({ "code": code })).await;
    let code_mode = tokens(&json!({ "code": code }).to_string()) + result_tokens(&run);
    assert!(
        run.text_content().contains("5 rows written"),
        "{}",
        run.text_content()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("big_orders_code.csv")).unwrap(),
        std::fs::read_to_string(dir.path().join("big_orders.csv")).unwrap()
    );
    println!(
        "| three-step task (find, filter 1,000 rows to 5, write) | direct | code mode |\n|---|---|---|\n| tokens through the model | {direct} | {code_mode} ({:.1} %) |",
        100.0 * code_mode as f64 / direct as f64
    );
    assert!(code_mode * 5 < direct, "{code_mode} against {direct}");
}
