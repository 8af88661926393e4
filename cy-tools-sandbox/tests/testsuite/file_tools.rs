//! The file tools' happy paths and error paths, with the exact text the model sees, on each
//! workspace backend: the local sandbox, and the remote sandbox on a control server (the same
//! bodies, so the two cannot drift apart unnoticed).

use std::sync::Arc;

use cy_tools::{CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolRegistry, Toolset};
use serde_json::{Value, json};

use crate::support::backend::{Backend, on_each_backend};
use crate::support::workspace::{self, Workspace};

struct Fixture {
    _dir: tempfile::TempDir,
    _workspace: Workspace,
    root: std::path::PathBuf,
    tools: Toolset,
}

fn fixture(backend: Backend) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let workspace = workspace::open(backend, dir.path(), "files");
    let root = workspace.folder.clone();
    let ctx = ToolContext::new(SessionIdentity::root("files", "acme"))
        .with_env(Arc::clone(&workspace.env));
    let registry = ToolRegistry::linked().unwrap();
    let tools = registry.build(
        &[
            "read_file",
            "write_file",
            "edit_file",
            "list_directory",
            "find_files",
            "search_text",
        ],
        &ctx,
    );
    assert_eq!(tools.len(), 6);
    Fixture {
        _dir: dir,
        _workspace: workspace,
        root,
        tools,
    }
}

impl Fixture {
    fn put(&self, path: &str, contents: &str) {
        let full = self.root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, contents).unwrap();
    }

    async fn ok(&self, tool: &str, args: Value) -> String {
        let result = self
            .tools
            .execute(
                tool,
                ToolCall::new("c", args.clone()),
                &CancellationToken::new(),
            )
            .await;
        assert!(
            !result.is_error,
            "{tool} {args} failed: {}",
            result.text_content()
        );
        result.text_content()
    }

    async fn err(&self, tool: &str, args: Value) -> String {
        let result = self
            .tools
            .execute(
                tool,
                ToolCall::new("c", args.clone()),
                &CancellationToken::new(),
            )
            .await;
        assert!(
            result.is_error,
            "{tool} {args} succeeded: {}",
            result.text_content()
        );
        result.text_content()
    }
}

on_each_backend! {
async fn read_file_numbers_lines_and_pages(backend: Backend) {
    let f = fixture(backend);
    f.put("a.txt", "one\ntwo\r\nthree\nfour");
    assert_eq!(
        f.ok("read_file", json!({"path": "a.txt"})).await,
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour"
    );
    assert_eq!(
        f.ok("read_file", json!({"path": "a.txt", "limit": 2}))
            .await,
        "     1\tone\n     2\ttwo\n[lines 1-2 shown; the file continues: read on with offset=3]"
    );
    assert_eq!(
        f.ok(
            "read_file",
            json!({"path": "/workspace/a.txt", "offset": 3})
        )
        .await,
        "     3\tthree\n     4\tfour\n[lines 3-4 of 4]"
    );
    assert_eq!(
        f.err("read_file", json!({"path": "a.txt", "offset": 9}))
            .await,
        "`a.txt` has 4 lines; `offset` 9 is past the end"
    );
    assert_eq!(
        f.err("read_file", json!({"path": "a.txt", "offset": 0}))
            .await,
        "`offset` is 1-based: use 1 for the first line"
    );
    f.put("empty.txt", "");
    assert_eq!(
        f.ok("read_file", json!({"path": "empty.txt"})).await,
        "`empty.txt` is empty"
    );
}

async fn read_file_pages_across_chunks_and_cuts_long_lines(backend: Backend) {
    let f = fixture(backend);
    let text: String = (1..=20_000).map(|i| format!("line number {i}\n")).collect();
    f.put("big.txt", &text);
    let page = f
        .ok(
            "read_file",
            json!({"path": "big.txt", "offset": 15_000, "limit": 2}),
        )
        .await;
    assert_eq!(
        page,
        " 15000\tline number 15000\n 15001\tline number 15001\n[lines 15000-15001 shown; the file continues: read on with offset=15002]"
    );
    f.put("long.txt", &"x".repeat(5000));
    let long = f.ok("read_file", json!({"path": "long.txt"})).await;
    assert!(long.ends_with("… [line cut at 2000 characters]"), "{long}");
}

async fn read_file_refuses_binary_folders_and_missing_files(backend: Backend) {
    let f = fixture(backend);
    std::fs::write(f.root.join("bin.dat"), [0x7f, b'E', b'L', b'F', 0, 1, 2]).unwrap();
    assert_eq!(
        f.err("read_file", json!({"path": "bin.dat"})).await,
        "`bin.dat` looks like a binary file (it contains NUL bytes); read_file only shows text"
    );
    f.put("dir/x.txt", "x");
    assert_eq!(
        f.err("read_file", json!({"path": "dir"})).await,
        "`dir` is a folder, not a file; list it instead"
    );
    assert_eq!(
        f.err("read_file", json!({"path": "nope.txt"})).await,
        "no file or folder `nope.txt` in the workspace; list the folder to see what is there"
    );
}

async fn write_file_creates_replaces_and_makes_folders(backend: Backend) {
    let f = fixture(backend);
    assert_eq!(
        f.ok(
            "write_file",
            json!({"path": "deep/er/new.txt", "content": "hello"})
        )
        .await,
        "created `deep/er/new.txt` (5 bytes)"
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("deep/er/new.txt")).unwrap(),
        "hello"
    );
    assert_eq!(
        f.ok(
            "write_file",
            json!({"path": "deep/er/new.txt", "content": "bye"})
        )
        .await,
        "replaced `deep/er/new.txt` (3 bytes)"
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("deep/er/new.txt")).unwrap(),
        "bye"
    );
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(f.root.join("deep/er"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["new.txt"]);
    assert_eq!(
        f.err("write_file", json!({"path": "deep", "content": "x"}))
            .await,
        "`deep` is a folder; write to a file path inside it"
    );
    assert_eq!(
        f.err("write_file", json!({"path": ".", "content": "x"}))
            .await,
        "`.` names the workspace itself; give a file name"
    );
    assert_eq!(
        f.err("write_file", json!({"path": "a.txt"})).await,
        "invalid arguments for `write_file`: missing required field `content`; valid fields are `content` (string, required), `path` (string, required)"
    );
}

