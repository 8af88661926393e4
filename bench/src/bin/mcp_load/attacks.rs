//! The path-escape corpus of `cy-tools-builtin/tests/testsuite/path_attacks.rs` sent to a
//! server's file tools over MCP: how many calls each refuses, accepts, and leaks through.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::stdio::{Dialect, Server, text};

const SECRET: &str = "TOP SECRET: outside the workspace";

/// `BASE/outside` with secrets, `BASE/ws` with symlinks out of it (the test's layout).
fn layout(base: &Path) -> std::io::Result<PathBuf> {
    let outside = base.join("outside");
    std::fs::create_dir_all(outside.join("dir"))?;
    std::fs::write(outside.join("secret.txt"), SECRET)?;
    std::fs::write(outside.join("dir/deep.txt"), SECRET)?;
    let ws = base.join("ws");
    std::fs::create_dir_all(ws.join("sub"))?;
    std::fs::write(ws.join("inside.txt"), "inside\n")?;
    symlink("../outside/secret.txt", ws.join("link_out_file"))?;
    symlink(outside.join("secret.txt"), ws.join("link_out_abs"))?;
    symlink("../outside", ws.join("link_out_dir"))?;
    symlink(&outside, ws.join("link_out_dir_abs"))?;
    symlink("../..", ws.join("sub/link_up"))?;
    symlink("/", ws.join("link_root"))?;
    symlink("loop_b", ws.join("loop_a"))?;
    symlink("loop_a", ws.join("loop_b"))?;
    Ok(ws)
}

/// Every file tool with its arguments for `path`.
fn tools(dialect: Dialect, path: &str) -> Vec<(&'static str, Value)> {
    let mut calls = vec![
        ("write_file", json!({"path": path, "content": "pwned"})),
        ("list_directory", json!({"path": path})),
    ];
    match dialect {
        Dialect::Cy => calls.extend([
            ("read_file", json!({"path": path})),
            (
                "edit_file",
                json!({"path": path, "old_string": "TOP", "new_string": "pwned"}),
            ),
            ("find_files", json!({"path": path, "pattern": "*"})),
            (
                "search_text",
                json!({"path": path, "pattern": "SECRET|root"}),
            ),
        ]),
        Dialect::Reference => calls.extend([
            ("read_text_file", json!({"path": path})),
            (
                "edit_file",
                json!({"path": path, "edits": [{"oldText": "TOP", "newText": "pwned"}]}),
            ),
            ("search_files", json!({"path": path, "pattern": "*"})),
            ("get_file_info", json!({"path": path})),
        ]),
    }
    calls
}

/// Every file's path and content under `base`, outside `ws`.
fn outside_state(base: &Path, ws: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![base.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.starts_with(ws) {
                continue;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(path),
                Ok(_) => files.push((path.clone(), std::fs::read(&path).unwrap_or_default())),
                Err(_) => {}
            }
        }
    }
    files.sort();
    files
}

pub async fn run(
    dialect: Dialect,
    base: &Path,
    corpus: &Path,
    command: &[String],
) -> Result<Value, String> {
    let corpus: Vec<String> = serde_json::from_slice(
        &std::fs::read(corpus).map_err(|err| format!("cannot read the corpus: {err}"))?,
    )
    .map_err(|err| format!("the corpus is not a JSON array of strings: {err}"))?;
    std::fs::create_dir_all(base).map_err(|err| err.to_string())?;
    let base = base.canonicalize().map_err(|err| err.to_string())?;
    let ws = layout(&base).map_err(|err| format!("cannot lay out the workspace: {err}"))?;
    let before = outside_state(&base, &ws);
    let command: Vec<String> = command
        .iter()
        .map(|arg| arg.replace("{ws}", &ws.to_string_lossy()))
        .collect();
    let server = Server::start(&command, Some(&ws)).await?;
    let (mut refused, mut accepted, mut leaked) = (0, Vec::new(), Vec::new());
    for path in &corpus {
        for (tool, arguments) in tools(dialect, path) {
            let shown = if path.len() > 60 {
                format!("{}… ({} bytes)", &path[..40], path.len())
            } else {
                format!("{path:?}")
            };
            let said = match server.call(tool, arguments).await {
                Ok(result) if result["isError"] == true => {
                    refused += 1;
                    text(&result)
                }
                Ok(result) => {
                    accepted.push(format!("{tool} {shown}"));
                    text(&result)
                }
                // A JSON-RPC error (invalid params, say): refused too.
                Err(error) => {
                    refused += 1;
                    error.to_string()
                }
            };
            if said.contains("TOP SECRET") || said.contains("root:x:0:0") {
                leaked.push(format!("{tool} {shown}"));
            }
        }
    }
    server.stop().await;
    let changed = outside_state(&base, &ws) != before || Path::new("/tmp/cy-escape.txt").exists();
    Ok(json!({
        "paths": corpus.len(),
        "calls": refused + accepted.len(),
        "refused": refused,
        "accepted": accepted,
        "leaked": leaked,
        "outside_changed": changed,
    }))
}
