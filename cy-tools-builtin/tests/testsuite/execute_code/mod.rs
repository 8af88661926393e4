//! The `execute_code` tool: the behaviour both executors share (`cases`, run on each), what only
//! the local executor has (a configurable run command), and what only the remote one meets (a
//! control server that refuses, dies, is not there, or is not a control server).

mod cases;
mod local;
mod remote;
mod uv;

use std::path::Path;

use crate::support::process::{read_pids, wait_for_async};

/// Python that starts a child process, records both pids in `pids.txt`, says so, then loops
/// forever.
const FAMILY: &str = r#"import os, subprocess
child = subprocess.Popen(["sleep", "300"])
with open("pids.txt", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
print("started", flush=True)
while True:
    pass
"#;

/// The two pids [`FAMILY`] writes to `file`, once it has.
async fn family_pids(file: &Path) -> Vec<u32> {
    wait_for_async("the run's pids", || read_pids(file, 2)).await
}
