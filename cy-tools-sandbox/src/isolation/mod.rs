//! Isolation: every process the sandbox starts (a `terminal` command, a background process, an
//! `execute_code` run, locally or on a control server) runs confined by the kernel, without
//! root and without a helper process.
//!
//! The rules are built in this process (once per sandbox view, see [`Confinements`]; the
//! view's namespaces by a short-lived child) and applied in each new process between `fork` and
//! `exec` (see [`sys`]), so nothing of the command runs unconfined and no extra process is
//! started per command:
//!
//! * **Filesystem** (Landlock): read-write only the view's folder (a child session's subfolder
//!   is its whole world) and the view's private temporary folder (its commands' `TMPDIR`,
//!   removed with the view); read and
//!   run the system folders (`/usr`, `/bin`, `/sbin`, `/lib*`, `/etc`) and the installation
//!   folder of the interpreters on the command's `PATH` (`python3`, `python`, `uv`, resolved
//!   from their real path, so a pyenv installation under a home folder works); read `/proc`,
//!   `/sys/devices/system/cpu` and the random devices; use `/dev/null` and `/dev/zero`; and
//!   whatever [`ExecLimits::read_only`](super::ExecLimits::read_only) adds. Nothing else: not
//!   the rest of the home folder, not other workspaces.
//! * **Metadata** (a mount namespace, see [`namespace`]; seccomp): everything outside the two
//!   writable folders is mounted read-only, so no `chmod`, `chown`, `touch` or `setxattr`
//!   reaches it (Landlock does not cover metadata); no mode with a setuid or setgid bit is
//!   accepted anywhere, and every mount is `nosuid`.
//! * **Other processes** (Landlock scopes, seccomp): no signals to processes outside the
//!   command, no tracing, no reading another process's memory, environment, descriptors or
//!   folders through `/proc` (Landlock refuses that across domains), no stealing descriptors
//!   (`pidfd_getfd`), no new namespaces.
//! * **Network** (seccomp): no new sockets but `socketpair`, unless the isolation is
//!   [`Isolation::Network`], which adds IPv4, IPv6 and netlink sockets. Descriptors the command
//!   was handed (code mode's channel) keep working.
//! * **Privileges**: no new privileges (a setuid program runs as the caller), and no
//!   capabilities at all: neither a root host's (so a command cannot raise its own limits or
//!   write past the rules with root's overrides) nor those a process has in the user namespace
//!   it joined (with which it could mount its view writable again).
//!
//! On a kernel without Landlock ABI 6 (Linux 6.12 or later) or seccomp, or a host that may not
//! make the view's mount namespace (and, when it is not root, its user namespace), commands are
//! refused with an error that names `--isolation none`; nothing falls back silently.

mod bpf;
mod filter;
mod namespace;
mod ruleset;
mod sys;
mod tmp;

use std::collections::HashMap;
use std::fmt;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use cy_tools::services::{ServiceError, ServiceErrorKind};
use serde::{Deserialize, Serialize};

pub(crate) use sys::{ChildSetup, install};
pub(crate) use tmp::PrivateTmp;

use super::ExecLimits;

use filter::FilterRules;
use ruleset::{DEVICE, READ, READ_EXECUTE, READ_WRITE, Rule};

/// How confined the commands a sandbox runs are: one policy, the same names in the library, the
/// session settings and on the command line (`--isolation strict|network|none`).
///
/// ```
/// use cy_tools_sandbox::Isolation;
///
/// assert_eq!(Isolation::default(), Isolation::Strict);
/// assert_eq!("network".parse::<Isolation>().unwrap(), Isolation::Network);
/// assert_eq!(Isolation::None.to_string(), "none");
/// let err = "open".parse::<Isolation>().unwrap_err();
/// assert_eq!(err, "isolation `open` is not one of `strict`, `network` or `none`");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// The workspace and a private temporary folder only, no network (the default).
    #[default]
    Strict,
    /// [`Strict`](Self::Strict), plus IPv4, IPv6 and netlink sockets.
    Network,
    /// Unconfined: commands run with this process's rights (resource limits still apply).
    None,
}

