//! `execute_code` on both executors, with real `python3`: the exact text the model sees, which
//! must be the same word for word whether the code runs locally or on a control server.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, ToolCall};
use serde_json::json;

use crate::support::backend::on_each_backend;
use crate::support::code_session::session;
use crate::support::process::dead;
use crate::support::process::{FAMILY, family_pids};

on_each_backend! {
    async fn prints_stdout_on_success(backend: Backend) {
        let s = &session(backend);
        assert_eq!(
            s.ok(json!({"code": "print(1 + 1)\nprint('done')"})).await,
            "2\ndone"
        );
        assert_eq!(
            s.ok(json!({"code": "x = 1"})).await,
            "(the code printed nothing)"
        );
        assert_eq!(
            s.ok(json!({"code": "import sys\nprint('ok')\nprint('careful', file=sys.stderr)"}))
                .await,
            "ok\nstderr:\ncareful"
        );
    }

    async fn an_exception_shows_its_traceback(backend: Backend) {
        // The code ran and failed: a normal result, its traceback naming the workspace's files
        // relative to its root and a fresh script as `<code>`, never by their host paths.
        let s = &session(backend);
        let code = "def f():\n    raise ValueError('bad value')\nprint('before')\nf()\n";
        let expected = |script: &str| {
            format!(
                "the code exited with exit code 1\nstdout:\nbefore\nstderr:\nTraceback (most recent call last):\n  File \"{script}\", line 4, in <module>\n    f()\n  File \"{script}\", line 2, in f\n    raise ValueError('bad value')\nValueError: bad value"
            )
        };
        assert_eq!(
            s.ok(json!({"code": code, "filename": "main.py"})).await,
            expected("main.py")
        );
        assert_eq!(s.ok(json!({"code": code})).await, expected("<code>"));
        // A module of the workspace the code imports, and a file it cannot open.
        std::fs::create_dir_all(s.workspace.join("lib")).unwrap();
        std::fs::write(s.workspace.join("lib/helper.py"), "def f():\n    return open('missing.txt')\n").unwrap();
        let text = s.ok(json!({"code": "from lib import helper\nhelper.f()"})).await;
        assert!(text.contains("  File \"lib/helper.py\", line 2, in f\n"), "{text}");
        assert!(text.ends_with("FileNotFoundError: [Errno 2] No such file or directory: 'missing.txt'"), "{text}");
        let host = s.workspace.canonicalize().unwrap();
        assert!(!text.contains(&*host.to_string_lossy()), "{text}");
    }

    async fn a_non_zero_exit_shows_both_streams_and_the_code(backend: Backend) {
        let s = &session(backend);
        let code = "import sys\nprint('partial')\nprint('giving up', file=sys.stderr)\nsys.exit(3)";
        let result = s.run(json!({"code": code})).await;
        assert!(!result.is_error, "the code ran: its exit code is the answer");
        assert_eq!(
            crate::support::outcome::text(&result),
            "the code exited with exit code 3\nstdout:\npartial\nstderr:\ngiving up"
        );
        assert_eq!(
            crate::support::outcome::structured(&result).unwrap(),
            &json!({"exit_code": 3, "stdout": "partial\n", "stderr": "giving up\n", "truncated": false})
        );
    }

    async fn an_endless_loop_is_killed_at_its_timeout_with_its_children(backend: Backend) {
        let s = &session(backend);
        let started = Instant::now();
        let text = s.failed(json!({"code": FAMILY, "timeout_ms": 1000})).await;
        let elapsed = started.elapsed();
        assert_eq!(
            text,
            "the code timed out after 1000 ms and was killed, with every process it started; its output until then is below. Make it faster, or pass a larger `timeout_ms`\nstdout:\nstarted\nstderr: (empty)"
        );
        assert!(elapsed >= Duration::from_millis(1000), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
        for pid in family_pids(&s.workspace.join("pids.txt")).await {
            assert!(dead(pid), "process {pid} survived the timeout");
        }
    }

    async fn huge_output_is_cut_with_a_notice(backend: Backend) {
        let s = &session(backend);
        let code = "import sys\nsys.stdout.write('x' * 1_000_000)\nprint('end')";
        let text = s.ok(json!({"code": code})).await;
        assert_eq!(
            text,
            format!(
                "{}\n[output cut: showed the first 65536 of 1000004 bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]",
                "x".repeat(65536)
            )
        );
    }

    async fn files_the_code_writes_are_visible_to_read_file(backend: Backend) {
        let s = &session(backend);
        let code = "import os\nos.makedirs('results', exist_ok=True)\nopen('results/out.txt', 'w').write('first\\nsecond\\n')\nprint('written')";
        assert_eq!(
            s.ok(json!({"code": code, "filename": "jobs/write.py"}))
                .await,
            "written"
        );
        let read = s
            .read_file
            .execute(
                ToolCall::new("call-2", json!({"path": "results/out.txt"})),
                &CancellationToken::new(),
            )
            .await;
        assert!(!read.is_error, "{}", read.text_content());
        assert_eq!(read.text_content(), "     1\tfirst\n     2\tsecond");
        let script = s
            .read_file
            .execute(
                ToolCall::new("call-3", json!({"path": "jobs/write.py"})),
                &CancellationToken::new(),
            )
            .await;
        assert!(script.text_content().ends_with("     4\tprint('written')"));
    }

    async fn the_host_environment_is_absent(backend: Backend) {
        let s = &session(backend);
        // The test process has cargo's variables; the code sees the sandbox's clean set only.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let code = "import os\nprint(sorted(os.environ))\nprint(os.environ['HOME'] == os.getcwd())";
        assert_eq!(
            s.ok(json!({"code": code})).await,
            "['HOME', 'LANG', 'PATH', 'PWD', 'PYTHONPATH', 'TMPDIR']\nTrue"
        );
    }

    async fn refusals_read_alike(backend: Backend) {
        let s = &session(backend);
        assert_eq!(
            s.failed(json!({"code": "print(1)", "filename": "../escape.py"}))
                .await,
            "path `../escape.py` is outside the workspace; use a path relative to the workspace root (or under `/workspace/`)"
        );
        assert_eq!(
            s.failed(json!({"code": "print(1)", "timeout_ms": 10_000_000}))
                .await,
            "a timeout of 10000 s is above this workspace's maximum of 3600 s; ask for at most 3600 s (3600000 ms), or split the work into shorter runs"
        );
        assert_eq!(
            s.failed(json!({"code": "  \n"})).await,
            "`code` is empty; pass the Python program to run, such as `print(1 + 1)`"
        );
        assert_eq!(
            s.failed(json!({"code": "print(1)", "timeout_ms": 0})).await,
            "invalid arguments for `execute_code`: `timeout_ms`: 0 is less than the minimum of 1; valid fields are `code` (string, required), `filename` (string or null), `timeout_ms` (integer or null)"
        );
    }

    async fn cancelling_kills_the_run_and_its_children(backend: Backend) {
        let s = &session(backend);
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        let pids_file = s.workspace.join("pids.txt");
        let canceller = tokio::spawn(async move {
            let pids = family_pids(&pids_file).await;
            trigger.cancel();
            pids
        });
        let started = Instant::now();
        let result = s
            .execute
            .execute(ToolCall::new("call-1", json!({"code": FAMILY})), &cancel)
            .await;
        assert!(result.is_error);
        assert!(started.elapsed() < Duration::from_secs(10));
        for pid in canceller.await.unwrap() {
            assert!(dead(pid), "process {pid} survived cancellation");
        }
    }
}
