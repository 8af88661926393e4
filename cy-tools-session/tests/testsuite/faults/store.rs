//! The session store on a disk that fills up, and on a file system that turns read-only: a
//! clear error naming the problem and the fix, no corruption (SQLite's integrity check passes
//! and every earlier record is intact once space is freed or the file system is writable
//! again), and the session goes on afterwards.
//!
//! Real faults, not simulated ones: a small `tmpfs` gives a real `ENOSPC`, and
//! `mount -o remount,ro` a real read-only file system. So nothing can leak onto the host, each
//! scenario is an inner test run in a process of its own started under `unshare --mount` (a
//! private mount namespace, gone with the process even if it crashes), which mounts the `tmpfs`
//! itself and unmounts it when done. Where mount namespaces or `tmpfs` mounts are not
//! permitted (no `CAP_SYS_ADMIN`), the test says why and skips, unless
//! `CY_FAULTS_REQUIRE_MOUNTS` is set, which makes that a failure.
//!
//! Note on "read-only": as root, permission bits do not stop writes, so only a read-only
//! mount makes a read-only store; and the kernel refuses to remount a file system read-only
//! (`EBUSY`) while a file on it is open for writing, as an open store's database is. So the
//! read-only scenario closes the store, remounts, and shows what opening it then says.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use cy_tools::Session;
use cy_tools::{
    CancellationToken, SessionSpec, ToolCall, ToolResult,
    services::{ExecutionLog, LogEntry, ServiceErrorKind},
};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use crate::support::alone::{Alone, alone};

/// The (empty) folder the `tmpfs` is mounted on.
const MOUNT: &str = "CY_FAULTS_STORE_MOUNT";
/// A folder outside the `tmpfs`, for the sessions' workspaces.
const OUTSIDE: &str = "CY_FAULTS_STORE_OUTSIDE";
/// The scenario's exit code when it cannot mount: the test skips.
const CANNOT_MOUNT: i32 = 77;
/// What a scenario prints when it ran to the end.
const RAN: &str = "store fault scenario ran to the end";

// ---------------------------------------------------------------------------------------
// Running a scenario in a private mount namespace.

/// Runs `scenario`, an inner test that calls [`in_tmpfs`], in a process of its own inside a
/// private mount namespace, with two fresh folders: one to mount on, one outside.
fn in_private_namespace(scenario: Alone) {
    let dir = tempfile::tempdir().unwrap();
    let mount = dir.path().join("mnt");
    let outside = dir.path().join("outside");
    std::fs::create_dir(&mount).unwrap();
    std::fs::create_dir(&outside).unwrap();
    let probe = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "true"])
        .output();
    match probe {
        Ok(output) if output.status.success() => {}
        Ok(output) => {
            skip(&format!(
                "cannot make a private mount namespace with `unshare --mount` ({}); run as root with CAP_SYS_ADMIN to test a full and a read-only store",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
            return;
        }
        Err(err) => {
            skip(&format!(
                "cannot run `unshare` ({err}); install util-linux to test a full and a read-only store"
            ));
            return;
        }
    }
    let scenario = scenario
        .under("unshare", &["--mount", "--propagation", "private", "--"])
        .env(MOUNT, &mount)
        .env(OUTSIDE, &outside);
    let output = scenario.command().output().unwrap();
    // Whatever happened in there, the host never saw the mount.
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(mount.to_str().unwrap()),
        "the tmpfs leaked onto the host: {mounts}"
    );
    if output.status.code() == Some(CANNOT_MOUNT) {
        skip(String::from_utf8_lossy(&output.stdout).trim());
        return;
    }
    let stdout = scenario.passed(&output);
    assert!(
        stdout.contains(RAN),
        "`{}` did not run to its end:\n{stdout}",
        scenario.name()
    );
}

/// In the scenario's process: mounts a `tmpfs` of `size` on the folder the parent made, runs
/// `scenario` with it and the folder outside, and unmounts it.
fn in_tmpfs(size: &str, scenario: impl FnOnce(&Path, &Path)) {
    let folder = |name: &str| {
        PathBuf::from(std::env::var_os(name).unwrap_or_else(|| {
            panic!("`{name}` is not set: this scenario is run by its parent test in a private mount namespace; run that test instead")
        }))
    };
    let (mount, outside) = (folder(MOUNT), folder(OUTSIDE));
    let mounted = match Tmpfs::mount(&mount, size) {
        Ok(mounted) => mounted,
        Err(why) => {
            println!("cannot mount a tmpfs: {why}");
            std::process::exit(CANNOT_MOUNT);
        }
    };
    scenario(&mount, &outside);
    drop(mounted);
    println!("{RAN}");
}

