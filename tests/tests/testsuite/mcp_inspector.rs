//! The MCP Inspector's command-line mode (`mcp-inspector --cli`, `@modelcontextprotocol/inspector`
//! 2.x from npm, on Node.js), a second real client beside the Python SDK, against both
//! transports of `cy-tools-app mcp`: `tools/list` (titles, annotations, `outputSchema`), a call,
//! a call answering audio, an embedded resource and a resource link,
//! an error result, and over HTTP a client without the token.
//!
//! The Inspector is found at `CY_INSPECTOR` (`.ci/run` installs it with npm into
//! `target/inspector` and exports it), else in `target/inspector` beside the workspace. Without
//! it the tests are skipped with a note, unless `CY_INSPECTOR_REQUIRE=1` (set by `.ci/run`):
//! then a missing Inspector fails them.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::app::app;
use crate::support::http_mcp::{HttpMcp, TOKEN};

/// The `mcp-inspector` launcher, or `None` (after a note) when it is not installed and not
/// required.
fn inspector(test: &str) -> Option<PathBuf> {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/inspector/node_modules/.bin/mcp-inspector");
    let found = std::env::var_os("CY_INSPECTOR")
        .map(PathBuf::from)
        .or_else(|| installed.exists().then_some(installed));
    match found {
        Some(path) => {
            assert!(
                path.exists(),
                "CY_INSPECTOR is `{}`, which does not exist",
                path.display()
            );
            Some(path)
        }
        None if std::env::var("CY_INSPECTOR_REQUIRE").is_ok_and(|v| v == "1") => panic!(
            "the MCP Inspector is required (CY_INSPECTOR_REQUIRE=1) but not installed: run `npm install --prefix target/inspector @modelcontextprotocol/inspector@2` (as `.ci/run` does) or set CY_INSPECTOR"
        ),
        None => {
            // Past libtest's capture, so it shows.
            let _ = writeln!(
                std::io::stderr(),
                "test {test} ... skipped: install the MCP Inspector with `npm install --prefix target/inspector @modelcontextprotocol/inspector@2` (`bash .ci/run` does), or set CY_INSPECTOR"
            );
            None
        }
    }
}

/// Runs the Inspector's CLI with `target` (a command, or a URL) and `args`.
fn run(inspector: &Path, catalog: &Path, target: &[&str], args: &[&str]) -> Output {
    Command::new(inspector)
        .arg("--cli")
        .args(target)
        .args(args)
        // Its catalog of servers, which it would otherwise write in the home folder.
        .env("MCP_CATALOG_PATH", catalog)
        .output()
        .expect("the Inspector runs")
}

/// The JSON the Inspector printed, when it exited with `code`.
fn printed(output: &Output, code: i32, what: &str) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: exit status\n--- stdout\n{stdout}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{what}: not JSON ({err}): {stdout}"))
}

/// List, a call and an error result through `target`, with `auth` arguments.
fn list_and_call(inspector: &Path, target: &[&str], auth: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.json");
    let args = |more: &[&'static str]| -> Vec<&str> {
        auth.iter().copied().chain(more.iter().copied()).collect()
    };

    let listed = printed(
        &run(
            inspector,
            &catalog,
            target,
            &args(&["--method", "tools/list"]),
        ),
        0,
        "tools/list",
    );
    let tools = listed["tools"].as_array().expect("a list of tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read_file", "record_clip", "word_stats"]);
    assert_eq!(tools[0]["title"], "Read file");
    assert_eq!(
        tools[0]["annotations"],
        json!({"title": "Read file", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(tools[2]["outputSchema"]["type"], "object");

    let call = args(&[
        "--method",
        "tools/call",
        "--tool-name",
        "read_file",
        "--tool-arg",
        "path=notes.txt",
    ]);
    let result = printed(&run(inspector, &catalog, target, &call), 0, "tools/call");
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "     1\talpha\n     2\tbeta"}], "isError": false})
    );

    let stats = args(&[
        "--method",
        "tools/call",
        "--tool-name",
        "word_stats",
        "--tool-arg",
        "text=to be or not to be",
    ]);
    let result = printed(
        &run(inspector, &catalog, target, &stats),
        0,
        "structured call",
    );
    assert_eq!(
        result["structuredContent"],
        json!({"words": 6, "distinct": 4, "most_common": "be"})
    );

    // Audio, an embedded resource and a resource link, block for block.
    let clip = args(&[
        "--method",
        "tools/call",
        "--tool-name",
        "record_clip",
        "--tool-arg",
        "name=take1",
    ]);
    let result = printed(&run(inspector, &catalog, target, &clip), 0, "media call");
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": "recorded `take1`"},
            {"type": "audio", "data": "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "clip://take1/transcript", "mimeType": "text/plain", "text": "(silence)"}},
            {"type": "resource_link", "uri": "clip://take1", "name": "take1"},
        ])
    );

    // An error result: printed, and the Inspector's exit code for it.
    let missing = args(&[
        "--method",
        "tools/call",
        "--tool-name",
        "read_file",
        "--tool-arg",
        "path=missing.txt",
    ]);
    let result = printed(
        &run(inspector, &catalog, target, &missing),
        5,
        "error result",
    );
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "no file or folder `missing.txt` in the workspace; list the folder to see what is there"}], "isError": true})
    );
}

#[test]
fn inspector_cli_over_stdio() {
    let Some(inspector) = inspector("inspector_cli_over_stdio") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let program = app().get_program().to_str().unwrap().to_string();
    let root = workspace.path().to_str().unwrap();
    let target = [
        &program,
        "mcp",
        "--tools",
        "read_file,word_stats,record_clip",
        "--root",
        root,
    ];
    list_and_call(&inspector, &target, &[]);
}

#[test]
fn inspector_cli_over_http_with_the_token() {
    let Some(inspector) = inspector("inspector_cli_over_http_with_the_token") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let server = HttpMcp::start(workspace.path(), "read_file,word_stats,record_clip", &[]);
    let header = format!("Authorization: Bearer {TOKEN}");
    list_and_call(&inspector, &[&server.url], &["--header", &header]);

    // Without the token: refused (the Inspector would start an OAuth login, which needs a
    // terminal), and nothing listed.
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        &inspector,
        &dir.path().join("catalog.json"),
        &[&server.url],
        &["--method", "tools/list"],
    );
    assert!(!output.status.success(), "listed without the token");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("read_file"));
}