impl Isolation {
    /// Its name, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Strict => "strict",
            Isolation::Network => "network",
            Isolation::None => "none",
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Isolation {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strict" => Ok(Isolation::Strict),
            "network" => Ok(Isolation::Network),
            "none" => Ok(Isolation::None),
            other => Err(format!(
                "isolation `{other}` is not one of `strict`, `network` or `none`"
            )),
        }
    }
}

/// The lowest Landlock ABI isolation works with: 6 brought the scopes that keep signals and
/// abstract sockets inside the command.
const MIN_ABI: u32 = 6;

/// The confinement of one sandbox view: the same for every command the view runs, so it is
/// built once (on the view's first command) and reused; a command that asks to read more
/// (code mode's module folder) gets one built for that, reused the same way.
pub(crate) struct Confinements {
    isolation: Isolation,
    workspace: PathBuf,
    read_only: Vec<PathBuf>,
    path_var: String,
    built: Mutex<HashMap<Vec<PathBuf>, Arc<Confinement>>>,
}

impl Confinements {
    /// The confinements of the view of `workspace` under `limits`.
    pub(crate) fn new(limits: &ExecLimits, workspace: &Path) -> Self {
        Confinements {
            isolation: limits.isolation,
            workspace: workspace.to_path_buf(),
            read_only: limits.read_only.clone(),
            path_var: limits.path.clone(),
            built: Mutex::new(HashMap::new()),
        }
    }

    /// What a command reading `extra` as well is confined to; `None` when isolation is off.
    ///
    /// # Errors
    /// The kernel cannot confine commands (see [`supported`]), or the ruleset or private folder
    /// cannot be made.
    pub(crate) fn for_command(
        &self,
        extra: &[PathBuf],
    ) -> Result<Option<Arc<Confinement>>, ServiceError> {
        if self.isolation == Isolation::None {
            return Ok(None);
        }
        let mut built = self
            .built
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(confinement) = built.get(extra) {
            return Ok(Some(Arc::clone(confinement)));
        }
        let read_only: Vec<PathBuf> = self.read_only.iter().chain(extra).cloned().collect();
        let confinement = Arc::new(Confinement::build(&Scope {
            isolation: self.isolation,
            workspace: &self.workspace,
            read_only: &read_only,
            path_var: &self.path_var,
        })?);
        built.insert(extra.to_vec(), Arc::clone(&confinement));
        Ok(Some(confinement))
    }
}

/// What commands are confined to besides their folder.
struct Scope<'a> {
    isolation: Isolation,
    /// The folder they may write (the view's folder).
    workspace: &'a Path,
    /// Folders and files they may also read (settings and the call's own).
    read_only: &'a [PathBuf],
    /// Their `PATH`, where their interpreters are looked up.
    path_var: &'a str,
}

/// A built confinement: the Landlock ruleset (one ruleset serves any number of processes), the
/// seccomp program, the namespaces of the read-only view of the filesystem (see [`namespace`]),
/// and the private temporary folder that is its commands' `TMPDIR`.
pub(crate) struct Confinement {
    pub(crate) ruleset: OwnedFd,
    pub(crate) filter: Vec<libc::sock_filter>,
    namespaces: sys::Namespaces,
    tmp: PrivateTmp,
}

impl Confinement {
    fn build(scope: &Scope<'_>) -> Result<Confinement, ServiceError> {
        supported()?;
        let tmp = PrivateTmp::create()?;
        let mut rules = vec![
            rule(scope.workspace, READ_WRITE),
            rule(tmp.path(), READ_WRITE),
        ];
        for dir in [
            "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
        ] {
            rules.push(rule(Path::new(dir), READ_EXECUTE));
        }
        for path in [
            "/proc",
            "/sys/devices/system/cpu",
            "/dev/urandom",
            "/dev/random",
        ] {
            rules.push(rule(Path::new(path), READ));
        }
        for device in ["/dev/null", "/dev/zero", "/dev/full"] {
            rules.push(rule(Path::new(device), DEVICE));
        }
        for dir in interpreter_homes(scope.path_var) {
            rules.push(rule(&dir, READ_EXECUTE));
        }
        for path in scope.read_only {
            rules.push(rule(path, READ_EXECUTE));
        }
        let ruleset = ruleset::build(&rules).map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "could not build the commands' isolation rules: {err}; check the read-only paths in the settings, or run with `--isolation none`"
                ),
            )
        })?;
        let namespaces = namespace::build(&[scope.workspace, tmp.path()])?;
        Ok(Confinement {
            ruleset,
            filter: filter::program(FilterRules {
                inet: scope.isolation == Isolation::Network,
            }),
            namespaces,
            tmp,
        })
    }

    /// The commands' `TMPDIR`: the view's private temporary folder, shared by its commands (as
    /// its workspace is) and removed with the view. One folder per command would cost a
    /// `mkdir` and a recursive removal on every command, a fifth of a short command's time.
    pub(crate) fn tmp_path(&self) -> &Path {
        self.tmp.path()
    }
}

