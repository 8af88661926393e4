//! A workspace on disk with things outside it to protect: a sentinel file and folder beside
//! the root, and symlinks inside the root that point at them.
//!
//! The layout is rebuilt before every input ([`Fixture::reset`]) so an input's effect does not
//! depend on the ones before it, and [`Fixture::check_outside`] proves after every input that
//! nothing outside the root was changed.

use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};

/// What every file outside the root starts with, and repeats. Upper case and punctuation, so
/// it never appears in the hex text the path target writes.
///
/// A fuzzer can learn this text (it sees the oracle compare against it) and put it in the
/// arguments of a tool that echoes them, so an oracle that must not be switched off looks for
/// the fixture's [`nonce`](Fixture::nonce) instead, which follows it in the files and changes
/// with every [`Fixture::new_secret`].
pub const SECRET: &str = "CY-FUZZ-SENTINEL: outside the workspace";

/// Size of each sentinel file: odd, so no hex-encoded write (always even) has it.
pub const SECRET_LEN: usize = 4097;

/// The name of the sentinel folder outside the root. Inputs never create an entry with this
/// name inside the root, so a listing that shows it has left the root.
pub const OUTSIDE_NAME: &str = "ZZ-OUTSIDE-ONLY-ZZ";

/// Files, folders and symlinks inside the root, rebuilt before each input.
const INSIDE_FILES: &[(&str, &str)] = &[
    ("a.txt", "alpha\nbeta\ngamma\n"),
    ("sub/b.txt", "inside b\n"),
    ("sub/deeper/c.rs", "fn main() {}\n"),
    (".gitignore", "ignored.txt\n"),
    ("ignored.txt", "ignored\n"),
    ("empty.txt", ""),
    ("binary.bin", "bin\0ary"),
];

/// Symlinks inside the root: (name, target). `{outside}` is replaced by the absolute path of
/// the sentinel folder.
const INSIDE_LINKS: &[(&str, &str)] = &[
    ("link_in", "a.txt"),
    ("link_in_dir", "sub"),
    ("link_out_file", "../outside/secret.txt"),
    ("link_out_abs", "{outside}/secret.txt"),
    ("link_out_dir", "../outside"),
    ("link_out_dir_abs", "{outside}"),
    ("link_beside", "../beside.txt"),
    ("sub/link_up", "../.."),
    ("sub/deeper/link_up2", "../../../outside/ZZ-OUTSIDE-ONLY-ZZ"),
    ("link_root", "/"),
    ("link_self", "."),
    ("loop_a", "loop_b"),
    ("loop_b", "loop_a"),
    ("dangling", "nowhere/at/all"),
    ("dangling_out", "../outside/not-there.txt"),
];

/// A sentinel file's contents: [`SECRET`] and `nonce`, repeated to [`SECRET_LEN`] bytes (so a
/// read of any 100 bytes of it shows the nonce whole).
pub fn secret_contents(nonce: &str) -> Vec<u8> {
    format!("{SECRET} {nonce} ")
        .into_bytes()
        .into_iter()
        .cycle()
        .take(SECRET_LEN)
        .collect()
}

/// 32 hex digits no input can know in advance: std's randomly keyed hasher over a counter.
fn fresh_nonce() -> String {
    use std::hash::{BuildHasher, RandomState};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let a = RandomState::new().hash_one(n);
    let b = RandomState::new().hash_one((n, a));
    format!("{a:016x}{b:016x}")
}

/// The temporary layout: `base/root` is the workspace; `base/outside`, `base/beside.txt` and
/// the symlinks' targets are what must stay untouched.
pub struct Fixture {
    _dir: tempfile::TempDir,
    /// The canonical workspace root.
    pub root: PathBuf,
    /// The canonical folder holding the root and the sentinels.
    pub base: PathBuf,
    nonce: String,
    outside_before: Vec<(PathBuf, Vec<u8>)>,
}

impl Fixture {
    /// Creates the layout in a fresh temporary folder.
    ///
    /// # Panics
    /// The temporary folder cannot be made.
    pub fn new() -> Self {
        // On a RAM file system where there is one: writes sync to disk, and a disk sync per
        // input would make the fuzzing slower many times over. `CY_FUZZ_TMP` picks the folder.
        let parent = std::env::var_os("CY_FUZZ_TMP")
            .map(PathBuf::from)
            .or_else(|| Some(PathBuf::from("/dev/shm")).filter(|p| p.is_dir()))
            .unwrap_or_else(std::env::temp_dir);
        let dir = tempfile::Builder::new()
            .prefix("cy-fuzz-")
            .tempdir_in(parent)
            .expect("a temporary folder");
        let base = dir.path().canonicalize().expect("canonical temp folder");
        std::fs::create_dir_all(base.join("outside").join(OUTSIDE_NAME)).expect("sentinel folder");
        let root = base.join("root");
        std::fs::create_dir_all(&root).expect("root");
        let mut fixture = Fixture {
            _dir: dir,
            root,
            base,
            nonce: String::new(),
            outside_before: Vec::new(),
        };
        fixture.new_secret();
        fixture.reset();
        fixture
    }

