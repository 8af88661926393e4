//! The code-mode behaviour tests, run on both backends (`code_mode.rs`, `code_mode_remote.rs`).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Harness, python_json};

pub async fn python_combines_read_file_write_file_and_an_application_tool(h: Harness) {
    std::fs::write(h.root().join("poem.txt"), "to be or not to be").unwrap();
    let code = r#"
import json, cy_sdk
text = cy_sdk.call("read_file", path="poem.txt")
stats = cy_sdk.call("tally", text=text)
written = cy_sdk.call("write_file", path="out/summary.txt", content="%d words, %d distinct" % (stats["words"], stats["distinct"]))
print(json.dumps({"text": text, "stats": stats, "written": written}))
"#;
    let result = h.run("call-1", code).await;
    assert!(!result.is_error, "{}", result.text_content());
    let out: Value = serde_json::from_str(&result.text_content()).unwrap();

    // What Python got is what the model would have got from the same calls.
    let direct = h.direct("read_file", json!({"path": "poem.txt"})).await;
    assert_eq!(out["text"], json!(direct.text_content()));
    assert!(direct.text_content().contains("to be or not to be"));
    let tally = h
        .direct("tally", json!({"text": direct.text_content()}))
        .await;
    assert_eq!(
        tally.content,
        [cy_tools::Content::json(out["stats"].clone())]
    );
    let (words, distinct) = (&out["stats"]["words"], &out["stats"]["distinct"]);
    assert!(words.as_u64().unwrap() >= 6 && distinct.as_u64().unwrap() >= 4);
    assert_eq!(
        std::fs::read_to_string(h.root().join("out/summary.txt")).unwrap(),
        format!("{words} words, {distinct} distinct")
    );
    assert!(out["written"].as_str().unwrap().contains("summary.txt"));

    // The log: the execute_code call, and under it the three nested calls in order.
    let entries = h.log.all();
    let tools: Vec<(&str, Option<&str>)> = entries
        .iter()
        .map(|e| (e.tool.as_str(), e.parent_call.as_deref()))
        .collect();
    assert_eq!(
        tools,
        [
            ("read_file", Some("call-1")),
            ("tally", Some("call-1")),
            ("write_file", Some("call-1")),
            ("execute_code", None),
        ]
    );
    let nested: Vec<&str> = entries
        .iter()
        .filter(|e| e.parent_call.is_some())
        .map(|e| e.call_id.as_str())
        .collect();
    assert_eq!(nested, ["call-1/sdk-1", "call-1/sdk-2", "call-1/sdk-3"]);
    assert!(entries.iter().all(|e| e.session_id == "s-code"));
    assert_eq!(entries[0].arguments, json!({"path": "poem.txt"}));
}

pub async fn tools_lists_the_toolset_without_execute_code(h: Harness) {
    let out = python_json(&h, "print(json.dumps(cy_sdk.tools()))").await;
    let expected: Vec<&str> = h
        .tools()
        .names()
        .into_iter()
        .filter(|n| *n != "execute_code")
        .collect();
    assert!(expected.contains(&"tally") && expected.contains(&"read_file"));
    assert_eq!(out, json!(expected));
}

pub async fn refusals_reach_python_as_tool_errors_with_the_model_facing_message(h: Harness) {
    let code = r#"
def attempt(tool, **args):
    try:
        return {"ok": cy_sdk.call(tool, **args)}
    except cy_sdk.ToolError as err:
        return {"error": str(err), "tool": err.tool}
print(json.dumps({
    "outside": attempt("terminal", command="true"),
    "nested": attempt("execute_code", code="print(1)"),
    "denied": attempt("write_file", path="x.txt", content="no"),
    "invalid": attempt("read_file", path=3),
    "unknown_field": attempt("read_file", path="a", colour="red"),
}))
"#;
    let out = python_json(&h, code).await;
    let names: Vec<String> = h
        .tools()
        .names()
        .into_iter()
        .filter(|n| *n != "execute_code")
        .map(|n| format!("`{n}`"))
        .collect();
    assert_eq!(
        out["outside"]["error"],
        json!(format!(
            "tool `terminal` is not in this session's toolset; the tools this code may call are {}",
            names.join(", ")
        ))
    );
    assert_eq!(out["outside"]["tool"], "terminal");
    assert_eq!(
        out["nested"]["error"],
        "`execute_code` cannot be called from code that `execute_code` runs: this session does not allow nesting; do the work in this program instead"
    );
    assert_eq!(
        out["denied"]["error"],
        "the call to `write_file` was denied: writes need a person's approval in this session"
    );
    assert!(!h.root().join("x.txt").exists());
    for (key, args) in [
        ("invalid", json!({"path": 3})),
        ("unknown_field", json!({"path": "a", "colour": "red"})),
    ] {
        let direct = h.direct("read_file", args).await;
        assert!(direct.is_error);
        assert_eq!(out[key]["error"], json!(direct.text_content()), "{key}");
    }
    // A refused call is not run, so not recorded; the invalid ones ran (and failed) and are.
    let nested: Vec<String> = h
        .log
        .all()
        .into_iter()
        .filter(|e| e.parent_call.is_some())
        .map(|e| e.tool)
        .collect();
    assert_eq!(nested, ["read_file", "read_file"]);
}

