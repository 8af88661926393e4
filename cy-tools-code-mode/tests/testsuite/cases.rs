//! Code mode on both backends, with real `python3`: code run by `execute_code` calls the
//! session's tools back through `cy_sdk` (over a per-execution socket locally, relayed over the
//! connection carrying the run on a control server). Results, refusals with the exact message
//! the model would see, the log of nested calls under their parent, and the channel's lifetime.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use cy_tools_code_mode::CodeModeLimits;
use serde_json::{Value, json};

use super::harness::{HELD, Harness, python_json};
use crate::support::backend::on_each_backend;
use crate::support::process::{WAIT, wait_for_async};

on_each_backend! {
    async fn python_combines_read_file_write_file_and_an_application_tool(backend: Backend) {
        let h = Harness::start(backend, CodeModeLimits::default(), None).await;
        std::fs::write(h.root().join("poem.txt"), "to be or not to be").unwrap();
        let code = r#"
import json, cy_sdk
text = cy_sdk.call("read_file", path="poem.txt")
stats = cy_sdk.call("tally", text=text)
written = cy_sdk.call("write_file", path="out/summary.txt", content="%d words, %d distinct" % (stats["words"], stats["distinct"]))
print(json.dumps({"text": text, "stats": stats, "written": written}))
"#;
        let result = h.run("call-1", code).await;
        assert!(!result.is_error, "{}", result.text_content());
        let out: Value = serde_json::from_str(&crate::support::outcome::text(&result)).unwrap();

        // What Python got is what the model would have got from the same calls.
        let direct = h.direct("read_file", json!({"path": "poem.txt"})).await;
        assert_eq!(out["text"], json!(direct.text_content()));
        assert!(direct.text_content().contains("to be or not to be"));
        let tally = h
            .direct("tally", json!({"text": direct.text_content()}))
            .await;
        assert_eq!(
            tally.content,
            [cy_tools::call::Content::json(out["stats"].clone())]
        );
        let (words, distinct) = (&out["stats"]["words"], &out["stats"]["distinct"]);
        assert!(words.as_u64().unwrap() >= 6 && distinct.as_u64().unwrap() >= 4);
        assert_eq!(
            std::fs::read_to_string(h.root().join("out/summary.txt")).unwrap(),
            format!("{words} words, {distinct} distinct")
        );
        assert!(out["written"].as_str().unwrap().contains("summary.txt"));

        // The log: the execute_code call, and under it the three nested calls in order.
        let entries = h.log.all();
        let tools: Vec<(&str, Option<&str>)> = entries
            .iter()
            .map(|e| (e.tool.as_str(), e.parent_call.as_deref()))
            .collect();
        assert_eq!(
            tools,
            [
                ("read_file", Some("call-1")),
                ("tally", Some("call-1")),
                ("write_file", Some("call-1")),
                ("execute_code", None),
            ]
        );
        let nested: Vec<&str> = entries
            .iter()
            .filter(|e| e.parent_call.is_some())
            .map(|e| e.call_id.as_str())
            .collect();
        assert_eq!(nested, ["call-1/sdk-1", "call-1/sdk-2", "call-1/sdk-3"]);
        assert!(entries.iter().all(|e| e.session_id == "s-code"));
        assert_eq!(entries[0].arguments, json!({"path": "poem.txt"}));
    }

    async fn tools_lists_the_toolset_without_execute_code(backend: Backend) {
        let h = Harness::start(backend, CodeModeLimits::default(), None).await;
        let out = python_json(&h, "print(json.dumps(cy_sdk.tools()))").await;
        let expected: Vec<&str> = h
            .tools()
            .names()
            .into_iter()
            .filter(|n| *n != "execute_code")
            .collect();
        assert!(expected.contains(&"tally") && expected.contains(&"read_file"));
        assert_eq!(out, json!(expected));
    }

    async fn refusals_reach_python_as_tool_errors_with_the_model_facing_message(backend: Backend) {
        let h = Harness::start(backend, CodeModeLimits::default(), Some("write_file")).await;
        let code = r#"
def attempt(tool, **args):
    try:
        return {"ok": cy_sdk.call(tool, **args)}
    except cy_sdk.ToolError as err:
        return {"error": str(err), "tool": err.tool}
print(json.dumps({
    "outside": attempt("terminal", command="true"),
    "nested": attempt("execute_code", code="print(1)"),
    "denied": attempt("write_file", path="x.txt", content="no"),
    "invalid": attempt("read_file", path=3),
    "unknown_field": attempt("read_file", path="a", colour="red"),
}))
"#;
        let out = python_json(&h, code).await;
        let names: Vec<String> = h
            .tools()
            .names()
            .into_iter()
            .filter(|n| *n != "execute_code")
            .map(|n| format!("`{n}`"))
            .collect();
        assert_eq!(
            out["outside"]["error"],
            json!(format!(
                "tool `terminal` is not in this session's toolset; the tools this code may call are {}",
                names.join(", ")
            ))
        );
        assert_eq!(out["outside"]["tool"], "terminal");
        assert_eq!(
            out["nested"]["error"],
            "`execute_code` cannot be called from code that `execute_code` runs: this session does not allow nesting; do the work in this program instead"
        );
        assert_eq!(
            out["denied"]["error"],
            "the call to `write_file` was denied: writes need a person's approval in this session"
        );
        assert!(!h.root().join("x.txt").exists());
        for (key, args) in [
            ("invalid", json!({"path": 3})),
            ("unknown_field", json!({"path": "a", "colour": "red"})),
        ] {
            let direct = h.direct("read_file", args).await;
            assert!(direct.is_error);
            assert_eq!(out[key]["error"], json!(direct.text_content()), "{key}");
        }
        // A refused call is not run, so not recorded; the invalid ones ran (and failed) and are.
        let nested: Vec<String> = h
            .log
            .all()
            .into_iter()
            .filter(|e| e.parent_call.is_some())
            .map(|e| e.tool)
            .collect();
        assert_eq!(nested, ["read_file", "read_file"]);
    }

    async fn the_channel_is_an_inherited_descriptor_named_nowhere_else(backend: Backend) {
        let h = Harness::start(backend, CodeModeLimits::default(), None).await;
        let code = r#"
import stat, subprocess, sys
fd = int(os.environ["CY_SDK_FD"])
kind = stat.S_ISSOCK(os.fstat(fd).st_mode)
answer = cy_sdk.call("tally", text="a b a")
# Programs the code starts do not get the channel, even when asked to keep descriptors.
child = subprocess.run(["sh", "-c", "[ -e /dev/fd/%d ] && echo kept || echo gone" % fd],
                       close_fds=False, capture_output=True, text=True).stdout.strip()
# The package's folder first; the workspace root after it, so its modules import too.
folder, root = os.environ["PYTHONPATH"].split(os.pathsep)
print(json.dumps({"socket": kind, "answer": answer, "child": child,
                  "module": sorted(f for f in os.listdir(folder) if not f.endswith(".tmp")),
                  "package": sorted(f for f in os.listdir(os.path.join(folder, "cy_sdk")) if f.endswith(".py")),
                  "first_on_path": sys.path[0] == folder,
                  "root_on_path": root == os.getcwd(),
                  "names": sorted(k for k in os.environ if k.startswith("CY_")),
                  "values": [v for k, v in os.environ.items() if k != "PYTHONPATH"]}))
"#;
        let out = python_json(&h, code).await;
        assert_eq!(out["socket"], true);
        assert_eq!(out["answer"], json!({"words": 3, "distinct": 2}));
        assert_eq!(out["child"], "gone");
        // The module folder holds the package (its own code and the generated `tools`) and the
        // bootstrap every run starts in, nothing that reaches the channel and nothing of any
        // one run; it is first on the code's `sys.path`.
        assert_eq!(out["module"], json!([".cy-boot.py", "cy_sdk"]));
        assert_eq!(out["package"], json!(["__init__.py", "tools.py"]));
        assert_eq!(out["first_on_path"], true);
        assert_eq!(out["root_on_path"], true);
        // No socket path, no token: nothing another process could use to reach the channel.
        // The package folder is reached through an inherited descriptor too, never by a name.
        assert_eq!(out["names"], json!(["CY_SDK_DIR_FD", "CY_SDK_FD"]));
        for value in out["values"].as_array().unwrap() {
            let value = value.as_str().unwrap();
            assert!(
                !value.contains("cy-sdk") && !value.contains(".sock"),
                "{value}"
            );
        }
    }

    async fn a_call_after_its_execution_ended_is_refused(backend: Backend) {
        let h = Harness::start(backend, CodeModeLimits::default(), None).await;
        // A leftover: a process in a session of its own that keeps the channel, and calls once
        // the test says the run is over.
        let leftover = r#"
import json, os, time, cy_sdk
open("leftover.tmp", "w").write(str(os.getpid()))
os.rename("leftover.tmp", "leftover")
# Bounded, so a failed test leaves nothing running for long.
deadline = time.time() + 30
while not os.path.exists("ended") and time.time() < deadline:
    time.sleep(0.01)
try:
    out = {"late": cy_sdk.call("tally", text="a")}
except cy_sdk.ToolError as err:
    out = {"late_error": str(err)}
open("late.tmp", "w").write(json.dumps(out))
os.rename("late.tmp", "late.json")
"#;
        // The run says which descriptor its channel is, and ends once the test holds its own:
        // where the run's cgroup kills the leftover, that duplicate is what still reaches the
        // channel after the run, so the broker's refusal is tested on every host.
        let code = format!(
            r#"
import subprocess, sys, time
fd = int(os.environ["CY_SDK_FD"])
# The package folder is reached through its descriptor too: a program the code starts keeps
# both to use `cy_sdk`.
package = int(os.environ["CY_SDK_DIR_FD"])
subprocess.Popen([sys.executable, "-c", {leftover:?}], pass_fds=[fd, package], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=open("leftover.err", "w"))
while not os.path.exists("leftover"):
    time.sleep(0.01)
open("channel.tmp", "w").write(str(fd))
os.rename("channel.tmp", "channel")
while not os.path.exists("held"):
    time.sleep(0.01)
print(json.dumps({{"ended": True}}))
"#
        );
        let root = h.root().to_path_buf();
        let keep = async {
            let number: i32 = wait_for_async("the run's channel number", || {
                std::fs::read_to_string(root.join("channel")).ok()?.parse().ok()
            })
            .await;
            let held = hold_a_duplicate(number);
            // The duplicate is the run's channel: answered while the run lasts.
            let during = call_on(&held).await;
            assert_eq!(during, Some(json!({"ok": {"words": 1, "distinct": 1}})));
            std::fs::write(root.join("held"), "").unwrap();
            held
        };
        let (out, held) = tokio::join!(python_json(&h, &code), keep);
        assert_eq!(out, json!({"ended": true}));
        // The run has ended: the same descriptor, held outside it, gets no answer.
        assert_eq!(
            call_on(&held).await,
            None,
            "a call on the channel was answered after its run ended"
        );

        let pid: u32 = std::fs::read_to_string(root.join("leftover"))
            .unwrap()
            .parse()
            .unwrap();
        if crate::support::process::cgroups_catch_setsid() {
            // Killed with the run's cgroup when the run ended: it never calls at all.
            if !crate::support::process::dead(pid) {
                crate::support::process::kill9(pid);
                panic!("the run's leftover process {pid} outlived it");
            }
            return;
        }
        // Elsewhere it outlives the run, and its own late call is refused as well.
        std::fs::write(root.join("ended"), "").unwrap();
        assert!(
            std::env::var_os("CY_LIMITS_REQUIRE_ENFORCED").is_none(),
            "CY_LIMITS_REQUIRE_ENFORCED is set, but commands here get no cgroup, so the run's leftover process {pid} outlives it: run as root on a host with a cgroup tree, or unset the variable"
        );
        let written = root.join("late.json");
        wait_for_async("the leftover's late call", || {
            (written.exists() || !crate::support::process::running(pid)).then_some(())
        })
        .await;
        let late = std::fs::read_to_string(&written).unwrap_or_else(|_| {
            panic!(
                "the leftover process ended without calling: {:?}",
                std::fs::read_to_string(root.join("leftover.err"))
            )
        });
        let late: Value = serde_json::from_str(&late).unwrap();
        assert_eq!(
            late,
            json!({"late_error": "the SDK channel was closed by the runtime; the execution may have ended"})
        );
    }

    async fn nesting_when_allowed_runs_a_second_channel(backend: Backend) {
        let h = Harness::start(
            backend,
            CodeModeLimits {
                allow_nesting: true,
                ..CodeModeLimits::default()
            },
            None,
        )
        .await;
        let code = r#"
inner = cy_sdk.call("execute_code", code="import cy_sdk\nprint(cy_sdk.call('tally', text='x y z')['words'])")
print(json.dumps({"inner": inner, "listed": "execute_code" in cy_sdk.tools()}))
"#;
        let out = python_json(&h, code).await;
        // A nested run answers its structured result, as any tool with an output schema does.
        assert_eq!(
            out,
            json!({"inner": {"exit_code": 0, "stdout": "3\n", "stderr": "", "truncated": false}, "listed": true})
        );
        let parents: Vec<(String, Option<String>)> = h
            .log
            .all()
            .into_iter()
            .map(|e| (e.call_id, e.parent_call))
            .collect();
        assert_eq!(
            parents,
            [
                ("py/sdk-1/sdk-1".into(), Some("py/sdk-1".into())),
                ("py/sdk-1".into(), Some("py".into())),
                ("py".into(), None),
            ]
        );
    }

    async fn concurrent_executions_have_separate_channels(backend: Backend) {
        let h = Arc::new(Harness::start(backend, CodeModeLimits::default(), None).await);
        let code =
            "print(json.dumps([cy_sdk.call('tally', text='w ' * n)['words'] for n in range(1, 30)]))";
        let runs = (0..3).map(|i| {
            let h = Arc::clone(&h);
            let code = format!("import json, os, cy_sdk\n{code}");
            tokio::spawn(async move { h.run(&format!("c{i}"), &code).await })
        });
        for run in runs {
            let result = run.await.unwrap();
            let out: Value = serde_json::from_str(&crate::support::outcome::text(&result)).unwrap();
            assert_eq!(out, json!((1..30).collect::<Vec<_>>()));
        }
    }

    async fn cancelling_the_run_stops_it_and_its_nested_call(backend: Backend) {
        use std::time::{Duration, Instant};

        let h = Harness::start(backend, CodeModeLimits::default(), None).await;
        let cancel = cy_tools::CancellationToken::new();
        let code = "import os, cy_sdk\nopen('pid', 'w').write(str(os.getpid()))\ncy_sdk.call('hold', ms=1500)\nprint('not reached')";
        let pid_file = h.root().join("pid");
        let canceller = {
            let cancel = cancel.clone();
            let pid_file = pid_file.clone();
            async move {
                while !pid_file.exists() {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                cancel.cancel();
            }
        };
        let started = Instant::now();
        let (result, ()) = tokio::join!(h.run_until("c", code, &cancel), canceller);
        assert!(result.is_error);
        assert!(
            result.text_content().contains("cancelled"),
            "{}",
            result.text_content()
        );
        assert!(started.elapsed() < Duration::from_millis(1400));
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
        let deadline = Instant::now() + Duration::from_secs(3);
        while proc.exists() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            !proc.exists(),
            "the Python process {pid} outlived its cancelled run"
        );
        // The nested call was stopped too: it never reaches its end.
        tokio::time::sleep(Duration::from_millis(1800)).await;
        assert!(
            !h.root().join(HELD).exists(),
            "the nested `hold` call ran to its end"
        );
    }
}

