//! The bootstrap a run starts in when its code must import modules from folders of the host's
//! choosing ([`CodeOptions::python_path`](cy_tools::CodeOptions::python_path): code mode's
//! `cy_sdk`).
//!
//! `PYTHONPATH` is not enough: Python's isolated mode (`python3 -I`) ignores it and leaves the
//! script's folder off `sys.path`. Nor can a line be put in front of the code: that moves every
//! line number the model sees in a traceback, and a first line of its own would break a
//! `from __future__` import. So the command runs a short script beside the code instead, which
//! puts the folders first on `sys.path`, compiles the code's own file under its own name and
//! runs it as `__main__`. Tracebacks and syntax errors name the code's file and lines exactly
//! as `python3 file` would; the bootstrap's own frames are left out of them. A script's
//! inline metadata (PEP 723) is copied into the bootstrap, so `uv run --script` still installs
//! what the code asks for.

use std::path::{Path, PathBuf};

/// The bootstrap's source, running the code in `script` (its host path) with `dirs` first on
/// `sys.path`; `code` is the code, read for its inline metadata.
pub(crate) fn source(code: &str, script: &Path, dirs: &[PathBuf]) -> String {
    let literal = |path: &Path| serde_json::Value::String(path.to_string_lossy().into_owned());
    let dirs: Vec<String> = dirs.iter().map(|d| literal(d).to_string()).collect();
    let mut out = String::new();
    if let Some(metadata) = inline_metadata(code) {
        out.push_str(&metadata);
    }
    out.push_str(
        &RUNNER
            .replace("{script}", &literal(script).to_string())
            .replace("{dirs}", &dirs.join(", ")),
    );
    out
}

/// The `# /// script` ... `# ///` block of `code`, if it has one, with its lines' endings.
fn inline_metadata(code: &str) -> Option<String> {
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

const RUNNER: &str = r#"# cy-tools: runs the code's own file with code mode's modules importable; removed after the run.
def _cy_run(script, dirs):
    import os, sys
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


_cy_run({script}, [{dirs}])
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
        let boot = source(code, Path::new("/w/a.py"), &[PathBuf::from("/m")]);
        assert!(boot.starts_with("# /// script\n"));
        assert!(boot.ends_with("_cy_run(\"/w/a.py\", [\"/m\"])\n"));
    }
}