pub async fn a_forged_token_is_refused(h: Harness) {
    let code = r#"
real = os.environ["CY_SDK_TOKEN"]
os.environ["CY_SDK_TOKEN"] = "0" * len(real)
try:
    cy_sdk.call("tally", text="a")
    forged = None
except cy_sdk.ToolError as err:
    forged = str(err)
os.environ["CY_SDK_TOKEN"] = real
print(json.dumps({"forged": forged, "real": cy_sdk.call("tally", text="a b")}))
"#;
    let out = python_json(&h, code).await;
    assert_eq!(
        out["forged"],
        "the SDK token is not valid for this execution: use the `CY_SDK_TOKEN` the run was started with (a token serves one execution only)"
    );
    assert_eq!(out["real"], json!({"words": 2, "distinct": 2}));
}

pub async fn a_call_after_its_execution_ended_is_refused(h: Harness) {
    let first = python_json(
        &h,
        r#"
import stat
folder = os.path.dirname(os.environ["CY_SDK_SOCKET"])
print(json.dumps({"socket": os.environ["CY_SDK_SOCKET"], "token": os.environ["CY_SDK_TOKEN"],
                  "mode": stat.S_IMODE(os.stat(folder).st_mode)}))
"#,
    )
    .await;
    let old_socket = first["socket"].as_str().unwrap();
    assert_eq!(first["mode"], 0o700);
    assert!(!std::path::Path::new(old_socket).exists());

    let code = format!(
        r#"
def attempt():
    try:
        return cy_sdk.call("tally", text="a")
    except cy_sdk.ToolError as err:
        return str(err)
mine = dict(os.environ)
os.environ["CY_SDK_TOKEN"] = {token}
stale_token = attempt()
os.environ["CY_SDK_SOCKET"] = {socket}
stale_socket = attempt()
print(json.dumps({{"stale_token": stale_token, "stale_socket": stale_socket}}))
"#,
        token = first["token"],
        socket = first["socket"],
    );
    let out = python_json(&h, &code).await;
    assert_eq!(
        out["stale_token"],
        "the SDK token is not valid for this execution: use the `CY_SDK_TOKEN` the run was started with (a token serves one execution only)"
    );
    let stale = out["stale_socket"].as_str().unwrap();
    assert!(
        stale.starts_with(&format!("the SDK channel `{old_socket}` is closed")),
        "{stale}"
    );
}

pub async fn nesting_when_allowed_runs_a_second_channel(h: Harness) {
    let code = r#"
inner = cy_sdk.call("execute_code", code="import cy_sdk\nprint(cy_sdk.call('tally', text='x y z')['words'])")
print(json.dumps({"inner": inner, "listed": "execute_code" in cy_sdk.tools()}))
"#;
    let out = python_json(&h, code).await;
    assert_eq!(out, json!({"inner": "3", "listed": true}));
    let parents: Vec<(String, Option<String>)> = h
        .log
        .all()
        .into_iter()
        .map(|e| (e.call_id, e.parent_call))
        .collect();
    assert_eq!(
        parents,
        [
            ("py/sdk-1/sdk-1".into(), Some("py/sdk-1".into())),
            ("py/sdk-1".into(), Some("py".into())),
            ("py".into(), None),
        ]
    );
}

pub async fn concurrent_executions_have_separate_channels(h: Arc<Harness>) {
    let code =
        "print(json.dumps([cy_sdk.call('tally', text='w ' * n)['words'] for n in range(1, 30)]))";
    let runs = (0..3).map(|i| {
        let h = Arc::clone(&h);
        let code = format!("import json, os, cy_sdk\n{code}");
        tokio::spawn(async move { h.run(&format!("c{i}"), &code).await })
    });
    for run in runs {
        let result = run.await.unwrap();
        let out: Value = serde_json::from_str(&result.text_content()).unwrap();
        assert_eq!(out, json!((1..30).collect::<Vec<_>>()));
    }
}

pub async fn cancelling_the_run_stops_it_and_its_nested_call(h: Harness) {
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    let before = super::HOLDS_FINISHED.load(Ordering::SeqCst);
    let cancel = cy_tools::CancellationToken::new();
    let code = "import os, cy_sdk\nopen('pid', 'w').write(str(os.getpid()))\ncy_sdk.call('hold', ms=1500)\nprint('not reached')";
    let pid_file = h.root().join("pid");
    let canceller = {
        let cancel = cancel.clone();
        let pid_file = pid_file.clone();
        async move {
            while !pid_file.exists() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            cancel.cancel();
        }
    };
    let started = Instant::now();
    let (result, ()) = tokio::join!(h.run_until("c", code, &cancel), canceller);
    assert!(result.is_error);
    assert!(
        result.text_content().contains("cancelled"),
        "{}",
        result.text_content()
    );
    assert!(started.elapsed() < Duration::from_millis(1400));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
    let deadline = Instant::now() + Duration::from_secs(3);
    while proc.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !proc.exists(),
        "the Python process {pid} outlived its cancelled run"
    );
    // The nested call was stopped too: it never reaches its end.
    tokio::time::sleep(Duration::from_millis(1800)).await;
    assert_eq!(super::HOLDS_FINISHED.load(Ordering::SeqCst), before);
}
