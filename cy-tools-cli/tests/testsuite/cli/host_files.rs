//! What the host holds stays out of its commands' reach: a descriptor the host was started with
//! is not inherited by a command, and a store or a session file inside the workspace (which
//! commands may write) is refused at start.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::json;

/// `cy-tools ARGS` in `dir`, started by a shell that first opens `outside` as fd 3 (read and
/// write, not close-on-exec): as a host is when whatever started it leaked a descriptor.
fn cy_tools_with_fd3(dir: &Path, outside: &Path, args: &[&str]) -> Output {
    Command::new("/bin/sh")
        .arg("-c")
        .arg(r#"exec 3<>"$0"; exec "$@""#)
        .arg(outside)
        .arg(env!("CARGO_BIN_EXE_cy-tools"))
        .args(args)
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_descriptor_the_host_inherited_is_closed_before_a_command_runs() {
    for isolation in ["strict", "none"] {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "secret outside\n").unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let call = json!({"command": "cat <&3; echo written >&3; ls -l /proc/self/fd/ > fds.txt"})
            .to_string();
        let out = cy_tools_with_fd3(
            &ws,
            &outside,
            &["call", "terminal", &call, "--isolation", isolation],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stdout.contains("secret outside"),
            "{isolation}: a command read the host's fd 3: {stdout}"
        );
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "secret outside\n",
            "{isolation}: a command wrote through the host's fd 3"
        );
        assert!(
            stdout.contains("Bad file descriptor") || stderr.contains("Bad file descriptor"),
            "{isolation}: fd 3 was not closed: {stdout} {stderr}"
        );
        let fds = std::fs::read_to_string(ws.join("fds.txt")).unwrap();
        assert!(!fds.contains("outside.txt"), "{isolation}: {fds}");
    }
}

#[test]
fn a_store_inside_the_workspace_is_refused_naming_a_place_outside() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let call = json!({"command": "true"}).to_string();
    // `--root` defaults to the current folder: the workspace, here.
    for store in [".cy-store", "sub/deeper"] {
        let out = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
            .args(["call", "terminal", &call, "--store", store])
            .current_dir(&ws)
            .env_remove("CY_TOOLS_LOG")
            .env_remove("CY_TOOLS_STORE")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{store}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains("inside the workspace"),
            "{store}: {err}"
        );
        let beside = dir.path().canonicalize().unwrap().join("ws.cy-store");
        assert!(
            err.contains(&format!("`{}`", beside.display())),
            "{store}: the error names no place outside: {err}"
        );
        assert!(
            !ws.join(store).exists(),
            "{store}: the refused store was created"
        );
    }
    // The same store beside the workspace is fine.
    let out = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["call", "terminal", &call, "--store", "../ws.cy-store"])
        .current_dir(&ws)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_session_file_inside_the_workspace_is_refused_naming_a_place_outside() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let call = json!({"command": "true"}).to_string();
    let run = |spec: &str| {
        Command::new(env!("CARGO_BIN_EXE_cy-tools"))
            .args(["call", "terminal", &call, "--spec", spec])
            .current_dir(&ws)
            .env_remove("CY_TOOLS_LOG")
            .env_remove("CY_TOOLS_STORE")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    // A command could rewrite it: `"workspace": "/"` for the next call, say.
    std::fs::write(ws.join("session.json"), r#"{"workspace": "."}"#).unwrap();
    let out = run("session.json");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let beside = dir.path().canonicalize().unwrap().join("ws.session.json");
    assert!(
        err.starts_with("error: the session file ")
            && err.contains("is inside the workspace")
            && err.contains(&format!("`{}`", beside.display())),
        "{err}"
    );
    std::fs::write(&beside, r#"{"workspace": "ws"}"#).unwrap();
    let out = run("../ws.session.json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