/// Says why the scenario cannot run here; fails instead when `CY_FAULTS_REQUIRE_MOUNTS` is
/// set, for machines (CI) where it must run.
fn skip(why: &str) {
    assert!(
        std::env::var_os("CY_FAULTS_REQUIRE_MOUNTS").is_none(),
        "cannot run, and CY_FAULTS_REQUIRE_MOUNTS is set: {why}"
    );
    eprintln!("skipped: {why}");
}

/// A `tmpfs` mounted on a folder, unmounted on drop.
struct Tmpfs {
    at: PathBuf,
}

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Result<Tmpfs, String> {
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "faults-store"])
            .arg(at)
            .output()
            .map_err(|err| format!("cannot run `mount`: {err}"))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).trim().to_string());
        }
        Ok(Tmpfs {
            at: at.to_path_buf(),
        })
    }

    fn remount(&self, mode: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(&self.at)
            .status()
            .unwrap();
        assert!(status.success(), "remount {mode} failed");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.at).status();
    }
}

// ---------------------------------------------------------------------------------------
// What the scenarios share.

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Everything logged through `tracing`, so the host-side error of a call that could not be
/// recorded can be read.
static LOGGED: Mutex<String> = Mutex::new(String::new());

struct Logged;

impl std::io::Write for Logged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        LOGGED
            .lock()
            .unwrap()
            .push_str(&String::from_utf8_lossy(buf));
        std::io::stderr().write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() {
    let _ = tracing_subscriber::fmt()
        .with_writer(|| Logged)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}

async fn write(session: &Session, id: &str, content: &str) -> ToolResult {
    let args = json!({"path": format!("{id}.txt"), "content": content});
    session
        .execute(
            "write_file",
            ToolCall::new(id, args),
            &CancellationToken::new(),
        )
        .await
}

fn call_ids(entries: &[LogEntry]) -> Vec<String> {
    entries.iter().map(|e| e.call_id.clone()).collect()
}

fn spec(id: &str, outside: &Path) -> SessionSpec {
    SessionSpec::root(id, "acme", outside.join(id).to_str().unwrap()).with_tools(["write_file"])
}

/// Fills the file system holding `dir` to the last byte with `dir/filler`.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).unwrap();
    for chunk in [64 * 1024, 4096, 1] {
        let bytes = vec![0u8; chunk];
        loop {
            match file.write(&bytes) {
                Ok(0) => break,
                Ok(_) => {}
                Err(err) if err.raw_os_error() == Some(28) => break, // ENOSPC
                Err(err) => panic!("filling the disk: {err}"),
            }
        }
    }
    path
}

// ---------------------------------------------------------------------------------------
// The scenarios.

#[test]
fn a_full_disk_is_a_clear_error_loses_nothing_stored_and_the_session_goes_on() {
    in_private_namespace(alone!(full_disk_in_a_mount_namespace));
}

#[test]
#[ignore = "run by `a_full_disk_is_a_clear_error_loses_nothing_stored_and_the_session_goes_on` in a mount namespace of its own"]
fn full_disk_in_a_mount_namespace() {
    in_tmpfs("2m", |mount, outside| {
        runtime().block_on(full_disk(mount, outside));
    });
}

