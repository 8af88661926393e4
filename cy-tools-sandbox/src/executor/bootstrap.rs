//! The bootstrap a run starts in when its code must import modules from folders of the host's
//! choosing ([`CodeOptions::python_path`](cy_tools::services::CodeOptions::python_path): code mode's
//! `cy_sdk`).
//!
//! `PYTHONPATH` is not enough: Python's isolated mode (`python3 -I`) ignores it and leaves the
//! script's folder off `sys.path`. Nor can a line be put in front of the code: that moves every
//! line number the model sees in a traceback, and a first line of its own would break a
//! `from __future__` import. So the command runs a short script instead, which puts the folders
//! first on `sys.path`, compiles the code's own file under its own name and
//! runs it as `__main__`. Tracebacks and syntax errors name the code's file and lines exactly
//! as `python3 file` would; the bootstrap's own frames are left out of them. The bootstrap is
//! the same for every run (the code's file and the folders come in two variables it removes),
//! one file in the first folder, which the run may read already: nothing new in the workspace
//! for the code's own listing to see. Code with inline metadata (PEP 723) gets a bootstrap of
//! its own in the workspace, removed after the run, carrying the metadata so that
//! `uv run --script` still installs what the code asks for.

use std::path::{Path, PathBuf};

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// The variable naming the code's file, for the bootstrap (which removes it before the code
/// runs).
pub(crate) const SCRIPT_VAR: &str = "CY_RUN_SCRIPT";
/// The variable listing the folders to import from (`:`-separated), likewise removed.
pub(crate) const PATH_VAR: &str = "CY_RUN_PATH";

/// The variables the bootstrap reads: the code's file `script` and the folders `dirs`.
///
/// # Errors
/// A folder's path contains `:`.
pub(crate) fn env(script: &Path, dirs: &[PathBuf]) -> Result<Vec<(String, String)>, ServiceError> {
    let joined = std::env::join_paths(dirs).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("the folders to import from cannot be listed in one variable: {err}; use folders whose paths have no `:`"),
        )
    })?;
    Ok(vec![
        (
            SCRIPT_VAR.to_string(),
            script.to_string_lossy().into_owned(),
        ),
        (PATH_VAR.to_string(), joined.to_string_lossy().into_owned()),
    ])
}

/// The bootstrap every run without inline metadata shares: `.cy-boot.py` in `dir`, written
/// when it is not there yet. It holds nothing of any one run, so the runs of other sessions
/// that read the same folder learn nothing from it.
///
/// # Errors
/// `dir` cannot be written.
pub(crate) fn shared(dir: &Path) -> Result<PathBuf, ServiceError> {
    let path = dir.join(".cy-boot.py");
    if path.is_file() {
        return Ok(path);
    }
    // Written aside and renamed, so a run starting meanwhile never reads half of it.
    let aside = dir.join(format!(
        ".cy-boot-{}.tmp",
        cy_tools::services::random_hex(8)?
    ));
    std::fs::write(&aside, RUNNER)
        .and_then(|()| std::fs::rename(&aside, &path))
        .map_err(|err| {
            let _ = std::fs::remove_file(&aside);
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "could not write the runs' bootstrap `{}`: {err}; check that the host's temporary folder is writable",
                    path.display()
                ),
            )
        })?;
    Ok(path)
}

/// The bootstrap of a run whose code declares inline metadata: the metadata, so that
/// `uv run --script` installs what the code asks for, then the shared runner.
pub(crate) fn with_metadata(metadata: &str) -> String {
    format!("{metadata}{RUNNER}")
}

/// The `# /// script` ... `# ///` block of `code`, if it has one, with its lines' endings.
pub(crate) fn inline_metadata(code: &str) -> Option<String> {
    let mut lines = code.lines().map(|l| l.trim_end_matches('\r'));
    lines.by_ref().find(|l| *l == "# /// script")?;
    let mut block = String::from("# /// script\n");
    for line in lines {
        if line == "# ///" {
            block.push_str("# ///\n");
            return Some(block);
        }
        if line != "#" && !line.starts_with("# ") {
            return None;
        }
        block.push_str(line);
        block.push('\n');
    }
    None
}

const RUNNER: &str = r#"# cy-tools: runs the code's own file with code mode's modules importable.
def _cy_run():
    import os, sys
    script = os.environ.pop("CY_RUN_SCRIPT")
    dirs = os.environ.pop("CY_RUN_PATH").split(os.pathsep)
    # As `python3 script` would: the script's folder first, unless isolated (`-I`, `-P`;
    # `safe_path` is Python 3.11's).
    if not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
        sys.path[0] = os.path.dirname(script)
    sys.path[0:0] = dirs
    sys.argv[0] = script
    import __main__
    namespace = __main__.__dict__
    del namespace["_cy_run"]
    namespace["__file__"] = script
    namespace["__cached__"] = None
    with open(script, "rb") as file:
        source = file.read()
    try:
        exec(compile(source, script, "exec", dont_inherit=True), namespace)
    except SystemExit:
        raise
    except BaseException as err:
        # The traceback from the code's first frame: the bootstrap's are not the model's.
        tb = err.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        sys.excepthook(type(err), err.with_traceback(tb), tb)
        sys.exit(1)


_cy_run()
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_metadata_is_carried_over() {
        let code = "# /// script\n# dependencies = [\"six\"]\n# ///\nimport six\n";
        assert_eq!(
            inline_metadata(code).unwrap(),
            "# /// script\n# dependencies = [\"six\"]\n# ///\n"
        );
        assert!(inline_metadata("import os\n").is_none());
        assert!(inline_metadata("# /// script\nx = 1\n# ///\n").is_none());
        let boot = with_metadata(&inline_metadata(code).unwrap());
        assert!(boot.starts_with("# /// script\n# dependencies"));
        assert!(boot.ends_with("_cy_run()\n"));
    }
}
