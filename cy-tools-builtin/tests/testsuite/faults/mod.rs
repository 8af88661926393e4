//! Faults from outside, end to end: a tool that panics or hangs, code killed mid-run, an MCP
//! client that goes away, a control server killed or stopped mid-run, and a session store on a
//! full or read-only disk. Each says what happened and what to do, and leaves nothing running.

mod control_server;
mod executor;
mod mcp;
mod store;
mod tools;

/// Python that starts `sleep 300` as its child, writes `<its pid> <the child's pid>\n` to
/// `pids.txt` (through a rename, so the file is never seen half-written), says `started`, and
/// sleeps (not a busy loop: the machines running these tests are small and shared).
pub const SLEEPER: &str = r#"import os, subprocess, time
child = subprocess.Popen(["sleep", "300"])
with open("pids.tmp", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
os.rename("pids.tmp", "pids.txt")
print("started", flush=True)
time.sleep(300)
"#;
