//! The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16 from npm, on
//! Node.js) against this example over streamable HTTP, stateless (`expected-failures.yml`) and
//! in the session-bearing mode (`expected-failures-sessions.yml`): `server --suite all` with
//! the mode's file, so the run fails on any scenario failing that the file does not name, on
//! any warning, and on a named one that passes.
//!
//! The suite is found at `CY_CONFORMANCE` (its `dist/index.js`; `.ci/run` installs it with npm
//! into `target/conformance`, patched for Node 20 by `scripts/conformance-suite`), else in
//! `target/conformance` beside the workspace. Without it the test is skipped with a note,
//! unless `CY_CONFORMANCE_REQUIRE=1` (set by `.ci/run`): then a missing suite fails it.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALLED: &str =
    "../../target/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// The suite's entry point, or `None` (after a note) when it is not installed and not required.
fn suite() -> Option<PathBuf> {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR")).join(INSTALLED);
    let found = std::env::var_os("CY_CONFORMANCE")
        .map(PathBuf::from)
        .or_else(|| installed.exists().then_some(installed));
    let install = "run `scripts/conformance-suite target/conformance` (as `.ci/run` does) or set CY_CONFORMANCE to its dist/index.js";
    match found {
        Some(path) => {
            assert!(
                path.exists(),
                "CY_CONFORMANCE is `{}`, which does not exist",
                path.display()
            );
            Some(path)
        }
        None if std::env::var("CY_CONFORMANCE_REQUIRE").is_ok_and(|v| v == "1") => {
            panic!(
                "the MCP conformance suite is required (CY_CONFORMANCE_REQUIRE=1) but not installed: {install}"
            )
        }
        None => {
            // Past libtest's capture, so it shows.
            let _ = writeln!(
                std::io::stderr(),
                "test the_conformance_suite_passes ... skipped: {install}"
            );
            None
        }
    }
}

#[test]
fn the_conformance_suite_passes_over_stateless_http_but_for_the_scenarios_named() {
    run("expected-failures.yml", false);
}

#[test]
fn the_conformance_suite_passes_over_the_session_bearing_mode_but_for_the_scenarios_named() {
    run("expected-failures-sessions.yml", true);
}

/// Runs the whole suite against the example served statelessly or with sessions, held to the
/// named expected-failures file.
fn run(expected: &str, sessions: bool) {
    let Some(suite) = suite() else { return };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let addr = "127.0.0.1:0".parse().unwrap();
    let server = runtime
        .block_on(async {
            if sessions {
                example_conformance::bind_with_sessions(addr).await
            } else {
                example_conformance::bind(addr).await
            }
        })
        .unwrap();
    let url = format!("http://{}/mcp", server.local_addr().unwrap());
    runtime.spawn(server.run());
    let results = tempfile::tempdir().unwrap();
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join(expected);
    let output = Command::new("node")
        .arg(&suite)
        .args([
            "server",
            "--url",
            &url,
            "--suite",
            "all",
            "--expected-failures",
        ])
        .arg(&expected)
        .arg("-o")
        .arg(results.path())
        .output()
        .expect("node runs the suite");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the conformance suite failed (exit {:?}): a scenario failed or warned that {} does not name, or one it names passes now (remove it)\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n--- checks of the failing scenarios\n{}",
        output.status.code(),
        expected.display(),
        failing_checks(results.path()),
    );
    // The run really ran the scenarios this example serves.
    let mut served = vec![
        "tools-call-audio",
        "tools-call-with-logging",
        "tools-call-with-progress",
        "json-schema-2020-12",
        "resources-templates-read",
        "resources-subscribe",
        "prompts-get-with-image",
        "completion-complete",
    ];
    if sessions {
        served.extend(["tools-call-sampling", "elicitation-sep1330-enums"]);
    }
    for scenario in served {
        assert!(
            stdout.contains(&format!("✓ {scenario}")),
            "{scenario} did not pass:\n{stdout}"
        );
    }
}

/// The checks that failed or warned, from the suite's `checks.json` files, for the message.
fn failing_checks(dir: &Path) -> String {
    let mut out = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("checks.json")) else {
            continue;
        };
        let checks: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        for check in checks.as_array().into_iter().flatten() {
            let status = check["status"].as_str().unwrap_or_default();
            if status == "FAILURE" || status == "WARNING" {
                out.push_str(&format!(
                    "{}: {status} {} {}\n",
                    entry.file_name().to_string_lossy(),
                    check["id"],
                    check["errorMessage"]
                ));
            }
        }
    }
    out
}
