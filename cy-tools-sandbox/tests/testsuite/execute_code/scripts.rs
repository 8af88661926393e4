//! Where a run's script is: never in the workspace the model sees (not in its listings, not in
//! the code's own, not while runs go at once), and out of reach of every run (none can list
//! the scripts' folder, or write a script, its own or another's), on both executors.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::backend::on_each_backend;
use crate::support::code_session::session;

/// The names in `dir` that are not `expected`.
fn others(dir: &std::path::Path, expected: &[String]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !expected.contains(name))
        .collect()
}

on_each_backend! {
    async fn the_workspace_shows_no_script_while_runs_go_at_once(backend: Backend) {
        let s = &session(backend);
        // Each run marks that it started, then stays until the test has looked.
        let run = |i: usize| {
            let code = format!(
                "import os, time\nopen('started-{i}', 'w').close()\nprint(sorted(n for n in os.listdir('.') if not n.startswith('started-') and n != 'done'))\nwhile not os.path.exists('done'):\n    time.sleep(0.02)"
            );
            s.run(json!({"code": code, "timeout_ms": 30_000}))
        };
        let look = async {
            let markers: Vec<String> = (0..4).map(|i| format!("started-{i}")).collect();
            let until = Instant::now() + Duration::from_secs(20);
            while others(&s.workspace, &[]).len() < 4 {
                assert!(Instant::now() < until, "the runs did not start");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // All four are running now, each with its script written.
            let seen = others(&s.workspace, &markers);
            std::fs::write(s.workspace.join("done"), "").unwrap();
            seen
        };
        let (a, b, c, d, seen) = tokio::join!(run(0), run(1), run(2), run(3), look);
        assert_eq!(seen, Vec::<String>::new(), "the workspace showed runtime files");
        for result in [a, b, c, d] {
            assert!(!result.is_error, "{}", result.text_content());
            // The code's own listing of the workspace root: nothing but the markers.
            assert_eq!(crate::support::outcome::text(&result), "[]");
        }
    }

    async fn no_run_can_list_or_write_the_scripts(backend: Backend) {
        let s = &session(backend);
        let code = r#"
import os
me = os.path.abspath(__file__)
folder = os.path.dirname(me)
print("outside the workspace:", not me.startswith(os.getcwd()))
try:
    os.listdir(folder)
    print("listed the scripts")
except PermissionError:
    print("cannot list the scripts")
for path in (me, os.path.join(folder, "other.py")):
    try:
        open(path, "w").write("print('taken over')")
        print("wrote", os.path.basename(path))
    except OSError:
        print("cannot write a script")
"#;
        assert_eq!(
            s.ok(json!({"code": code})).await,
            "outside the workspace: True\ncannot list the scripts\ncannot write a script\ncannot write a script"
        );
    }
}

#[tokio::test]
async fn a_child_executor_keeps_its_scripts_apart_from_its_parents() {
    use std::sync::Arc;

    use cy_tools::services::{CodeExecutor, CodeOptions};
    use cy_tools_sandbox::LocalSandbox;
    use cy_tools_sandbox::executor::LocalExecutor;

    let dir = tempfile::tempdir().unwrap();
    let parent = LocalExecutor::new(Arc::new(LocalSandbox::new(dir.path()).unwrap().env()));
    let child = parent.scoped("child").unwrap();
    let code = "import os\nprint(os.path.dirname(os.path.abspath(__file__)))";
    let folder = |executor: LocalExecutor| async move {
        let result = executor
            .execute(code, CodeOptions::default())
            .await
            .unwrap();
        assert_eq!(result.exit_code, Some(0), "{result:?}");
        result.stdout
    };
    let (mine, childs) = (folder(parent.clone()).await, folder(child).await);
    // A child's runs may read their own scripts' folder: never the one its parent's run from.
    assert_ne!(mine, childs);
    assert_eq!(mine, folder(parent).await, "clones share one folder");
}
