//! One test in a process of its own. Every test of this suite shares one process, so a test
//! whose subject is the process itself (its peak memory, its descriptors, children or threads,
//! an environment variable it needs set) would see the tests running beside it. Such a test is
//! split in two: an inner test, `#[ignore]`d so it runs only when asked for by name, and the
//! parent test, which runs this binary again with only the inner test and asserts it passed.

use std::ffi::OsString;
use std::process::{Command, Output, Stdio};

/// The inner test `$inner` of the calling module, as an [`Alone`] to run.
#[doc(hidden)]
#[macro_export]
macro_rules! __alone {
    ($inner:ident) => {
        $crate::alone::Alone::new(concat!(module_path!(), "::", stringify!($inner)))
    };
}
pub use crate::__alone as alone;

/// An inner test, run by its parent in a process of its own.
pub struct Alone {
    /// Its name as libtest knows it: the module path without the crate.
    name: String,
    /// A program (and its arguments) to start the test binary through, like `unshare`.
    wrapper: Option<(String, Vec<String>)>,
    envs: Vec<(OsString, OsString)>,
}

impl Alone {
    /// The test at `path`, as `module_path!()` and the test's name give it.
    pub fn new(path: &str) -> Alone {
        let name = path.split_once("::").map_or(path, |(_, rest)| rest);
        Alone {
            name: name.to_string(),
            wrapper: None,
            envs: Vec::new(),
        }
    }

    /// Sets `key` in the environment of the test's process.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Alone {
        self.envs.push((key.into(), value.into()));
        self
    }

    /// Starts the test's process through `program args... <this binary> ...`.
    pub fn under(mut self, program: &str, args: &[&str]) -> Alone {
        let args = args.iter().map(|a| (*a).to_string()).collect();
        self.wrapper = Some((program.to_string(), args));
        self
    }

    /// The command running this binary with only the inner test (`--ignored`, or it would be
    /// skipped), on one thread, its output not captured by libtest (the parent keeps it).
    pub fn command(&self) -> Command {
        let exe = std::env::current_exe().unwrap();
        let mut command = match &self.wrapper {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(exe);
                command
            }
            None => Command::new(exe),
        };
        command
            .arg(&self.name)
            .args(["--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .envs(self.envs.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        command
    }

    /// Runs the test, and asserts that it ran and passed; its stdout.
    pub fn run(&self) -> String {
        self.passed(&self.command().output().unwrap())
    }

    /// Asserts that `output` is of a run in which the test ran and passed (a name that matches
    /// no test runs none, and that run passes too); shows what it printed, and returns its
    /// stdout.
    pub fn passed(&self, output: &Output) -> String {
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Shown with `--nocapture`, or when the parent fails.
        print!("{stdout}");
        eprint!("{stderr}");
        assert!(
            output.status.success(),
            "`{}` failed in a process of its own ({})",
            self.name,
            output.status
        );
        assert!(
            stdout.contains("test result: ok. 1 passed;"),
            "`{}` did not run in a process of its own: is it still named so?",
            self.name
        );
        stdout.into_owned()
    }

    /// The test's name, for the messages of a parent that checks more.
    pub fn name(&self) -> &str {
        &self.name
    }
}
