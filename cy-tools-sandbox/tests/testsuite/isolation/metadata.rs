//! File metadata: a confined command changes no mode, owner, times or extended attributes
//! outside its writable folders (the workspace and its private temporary folder), sets no
//! setuid or setgid bit anywhere, and still does the ordinary things with modes and times in
//! its workspace (`chmod +x`, `touch`, `tar x`, `git checkout`, `pip install --target`).
//!
//! Each attack runs as its own command and must fail; the file it went after is compared,
//! before and after, by mode, owner, modification time and change time (which every metadata
//! change moves, an extended attribute's included). On a root host the same checks run again
//! as `nobody` (a copy of this binary under `setpriv`) and as root without `CAP_SYS_ADMIN`,
//! where the read-only view lives in a user namespace.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use cy_tools::services::{ExecOptions, Sandbox};
use cy_tools_sandbox::LocalSandbox;

use super::isolation_available;
use crate::support::alone::alone;

/// What a metadata change would move: mode, owner, group, modification and change times.
fn stamp(path: &Path) -> (u32, u32, u32, i64, i64, i64) {
    let m = std::fs::symlink_metadata(path).unwrap();
    (
        m.mode(),
        m.uid(),
        m.gid(),
        m.mtime(),
        m.ctime(),
        m.ctime_nsec(),
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A workspace `ws` with an `outside` folder beside it holding `outside.txt` and a copy of
/// `id`, and a file `beside.txt` in the folder holding both.
struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Layout {
    fn new() -> Layout {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("ws")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("beside.txt"), "beside").unwrap();
        std::fs::write(root.join("outside/outside.txt"), "outside").unwrap();
        std::fs::copy("/usr/bin/id", root.join("outside/id")).unwrap();
        std::fs::set_permissions(
            root.join("outside/id"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        Layout { _dir: dir, root }
    }

    fn ws(&self) -> PathBuf {
        self.root.join("ws")
    }
}

/// Runs `command` in `env`; its exit code and output.
fn run(env: &impl Sandbox, command: &str) -> (i32, String) {
    let out = runtime()
        .block_on(env.exec(command, ExecOptions::default()))
        .unwrap();
    (
        out.exit_code.unwrap_or(-1),
        format!("{}{}", out.stdout, out.stderr),
    )
}

/// The metadata attacks on files outside the workspace, each of which must fail and leave its
/// target as it was.
fn outside_metadata_stays(layout: &Layout) {
    let env = LocalSandbox::new(layout.ws()).unwrap().env();
    let uid = rustix::process::geteuid().as_raw();
    let gid = rustix::process::getegid().as_raw();
    let beside = layout.root.join("beside.txt");
    let outside = layout.root.join("outside/outside.txt");
    let id = layout.root.join("outside/id");
    let outside_dir = layout.root.join("outside");
    let b = beside.display();
    let o = outside.display();
    let attacks: Vec<(String, &Path)> = vec![
        ("chmod 4777 ../beside.txt".into(), &beside),
        (format!("chmod 600 {b}"), &beside),
        (format!("chmod 777 {}", layout.root.display()), &layout.root),
        ("chmod 777 ../outside".into(), &outside_dir),
        (format!("chown {uid}:{gid} {b}"), &beside),
        (format!("touch -d 2001-01-01 {b}"), &beside),
        (format!("touch -m {o}"), &outside),
        (
            format!("python3 -c \"import os; os.utime('{o}', (0, 0))\""),
            &outside,
        ),
        (
            format!("python3 -c \"import os; os.setxattr('{o}', 'user.cy', b'x')\""),
            &outside,
        ),
        (
            format!("python3 -c \"import os; os.chmod('{o}', 0o644)\""),
            &outside,
        ),
        (
            format!("python3 -c \"import os; os.chown('{o}', {uid}, {gid})\""),
            &outside,
        ),
        // Through names inside the workspace: a symbolic link is followed to the outside
        // file, a hard link cannot be made across the mounts.
        (format!("ln -s {o} sym && chmod 600 sym"), &outside),
        (format!("ln {o} hard && chmod 600 hard"), &outside),
        // A program outside (root's, on a root host) cannot be made setuid.
        (format!("chmod 4755 {}", id.display()), &id),
        (format!("chmod u+s {}", id.display()), &id),
    ];
    // Every attack is tried, and all that got through are reported together.
    let mut through = Vec::new();
    for (command, target) in &attacks {
        let before = stamp(target);
        let (code, output) = run(&env, command);
        if code == 0 || stamp(target) != before {
            through.push(format!(
                "`{command}` (exit {code}, {} {}):\n{output}",
                target.display(),
                if stamp(target) == before {
                    "unchanged"
                } else {
                    "changed"
                }
            ));
        }
        let _ = std::fs::remove_file(layout.ws().join("sym"));
    }
    assert!(
        through.is_empty(),
        "{} of {} attacks got through:\n{}",
        through.len(),
        attacks.len(),
        through.join("\n")
    );
    assert!(!layout.ws().join("hard").exists());
    // And a background process is held to the same view.
    let before = stamp(&beside);
    let table = env.processes().unwrap();
    runtime().block_on(async {
        let info = table
            .start(
                "chmod 4777 ../beside.txt; touch ../beside.txt; echo done",
                ExecOptions::default(),
            )
            .await
            .unwrap();
        for _ in 0..500 {
            let got = table.output(&info.id).await.unwrap();
            if !got.info.running {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
    assert_eq!(stamp(&beside), before, "a background process changed it");
}

/// The ways of setting a setuid or setgid bit in the workspace, each refused.
fn no_setid_bits(layout: &Layout) {
    let env = LocalSandbox::new(layout.ws()).unwrap().env();
    let ws = layout.ws();
    std::fs::write(ws.join("f"), "#!/bin/sh\n").unwrap();
    std::fs::create_dir(ws.join("dir")).unwrap();
    let attacks = [
        ("chmod u+s f", "f"),
        ("chmod g+s f", "f"),
        ("chmod 4755 f", "f"),
        ("chmod 6755 f", "f"),
        ("chmod g+s dir", "dir"),
        ("cp /usr/bin/id id && chmod 4755 id", "id"),
        ("python3 -c \"import os; os.chmod('f', 0o4755)\"", "f"),
        (
            "python3 -c \"import os; os.close(os.open('n', os.O_CREAT | os.O_WRONLY, 0o4755))\"",
            "n",
        ),
        ("python3 -c \"import os; os.mkdir('d', 0o2755)\"", "d"),
        (
            "python3 -c \"import os; os.mknod('m', 0o100000 | 0o4755)\"",
            "m",
        ),
    ];
    let mut through = Vec::new();
    for (command, name) in attacks {
        let (code, output) = run(&env, command);
        let mode = std::fs::symlink_metadata(ws.join(name)).map_or(0, |m| m.mode());
        if code == 0 || mode & 0o6000 != 0 {
            through.push(format!(
                "`{command}` (exit {code}, {name} {mode:o}):\n{output}"
            ));
        }
    }
    assert!(
        through.is_empty(),
        "{} of {} attacks got through:\n{}",
        through.len(),
        attacks.len(),
        through.join("\n")
    );
    for name in ["n", "d", "m"] {
        assert!(!ws.join(name).exists(), "{name} was made");
    }
}

#[test]
fn metadata_outside_the_workspace_cannot_be_changed() {
    if isolation_available() {
        outside_metadata_stays(&Layout::new());
    }
}

#[test]
fn setuid_and_setgid_bits_cannot_be_set_in_the_workspace() {
    if isolation_available() {
        no_setid_bits(&Layout::new());
    }
}

/// On a root host: a root-owned copy of `id` outside stays without its setuid bit, so run by
/// `nobody` it prints nobody's ids.
#[test]
fn a_root_owned_program_outside_cannot_be_made_setuid() {
    if !isolation_available() || !rustix::process::geteuid().is_root() {
        return;
    }
    let layout = Layout::new();
    let id = layout.root.join("outside/id");
    let env = LocalSandbox::new(layout.ws()).unwrap().env();
    let (code, output) = run(&env, &format!("chmod 4755 {}", id.display()));
    assert_ne!(code, 0, "{output}");
    assert_eq!(std::fs::metadata(&id).unwrap().mode() & 0o7777, 0o755);
    // The folders up to it must let `nobody` through for the run.
    for dir in [layout.root.as_path(), &layout.root.join("outside")] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = Command::new("setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg(&id)
        .arg("-u")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "65534");
}

/// On a root host, the attacks again as `nobody`, whose commands' view is made in a user
/// namespace: a copy of this binary in a folder `nobody` can read, run under `setpriv`.
#[test]
fn a_host_that_is_not_root_gets_the_same_protection() {
    if !isolation_available() || !rustix::process::geteuid().is_root() {
        return;
    }
    let bin = tempfile::tempdir().unwrap();
    std::fs::set_permissions(bin.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = bin.path().join("testsuite");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    let test = alone!(metadata_without_mount_rights);
    let run = || {
        Command::new("setpriv")
            .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
            .arg(&exe)
            .args([
                "isolation::metadata::metadata_without_mount_rights",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TMPDIR", "/tmp")
            .env("HOME", "/tmp")
            .current_dir("/")
            .output()
            .unwrap()
    };
    // The copy was written through a descriptor that a process forked meanwhile by another
    // test's thread may still hold until it execs: running it then fails with ETXTBSY ("Text
    // file busy", exit 126). That passes within moments; anything else is the test's answer.
    let mut output = run();
    for _ in 0..50 {
        let busy = output.status.code() == Some(126)
            && String::from_utf8_lossy(&output.stderr).contains("Text file busy");
        if !busy {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        output = run();
    }
    test.passed(&output);
}

/// Root without `CAP_SYS_ADMIN` (a container's root): its view is made in a user namespace
/// too, mapping root to itself.
#[test]
fn a_root_host_without_cap_sys_admin_gets_the_same_protection() {
    if !isolation_available() || !rustix::process::geteuid().is_root() {
        return;
    }
    alone!(metadata_without_mount_rights)
        .under(
            "setpriv",
            &[
                "--bounding-set",
                "-sys_admin",
                "--inh-caps",
                "-sys_admin",
                "--",
            ],
        )
        .run();
}

#[test]
#[ignore = "run by the two tests above, as `nobody` and as root without CAP_SYS_ADMIN"]
fn metadata_without_mount_rights() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let effective = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .map(|hex| u64::from_str_radix(hex.trim(), 16).unwrap())
        .unwrap();
    assert_eq!(effective & (1 << 21), 0, "runs without CAP_SYS_ADMIN");
    assert!(
        isolation_available(),
        "commands cannot be confined without CAP_SYS_ADMIN"
    );
    outside_metadata_stays(&Layout::new());
    no_setid_bits(&Layout::new());
    workspace_work(&Layout::new());
    // The view's mount namespace lives in a user namespace of its own here.
    assert_eq!(same_namespaces(), (false, false));
}

/// Whether a confined command shares this process's (user, mount) namespaces.
fn same_namespaces() -> (bool, bool) {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let (code, out) = run(&env, "readlink /proc/self/ns/user /proc/self/ns/mnt");
    assert_eq!(code, 0, "{out}");
    let mine = |name: &str| {
        let link = std::fs::read_link(format!("/proc/self/ns/{name}")).unwrap();
        link.to_string_lossy().into_owned()
    };
    let mut lines = out.lines();
    (
        lines.next() == Some(mine("user").as_str()),
        lines.next() == Some(mine("mnt").as_str()),
    )
}

/// A host that may mount (root with `CAP_SYS_ADMIN`, as CI runs) makes the view's mount
/// namespace in its own user namespace, so commands join the mount namespace alone: joining a
/// user namespace as well would be a second `setns` on every command, for nothing.
#[test]
fn a_host_that_may_mount_joins_the_mount_namespace_alone() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let effective = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .map(|hex| u64::from_str_radix(hex.trim(), 16).unwrap())
        .unwrap();
    if !isolation_available() || effective & (1 << 21) == 0 {
        return;
    }
    assert_eq!(same_namespaces(), (true, false));
}

/// What must keep working in the workspace: making a script executable and running it,
/// setting times, unpacking an archive with its modes and times, checking a file out of git.
fn workspace_work(layout: &Layout) {
    let ws = layout.ws();
    let env = LocalSandbox::new(&ws).unwrap().env();
    let (code, out) = run(
        &env,
        "printf '#!/bin/sh\\necho ran\\n' > s.sh && chmod +x s.sh && ./s.sh && chmod 640 s.sh && stat -c %a s.sh",
    );
    assert_eq!((code, out.as_str()), (0, "ran\n640\n"));
    let (code, out) = run(
        &env,
        "touch t && touch -d 2001-01-01T00:00:00Z t && stat -c %Y t",
    );
    assert_eq!((code, out.as_str()), (0, "978307200\n"));
    // An archive made by the host, unconfined: an executable, a private file, a folder, times.
    let src = layout.root.join("src");
    std::fs::create_dir_all(src.join("pkg/bin")).unwrap();
    std::fs::write(src.join("pkg/bin/tool"), "#!/bin/sh\necho tool\n").unwrap();
    std::fs::write(src.join("pkg/data"), "data").unwrap();
    let mode = |p: &str, m: u32| {
        std::fs::set_permissions(src.join(p), std::fs::Permissions::from_mode(m)).unwrap();
    };
    mode("pkg/bin/tool", 0o755);
    mode("pkg/data", 0o640);
    mode("pkg/bin", 0o750);
    let made = Command::new("tar")
        .args(["--mtime=2001-01-01 00:00:00Z", "-cf"])
        .arg(ws.join("a.tar"))
        .arg("-C")
        .arg(&src)
        .arg("pkg")
        .status()
        .unwrap();
    assert!(made.success());
    let (code, out) = run(
        &env,
        "mkdir out && tar -xf a.tar -C out && stat -c '%a %Y %n' out/pkg/bin/tool out/pkg/data out/pkg/bin && out/pkg/bin/tool",
    );
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "755 978307200 out/pkg/bin/tool\n640 978307200 out/pkg/data\n750 978307200 out/pkg/bin\ntool\n"
        )
    );
    let (code, out) = run(
        &env,
        "git init -q r && cd r && printf '#!/bin/sh\\necho git\\n' > s && chmod +x s && git add s && git -c user.name=t -c user.email=t@t commit -qm m && rm s && git checkout -- s && ./s",
    );
    assert_eq!((code, out.as_str()), (0, "git\n"));
    // `pip install --target` of a wheel (made here, no network) with an executable script.
    std::fs::write(ws.join("mkwheel.py"), WHEEL).unwrap();
    let (code, out) = run(
        &env,
        "python3 mkwheel.py && python3 -m pip install -q --no-index --no-cache-dir --root-user-action=ignore --target site demo-1.0-py3-none-any.whl && PYTHONPATH=site python3 -c 'import demo; print(demo.VALUE)' && stat -c %a site/bin/demo-tool && site/bin/demo-tool",
    );
    assert_eq!((code, out.as_str()), (0, "pip ok\n755\ntool ok\n"));
    // The private temporary folder is writable too.
    let (code, out) = run(
        &env,
        "f=$TMPDIR/x && echo x > $f && chmod 700 $f && touch -d 2001-01-01T00:00:00Z $f && stat -c '%a %Y' $f",
    );
    assert_eq!((code, out.as_str()), (0, "700 978307200\n"));
}

/// Writes a wheel of one module and one script, the script's zip entry executable.
const WHEEL: &str = r##"
import zipfile
with zipfile.ZipFile("demo-1.0-py3-none-any.whl", "w") as z:
    z.writestr("demo/__init__.py", "VALUE = 'pip ok'\n")
    script = zipfile.ZipInfo("demo-1.0.data/scripts/demo-tool")
    script.external_attr = 0o100755 << 16
    z.writestr(script, "#!/bin/sh\necho tool ok\n")
    z.writestr("demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    z.writestr("demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("demo-1.0.dist-info/RECORD", "")
"##;

#[test]
fn modes_and_times_still_work_in_the_workspace() {
    if isolation_available() {
        workspace_work(&Layout::new());
    }
}
