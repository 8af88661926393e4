//! FIFOs, sockets and devices in the workspace: `read_file`, `edit_file` and `search_text`
//! refuse them at once, naming the path and what it is, and never block on them (opening a
//! FIFO for reading waits for a writer; reading a device may never end). `search_text` skips
//! them quietly while walking a folder, as it skips binary files.
//!
//! Each call runs on a thread of its own with a current-thread runtime (as `cy-tools call`
//! ran it), so a call that blocks makes the test fail instead of hanging it: the FIFO is then
//! opened for writing, which frees the blocked open.

use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use cy_tools::{
    CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolRegistry, ToolResult, Toolset,
};
use cy_tools_sandbox::LocalSandbox;
use serde_json::{Value, json};

/// How long a refusal may take: it needs no more than an open and an fstat.
const WITHIN: Duration = Duration::from_secs(2);

struct Workspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
    tools: Toolset,
    /// Kept open so the socket file stays a live socket.
    _listener: UnixListener,
}

/// A workspace holding `notes.txt`, a FIFO `pipe`, a socket `sock`, and `link` (a symlink to
/// `pipe`).
fn workspace() -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\n").unwrap();
    mkfifo(&root.join("pipe"));
    let listener = UnixListener::bind(root.join("sock")).unwrap();
    std::os::unix::fs::symlink("pipe", root.join("link")).unwrap();
    let env = LocalSandbox::new(&root).unwrap().env();
    let ctx = ToolContext::new(SessionIdentity::root("special", "acme")).with_env(Arc::new(env));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["read_file", "edit_file", "search_text"], &ctx);
    assert_eq!(tools.len(), 3);
    Workspace {
        _dir: dir,
        root,
        tools,
        _listener: listener,
    }
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Frees an open of `fifo` blocked waiting for a writer: a non-blocking open for writing
/// succeeds once a reader waits, and pairs with it.
fn free(fifo: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(fifo);
}

impl Workspace {
    /// The result of calling `tool`, if it comes within [`WITHIN`]; the call's thread is
    /// freed (by writers on every FIFO of the workspace) if it does not.
    fn call(&self, tool: &str, args: Value) -> Result<ToolResult, String> {
        let (tx, rx) = mpsc::channel();
        let tools = self.tools.clone();
        let name = tool.to_string();
        let call_args = args.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let result = runtime.block_on(tools.execute(
                &name,
                ToolCall::new("c", call_args),
                &CancellationToken::new(),
            ));
            let _ = tx.send(result);
        });
        match rx.recv_timeout(WITHIN) {
            Ok(result) => Ok(result),
            Err(_) => {
                // Freed repeatedly: a second blocked open (a retry, another thread) may follow.
                for _ in 0..50 {
                    for fifo in ["pipe", "sub/pipe"] {
                        free(&self.root.join(fifo));
                    }
                    if rx.recv_timeout(Duration::from_millis(20)).is_ok() {
                        break;
                    }
                }
                Err(format!("{tool} {args} blocked for more than {WITHIN:?}"))
            }
        }
    }

    /// The error text of a call that must fail at once.
    fn refused(&self, tool: &str, args: Value) -> String {
        let result = self
            .call(tool, args.clone())
            .unwrap_or_else(|err| panic!("{err}"));
        assert!(
            result.is_error,
            "{tool} {args} succeeded: {}",
            result.text_content()
        );
        result.text_content()
    }

    fn ok(&self, tool: &str, args: Value) -> String {
        let result = self
            .call(tool, args.clone())
            .unwrap_or_else(|err| panic!("{err}"));
        assert!(
            !result.is_error,
            "{tool} {args} failed: {}",
            result.text_content()
        );
        result.text_content()
    }
}

fn refusal(path: &str, what: &str) -> String {
    format!(
        "`{path}` is {what}, not a regular file; the file tools read regular files only, so give the path of one"
    )
}

