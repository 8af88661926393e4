//! Arbitrary paths against a `SandboxView` on a real folder: whatever succeeds must have stayed
//! inside the root, and nothing outside it may be read, listed or changed.
//!
//! Each input is up to eight operations (resolve, read, ranged read, write, scratch write,
//! stat, list, walk, search, scoped view), in the root's view or in a scoped child view. After
//! each successful one the path is resolved on the host, independently of the sandbox and
//! following every symlink, and must land inside the root; what it returned must not carry the
//! sentinels; after the input, everything outside the root must be as it was.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use arbitrary::{Result, Unstructured};
use cy_tools::services::{EntryKind, Sandbox, SearchOptions, WalkOptions};
use cy_tools_builtin::LocalSandbox;

use crate::Fixture;
use crate::fixture::{OUTSIDE_NAME, SECRET, SECRET_LEN, contains, lexical_host_path};

struct State {
    fixture: Fixture,
    env: Arc<dyn Sandbox>,
    runtime: tokio::runtime::Runtime,
}

static STATE: LazyLock<State> = LazyLock::new(|| {
    let fixture = Fixture::new();
    let env = Arc::new(LocalSandbox::new(&fixture.root).expect("sandbox").env());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    State {
        fixture,
        env,
        runtime,
    }
});

/// Path pieces that matter: climbing, the prefix, every kind of symlink in the fixture.
const SEGMENTS: &[&str] = &[
    "",
    ".",
    "..",
    "/",
    "/workspace",
    "workspace",
    "a.txt",
    "sub",
    "deeper",
    "b.txt",
    "new",
    "link_in",
    "link_in_dir",
    "link_out_file",
    "link_out_abs",
    "link_out_dir",
    "link_out_dir_abs",
    "link_beside",
    "link_up",
    "link_up2",
    "link_root",
    "link_self",
    "loop_a",
    "dangling",
    "dangling_out",
    "outside",
    "secret.txt",
    "deep.txt",
    "root",
    "etc",
    "passwd",
    OUTSIDE_NAME,
    "\0",
    "é",
];

fn path(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 4)? {
        return u.arbitrary::<String>();
    }
    let parts = u.int_in_range(1..=6)?;
    let mut out = String::new();
    if u.ratio(1, 4)? {
        out.push_str("/workspace/");
    }
    for n in 0..parts {
        if n > 0 {
            out.push_str(if u.ratio(1, 8)? { "//" } else { "/" });
        }
        out.push_str(u.choose(SEGMENTS)?);
    }
    if u.ratio(1, 8)? {
        out.push('/');
    }
    Ok(out)
}

/// Lower-case hex of fuzzer bytes: never the sentinel text, and always of even length.
fn hex_contents(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let len = u.int_in_range(0..=64)?;
    let bytes = u.bytes(len)?;
    Ok(bytes
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect())
}

/// Panics unless `host`, where the sandbox just acted, resolves on the host inside the root.
fn assert_inside(fixture: &Fixture, op: &str, path: &str, host: Option<&Path>) {
    let Some(host) = host else {
        panic!("ESCAPE: {op} succeeded on {path:?}, which is outside by the documented rules");
    };
    if fixture.resolves_inside(host) == Some(false) {
        panic!("ESCAPE: {op} succeeded on {path:?}, which resolves outside the root ({host:?})");
    }
}

/// The folder that holds the entry `host` names: its parent, or the view's root for the root.
fn holding_folder<'a>(host: &'a Path, view_root: &'a Path) -> &'a Path {
    if host == view_root {
        host
    } else {
        host.parent().unwrap_or(host)
    }
}

fn assert_no_secret(op: &str, path: &str, bytes: &[u8]) {
    assert!(
        !contains(bytes, SECRET.as_bytes()),
        "ESCAPE: {op} on {path:?} returned sentinel contents"
    );
}

