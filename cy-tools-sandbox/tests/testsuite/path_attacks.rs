//! An attack corpus: paths that try to leave the workspace, sent through every file tool.
//! Every one must be refused, and nothing outside the workspace may be read or written: on the
//! local sandbox, and on the remote sandbox, where the control server (whose root holds both
//! the workspace and the folder outside it) must refuse them itself.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, binding::bind_tool,
    services::Sandbox,
};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::tools::{
    edit_file::EDIT_FILE, find_files::FIND_FILES, list_directory::LIST_DIRECTORY,
    read_file::READ_FILE, search_text::SEARCH_TEXT, write_file::WRITE_FILE,
};
use serde_json::json;

use crate::support::backend::{Backend, on_each_backend};
use crate::support::workspace::{self, Workspace};

const SECRET: &str = "TOP SECRET: outside the workspace";

struct Layout {
    _base: tempfile::TempDir,
    base: PathBuf,
    ws: PathBuf,
}

fn layout() -> Layout {
    let base_dir = tempfile::tempdir().unwrap();
    let base = base_dir.path().canonicalize().unwrap();
    let outside = base.join("outside");
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("dir/deep.txt"), SECRET).unwrap();
    let ws = base.join("ws");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::write(ws.join("inside.txt"), "inside\n").unwrap();
    symlink("../outside/secret.txt", ws.join("link_out_file")).unwrap();
    symlink(outside.join("secret.txt"), ws.join("link_out_abs")).unwrap();
    symlink("../outside", ws.join("link_out_dir")).unwrap();
    symlink(&outside, ws.join("link_out_dir_abs")).unwrap();
    symlink("../..", ws.join("sub/link_up")).unwrap();
    symlink("/", ws.join("link_root")).unwrap();
    symlink("loop_b", ws.join("loop_a")).unwrap();
    symlink("loop_a", ws.join("loop_b")).unwrap();
    Layout {
        _base: base_dir,
        base,
        ws,
    }
}

/// Every escape form: `..`, absolute paths, file and folder symlinks anywhere in the path
/// (relative and absolute targets), loops, NUL bytes, over-long paths. In a file of its own, so
/// `scripts/bench-http` sends the same corpus to the reference filesystem MCP server.
fn corpus() -> Vec<String> {
    serde_json::from_str(include_str!("path_attacks.json"))
        .expect("path_attacks.json is a JSON array of strings")
}

/// The workspace `ws` of `layout` on `backend`: for a remote one, the server's root is the
/// folder holding `ws` and `outside`.
fn view(backend: Backend, layout: &Layout) -> Workspace {
    workspace::open(backend, &layout.base, "ws")
}

fn tools(env: &Arc<dyn Sandbox>) -> Vec<BoundTool> {
    let ctx = ToolContext::new(SessionIdentity::root("attack", "acme")).with_env(Arc::clone(env));
    vec![
        bind_tool(&READ_FILE, ctx.clone()).unwrap(),
        bind_tool(&WRITE_FILE, ctx.clone()).unwrap(),
        bind_tool(&EDIT_FILE, ctx.clone()).unwrap(),
        bind_tool(&LIST_DIRECTORY, ctx.clone()).unwrap(),
        bind_tool(&FIND_FILES, ctx.clone()).unwrap(),
        bind_tool(&SEARCH_TEXT, ctx).unwrap(),
    ]
}

fn args_for(tool: &str, path: &str) -> serde_json::Value {
    match tool {
        "read_file" | "list_directory" => json!({"path": path}),
        "write_file" => json!({"path": path, "content": "pwned"}),
        "edit_file" => json!({"path": path, "old_string": "TOP", "new_string": "pwned"}),
        "find_files" => json!({"path": path, "pattern": "*"}),
        "search_text" => json!({"path": path, "pattern": "SECRET|root"}),
        other => panic!("no arguments for {other}"),
    }
}

/// A snapshot of everything outside the workspace that a tool could touch.
fn outside_state(layout: &Layout) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![layout.base.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if path.starts_with(&layout.ws) {
                continue;
            }
            let ft = entry.file_type().unwrap();
            if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            } else {
                files.push((path, Vec::new()));
            }
        }
    }
    files.sort();
    files
}

