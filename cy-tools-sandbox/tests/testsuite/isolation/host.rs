//! The host around a confined workspace: what the escape attempts go after, each with a marker
//! no command's output may contain.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// What the attempts go after, each with a marker no output may contain.
pub struct Host {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub tcp_port: u16,
    pub abstract_name: String,
}

pub const SECRET: &str = "TOPSECRET-7f3a";
const SSH_KEY: &str = "SSHKEY-91bd";
const NEIGHBOUR: &str = "NEIGHBOURDATA-2c44";
const TCP_ANSWER: &str = "TCPSERVICE-5e1f";
const UNIX_ANSWER: &str = "UNIXSERVICE-88aa";
const ABSTRACT_ANSWER: &str = "ABSTRACTSERVICE-0d3c";
/// In the test process's environment (the runtime's), never in a command's.
pub const RUNTIME_ENV: &str = "CY_ESCAPE_RUNTIME_MARKER";
pub const RUNTIME_ENV_VALUE: &str = "RUNTIMEENV-4b77";

pub const MARKERS: &[&str] = &[
    SECRET,
    SSH_KEY,
    NEIGHBOUR,
    TCP_ANSWER,
    UNIX_ANSWER,
    ABSTRACT_ANSWER,
    RUNTIME_ENV_VALUE,
    "ESCAPED",
];

/// Serves `answer` to every connection `accept` takes, on a thread.
fn serve<S: Write>(
    mut accept: impl FnMut() -> std::io::Result<S> + Send + 'static,
    answer: &'static str,
) {
    std::thread::spawn(move || {
        while let Ok(mut stream) = accept() {
            let _ = stream.write_all(answer.as_bytes());
        }
    });
}

impl Host {
    pub fn new() -> Host {
        // Commands start with a clean environment, so the runtime's marker can only reach one
        // through the runtime's `/proc` entry.
        assert_eq!(
            std::env::var(RUNTIME_ENV).as_deref(),
            Ok(RUNTIME_ENV_VALUE),
            "the test runs in a copy of this binary with `{RUNTIME_ENV}` set (see `escapes`)"
        );
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("outside/secret.txt"), SECRET).unwrap();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        std::fs::write(root.join("home/.ssh/id_rsa"), SSH_KEY).unwrap();
        std::fs::create_dir_all(root.join("neighbour")).unwrap();
        std::fs::write(root.join("neighbour/data.txt"), NEIGHBOUR).unwrap();
        std::fs::create_dir_all(root.join("ws")).unwrap();
        // A setuid program owned by `nobody`: run unconfined it would run as uid 65534.
        let suid = root.join("ws/suid-id");
        std::fs::copy("/usr/bin/id", &suid).unwrap();
        let _ = std::process::Command::new("chown")
            .args(["65534:65534"])
            .arg(&suid)
            .status();
        std::fs::set_permissions(&suid, std::fs::Permissions::from_mode(0o4755)).unwrap();

        let tcp = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
        let tcp_port = tcp.local_addr().unwrap().port();
        serve(move || tcp.accept().map(|(s, _)| s), TCP_ANSWER);
        let unix = std::os::unix::net::UnixListener::bind(root.join("outside/host.sock")).unwrap();
        serve(move || unix.accept().map(|(s, _)| s), UNIX_ANSWER);
        let abstract_name = format!("cy-escape-{}", std::process::id());
        let addr = <std::os::unix::net::SocketAddr as std::os::linux::net::SocketAddrExt>::from_abstract_name(
            abstract_name.as_bytes(),
        )
        .unwrap();
        let abstract_listener = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
        serve(
            move || abstract_listener.accept().map(|(s, _)| s),
            ABSTRACT_ANSWER,
        );
        Host {
            _dir: dir,
            root,
            tcp_port,
            abstract_name,
        }
    }

    pub fn workspace(&self) -> PathBuf {
        self.root.join("ws")
    }

    /// Files an attempt may have written outside the workspace; none may exist.
    pub fn written(&self) -> Vec<PathBuf> {
        [
            self.root.join("outside/pwned.txt"),
            self.root.join("neighbour/pwned.txt"),
            self.root.join("pwned.txt"),
            PathBuf::from("/tmp/cy-escape-pwned"),
            PathBuf::from("/root/cy-escape-pwned"),
        ]
        .into_iter()
        .filter(|p| p.exists())
        .collect()
    }
}

impl Host {
    /// A host with only the workspace, for ordinary work.
    pub fn new_plain() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("ws")).unwrap();
        Host {
            _dir: dir,
            root,
            tcp_port: 0,
            abstract_name: String::new(),
        }
    }
}