/// A duplicate, in this process, of descriptor `number` of this process: the run's end of its
/// SDK channel (the host hands it to the run under the same number; on `Remote` the control
/// server runs here too). What a process outside the run, beyond the reach of the run's cgroup,
/// would hold had the run passed it the descriptor.
fn hold_a_duplicate(number: i32) -> UnixStream {
    use rustix::process::{PidfdFlags, PidfdGetfdFlags, getpid, pidfd_getfd, pidfd_open};
    let this = pidfd_open(getpid(), PidfdFlags::empty()).unwrap();
    let fd = pidfd_getfd(&this, number, PidfdGetfdFlags::empty())
        .unwrap_or_else(|err| panic!("cannot duplicate descriptor {number}: {err}"));
    let stream = UnixStream::from(fd);
    // Blocking, as the run's end must stay (the flag belongs to the socket, which both share),
    // but bounded; the timeout is the socket's too, and no read the run makes here waits as long.
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream
}

/// One SDK call (`tally` of one word) written on `channel`: its answer, or `None` when the
/// channel is closed (the write or the read fails, or the read finds its end).
async fn call_on(channel: &UnixStream) -> Option<Value> {
    let channel = channel.try_clone().unwrap();
    tokio::task::spawn_blocking(move || {
        let mut line = br#"{"tool": "tally", "arguments": {"text": "a"}}"#.to_vec();
        line.push(b'\n');
        (&channel).write_all(&line).ok()?;
        let mut answer = String::new();
        match BufReader::new(&channel).read_line(&mut answer) {
            Ok(0) => None,
            Ok(_) => Some(serde_json::from_str(&answer).unwrap()),
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => None,
            Err(err) => panic!("reading the SDK channel: {err}"),
        }
    })
    .await
    .unwrap()
}