async fn one_op(
    u: &mut Unstructured<'_>,
    fixture: &Fixture,
    root_env: &Arc<dyn Sandbox>,
) -> Result<()> {
    // Most operations run in the root's view; some in a child view of it.
    let (env, view_root) = if u.ratio(1, 4)? {
        let sub = path(u)?;
        if sub.contains(OUTSIDE_NAME) {
            return Ok(());
        }
        match root_env.scoped(&sub) {
            Ok(child) => {
                let here = lexical_host_path(&fixture.root, &sub);
                assert_inside(fixture, "scoped", &sub, here.as_deref());
                let here = here.expect("checked");
                let resolved = child
                    .resolve_path(".")
                    .expect("a view resolves its own root");
                assert_eq!(
                    resolved, here,
                    "a scoped view of {sub:?} is rooted elsewhere"
                );
                (child, here)
            }
            Err(_) => return Ok(()),
        }
    } else {
        (Arc::clone(root_env), fixture.root.clone())
    };
    let p = path(u)?;
    let host = lexical_host_path(&view_root, &p);
    let host = host.as_deref();
    match u.int_in_range(0..=8)? {
        0 => {
            if let Ok(resolved) = env.resolve_path(&p) {
                assert!(
                    resolved.starts_with(&view_root),
                    "ESCAPE: resolve_path({p:?}) = {resolved:?}, not under {view_root:?}"
                );
                assert_eq!(Some(resolved.as_path()), host, "resolve_path({p:?})");
                // The folder holding what it names must be inside on the host, following every
                // symlink (the final name may itself be a symlink: it is named, not followed).
                let folder = holding_folder(&resolved, &view_root);
                assert_inside(fixture, "resolve_path (folder)", &p, Some(folder));
            }
        }
        1 => {
            if let Ok(bytes) = env.read(&p).await {
                assert_inside(fixture, "read", &p, host);
                assert_no_secret("read", &p, &bytes);
            }
        }
        2 => {
            let offset = u.int_in_range(0..=5000)?;
            let len = u.int_in_range(0..=70_000)?;
            if let Ok(bytes) = env.read_range(&p, offset, len).await {
                assert_inside(fixture, "read_range", &p, host);
                assert_no_secret("read_range", &p, &bytes);
            }
        }
        op @ (3 | 4) => {
            let contents = hex_contents(u)?;
            if p.contains(OUTSIDE_NAME) {
                return Ok(());
            }
            let written = if op == 3 {
                env.write(&p, contents).await
            } else {
                env.write_scratch(&p, contents).await
            };
            if written.is_ok() {
                assert_inside(fixture, "write", &p, host);
            }
        }
        5 => {
            if let Ok(info) = env.stat(&p).await {
                // stat does not follow a final symlink: its folder must be inside.
                let folder = host.map(|host| holding_folder(host, &view_root));
                assert_inside(fixture, "stat (folder)", &p, folder);
                assert!(
                    !(info.kind == EntryKind::File && info.size == SECRET_LEN as u64),
                    "ESCAPE: stat on {p:?} saw a sentinel file: {info:?}"
                );
            }
        }
        6 => {
            if let Ok(entries) = env.list_dir(&p).await {
                assert_inside(fixture, "list_dir", &p, host);
                for entry in &entries {
                    assert!(
                        entry.path != OUTSIDE_NAME && entry.size != SECRET_LEN as u64,
                        "ESCAPE: list_dir on {p:?} listed {entry:?}"
                    );
                }
            }
        }
        7 => {
            let options = WalkOptions {
                max_depth: u.int_in_range(1..=8)?,
                respect_gitignore: u.arbitrary()?,
                include_hidden: u.arbitrary()?,
                max_entries: u.int_in_range(1..=200)?,
            };
            if let Ok(walked) = env.walk(&p, options).await {
                assert_inside(fixture, "walk", &p, host);
                for entry in &walked.entries {
                    assert!(
                        !entry.path.contains(OUTSIDE_NAME) && entry.size != SECRET_LEN as u64,
                        "ESCAPE: walk of {p:?} found {entry:?}"
                    );
                }
            }
        }
        _ => {
            let patterns = [
                "CY-FUZZ",
                "SENTINEL",
                "outside",
                ".",
                "alpha|b",
                "(?i)secret",
            ];
            let options = SearchOptions {
                pattern: (*u.choose(&patterns)?).to_string(),
                glob: if u.arbitrary()? { Some(path(u)?) } else { None },
                case_insensitive: u.arbitrary()?,
                max_matches: u.int_in_range(1..=50)?,
                respect_gitignore: u.arbitrary()?,
                files_searched: None,
            };
            if let Ok(found) = env.search(&p, options).await {
                assert_inside(fixture, "search", &p, host);
                for hit in &found.matches {
                    assert!(
                        !hit.line.contains("CY-FUZZ") && !hit.path.contains(OUTSIDE_NAME),
                        "ESCAPE: search of {p:?} matched {hit:?}"
                    );
                }
            }
        }
    }
    Ok(())
}

/// Runs one input: up to eight operations, then the check that nothing outside changed.
///
/// # Panics
/// On an escape (the point of the target), or when the fixture cannot be rebuilt.
pub fn run(data: &[u8]) {
    let state = &*STATE;
    state.fixture.reset();
    let mut u = Unstructured::new(data);
    state.runtime.block_on(async {
        for _ in 0..8 {
            if u.is_empty() || one_op(&mut u, &state.fixture, &state.env).await.is_err() {
                break;
            }
        }
    });
    state.fixture.check_outside();
}
