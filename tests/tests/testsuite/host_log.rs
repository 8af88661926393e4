//! A tool's log messages in a host with no client to send them to: `cy-tools call` writes them
//! to its own log (stderr, at `CY_TOOLS_LOG`'s level), with the tool's name and the call's id;
//! the result's audio, resource and link are shown as the lines naming them.

use crate::support::app::app;

#[test]
fn the_command_line_logs_what_a_tool_logs_and_names_what_it_cannot_show() {
    let workspace = tempfile::tempdir().unwrap();
    let run = |level: &str| {
        app()
            .args(["call", "record_clip", r#"{"name": "take1"}"#, "--root"])
            .arg(workspace.path())
            .env("CY_TOOLS_LOG", level)
            .output()
            .unwrap()
    };
    let output = run("debug");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "recorded `take1`\n[audio: audio/wav, 46 bytes]\n[resource clip://take1/transcript (text/plain)]\n(silence)\n[resource link: take1 <clip://take1>]\n"
    );
    let logged = |text: &str| {
        stderr
            .lines()
            .any(|line| line.contains(text) && line.contains("tool=\"record_clip\""))
    };
    assert!(logged("recording `take1`"), "{stderr}");
    assert!(logged(r#"{"clip":"take1","samples":1}"#), "{stderr}");
    // At the default level (`warn`) neither shows.
    let quiet = String::from_utf8(run("warn").stderr).unwrap();
    assert!(!quiet.contains("recording"), "{quiet}");
}