async fn full_disk(mount: &Path, outside: &Path) {
    capture_logs();
    let state = mount.join("state");
    let db = state.join("sessions.db");
    let factory = LocalSessionFactory::embedded(&state).unwrap();
    let session = factory.create(spec("s-full", outside)).await.unwrap();
    for n in 1..=5 {
        let result = write(&session, &format!("c{n}"), "before the disk filled\n").await;
        assert!(!result.is_error, "{}", result.text_content());
    }

    let filler = fill(mount);
    // A call whose record needs more room than the log has: the tool's own work (on another
    // disk) succeeds and the model gets its result, but the record cannot be written. The
    // host hears of it through `tracing`.
    let big = "x".repeat(512 * 1024);
    let result = write(&session, "c6", &big).await;
    assert!(!result.is_error, "{}", result.text_content());
    let full = |what: &str| {
        format!(
            "the session store `{}` is full: its disk has no space left, so {what} failed (database or disk is full); nothing stored before is lost. Free space on that disk, or move the store to a larger one, then retry",
            db.display()
        )
    };
    let logged = LOGGED.lock().unwrap().clone();
    assert!(
        logged.contains(&format!(
            "ERROR the execution log could not record a call: {}",
            full("recording a call")
        )),
        "{logged}"
    );

    // Storing a new session is refused, saying why and what to do.
    let err = factory.create(spec("s-new", outside)).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(err.to_string(), full("storing a session spec"));

    // The store opens on a full disk (it only reads), and says the same when written to.
    let store = SqliteStore::open(&db).unwrap();
    let entry = LogEntry {
        session_id: "s-full".into(),
        call_id: "direct".into(),
        parent_call: None,
        tool: "write_file".into(),
        arguments: json!({"content": big}),
        result: ToolResult::text("ok"),
        started_at_ms: 0,
        duration_us: 0,
    };
    let err = store.record(entry).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(err.to_string(), full("recording a call"));
    // A new store cannot be made there, and says so.
    let other = mount.join("other.db");
    let err = SqliteStore::open(&other).unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(
        err.to_string(),
        format!(
            "cannot open the session store `{}`: its disk is full (database or disk is full); free space on it, or open the store on another disk",
            other.display()
        )
    );
    // A session can still be resumed: that only reads.
    let resumed = factory.resume("s-full").await.unwrap();
    assert_eq!(resumed.entries().await.unwrap().len(), 5);

    // Nothing already stored is damaged, and it can all be read while the disk is full.
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    assert_eq!(
        call_ids(&session.entries().await.unwrap()),
        ["c1", "c2", "c3", "c4", "c5"]
    );

    // Space freed: the same session, without a restart, goes on being recorded.
    std::fs::remove_file(&filler).unwrap();
    let result = write(&session, "c7", "after space was freed\n").await;
    assert!(!result.is_error, "{}", result.text_content());
    assert_eq!(
        call_ids(&session.entries().await.unwrap()),
        ["c1", "c2", "c3", "c4", "c5", "c7"]
    );
    factory.create(spec("s-new", outside)).await.unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    drop((session, factory, store));

    // And another process finds it all, sound.
    let store = SqliteStore::open(&db).unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    assert_eq!(store.call_count().await.unwrap(), 6);
}

#[test]
fn a_read_only_store_is_a_clear_error_and_works_again_once_writable() {
    in_private_namespace(alone!(read_only_in_a_mount_namespace));
}

#[test]
#[ignore = "run by `a_read_only_store_is_a_clear_error_and_works_again_once_writable` in a mount namespace of its own"]
fn read_only_in_a_mount_namespace() {
    in_tmpfs("4m", |mount, outside| {
        let tmpfs = Tmpfs {
            at: mount.to_path_buf(),
        };
        runtime().block_on(read_only(&tmpfs, outside));
        // `in_tmpfs` unmounts it.
        std::mem::forget(tmpfs);
    });
}

async fn read_only(tmpfs: &Tmpfs, outside: &Path) {
    let state = tmpfs.at.join("state");
    let db = state.join("sessions.db");
    {
        let factory = LocalSessionFactory::embedded(&state).unwrap();
        let session = factory.create(spec("s-ro", outside)).await.unwrap();
        for n in 1..=3 {
            let result = write(&session, &format!("c{n}"), "while writable\n").await;
            assert!(!result.is_error, "{}", result.text_content());
        }
    }

    tmpfs.remount("ro");
    let read_only = format!(
        "cannot open the session store `{}`: it is on a read-only file system (unable to open database file); remount the file system read-write, or open the store in a writable folder",
        db.display()
    );
    let err = SqliteStore::open(&db).unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(err.to_string(), read_only);
    // What an application starting on that disk sees.
    let err = LocalSessionFactory::embedded(&state).unwrap_err();
    assert_eq!(err.to_string(), read_only);

    tmpfs.remount("rw");
    let store = SqliteStore::open(&db).unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let factory = LocalSessionFactory::embedded(&state).unwrap();
    let session = factory.resume("s-ro").await.unwrap();
    let result = write(&session, "c4", "writable again\n").await;
    assert!(!result.is_error, "{}", result.text_content());
    assert_eq!(
        call_ids(&session.entries().await.unwrap()),
        ["c1", "c2", "c3", "c4"]
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}
