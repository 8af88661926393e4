//! The host's own files kept out of every workspace.
//!
//! A command may write anything in its workspace, and the host reads its embedded store
//! (`sessions.db`, `chat.jsonl`) and the command line's session file unconfined: either in the
//! workspace would let one call's command rewrite a spec (its workspace `"/"`, say) that the
//! next call then obeys. So a store or a session file inside the workspace is refused before
//! anything runs, with a place outside to use instead. (The code-mode package lives in a private folder of the host's temporary folder,
//! see `cy-tools-code-mode`; the host has no other file it reads back.) A host that keeps
//! such files of its own (the command line's session file) checks them with these too.

use std::path::{Component, Path, PathBuf};

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// Refuses when `store` (the embedded store's folder, which may not exist yet) is `workspace`
/// or inside it.
///
/// # Errors
/// [`InvalidInput`](ServiceErrorKind::InvalidInput), naming a folder beside the workspace.
pub fn store_outside(workspace: &Path, store: &Path) -> Result<(), ServiceError> {
    outside(
        workspace,
        store,
        "the store",
        "could rewrite the sessions it holds",
        ".cy-store",
    )
}

/// Refuses when the session file `spec` (read by the host at every start) is inside
/// `workspace`.
///
/// # Errors
/// [`InvalidInput`](ServiceErrorKind::InvalidInput), naming a file beside the workspace.
pub fn spec_outside(workspace: &Path, spec: &Path) -> Result<(), ServiceError> {
    outside(
        workspace,
        spec,
        "the session file",
        "could rewrite it (its workspace, tools and approval policy) for the next start",
        ".session.json",
    )
}

fn outside(
    workspace: &Path,
    place: &Path,
    what: &str,
    risk: &str,
    suffix: &str,
) -> Result<(), ServiceError> {
    let workspace = resolved(workspace);
    let place = resolved(place);
    if !place.starts_with(&workspace) {
        return Ok(());
    }
    let instead = match (workspace.parent(), workspace.file_name()) {
        (Some(parent), Some(name)) => {
            let mut name = name.to_os_string();
            name.push(suffix);
            parent.join(name)
        }
        _ => Path::new("/var/lib/cy-tools").join(suffix.trim_start_matches('.')),
    };
    Err(ServiceError::new(
        ServiceErrorKind::InvalidInput,
        format!(
            "{what} `{}` is inside the workspace `{}`, where commands can write, so a command {risk}; keep it outside every workspace, for example `{}`",
            place.display(),
            workspace.display(),
            instead.display()
        ),
    ))
}

/// `path` made absolute, `.` and `..` taken out as written, then its links resolved as far as
/// it exists (the store's folder may not, yet).
fn resolved(path: &Path) -> PathBuf {
    let absolute = match std::env::current_dir() {
        Ok(cwd) => cwd.join(path),
        Err(_) => path.to_path_buf(),
    };
    let mut lexical = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(mut real) = existing.canonicalize() {
            real.extend(rest.iter().rev());
            return real;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_in_the_workspace_or_below_is_refused_one_beside_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let ws = real.join("ws");
        std::fs::create_dir(&ws).unwrap();
        // A link to the workspace is the workspace.
        std::os::unix::fs::symlink(&ws, real.join("link")).unwrap();
        for store in [
            ws.clone(),
            ws.join(".cy-store"),
            ws.join("a/b/../c"),
            real.join("link/store"),
            real.join("elsewhere/../ws/x"),
        ] {
            let err = store_outside(&ws, &store).unwrap_err();
            assert_eq!(err.kind(), ServiceErrorKind::InvalidInput);
            assert!(
                err.message().ends_with(&format!(
                    "for example `{}`",
                    real.join("ws.cy-store").display()
                )),
                "{err}"
            );
        }
        for store in [
            real.join("ws.cy-store"),
            real.join("ws2"),
            real.join("ws/../other"),
        ] {
            store_outside(&ws, &store).unwrap();
        }
        assert!(store_outside(Path::new("/"), &ws).is_err());
    }
}