async fn write_file_through_an_inside_symlink_writes_its_target(backend: Backend) {
    let f = fixture(backend);
    f.put("real.txt", "old");
    std::os::unix::fs::symlink("real.txt", f.root.join("alias.txt")).unwrap();
    f.ok("write_file", json!({"path": "alias.txt", "content": "new"}))
        .await;
    assert_eq!(
        std::fs::read_to_string(f.root.join("real.txt")).unwrap(),
        "new"
    );
    assert!(
        std::fs::symlink_metadata(f.root.join("alias.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

async fn edit_file_replaces_exactly_once_or_explains(backend: Backend) {
    let f = fixture(backend);
    f.put("code.py", "x = 1\ny = 1\nprint(x)\n");
    assert_eq!(
        f.ok(
            "edit_file",
            json!({"path": "code.py", "old_string": "x = 1", "new_string": "x = 2"})
        )
        .await,
        "replaced 1 occurrence in `code.py`"
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("code.py")).unwrap(),
        "x = 2\ny = 1\nprint(x)\n"
    );
    assert_eq!(
        f.err(
            "edit_file",
            json!({"path": "code.py", "old_string": "= ", "new_string": "=  "})
        )
        .await,
        "`old_string` occurs 2 times in `code.py`; include more surrounding lines to make it unique, or set `replace_all` to true"
    );
    assert_eq!(
        f.ok(
            "edit_file",
            json!({"path": "code.py", "old_string": "= ", "new_string": ":= ", "replace_all": true})
        )
        .await,
        "replaced 2 occurrences in `code.py`"
    );
    assert_eq!(
        f.err(
            "edit_file",
            json!({"path": "code.py", "old_string": "z = 3", "new_string": "z = 4"})
        )
        .await,
        "`old_string` was not found in `code.py`; read the file and copy the exact text, including whitespace and line breaks"
    );
    assert_eq!(
        f.err(
            "edit_file",
            json!({"path": "code.py", "old_string": "", "new_string": "a"})
        )
        .await,
        "`old_string` is empty; give the exact text to replace (use write_file to write a whole file)"
    );
    assert_eq!(
        f.err(
            "edit_file",
            json!({"path": "code.py", "old_string": "print", "new_string": "print"})
        )
        .await,
        "`old_string` and `new_string` are the same, so the edit would change nothing"
    );
    std::fs::write(f.root.join("latin1.txt"), [0xe9, b'a']).unwrap();
    assert_eq!(
        f.err(
            "edit_file",
            json!({"path": "latin1.txt", "old_string": "a", "new_string": "b"})
        )
        .await,
        "`latin1.txt` is not UTF-8 text, so it cannot be edited as text"
    );
}

async fn list_directory_sorts_and_marks_kinds(backend: Backend) {
    let f = fixture(backend);
    f.put("b.txt", "bb");
    f.put("a/inner.txt", "x");
    f.put(".hidden", "");
    std::os::unix::fs::symlink("b.txt", f.root.join("c-link")).unwrap();
    assert_eq!(
        f.ok("list_directory", json!({})).await,
        ".hidden  (0 bytes)\na/\nb.txt  (2 bytes)\nc-link  (symbolic link)"
    );
    assert_eq!(
        f.ok("list_directory", json!({"path": ".", "depth": 2}))
            .await,
        ".hidden  (0 bytes)\na/\na/inner.txt  (1 byte)\nb.txt  (2 bytes)\nc-link  (symbolic link)"
    );
    assert_eq!(
        f.err("list_directory", json!({"depth": 0})).await,
        "`depth` must be between 1 and 10, got 0"
    );
    assert_eq!(
        f.err("list_directory", json!({"path": "b.txt"})).await,
        "`b.txt` is not a folder (or goes through a file); use read_file for a file"
    );
    f.put("empty/.keep", "");
    std::fs::remove_file(f.root.join("empty/.keep")).unwrap();
    assert_eq!(
        f.ok("list_directory", json!({"path": "empty"})).await,
        "`empty` is empty"
    );
}

async fn find_files_globs_and_honours_gitignore(backend: Backend) {
    let f = fixture(backend);
    f.put("src/main.rs", "");
    f.put("src/lib/util.rs", "");
    f.put("README.md", "");
    f.put("target/debug/gen.rs", "");
    f.put(".gitignore", "target/\n");
    f.put(".hidden/x.rs", "");
    assert_eq!(
        f.ok("find_files", json!({"pattern": "*.rs"})).await,
        "src/lib/util.rs\nsrc/main.rs"
    );
    assert_eq!(
        f.ok("find_files", json!({"pattern": "*.rs", "path": "src/lib"}))
            .await,
        "util.rs"
    );
    assert_eq!(
        f.ok("find_files", json!({"pattern": "*.py"})).await,
        "no files match `*.py` under `.`"
    );
    assert!(
        f.err("find_files", json!({"pattern": "a[b"}))
            .await
            .starts_with("`a[b` is not a valid glob: ")
    );
}

async fn search_text_reports_file_and_line(backend: Backend) {
    let f = fixture(backend);
    f.put("src/a.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    f.put("src/b.py", "print('Hello')\n");
    f.put("build/out.rs", "hello again\n");
    f.put(".gitignore", "build\n");
    std::fs::write(f.root.join("blob.bin"), b"hello\0world").unwrap();
    assert_eq!(
        f.ok("search_text", json!({"pattern": "hello"})).await,
        "src/a.rs:2:     println!(\"hello\");"
    );
    assert_eq!(
        f.ok(
            "search_text",
            json!({"pattern": "hello", "case_insensitive": true})
        )
        .await,
        "src/a.rs:2:     println!(\"hello\");\nsrc/b.py:1: print('Hello')"
    );
    assert_eq!(
        f.ok("search_text", json!({"pattern": "print", "glob": "*.py"}))
            .await,
        "src/b.py:1: print('Hello')"
    );
    assert_eq!(
        f.ok("search_text", json!({"pattern": "[a-z]", "max_results": 2}))
            .await,
        "src/a.rs:1: fn main() {\nsrc/a.rs:2:     println!(\"hello\");\n[stopped at 2 matches; narrow the pattern or the folder, or raise max_results]"
    );
    assert_eq!(
        f.ok("search_text", json!({"pattern": "nothing here"}))
            .await,
        "no matches for `nothing here` in 3 files under `.`"
    );
    assert!(
        f.err("search_text", json!({"pattern": "(unclosed"}))
            .await
            .starts_with("`(unclosed` is not a valid regular expression: ")
    );
    assert_eq!(
        f.err("search_text", json!({"pattern": "x", "max_results": 0}))
            .await,
        "`max_results` must be between 1 and 1000, got 0"
    );
}

async fn search_text_keeps_file_order_when_it_stops_early(backend: Backend) {
    let f = fixture(backend);
    for i in 0..60 {
        f.put(
            &format!("d{}/f{i:02}.txt", i % 3),
            &format!("skip\nneedle {i}\nneedle again {i}\n"),
        );
    }
    let all = f
        .ok(
            "search_text",
            json!({"pattern": "needle", "max_results": 1000}),
        )
        .await;
    assert_eq!(all.lines().count(), 120);
    let first: Vec<&str> = all.lines().take(5).collect();
    let page = f
        .ok(
            "search_text",
            json!({"pattern": "needle", "max_results": 5}),
        )
        .await;
    let mut expected = first.join("\n");
    expected.push_str(
        "\n[stopped at 5 matches; narrow the pattern or the folder, or raise max_results]",
    );
    assert_eq!(page, expected);
    assert!(
        all.starts_with(
            "d0/f00.txt:2: needle 0\nd0/f00.txt:3: needle again 0\nd0/f03.txt:2: needle 3"
        ),
        "{all}"
    );
}
}

#[test]
fn the_file_tools_declare_only_env_and_honest_annotations() {
    let registry = ToolRegistry::linked().unwrap();
    for name in [
        "read_file",
        "write_file",
        "edit_file",
        "list_directory",
        "find_files",
        "search_text",
    ] {
        let def = registry.definition(name).unwrap();
        assert_eq!(def.capabilities().to_string(), "env", "{name}");
        let a = def.annotations();
        let reader = matches!(
            name,
            "read_file" | "list_directory" | "find_files" | "search_text"
        );
        assert_eq!(a.read_only, reader, "{name}");
        assert_eq!(a.destructive, !reader, "{name}");
        assert!(!a.open_world, "{name}");
    }
}