on_each_backend! {
async fn every_escape_is_refused_by_every_file_tool(backend: Backend) {
    let layout = layout();
    let before = outside_state(&layout);
    let view = view(backend, &layout);
    let tools = tools(&view.env);
    let corpus = corpus();
    assert!(corpus.len() >= 40, "the corpus has {} paths", corpus.len());
    let cancel = CancellationToken::new();
    let mut checked = 0;
    for path in &corpus {
        for tool in &tools {
            let result = tool
                .execute(ToolCall::new("c", args_for(tool.name(), path)), &cancel)
                .await;
            let text = result.text_content();
            assert!(result.is_error, "{} accepted {path:?}: {text}", tool.name());
            assert!(
                !text.contains("TOP SECRET") && !text.contains("root:x:0:0"),
                "{} leaked outside content for {path:?}: {text}",
                tool.name()
            );
            let names_the_problem = [
                "is outside the workspace",
                "invalid path",
                "symbolic link that cannot be followed",
            ]
            .iter()
            .any(|phrase| text.contains(phrase));
            assert!(
                names_the_problem,
                "{} refused {path:?} without naming the problem: {text}",
                tool.name()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, corpus.len() * 6);
    assert_eq!(
        outside_state(&layout),
        before,
        "something outside the workspace changed"
    );
    assert!(!Path::new("/tmp/cy-escape.txt").exists());
}

async fn symlinks_that_stay_inside_still_work(backend: Backend) {
    let layout = layout();
    symlink("inside.txt", layout.ws.join("link_in")).unwrap();
    let view = view(backend, &layout);
    let env = &view.env;
    assert_eq!(env.read("link_in").await.unwrap(), b"inside\n");
    assert_eq!(env.read("sub/../inside.txt").await.unwrap(), b"inside\n");
    assert_eq!(
        env.read("/workspace/inside.txt").await.unwrap(),
        b"inside\n"
    );
}

async fn a_symlink_swapped_in_between_check_and_use_is_refused(backend: Backend) {
    let layout = layout();
    let swap = layout.ws.join("swap");
    let real = layout.ws.join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(real.join("secret.txt"), "inside copy").unwrap();
    let view = view(backend, &layout);
    let env = &view.env;
    let stop = Arc::new(AtomicBool::new(false));
    // Flip `swap` between a folder inside and a symlink to the folder outside, as fast as
    // possible, while reads go through it.
    let flipper = std::thread::spawn({
        let stop = stop.clone();
        let swap = swap.clone();
        move || {
            let mut flips = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_file(&swap);
                let _ = symlink("real", &swap);
                let _ = std::fs::remove_file(&swap);
                let _ = symlink("../outside", &swap);
                flips += 1;
            }
            flips
        }
    });
    let mut inside_reads = 0;
    for _ in 0..3000 {
        match env.read("swap/secret.txt").await {
            Ok(bytes) => {
                assert_eq!(bytes, b"inside copy", "a read went outside the workspace");
                inside_reads += 1;
            }
            Err(err) => {
                let text = err.to_string();
                assert!(!text.contains("TOP SECRET"), "{text}");
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = flipper.join().unwrap();
    assert!(flips > 0);
    // The race is real: some reads went through the inside link.
    assert!(
        inside_reads > 0,
        "no read ever succeeded; the test raced nothing"
    );
}

async fn a_child_view_cannot_reach_its_parents_files(backend: Backend) {
    let layout = layout();
    let view = view(backend, &layout);
    let root = &view.env;
    let child = root.scoped("child-1").unwrap();
    assert_eq!(child.describe(), "/workspace/child-1");
    child.write("mine.txt", b"child".to_vec()).await.unwrap();
    assert_eq!(root.read("child-1/mine.txt").await.unwrap(), b"child");
    for path in [
        "../inside.txt",
        "/workspace/inside.txt/../../inside.txt",
        "..",
        "/etc/passwd",
    ] {
        let err = child.read(path).await.unwrap_err();
        assert!(
            err.to_string().contains("outside the workspace"),
            "{path}: {err}"
        );
    }
    // `/workspace/inside.txt` in the child's view names the child's own file, which is absent.
    let err = child.read("/workspace/inside.txt").await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no file or folder `/workspace/inside.txt`"),
        "{err}"
    );
    assert!(root.scoped("../escape").is_err());
    refused_scope(root, "link_out_dir").await;
}
}

/// A view scoped to `subdir` is refused: when it is made (the local sandbox opens its folder
/// at once), or at its first use (a remote one is opened by its server).
async fn refused_scope(root: &Arc<dyn Sandbox>, subdir: &str) {
    let err = match root.scoped(subdir) {
        Err(err) => err,
        Ok(child) => child.list_dir(".").await.unwrap_err(),
    };
    assert!(err.to_string().contains(&format!("`{subdir}`")), "{err}");
}

#[test]
fn a_local_child_view_is_refused_when_it_is_made() {
    let layout = layout();
    let root = LocalSandbox::new(&layout.ws).unwrap().env();
    assert!(root.scoped("link_out_dir").is_err());
}

#[test]
fn resolve_path_refuses_a_final_symlink_that_leads_out() {
    let layout = layout();
    symlink("inside.txt", layout.ws.join("link_in")).unwrap();
    symlink("missing.txt", layout.ws.join("dangling_in")).unwrap();
    symlink("../outside/none.txt", layout.ws.join("dangling_out")).unwrap();
    let env = LocalSandbox::new(&layout.ws).unwrap().env();
    for link in [
        "link_out_file",
        "link_out_abs",
        "link_out_dir",
        "link_out_dir_abs",
        "link_root",
        "sub/link_up",
        "dangling_out",
    ] {
        let err = env.resolve_path(link).unwrap_err();
        assert_eq!(
            err.kind(),
            cy_tools::services::ServiceErrorKind::OutsideSandbox,
            "{link}: {err}"
        );
    }
    for link in ["link_in", "dangling_in", "inside.txt", "new.txt"] {
        assert_eq!(env.resolve_path(link).unwrap(), layout.ws.join(link));
    }
}
