//! The cgroups of commands: one process budget per sandbox view, and a cgroup per command that
//! is emptied, to the last process, when the command ends.
//!
//! `RLIMIT_NPROC` counts every process of a user and the kernel ignores it for root, which is
//! what most sandbox hosts run as. A pids cgroup counts exactly the commands' own processes and
//! threads, whoever runs them, and refuses `fork` past `pids.max`. Each sandbox view gets one
//! ([`ViewCgroup`]) holding the view's budget, so the commands a session runs at once share it
//! rather than getting one each; each command a child of it ([`RunCgroup`]) with its own limit.
//! The new process joins its command's cgroups itself, before the shell starts (see
//! [`isolation`](crate::isolation)), so nothing it starts is ever outside them.
//!
//! A process group does not hold what called `setsid()`; a cgroup does. So a command's cgroup
//! is emptied when the command ends (its leader exited, it was killed or cancelled, its session
//! ended), see [`kill`]. Where the pids controller has no `cgroup.kill` (cgroup v1, as on hosts
//! with a hybrid tree), each command also joins a cgroup of the v2 tree, which has it; failing
//! that, of the v1 freezer.
//!
//! Each tree gets a folder per host, `cy-tools-<host>/` in this process's own cgroup, named so
//! that a host in another pid namespace is never taken for dead ([`host`]). Hosts that cannot
//! write there (an unprivileged user without a delegated cgroup, a read-only `/sys/fs/cgroup`)
//! fall back to rlimits for the count (see [`super::resources`]) and to process groups for the
//! end, which a process that called `setsid()` outlives.
//!
//! The cgroups also know a host's processes when the host does not: a host killed with
//! `SIGKILL` leaves its commands going, and the next host to start kills them
//! ([`sweep_stale`]) and removes its folders.

mod host;
mod kill;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use host::HostId;
use kill::{Kill, kill_all, remove_when_empty};

/// How long a cgroup folder is retried for removal while its last processes die.
const REMOVE_FOR: Duration = Duration::from_secs(10);

/// How long a starting host waits, at most, for the runs of dead hosts it killed to be reaped.
const SWEEP_WAIT: Duration = Duration::from_secs(2);

/// One cgroup hierarchy commands are put in, and what it does for them.
#[derive(Debug)]
struct Tree {
    /// This host's folder in it.
    base: PathBuf,
    /// Whether its cgroups count processes (`pids.max`).
    counts: bool,
    /// cgroup v2: a child counts only when `+pids` is in its parent's `cgroup.subtree_control`.
    v2: bool,
    kill: Kill,
}

/// The cgroups of one sandbox view: its process budget, and the parent of its commands'
/// cgroups. Made on the view's first command; killed and removed with the view (once its
/// commands' cgroups are gone too).
#[derive(Debug)]
pub(crate) struct ViewCgroup {
    budget: Option<u32>,
    made: OnceLock<Option<Arc<ViewDirs>>>,
}

#[derive(Debug)]
struct ViewDirs {
    /// One folder per tree, in the order of [`trees`].
    dirs: Vec<PathBuf>,
}

/// The cgroups of one command, emptied by [`kill`](Self::kill) and removed (once empty) when
/// dropped.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    dirs: Vec<PathBuf>,
    /// Kept so the view's folders outlive this one's.
    _view: Arc<ViewDirs>,
}

impl ViewCgroup {
    /// The cgroups of a view whose commands may run `budget` processes together.
    pub(crate) fn new(budget: Option<u32>) -> Self {
        ViewCgroup {
            budget,
            made: OnceLock::new(),
        }
    }

    fn dirs(&self) -> Option<&Arc<ViewDirs>> {
        self.made
            .get_or_init(|| {
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let name = format!("view-{}", NEXT.fetch_add(1, Ordering::Relaxed));
                let mut view = ViewDirs { dirs: Vec::new() };
                for tree in trees() {
                    let dir = tree.base.join(&name);
                    fs::create_dir(&dir).ok()?;
                    view.dirs.push(dir.clone());
                    if tree.counts {
                        if let Some(budget) = self.budget {
                            fs::write(dir.join("pids.max"), budget.to_string()).ok()?;
                        }
                        if tree.v2 {
                            fs::write(dir.join("cgroup.subtree_control"), "+pids").ok()?;
                        }
                    }
                }
                (!view.dirs.is_empty()).then(|| Arc::new(view))
            })
            .as_ref()
    }

    /// Kills every process of the view's commands.
    pub(crate) fn kill(&self) {
        if let Some(Some(view)) = self.made.get() {
            view.kill();
        }
    }
}

impl ViewDirs {
    fn kill(&self) {
        for (dir, tree) in self.dirs.iter().zip(trees()) {
            kill_all(dir, tree.kill);
        }
    }
}

impl Drop for ViewDirs {
    fn drop(&mut self) {
        self.kill();
        remove_later(std::mem::take(&mut self.dirs));
    }
}

impl RunCgroup {
    /// A cgroup for a command of `view` allowing `max` processes (`None`: the view's budget
    /// only), or `None` when this host cannot make one.
    pub(crate) fn create(view: &ViewCgroup, max: Option<u32>) -> Option<RunCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let parent = view.dirs()?;
        let name = format!("run-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let mut run = RunCgroup {
            dirs: Vec::new(),
            _view: Arc::clone(parent),
        };
        for (dir, tree) in parent.dirs.iter().zip(trees()) {
            let dir = dir.join(&name);
            fs::create_dir(&dir).ok()?;
            run.dirs.push(dir.clone());
            if let (true, Some(max)) = (tree.counts, max) {
                fs::write(dir.join("pids.max"), max.to_string()).ok()?;
            }
        }
        Some(run)
    }

    /// Whether the command's processes are counted (else only rlimits can count them).
    pub(crate) fn counts(&self) -> bool {
        trees().first().is_some_and(|tree| tree.counts)
    }

    /// The files a process writes its pid into to join, one per tree.
    pub(crate) fn procs_files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.dirs.iter().map(|dir| dir.join("cgroup.procs"))
    }

    /// Kills every process of the command, whatever process group or session it is in now.
    pub(crate) fn kill(&self) {
        // The best way any of its trees has is enough: every process is in each of them.
        let best = self
            .dirs
            .iter()
            .zip(trees())
            .min_by_key(|(_, tree)| tree.kill as u8);
        if let Some((dir, tree)) = best {
            kill_all(dir, tree.kill);
        }
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        remove_later(std::mem::take(&mut self.dirs));
    }
}

