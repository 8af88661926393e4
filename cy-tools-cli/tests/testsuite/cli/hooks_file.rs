//! `--hooks-file`: the host's hook configuration in Claude Code's `hooks` shape, through
//! `cy-tools call`: a matcher picks the tools a hook sees, a hook's own timeout replaces
//! `--hook-timeout`, approval can be placed first, the file's limits cut results, and a file
//! that is wrong is refused before anything runs, saying where and what to write.

use super::hooks::cy_tools;
use std::path::Path;
use std::time::Instant;

use serde_json::json;

/// A workspace with `a.txt` and the hooks file `hooks` in a folder beside it (not in the
/// workspace, as a host's file would be).
struct Fixture {
    dir: tempfile::TempDir,
    file: std::path::PathBuf,
}

fn fixture(hooks: &serde_json::Value) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/a.txt"), "alpha\n").unwrap();
    let file = dir.path().join("hooks.json");
    std::fs::write(&file, hooks.to_string()).unwrap();
    Fixture { dir, file }
}

impl Fixture {
    fn ws(&self) -> std::path::PathBuf {
        self.dir.path().join("ws")
    }

    fn call(&self, tool: &str, args: &str, extra: &[&str]) -> (Option<i32>, String, String) {
        let ws = self.ws();
        let mut all = vec![
            "call",
            tool,
            args,
            "--root",
            ws.to_str().unwrap(),
            "--hooks-file",
            self.file.to_str().unwrap(),
        ];
        all.extend_from_slice(extra);
        let output = cy_tools(&ws, &all);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout)
                .trim_end()
                .to_string(),
            String::from_utf8_lossy(&output.stderr).trim().to_string(),
        )
    }
}

fn command(command: &str) -> serde_json::Value {
    json!({"type": "command", "command": command})
}

#[test]
fn a_matcher_picks_the_tools_a_hook_sees() {
    let f = fixture(&json!({"hooks": {"PreToolUse": [
        {"matcher": "read_file|write_file", "hooks": [command("echo 'reads are audited' >&2; exit 2")]}
    ]}}));
    let (code, _, stderr) = f.call("read_file", r#"{"path": "a.txt"}"#, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "`read_file` was refused by hook `echo 'reads are audited' >&2; exit 2`: reads are audited"
    );
    // `list_directory` is not matched (a whole-name match: `read_file_x` would not be either).
    let (code, stdout, stderr) = f.call("list_directory", r#"{"path": "."}"#, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("a.txt"), "{stdout}");
}

#[test]
fn a_hooks_own_timeout_replaces_the_flag() {
    let mut slow = command("sleep 20");
    slow["timeout"] = json!(1);
    let f = fixture(&json!({"hooks": {"PreToolUse": [{"hooks": [slow]}]}}));
    let started = Instant::now();
    let (code, _, stderr) = f.call(
        "read_file",
        r#"{"path": "a.txt"}"#,
        &["--hook-timeout", "30"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "`read_file` did not run: hook `sleep 20` did not decide within 1s; the host's hook is too slow or stuck"
    );
    assert!(started.elapsed().as_secs() < 15, "the hook was not stopped");
}

#[test]
fn approval_placed_first_is_asked_before_the_hooks() {
    let hooks = |place: &str, seen: &Path| {
        json!({"approval": place, "hooks": {"PreToolUse": [
            {"hooks": [command(&format!("cat > '{}'", seen.display()))]}
        ]}})
    };
    let write = r#"{"path": "b.txt", "content": "hi"}"#;
    let approve = ["--approve", "destructive"];
    // Without a terminal nobody can approve, so approval refuses; first, the hook never runs.
    let probe = tempfile::tempdir().unwrap();
    let seen = probe.path().join("seen.json");
    let f = fixture(&hooks("first", &seen));
    let (code, _, stderr) = f.call("write_file", write, &approve);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("needs a person's approval"), "{stderr}");
    assert!(!seen.exists(), "the hook ran before approval");
    // Last (the default place), the hook sees the call, then approval refuses it.
    let f = fixture(&hooks("last", &seen));
    let (code, _, stderr) = f.call("write_file", write, &approve);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("needs a person's approval"), "{stderr}");
    assert!(seen.exists(), "the hook did not run before approval");
    assert!(!f.ws().join("b.txt").exists());
}

#[test]
fn the_files_limits_cut_results_per_tool() {
    let f = fixture(&json!({"maxResultBytes": 100000, "toolResultBytes": {"read_file": 300}}));
    std::fs::write(f.ws().join("big.txt"), "x".repeat(5000)).unwrap();
    let (code, stdout, stderr) = f.call("read_file", r#"{"path": "big.txt"}"#, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("over this session's limit of 300 for `read_file`"),
        "{stdout}"
    );
    assert!(stdout.contains(".cy-tools/results/"), "{stdout}");
    // The whole result (what `read_file` answered: its own page of the long line) is kept in
    // the workspace.
    let kept: Vec<_> = std::fs::read_dir(f.ws().join(".cy-tools/results"))
        .unwrap()
        .collect();
    assert_eq!(kept.len(), 1);
    let whole = std::fs::read_to_string(kept[0].as_ref().unwrap().path()).unwrap();
    assert!(
        whole.starts_with("     1\t") && whole.len() > 1000,
        "{whole}"
    );
    assert!(whole.starts_with(stdout.lines().next().unwrap()));
}

#[test]
fn a_wrong_file_is_refused_before_anything_runs_saying_where() {
    let cases = [
        (json!({"hook": {}}), "unknown field `hook`"),
        (
            json!({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}),
            "`hooks.PreToolUse[0].matcher` is not a regular expression",
        ),
        (
            json!({"hooks": {"PostToolUse": [{"hooks": [{"type": "prompt", "command": "x"}]}]}}),
            "`hooks.PostToolUse[0].hooks[0].type` is `prompt`; only `command` hooks are run",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "soon"}]}]}}),
            "at `hooks.PreToolUse[0].hooks[0].timeout`",
        ),
        (
            json!({"toolResultBytes": {"read_file": 0}}),
            "`toolResultBytes.read_file` is 0",
        ),
    ];
    for (file, said) in cases {
        let f = fixture(&file);
        let (code, _, stderr) = f.call("read_file", r#"{"path": "a.txt"}"#, &[]);
        assert_eq!(code, Some(2), "{file}: {stderr}");
        assert!(
            stderr.contains("--hooks-file") && stderr.contains(said),
            "{file}: {stderr}"
        );
    }
    // A file that is not there, or not JSON.
    let f = fixture(&json!({}));
    std::fs::write(&f.file, "{not json").unwrap();
    let (code, _, stderr) = f.call("read_file", r#"{"path": "a.txt"}"#, &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("the hooks file is not valid"), "{stderr}");
    std::fs::remove_file(&f.file).unwrap();
    let (code, _, stderr) = f.call("read_file", r#"{"path": "a.txt"}"#, &[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("the hooks file could not be read"),
        "{stderr}"
    );
}