fn rule(path: &Path, access: u64) -> Rule {
    Rule {
        path: path.to_path_buf(),
        access,
    }
}

/// Whether this kernel can confine commands; the error says what is missing and what to do.
///
/// # Errors
/// [`Unavailable`](ServiceErrorKind::Unavailable): no Landlock, or one older than ABI 6.
pub(crate) fn supported() -> Result<(), ServiceError> {
    static SUPPORT: OnceLock<Result<(), String>> = OnceLock::new();
    SUPPORT
        .get_or_init(|| match sys::landlock_abi() {
            Ok(abi) if abi >= MIN_ABI => Ok(()),
            Ok(abi) => Err(format!(
                "this kernel's Landlock is ABI {abi}, and confining commands needs ABI {MIN_ABI} (Linux 6.12 or later)"
            )),
            Err(err) => Err(format!(
                "this kernel offers no Landlock ({err}; it must be built in and listed in the `lsm=` boot parameter)"
            )),
        })
        .clone()
        .map_err(|why| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "{why}, so the command was not run; run it on a kernel that has it, or turn isolation off with `--isolation none` (`Isolation::None`) if the commands are trusted"
                ),
            )
        })
}

/// The installation folders of the interpreters on `path_var`, outside the system folders
/// already allowed: for `/root/.pyenv/versions/3.11.7/bin/python3.11`, the folder
/// `/root/.pyenv/versions/3.11.7`. Looked up once per `PATH`.
fn interpreter_homes(path_var: &str) -> Vec<PathBuf> {
    static HOMES: LazyLock<Mutex<HashMap<String, Vec<PathBuf>>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut homes = HOMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    homes
        .entry(path_var.to_string())
        .or_insert_with(|| find_homes(path_var))
        .clone()
}

fn find_homes(path_var: &str) -> Vec<PathBuf> {
    let system = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"];
    let mut homes: Vec<PathBuf> = Vec::new();
    for name in ["python3", "python", "uv"] {
        let Some(real) = std::env::split_paths(path_var)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
            .and_then(|found| found.canonicalize().ok())
        else {
            continue;
        };
        let Some(dir) = real.parent() else { continue };
        let home = match dir.file_name().and_then(|n| n.to_str()) {
            Some("bin" | "shims") => dir.parent().unwrap_or(dir),
            _ => dir,
        };
        if system.iter().any(|s| home.starts_with(s)) || homes.iter().any(|h| home.starts_with(h)) {
            continue;
        }
        homes.push(home.to_path_buf());
    }
    homes
}

/// Opens `procs` (a cgroup's `cgroup.procs`) for the new process to join by writing to it.
pub(crate) fn cgroup_procs(procs: &Path) -> Result<OwnedFd, ServiceError> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(procs)
        .map(OwnedFd::from)
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "could not open the command's process-count cgroup {}: {err}; the host removed it or lost write access to it, so run the command again",
                    procs.display()
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_outside_the_system_folders_bring_their_installation() {
        let dir = tempfile::tempdir().unwrap();
        let versions = dir.path().join("pyenv/versions/3.11.7/bin");
        std::fs::create_dir_all(&versions).unwrap();
        std::fs::write(versions.join("python3.11"), "").unwrap();
        std::os::unix::fs::symlink("python3.11", versions.join("python3")).unwrap();
        let path_var = format!("{}:/usr/bin:/bin", versions.display());
        let homes = find_homes(&path_var);
        let home = dir
            .path()
            .canonicalize()
            .unwrap()
            .join("pyenv/versions/3.11.7");
        assert_eq!(homes.first(), Some(&home), "{homes:?}");
        // The system's own interpreter adds nothing.
        assert!(find_homes("/usr/bin:/bin").is_empty());
    }
}
