//! Another local user cannot swap the `cy_sdk` package a long-lived host (a control server)
//! gives its code-mode runs: the package folder has a random name, mode 0700, and is reached
//! through a descriptor, so renaming or planting under the host's temporary folder changes
//! nothing a run imports.
//!
//! The attacker is `nobody` (the tests run as root in CI), with the same temporary folder as
//! the host: a world-writable, sticky folder, like `/tmp`. It makes the folder the package used
//! to live in before the host starts, and between two runs moves every folder it can and plants
//! an `__init__.py` that would leave a mark in the workspace.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::server_process::start_server;
use crate::support::loopback_server::code_mode_upgrade as upgrade;
use serde_json::{Value, json};

const TOKEN: &str = "package-swap-token-0123456789abcdef";

/// Runs `script` with `sh` as user `nobody`; its stdout.
fn as_nobody(script: &str, tmp: &Path) -> String {
    let out = Command::new("setpriv")
        .args(["--reuid", "nobody", "--regid", "nogroup", "--clear-groups"])
        .args(["/bin/sh", "-c", script])
        .env("T", tmp)
        .current_dir("/")
        .stdin(Stdio::null())
        .output()
        .expect("setpriv runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One code-mode run of `code` in session `s-swap`: the `done` answer's result.
fn run(addr: SocketAddr, code: &str) -> Value {
    let mut stream = upgrade(addr, "s-swap", TOKEN, Duration::from_secs(60));
    let request = json!({"code": code, "filename": "run.py", "timeout_ms": 30_000}).to_string();
    stream.write_all(format!("{request}\n").as_bytes()).unwrap();
    for line in BufReader::new(&stream).lines() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if let Some(done) = line.get("done") {
            return done.clone();
        }
    }
    panic!("the run never said it was done");
}

/// Every file named `name` below `dir`.
fn found(dir: &Path, name: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            hits.extend(found(&path, name));
        } else if entry.file_name() == name {
            hits.push(path.display().to_string());
        }
    }
    hits
}

/// Moves every folder of the host's under `$T/cy-sdk-*` it can (up to three levels deep) and
/// plants a package in its place, at every depth a run could import from; prints how many it
/// planted. Its own folders it leaves: moving them would take its plants along.
const SWAP: &str = r#"
planted=0
for d in "$T"/cy-sdk-*/*/*/* "$T"/cy-sdk-*/*/* "$T"/cy-sdk-*/* "$T"/cy-sdk-*; do
  [ -d "$d" ] && [ ! -L "$d" ] && [ ! -O "$d" ] || continue
  mv "$d" "$d.gone" 2>/dev/null || continue
  for p in "$d/cy_sdk" "$d/0/cy_sdk" "$d/0/0/cy_sdk"; do
    mkdir -p "$p" && printf 'open("planted.txt", "w").write("swapped")\nprint("SWAPPED")\n' > "$p/__init__.py"
    cp "$p/__init__.py" "$p/tools.py"
  done
  planted=$((planted+1))
done
echo "planted=$planted"
"#;

#[test]
fn another_user_cannot_swap_the_package_of_a_running_host() {
    if !rustix::process::geteuid().is_root() {
        // Playing another user takes root; CI runs as root.
        assert!(
            std::env::var_os("CY_ISOLATION_REQUIRE").is_none(),
            "CY_ISOLATION_REQUIRE is set, but this test needs root to play user nobody: run it as root (CI does), or unset the variable"
        );
        eprintln!("skipped: not root, so no other user can be played");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let root = tempfile::tempdir().unwrap();
    // The folder the package used to be in, made first by the attacker.
    as_nobody(r#"mkdir -m 777 "$T/cy-sdk-0""#, tmp.path());
    let (mut server, addr) = start_server(root.path(), TOKEN, Some(tmp.path()));
    let first = run(addr, "import cy_sdk\nprint('first')");
    let planted = as_nobody(SWAP, tmp.path());
    let second = run(addr, "import cy_sdk\nprint('second')");
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(first["stdout"], "first\n", "{first}");
    assert_eq!(second["stdout"], "second\n", "{second} ({planted})");
    let marks = found(root.path(), "planted.txt");
    assert!(marks.is_empty(), "the planted package ran: {marks:?}");
    // The host's own folder is out of the attacker's reach.
    assert_eq!(planted.trim(), "planted=0", "{planted}");
}
