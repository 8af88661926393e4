//! `ScriptDir`: where the code of a run that names no file is written, outside the workspace.
//!
//! A fresh script in the workspace would show in every listing the model makes while the run
//! lasts (the file tools, `ls` in a command, the code's own `os.listdir`), and a model could
//! read or overwrite the script of another run going at the same time. So it is written to a
//! folder of its own under the host's temporary folder, one per executor and its clones (an
//! executor scoped to a child's folder gets its own), removed with the last of them:
//!
//! * mode `0300`: its owner may make and remove files in it and open one by name, but no
//!   process may list it, not even one of the host's user, once confinement has dropped its
//!   capabilities (root's `CAP_DAC_OVERRIDE` with them). Each script's name is 16 random hex
//!   digits, so a run cannot find another run's script by listing or guessing (a run of the
//!   same session that reads another's command line in `/proc` can read, never write, it);
//! * confined runs get the folder read-only (a Landlock rule, under the read-only view of the
//!   filesystem), so no run can overwrite a script, its own or another's; commands that are
//!   not code runs (`terminal`, background processes) get no rule for it at all;
//! * the scripts are mode `0600`, written by this process before the run and removed after it.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// The folder the fresh scripts of one executor go to; removed when dropped.
#[derive(Debug)]
pub(crate) struct ScriptDir {
    path: PathBuf,
}

/// Makes an executor's [`ScriptDir`] on its first fresh run and shares it with its clones.
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyScriptDir {
    dir: Arc<Mutex<Option<Arc<ScriptDir>>>>,
}

impl LazyScriptDir {
    /// The folder, made now if it is not there yet.
    ///
    /// # Errors
    /// The host's temporary folder cannot be written.
    pub(crate) fn get(&self) -> Result<Arc<ScriptDir>, ServiceError> {
        let mut dir = self
            .dir
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(dir) = dir.as_ref() {
            return Ok(Arc::clone(dir));
        }
        let made = Arc::new(ScriptDir::create()?);
        *dir = Some(Arc::clone(&made));
        Ok(made)
    }
}

impl ScriptDir {
    fn create() -> Result<ScriptDir, ServiceError> {
        let path =
            std::env::temp_dir().join(format!("cy-code-{}", cy_tools::services::random_hex(8)?));
        std::fs::DirBuilder::new()
            .mode(0o300)
            .create(&path)
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "could not make the folder for the code's scripts under the host's temporary folder ({err}); check that it is writable"
                    ),
                )
            })?;
        // The process's umask may have taken bits the mode asked for; none it could add.
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o300));
        Ok(ScriptDir { path })
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh script's host path: a name no other run has.
    ///
    /// # Errors
    /// No random name could be had.
    pub(crate) fn fresh(&self) -> Result<PathBuf, ServiceError> {
        Ok(self
            .path
            .join(format!("{}.py", cy_tools::services::random_hex(8)?)))
    }
}

/// Writes `code` to the new file `path` (mode `0600`), on the blocking pool.
///
/// # Errors
/// The file exists already or cannot be written.
pub(crate) async fn write(path: PathBuf, code: Vec<u8>) -> Result<(), ServiceError> {
    tokio::task::spawn_blocking(move || {
        let failed = |err: std::io::Error| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "could not write the code's script ({err}); the host's temporary folder may be full: run it again in a moment"
                ),
            )
        };
        // Made new, never opened: a name that is taken is another run's file.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(failed)?;
        file.write_all(&code).map_err(|err| {
            let _ = std::fs::remove_file(&path);
            failed(err)
        })
    })
    .await
    .unwrap_or_else(|err| {
        Err(ServiceError::new(
            ServiceErrorKind::Other,
            format!("writing the code's script failed unexpectedly: {err}"),
        ))
    })
}

impl Drop for ScriptDir {
    fn drop(&mut self) {
        // Listable again, so what a killed run may have left can be removed with it.
        let _ = std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o700));
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn scripts_go_to_an_unlisted_folder_removed_with_the_last_handle() {
        let lazy = LazyScriptDir::default();
        let dir = lazy.get().unwrap();
        assert!(
            Arc::ptr_eq(&dir, &lazy.clone().get().unwrap()),
            "clones share it"
        );
        let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o300);
        let script = dir.fresh().unwrap();
        assert_ne!(script, dir.fresh().unwrap());
        write(script.clone(), b"print(1)\n".to_vec()).await.unwrap();
        assert_eq!(std::fs::read(&script).unwrap(), b"print(1)\n");
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A second write to the same name is refused: no run takes over another's file.
        assert!(write(script.clone(), b"x".to_vec()).await.is_err());
        assert_eq!(std::fs::read(&script).unwrap(), b"print(1)\n");
        let path = dir.path().to_path_buf();
        drop((dir, lazy));
        assert!(!path.exists());
    }
}