#[test]
fn read_file_refuses_a_fifo_without_waiting_for_a_writer() {
    let ws = workspace();
    assert_eq!(
        ws.refused("read_file", json!({"path": "pipe"})),
        refusal("pipe", "a FIFO (named pipe)")
    );
    // Through a symlink inside the workspace, and from an offset: the same.
    assert_eq!(
        ws.refused("read_file", json!({"path": "link", "offset": 5})),
        refusal("link", "a FIFO (named pipe)")
    );
    // The workspace still reads.
    assert_eq!(
        ws.ok("read_file", json!({"path": "notes.txt"})),
        "     1\talpha\n     2\tbeta"
    );
}

#[test]
fn read_file_refuses_a_socket() {
    let ws = workspace();
    assert_eq!(
        ws.refused("read_file", json!({"path": "sock"})),
        refusal("sock", "a Unix socket")
    );
}

#[test]
fn edit_file_refuses_a_fifo_and_a_socket() {
    let ws = workspace();
    for (path, what) in [
        ("pipe", "a FIFO (named pipe)"),
        ("link", "a FIFO (named pipe)"),
        ("sock", "a Unix socket"),
    ] {
        assert_eq!(
            ws.refused(
                "edit_file",
                json!({"path": path, "old_string": "a", "new_string": "b"})
            ),
            refusal(path, what)
        );
    }
    // Neither was replaced by a regular file.
    use std::os::unix::fs::FileTypeExt;
    let meta = std::fs::symlink_metadata(ws.root.join("pipe")).unwrap();
    assert!(meta.file_type().is_fifo());
}

#[test]
fn search_text_skips_special_files_in_a_folder_and_refuses_one_named() {
    let ws = workspace();
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    mkfifo(&ws.root.join("sub/pipe"));
    std::fs::write(ws.root.join("sub/more.txt"), "alpha again\n").unwrap();
    assert_eq!(
        ws.ok("search_text", json!({"pattern": "alpha"})),
        "notes.txt:1: alpha\nsub/more.txt:1: alpha again"
    );
    // A glob that matches the special files only: nothing to search, and no error.
    assert_eq!(
        ws.ok("search_text", json!({"pattern": "alpha", "glob": "*pipe*"})),
        "no matches for `alpha` in 0 files under `.`"
    );
    for (path, what) in [
        ("pipe", "a FIFO (named pipe)"),
        ("link", "a FIFO (named pipe)"),
        ("sock", "a Unix socket"),
    ] {
        assert_eq!(
            ws.refused("search_text", json!({"pattern": "a", "path": path})),
            refusal(path, what)
        );
    }
}

/// Devices need `CAP_MKNOD`: the checks run where a device node can be made (as root, in most
/// containers), and say so where not; with `CY_DEVICES_REQUIRE` set (CI) they fail there.
#[test]
fn the_file_tools_refuse_a_device_node() {
    let ws = workspace();
    let root = std::fs::File::open(&ws.root).unwrap();
    // The same device as `/dev/null` and `/dev/zero`: reading `zero` whole would never end.
    for (name, minor) in [("null", 3), ("zero", 5)] {
        if let Err(err) = rustix::fs::mknodat(
            &root,
            name,
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::Mode::from_raw_mode(0o666),
            rustix::fs::makedev(1, minor),
        ) {
            // CI runs as root, where a device node can be made: there, not checking is a failure.
            assert!(
                std::env::var_os("CY_DEVICES_REQUIRE").is_none(),
                "CY_DEVICES_REQUIRE is set but no device node can be made here ({err}); run as root (CAP_MKNOD), or unset it to skip"
            );
            eprintln!("skipped: cannot make a device node here ({err})");
            return;
        }
    }
    for name in ["null", "zero"] {
        assert_eq!(
            ws.refused("read_file", json!({"path": name})),
            refusal(name, "a character device")
        );
        assert_eq!(
            ws.refused(
                "edit_file",
                json!({"path": name, "old_string": "a", "new_string": "b"})
            ),
            refusal(name, "a character device")
        );
        assert_eq!(
            ws.refused("search_text", json!({"pattern": "a", "path": name})),
            refusal(name, "a character device")
        );
    }
    assert_eq!(
        ws.ok("search_text", json!({"pattern": "beta"})),
        "notes.txt:2: beta"
    );
}
