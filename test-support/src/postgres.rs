//! The PostgreSQL server the tests use: `CY_TEST_POSTGRES_URL` (`.ci/run` starts one with
//! `scripts/postgres-for-tests` and sets it). Without it a PostgreSQL test says so and skips,
//! unless `CY_POSTGRES_REQUIRE=1`, which makes that a failure. Tests share the database and
//! keep apart by tenant: each takes a fresh one.
//!
//! A test that restarts its server starts a private one ([`PrivateServer`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable holding the shared server's URL.
pub const URL_VAR: &str = "CY_TEST_POSTGRES_URL";

/// The shared server's URL, or `None` (after saying why) when the test should skip.
pub fn url() -> Option<String> {
    match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            let why = format!(
                "`{URL_VAR}` is not set: start a server with `scripts/postgres-for-tests start target/pg` and export the URL it prints (`.ci/run` does)"
            );
            assert!(
                std::env::var_os("CY_POSTGRES_REQUIRE").is_none(),
                "cannot run, and CY_POSTGRES_REQUIRE is set: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// A tenant no other test (nor an earlier run) uses: `{name}-{pid}-{n}-{time}`.
pub fn tenant(name: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{name}-{}-{}-{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// `scripts/postgres-for-tests`.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/postgres-for-tests")
}

/// `<target>/tmp`, what cargo names `CARGO_TARGET_TMPDIR` to a test binary: found from the
/// running test binary (`<target>/<profile>/deps/<binary>`), since this crate is a library
/// and cargo gives that variable only to tests and benches.
fn target_tmp() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .nth(3)
        .expect("a test binary lives in <target>/<profile>/deps");
    let tmp = target.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

/// A server of the test's own, in a folder under the target directory (the `postgres` user
/// must reach it, and tempfile's folders are private to root); stopped and removed on drop.
pub struct PrivateServer {
    dir: PathBuf,
    pub url: String,
    pub port: u16,
}

impl PrivateServer {
    pub fn start(name: &str) -> PrivateServer {
        let dir = target_tmp().join(format!("pg-{}", tenant(name)));
        let url = run(&["start", dir.to_str().unwrap()]);
        let port = std::fs::read_to_string(dir.join("port"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        PrivateServer { dir, url, port }
    }

    /// Stops the server, keeping its data.
    pub fn down(&self) {
        run(&["down", self.dir.to_str().unwrap()]);
    }

    /// Starts it again, on the same port.
    pub fn up(&self) {
        run(&["up", self.dir.to_str().unwrap()]);
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .args(["stop", self.dir.to_str().unwrap()])
            .status();
    }
}

fn run(args: &[&str]) -> String {
    let output = Command::new(script()).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "`postgres-for-tests {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}
