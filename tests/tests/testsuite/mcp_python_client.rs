//! `cy-tools mcp` driven by the official Python MCP client (`mcp` on PyPI, 2.x), through
//! `tests/py/mcp_client_check.py`: list tools, call `read_file` and `execute_code`, an invalid
//! call, a failing call and an unknown tool, with exact results, under both the SDK's default
//! negotiation and the `initialize` handshake.
//!
//! The application tool: this test binary (`harness = false`) is also an application's own
//! `cy-tools`. Started with `CY_TOOLS_APP_SERVE=1`, its `main` runs the same command line
//! (`cy_tools_builtin::cli::run`) with the built-ins plus the tools defined below linked in, the
//! way an application crate would ship one. The Python client then calls `word_stats`, whose
//! structured result must arrive as `structuredContent` with a text copy.
//!
//! The Python interpreter comes from `CY_MCP_PYTHON` (`.ci/run` makes a venv with `mcp`
//! installed). Without it the Python checks are skipped with a message, except under `CI=true`,
//! where that is a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

use cy_tools::prelude::*;
use cy_tools::{Dialect, ToolRegistry};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const APP_SERVE: &str = "CY_TOOLS_APP_SERVE";

/// How often each word occurs in a text.
#[derive(Serialize)]
struct WordStats {
    words: usize,
    distinct: usize,
    most_common: Option<String>,
}

/// Count the words of a text: how many, how many distinct, and the most common one (the first
/// in alphabetical order on a tie), as structured JSON.
#[tool(read_only, idempotent, open_world = false)]
async fn word_stats(
    /// The text, words separated by whitespace.
    text: String,
) -> Json<WordStats> {
    let mut counts = BTreeMap::<&str, usize>::new();
    for word in text.split_whitespace() {
        *counts.entry(word).or_default() += 1;
    }
    let most_common = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(word, _)| (*word).to_string());
    Json(WordStats {
        words: counts.values().sum(),
        distinct: counts.len(),
        most_common,
    })
}

/// A section of an outline, with sections of its own.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Section {
    /// The section's title.
    title: String,
    /// Its subsections.
    #[serde(default)]
    children: Vec<Section>,
}

/// Count the sections of an outline. Its parameter type is recursive, which Gemini's schema
/// subset cannot express.
#[tool(read_only, idempotent, open_world = false)]
async fn outline(
    /// The outline's root section.
    root: Section,
) -> String {
    fn count(section: &Section) -> usize {
        1 + section.children.iter().map(count).sum::<usize>()
    }
    format!("{} sections under `{}`", count(&root), root.title)
}

fn main() -> ExitCode {
    if std::env::var_os(APP_SERVE).is_some() {
        return cy_tools_builtin::cli::run(std::env::args_os());
    }
    app_cli_reports_a_dialect_error_in_one_line();
    println!("test app_cli_reports_a_dialect_error_in_one_line ... ok");
    match python() {
        Some(python) => {
            official_client_drives_the_builtin_server(&python);
            println!("test official_client_drives_the_builtin_server ... ok");
            official_client_drives_an_application_server(&python);
            println!("test official_client_drives_an_application_server ... ok");
        }
        None => println!(
            "test official_client_drives_the_builtin_server ... skipped: set CY_MCP_PYTHON to a \
             Python with `mcp` 2.x installed (`bash .ci/run` does)\n\
             test official_client_drives_an_application_server ... skipped: likewise"
        ),
    }
    ExitCode::SUCCESS
}

/// The interpreter named by `CY_MCP_PYTHON`; its absence fails the run under CI.
fn python() -> Option<PathBuf> {
    match std::env::var_os("CY_MCP_PYTHON") {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.exists(),
                "CY_MCP_PYTHON is `{}`, which does not exist",
                path.display()
            );
            Some(path)
        }
        None if std::env::var("CI").is_ok_and(|ci| ci == "true") => panic!(
            "CY_MCP_PYTHON is not set under CI=true: `.ci/run` must create the MCP client venv and export it"
        ),
        None => None,
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_client_check.py")
}

fn check(output: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    print!("{stdout}");
}

fn official_client_drives_the_builtin_server(python: &Path) {
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(script())
        .arg("builtin")
        .arg(workspace.path())
        .arg(env!("CARGO_BIN_EXE_cy-tools"))
        .args([
            "mcp",
            "--tools",
            "read_file,execute_code,list_directory",
            "--root",
        ])
        .arg(workspace.path())
        .output()
        .unwrap();
    check(&output, "the Python MCP client against `cy-tools mcp`");
}

fn official_client_drives_an_application_server(python: &Path) {
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(script())
        .arg("app")
        .arg(workspace.path())
        .arg(std::env::current_exe().unwrap())
        .args(["mcp", "--tools", "read_file,word_stats", "--root"])
        .arg(workspace.path())
        .env(APP_SERVE, "1")
        .output()
        .unwrap();
    check(
        &output,
        "the Python MCP client against an application's server",
    );
}

/// `schema` of an application tool in a dialect that cannot express it: the exporter's error,
/// on one line, and exit code 2.
fn app_cli_reports_a_dialect_error_in_one_line() {
    let registry = ToolRegistry::linked().unwrap();
    let definition = registry.get("outline").unwrap().definition();
    let refusal = Dialect::Gemini
        .export_definition("outline", definition)
        .expect_err("a recursive parameter type has no Gemini form");
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["schema", "outline", "--dialect", "gemini"])
        .env(APP_SERVE, "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(output.stdout, b"");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("error: {refusal}\n")
    );
    // The same tool in a dialect that can express it.
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["schema", "outline", "--dialect", "gemini-json-schema"])
        .env(APP_SERVE, "1")
        .output()
        .unwrap();
    assert!(output.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        printed,
        Dialect::GeminiJsonSchema
            .export_definition("outline", definition)
            .unwrap()
    );
}
