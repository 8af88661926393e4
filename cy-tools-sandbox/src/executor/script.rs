//! `Script`: the file one run's code is written to.
//!
//! Runs at once must never run each other's code. A run that names no file gets a fresh one
//! (`.cy-run-<random>.py` in the workspace root, so the code can still import the workspace's
//! modules), removed when the run is over, however it ends. Runs that name the same file take
//! turns on it: each writes and runs its own code while it holds the file.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::Duration;

use cy_tools::{
    CancellationToken,
    services::{Sandbox, ServiceError, ServiceErrorKind},
};
use tokio::sync::OwnedMutexGuard;

/// The script file of one run; a fresh one is removed when this is dropped.
pub(crate) struct Script {
    env: Arc<dyn Sandbox>,
    name: String,
    fresh: bool,
    removed: bool,
    /// Held while the run uses a named file, so another run naming it waits.
    _turn: Option<OwnedMutexGuard<()>>,
}

impl Script {
    /// The file for a run: `named`, once no other run in this process holds it (waiting up to
    /// `wait`, or until `cancel`), or a fresh one.
    ///
    /// # Errors
    /// `named` is empty or outside the workspace, the wait ran out or was cancelled, or no
    /// random name could be had.
    pub(crate) async fn take(
        env: &Arc<dyn Sandbox>,
        named: Option<&str>,
        wait: Duration,
        cancel: &CancellationToken,
    ) -> Result<Script, ServiceError> {
        let Some(name) = named else {
            return Ok(Script {
                env: Arc::clone(env),
                name: format!(".cy-run-{}.py", cy_tools::services::random_hex(8)?),
                fresh: true,
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
            name: name.to_string(),
            fresh: false,
            removed: false,
            _turn: Some(turn),
        })
    }

    /// The file's path relative to the workspace.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Ends the run's use of the file: a fresh one is removed now.
    pub(crate) async fn finish(mut self) {
        if self.fresh {
            // Already gone if the code removed it itself; nothing else to do then.
            let _ = self.env.remove(&self.name).await;
        }
        self.removed = true;
    }
}

impl Drop for Script {
    /// A run that ended without [`Script::finish`] (its future was dropped: a cancelled call,
    /// a tool timeout) still has its fresh file removed, on the runtime it was running on.
    fn drop(&mut self) {
        if !self.fresh || self.removed {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let env = Arc::clone(&self.env);
            let name = std::mem::take(&mut self.name);
            handle.spawn(async move {
                let _ = env.remove(&name).await;
            });
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
