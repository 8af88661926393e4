//! `PrivateTmp`: a confined command's own temporary folder, its `TMPDIR`.

use std::path::{Path, PathBuf};

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// A folder (mode `0700`) under the host's temporary folder that only the commands of one
/// sandbox view may write, removed with everything in it when dropped.
#[derive(Debug)]
pub(crate) struct PrivateTmp {
    path: PathBuf,
}

impl PrivateTmp {
    /// A fresh folder.
    ///
    /// # Errors
    /// The host's temporary folder cannot be written.
    pub(crate) fn create() -> Result<PrivateTmp, ServiceError> {
        let path =
            std::env::temp_dir().join(format!("cy-run-{}", cy_tools::services::random_hex(8)?));
        std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
            .create(&path)
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "could not make the command's private temporary folder {}: {err}; check that the host's temporary folder is writable",
                        path.display()
                    ),
                )
            })?;
        Ok(PrivateTmp { path })
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