/// Removes `dirs` once empty: usually at once, otherwise a short-lived thread waits for the
/// last killed processes to be reaped, so the caller is not held up.
fn remove_later(dirs: Vec<PathBuf>) {
    let left: Vec<PathBuf> = dirs
        .into_iter()
        .filter(|dir| !remove_when_empty(dir, Duration::ZERO))
        .collect();
    if left.is_empty() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("cy-cgroup-rm".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            for dir in &left {
                remove_when_empty(dir, REMOVE_FOR);
            }
        });
}

/// This host's trees, found and prepared on first use: the one that counts first, then, if
/// that one has no `cgroup.kill`, one that kills better. Empty when the host can make none.
fn trees() -> &'static [Tree] {
    static TREES: OnceLock<Vec<Tree>> = OnceLock::new();
    TREES.get_or_init(|| {
        let (Ok(own), Some(host)) = (fs::read_to_string("/proc/self/cgroup"), HostId::own()) else {
            return Vec::new();
        };
        let mut trees: Vec<Tree> = Vec::new();
        for place in places(&own) {
            let counting = trees.first().is_some_and(|t| t.counts);
            let killing = trees.iter().map(|t| t.kill as u8).min().unwrap_or(u8::MAX);
            let wanted = (place.counts && !counting) || (place.kill as u8) < killing;
            if !wanted {
                continue;
            }
            sweep_stale(&place.base, &host, place.kill);
            let base = place.base.join(host.folder());
            if prepare(&base, &place).is_ok() {
                trees.push(Tree { base, ..place });
            }
        }
        // The counting tree, when there is one, comes first: see `RunCgroup::counts`.
        trees.sort_by_key(|t| !t.counts);
        trees
    })
}

/// The cgroups this process is in that could hold commands, from the lines of
/// `/proc/self/cgroup`, with `base` the process's own cgroup: the v1 `pids` hierarchy, the v2
/// one, the v1 freezer, in that order.
fn places(own: &str) -> Vec<Tree> {
    let mut found = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        let v1 = |kill| Tree {
            base: Path::new("/sys/fs/cgroup").join(controllers).join(path),
            counts: kill == Kill::OneByOne,
            v2: false,
            kill,
        };
        if controllers.split(',').any(|c| c == "pids") {
            found.insert(0, v1(Kill::OneByOne));
        } else if controllers.split(',').any(|c| c == "freezer") {
            found.push(v1(Kill::Freeze));
        } else if controllers.is_empty() {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let base = Path::new(root).join(path);
                if !Path::new(root).join("cgroup.controllers").exists() {
                    continue;
                }
                // A child of `base` counts when `base` hands the controller down.
                let handed = fs::read_to_string(base.join("cgroup.subtree_control"));
                let counts = handed.is_ok_and(|c| c.split_whitespace().any(|c| c == "pids"));
                let v2 = Tree {
                    base,
                    counts,
                    v2: true,
                    kill: Kill::Switch,
                };
                let at = found.iter().position(|t| t.kill == Kill::Freeze);
                found.insert(at.unwrap_or(found.len()), v2);
            }
        }
    }
    found
}

/// Makes `base` (or reuses it) and checks its children will count and kill as `tree` says.
fn prepare(base: &Path, tree: &Tree) -> io::Result<()> {
    match fs::create_dir(base) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    let needed = match tree.kill {
        Kill::Switch => "cgroup.kill",
        Kill::Freeze => "freezer.state",
        Kill::OneByOne => "pids.max",
    };
    if !base.join(needed).exists() || (tree.counts && !base.join("pids.max").exists()) {
        let _ = fs::remove_dir(base);
        return Err(io::Error::other(
            "this cgroup tree lacks what commands need",
        ));
    }
    if tree.counts && tree.v2 {
        fs::write(base.join("cgroup.subtree_control"), "+pids")?;
    }
    Ok(())
}

/// Cleans up after hosts of this pid namespace that are gone: a host killed with `SIGKILL`
/// could not stop its commands, which then live on with no one to read their output. They are
/// killed, and the host's folders removed once empty.
fn sweep_stale(parent: &Path, own: &HostId, kill: Kill) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let stale: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| HostId::is_gone(name, own, host::start_time))
        })
        .map(|entry| entry.path())
        .collect();
    if stale.is_empty() {
        return;
    }
    // Killing is a few system calls, done now so it happens even if this host is a one-shot
    // command that exits right away. So is a short wait for the killed commands to be reaped
    // and their folders removed: a one-shot host may be gone before a thread could do it.
    // What is still there after that is left to a thread (and to the next host).
    for host in &stale {
        kill_all(host, kill);
    }
    let start = std::time::Instant::now();
    let left: Vec<PathBuf> = stale
        .into_iter()
        .filter(|host| !remove_when_empty(host, SWEEP_WAIT.saturating_sub(start.elapsed())))
        .collect();
    if !left.is_empty() {
        remove_later(left);
    }
}

#[cfg(test)]
mod tests;
