//! `Script`: the file one run's code is written to.
//!
//! Runs at once must never run each other's code. A run that names no file gets a fresh one
//! outside the workspace (in the executor's [`ScriptDir`], so nothing of the runtime shows in
//! the workspace the model lists), removed when the run is over, however it ends. Runs that
//! name the same file take turns on it: each writes and runs its own code while it holds the
//! file.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::Duration;

use cy_tools::{
    CancellationToken,
    services::{Sandbox, ServiceError, ServiceErrorKind},
};
use tokio::sync::OwnedMutexGuard;

use super::scripts::{self, LazyScriptDir, ScriptDir};

/// The script file of one run; a fresh one is removed when this is dropped.
pub(crate) struct Script {
    env: Arc<dyn Sandbox>,
    place: Place,
    removed: bool,
    /// Held while the run uses a named file, so another run naming it waits.
    _turn: Option<OwnedMutexGuard<()>>,
}

/// Where a script is.
enum Place {
    /// The file the run named, relative to the workspace.
    Named(String),
    /// A fresh file, by its host path, in the folder it keeps alive.
    Fresh(PathBuf, Arc<ScriptDir>),
}

/// How tracebacks and messages name a fresh script: it is no file the model can open, and
/// Python names code that comes from no file the same way (`<string>`, `<stdin>`).
pub(crate) const FRESH_NAME: &str = "<code>";

impl Script {
    /// The file for a run: `named`, once no other run in this process holds it (waiting up to
    /// `wait`, or until `cancel`), or a fresh one.
    ///
    /// # Errors
    /// `named` is empty or outside the workspace, the wait ran out or was cancelled, or no
    /// random name could be had.
    pub(crate) async fn take(
        env: &Arc<dyn Sandbox>,
        (named, scripts): (Option<&str>, &LazyScriptDir),
        wait: Duration,
        cancel: &CancellationToken,
    ) -> Result<Script, ServiceError> {
        let Some(name) = named else {
            let dir = scripts.get()?;
            return Ok(Script {
                env: Arc::clone(env),
                place: Place::Fresh(dir.fresh()?, dir),
                removed: false,
                _turn: None,
            });
        };
        if name.trim().is_empty() {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "`filename` is empty; pass a file name such as `main.py`, or leave it out for a fresh file",
            ));
        }
        let turn = take_turn(env.resolve_path(name)?, name, wait, cancel).await?;
        Ok(Script {
            env: Arc::clone(env),
            place: Place::Named(name.to_string()),
            removed: false,
            _turn: Some(turn),
        })
    }

    /// Writes the run's code to the file.
    ///
    /// # Errors
    /// It cannot be written.
    pub(crate) async fn write(&self, code: Vec<u8>) -> Result<(), ServiceError> {
        match &self.place {
            Place::Named(name) => self.env.write_scratch(name, code).await,
            Place::Fresh(path, _) => scripts::write(path.clone(), code).await,
        }
    }

    /// The file's host path, which the command runs.
    ///
    /// # Errors
    /// A named file resolves outside the workspace.
    pub(crate) fn host_path(&self) -> Result<PathBuf, ServiceError> {
        match &self.place {
            Place::Named(name) => self.env.resolve_path(name),
            Place::Fresh(path, _) => Ok(path.clone()),
        }
    }

    /// The folder of a fresh script, which a confined run must be allowed to read; `None`
    /// for a named file (in the workspace, which every run may read).
    pub(crate) fn outside_folder(&self) -> Option<&std::path::Path> {
        match &self.place {
            Place::Named(_) => None,
            Place::Fresh(_, dir) => Some(dir.path()),
        }
    }

    /// Ends the run's use of the file: a fresh one is removed now.
    pub(crate) async fn finish(mut self) {
        if let Place::Fresh(path, _) = &self.place {
            // Already gone if the code removed it itself (it cannot, confined); nothing else
            // to do then.
            let path = path.clone();
            let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(path)).await;
        }
        self.removed = true;
    }
}

impl Drop for Script {
    /// A run that ended without [`Script::finish`] (its future was dropped: a cancelled call,
    /// a tool timeout) still has its fresh file removed.
    fn drop(&mut self) {
        if self.removed {
            return;
        }
        if let Place::Fresh(path, _) = &self.place {
            // One unlink: done here rather than on a runtime that may be shutting down.
            let _ = std::fs::remove_file(path);
        }
    }
}

/// One lock per script path in use in this process. Entries are weak, so a path nobody holds
/// or waits for costs nothing; dead entries are swept whenever one is added.
static TURNS: LazyLock<Mutex<HashMap<PathBuf, Weak<tokio::sync::Mutex<()>>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

async fn take_turn(
    path: PathBuf,
    name: &str,
    wait: Duration,
    cancel: &CancellationToken,
) -> Result<OwnedMutexGuard<()>, ServiceError> {
    let lock = {
        let mut turns = TURNS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match turns.get(&path).and_then(Weak::upgrade) {
            Some(lock) => lock,
            None => {
                turns.retain(|_, lock| lock.strong_count() > 0);
                let lock = Arc::new(tokio::sync::Mutex::new(()));
                turns.insert(path, Arc::downgrade(&lock));
                lock
            }
        }
    };
    tokio::select! {
        turn = tokio::time::timeout(wait, lock.lock_owned()) => turn.map_err(|_| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "another run has been using `{name}` for {} ms, so this code did not run; leave `filename` out to run in a fresh file, or name a file no other run uses",
                    wait.as_millis()
                ),
            )
        }),
        () = cancel.cancelled() => Err(ServiceError::new(
            ServiceErrorKind::Other,
            format!("the run was cancelled while it waited for another run to finish with `{name}`; nothing of it ran"),
        )),
    }
}