    /// The nonce the sentinel files carry now.
    pub fn nonce(&self) -> &str {
        &self.nonce
    }

    /// Rewrites the sentinel files outside the root with a fresh nonce (and takes them as the
    /// state [`check_outside`](Fixture::check_outside) compares with), so an input cannot have
    /// learnt it from an earlier one.
    ///
    /// # Panics
    /// The files cannot be written.
    pub fn new_secret(&mut self) {
        self.nonce = fresh_nonce();
        let contents = secret_contents(&self.nonce);
        let outside = self.base.join("outside");
        for file in [
            outside.join("secret.txt"),
            outside.join(OUTSIDE_NAME).join("deep.txt"),
            self.base.join("beside.txt"),
        ] {
            std::fs::write(file, &contents).expect("sentinel");
        }
        self.outside_before = self.outside_state();
    }

    /// Rebuilds the inside of the root (the root folder itself stays, so open handles on it
    /// remain valid).
    ///
    /// # Panics
    /// The layout cannot be rebuilt.
    pub fn reset(&self) {
        for entry in std::fs::read_dir(&self.root).expect("read root") {
            let path = entry.expect("root entry").path();
            let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            if is_dir {
                std::fs::remove_dir_all(&path).expect("clear root");
            } else {
                std::fs::remove_file(&path).expect("clear root");
            }
        }
        for (name, contents) in INSIDE_FILES {
            let path = self.root.join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("folder");
            std::fs::write(path, contents).expect("fixture file");
        }
        let outside = self.base.join("outside");
        for (name, target) in INSIDE_LINKS {
            let target = target.replace("{outside}", &outside.to_string_lossy());
            symlink(target, self.root.join(name)).expect("fixture symlink");
        }
    }

    /// Everything outside the root: (path, contents) of each file, (path, target) of each
    /// symlink, (path, "") of each folder, sorted.
    fn outside_state(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut state = Vec::new();
        let mut stack = vec![self.base.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read outside") {
                let path = entry.expect("outside entry").path();
                if path == self.root {
                    continue;
                }
                let meta = std::fs::symlink_metadata(&path).expect("outside metadata");
                if meta.is_dir() {
                    stack.push(path.clone());
                    state.push((path, Vec::new()));
                } else if meta.is_symlink() {
                    let target = std::fs::read_link(&path).expect("outside link");
                    state.push((path, target.into_os_string().into_encoded_bytes()));
                } else {
                    let contents = std::fs::read(&path).expect("outside file");
                    state.push((path, contents));
                }
            }
        }
        state.sort();
        state
    }

    /// Panics if anything outside the root was created, removed or changed.
    pub fn check_outside(&self) {
        let now = self.outside_state();
        if now != self.outside_before {
            let before: Vec<_> = self.outside_before.iter().map(|(p, _)| p).collect();
            let after: Vec<_> = now.iter().map(|(p, _)| p).collect();
            panic!(
                "ESCAPE: something outside the workspace root changed\nbefore: {before:?}\nafter: {after:?}"
            );
        }
    }

    /// Whether `host` (a host path that exists) resolves, following every symlink, to a place
    /// inside the root. `None` when it cannot be resolved on the host (gone, or a loop).
    pub fn resolves_inside(&self, host: &Path) -> Option<bool> {
        let canonical = std::fs::canonicalize(host).ok()?;
        Some(canonical.starts_with(&self.root))
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Fixture::new()
    }
}

/// The host path a sandbox path names under `view_root`, worked out lexically by the rules
/// the sandbox documents (`/workspace` prefix, `..` that stays inside). Independent of the
/// sandbox's own code, so it can serve as an oracle. `None` for a path that is outside by
/// those rules.
pub fn lexical_host_path(view_root: &Path, path: &str) -> Option<PathBuf> {
    if path.contains('\0') {
        return None;
    }
    let trimmed = if path == "/workspace" {
        ""
    } else if let Some(rest) = path.strip_prefix("/workspace/") {
        rest
    } else if path.starts_with('/') {
        return None;
    } else {
        path
    };
    let mut rel = PathBuf::new();
    for component in Path::new(trimmed).components() {
        match component {
            Component::Normal(part) => rel.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !rel.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(view_root.join(rel))
}

/// Whether `haystack` contains `needle`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}
