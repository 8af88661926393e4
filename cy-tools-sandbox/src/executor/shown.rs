//! `HostPaths`: a run's output and errors with the host's paths as the model knows them.
//!
//! Python names files by their host path (`File "/srv/ws/s-1/helper.py", line 3`), which tells
//! the model where the workspace is on the host and is no path its file tools take. A run's
//! stderr and the errors of a run that could not start are rewritten: a path beneath the
//! workspace root relative to it (`helper.py`), the root itself `.`, and a fresh script, which
//! is outside the workspace, by the name it is shown as (`<code>`). Stdout is the program's
//! data, left as it printed it.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use cy_tools::services::ServiceError;

/// The host paths of one run and how they are shown.
pub(crate) struct HostPaths {
    /// The workspace root, without a trailing `/`.
    root: String,
    /// A script outside the workspace, and its shown name.
    script: Option<(String, &'static str)>,
}

impl HostPaths {
    /// The paths of a run in the workspace at host path `root`, whose script is at `script`
    /// outside it, if it is.
    pub(crate) fn new(root: PathBuf, script: Option<(PathBuf, &'static str)>) -> HostPaths {
        let text = |path: &Path| {
            path.components()
                .collect::<PathBuf>()
                .to_string_lossy()
                .into_owned()
        };
        HostPaths {
            root: text(&root),
            script: script.map(|(path, name)| (text(&path), name)),
        }
    }

    /// `text` with the host paths shown as the model knows them.
    pub(crate) fn shown<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out = Cow::Borrowed(text);
        if let Some((script, name)) = &self.script
            && out.contains(script.as_str())
        {
            out = Cow::Owned(out.replace(script.as_str(), name));
        }
        // `/` alone as the root would turn every absolute path relative: left as it is.
        if self.root.len() > 1 && out.contains(self.root.as_str()) {
            out = Cow::Owned(beneath(&out, &self.root));
        }
        out
    }

    /// `err` with its message shown so.
    pub(crate) fn error(&self, err: ServiceError) -> ServiceError {
        match self.shown(err.message()) {
            Cow::Borrowed(_) => err,
            Cow::Owned(message) => ServiceError::new(err.kind(), message),
        }
    }
}

/// `text` with `root/…` made `…` and `root` alone `.`; a longer name that starts like the root
/// (`/srv/ws2` for `/srv/ws`) is another folder and stays.
fn beneath(text: &str, root: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(root) {
        out.push_str(&rest[..at]);
        let after = &rest[at + root.len()..];
        match after.chars().next() {
            Some('/') => rest = &after[1..],
            Some(c) if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') => {
                out.push_str(root);
                rest = after;
            }
            _ => {
                out.push('.');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cy_tools::services::ServiceErrorKind;

    #[test]
    fn tracebacks_name_workspace_files_relative_and_the_script_by_its_name() {
        let paths = HostPaths::new(
            PathBuf::from("/srv/ws/."),
            Some((PathBuf::from("/tmp/cy-code-ab/0123.py"), "<code>")),
        );
        let traceback = "Traceback (most recent call last):\n  File \"/tmp/cy-code-ab/0123.py\", line 2, in <module>\n  File \"/srv/ws/lib/helper.py\", line 3, in f\nFileNotFoundError: [Errno 2] No such file or directory: '/srv/ws/data.csv'\nPermissionError: '/srv/ws'";
        assert_eq!(
            paths.shown(traceback),
            "Traceback (most recent call last):\n  File \"<code>\", line 2, in <module>\n  File \"lib/helper.py\", line 3, in f\nFileNotFoundError: [Errno 2] No such file or directory: 'data.csv'\nPermissionError: '.'"
        );
        // Another folder whose name starts like the root is not the workspace.
        assert_eq!(
            paths.shown("/srv/ws2/a and /srv/ws.old"),
            "/srv/ws2/a and /srv/ws.old"
        );
        assert!(matches!(paths.shown("nothing here"), Cow::Borrowed(_)));
        let err = paths.error(ServiceError::new(
            ServiceErrorKind::Unavailable,
            "could not start `/bin/sh` in `/srv/ws/sub`: gone",
        ));
        assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
        assert_eq!(err.message(), "could not start `/bin/sh` in `sub`: gone");
        // A root of `/` rewrites nothing.
        let root = HostPaths::new(PathBuf::from("/"), None);
        assert_eq!(root.shown("/etc/passwd"), "/etc/passwd");
    }
}
