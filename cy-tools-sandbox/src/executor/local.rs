//! `LocalExecutor`: writes the code into the session's sandbox and runs it there.

use std::path::Path;
use std::sync::Arc;

use cy_tools::{
    BoxFuture,
    services::{
        CodeExecutor, CodeOptions, ExecOptions, Sandbox, ServiceError, ServiceErrorKind,
        ShellResult,
    },
};

use super::bootstrap;
use super::python::{PYTHON, PythonRunner};
use super::script::{FRESH_NAME, Script};
use super::scripts::LazyScriptDir;
use super::shown::HostPaths;
use super::slots::RunSlots;
use crate::ExecLimits;

/// The command a [`LocalExecutor`] runs by default: `{python}` becomes the Python runner
/// (`uv run --script` where `uv` is installed, else `python3`: see [`PythonRunner`]) and
/// `{file}` the script's host path.
pub const DEFAULT_COMMAND: &str = "{python} {file}";

/// Runs code in a session's sandbox: writes it with [`Sandbox::write_scratch`], resolves the file's
/// host path with [`Sandbox::resolve_path`], and runs a command on it with [`Sandbox::exec`],
/// so the sandbox's confinement, clean environment, output caps, timeout and process-group
/// kill all apply to the run.
///
/// A run that names no file ([`CodeOptions::filename`] `None`) writes its code to a fresh file
/// outside the workspace (a folder of the executor's under the host's temporary folder, which
/// no run can list or write), removed when the run is over, so runs at once never run each
/// other's code and nothing of the runtime shows in the workspace the model lists; the
/// workspace root is on the code's `PYTHONPATH`, so it still imports the workspace's modules.
/// Runs that name the same file take turns on it.
///
/// What the run wrote to stderr, and the errors of a run that could not start, name the
/// workspace's files relative to its root and a fresh script as `<code>`: the model never
/// sees the host's paths in a traceback.
///
/// A run with [`CodeOptions::python_path`] set (code mode) starts in a short bootstrap kept in
/// the first of those folders, which puts them first on `sys.path` and runs the code's own
/// file: `{file}` then names the bootstrap. Isolated Python (`python3 -I {file}`) still finds the
/// modules, and tracebacks still show the code's own file and line numbers (see
/// `executor/bootstrap.rs`).
///
/// The command is a shell command line in which `{file}` stands for the script's path
/// (shell-quoted) and `{python}` for the [`PythonRunner`]: `{python} {file}` by default, so a
/// script's inline dependencies (PEP 723) are installed where `uv` is; `python3 {file}` to
/// always run the system's Python.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use cy_tools::services::{CodeExecutor, CodeOptions};
/// use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
///
/// let dir = tempfile::tempdir().unwrap();
/// let env = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
/// let executor = LocalExecutor::new(env).with_command("sh {file}").unwrap();
/// let result = executor.execute("echo $((6 * 7))", CodeOptions { filename: Some("a.sh".into()), ..Default::default() }).await.unwrap();
/// assert_eq!(result.stdout, "42\n");
/// # });
/// ```
#[derive(Clone)]
pub struct LocalExecutor {
    env: Arc<dyn Sandbox>,
    command: String,
    python: PythonRunner,
    slots: Option<RunSlots>,
    /// Where fresh scripts go: shared by clones (not by scoped executors), made on the first
    /// fresh run.
    scripts: LazyScriptDir,
}

impl LocalExecutor {
    /// An executor that runs [`DEFAULT_COMMAND`] in `env`, under `env`'s limits, with the
    /// Python runner of the default limits ([`ExecLimits::default`]: its `PATH`, no network);
    /// [`with_python`](Self::with_python) sets the runner of `env`'s own.
    pub fn new(env: Arc<dyn Sandbox>) -> Self {
        static DEFAULT_PYTHON: std::sync::LazyLock<PythonRunner> =
            std::sync::LazyLock::new(|| PythonRunner::for_limits(&ExecLimits::default()));
        LocalExecutor {
            env,
            command: DEFAULT_COMMAND.to_string(),
            python: *DEFAULT_PYTHON,
            slots: None,
            scripts: LazyScriptDir::default(),
        }
    }

    /// The same executor with `{python}` standing for `python`, typically
    /// [`PythonRunner::for_limits`] of the sandbox's limits.
    #[must_use]
    pub fn with_python(mut self, python: PythonRunner) -> Self {
        self.python = python;
        self
    }

    /// What `{python}` stands for.
    pub fn python(&self) -> PythonRunner {
        self.python
    }

    /// The same executor running `command`, in which `{file}` stands for the script's path.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when `command` has no `{file}`.
    pub fn with_command(mut self, command: impl Into<String>) -> Result<Self, ServiceError> {
        let command = command.into();
        if !command.contains("{file}") {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "the run command `{command}` has no `{{file}}`: write where the script's path goes, as in `python3 {{file}}`"
                ),
            ));
        }
        self.command = command;
        Ok(self)
    }

    /// The same executor taking a slot of `slots` for each run, so the runs of every executor
    /// sharing them are capped together (none by default: each run starts at once).
    #[must_use]
    pub fn with_slots(mut self, slots: RunSlots) -> Self {
        self.slots = Some(slots);
        self
    }

    /// The same executor in `folder` of its sandbox ([`Sandbox::scoped`]): a child's code,
    /// which cannot leave that folder.
    ///
    /// # Errors
    /// As [`Sandbox::scoped`].
    pub fn scoped(&self, folder: &str) -> Result<Self, ServiceError> {
        Ok(LocalExecutor {
            env: self.env.scoped(folder)?,
            // A folder of its own: a child's runs may read the scripts' folder, and must not
            // reach its parent's scripts (a running one's name shows in `/proc`).
            scripts: LazyScriptDir::default(),
            ..self.clone()
        })
    }

    /// The command line, with `{file}` where the script's path goes.
    pub fn command(&self) -> &str {
        &self.command
    }

    async fn run(&self, code: &str, options: CodeOptions) -> Result<ShellResult, ServiceError> {
        // How long to wait for a slot or a named file; the sandbox holds the run itself to its
        // limits (and refuses a timeout above their maximum).
        let wait = options.timeout.unwrap_or(WAIT_WITHOUT_TIMEOUT);
        // Held until the run is over; waiting for it does not eat into the run's own timeout.
        let _slot = match &self.slots {
            Some(slots) => Some(slots.acquire(wait, &options.cancel).await?),
            None => None,
        };
        let script = Script::take(
            &self.env,
            (options.filename.as_deref(), &self.scripts),
            wait,
            &options.cancel,
        )
        .await?;
        let paths = HostPaths::new(
            self.env.resolve_path(".")?,
            script
                .outside_folder()
                .map(|_| script.host_path())
                .transpose()?
                .map(|path| (path, FRESH_NAME)),
        );
        let outcome = self.run_script(&script, code, options, wait).await;
        script.finish().await;
        match outcome {
            Ok(mut result) => {
                result.stderr = paths.shown(&result.stderr).into_owned();
                Ok(result)
            }
            Err(err) => Err(paths.error(err)),
        }
    }

    async fn run_script(
        &self,
        script: &Script,
        code: &str,
        mut options: CodeOptions,
        wait: std::time::Duration,
    ) -> Result<ShellResult, ServiceError> {
        script.write(code.as_bytes().to_vec()).await?;
        let path = script.host_path()?;
        if let Some(folder) = script.outside_folder() {
            // The run may read its script's folder (never list or write it), and imports the
            // workspace's modules as it would from a script in the workspace root.
            options.read_only.push(folder.to_path_buf());
            // After any folders the caller put there (code mode's package), which keep their
            // place first.
            let root = self.env.resolve_path(".")?;
            let root = root
                .components()
                .collect::<std::path::PathBuf>()
                .to_string_lossy()
                .into_owned();
            match options.env.iter_mut().find(|(key, _)| key == "PYTHONPATH") {
                Some((_, value)) if !value.is_empty() => {
                    value.push(':');
                    value.push_str(&root);
                }
                Some((_, value)) => *value = root,
                None => options.env.push(("PYTHONPATH".to_string(), root)),
            }
        }
        let Some(dir) = options.python_path.first().cloned() else {
            return self.exec(&path, options).await;
        };
        // Folders to import from: the command runs a bootstrap, which runs the code's file.
        options
            .env
            .extend(bootstrap::env(&path, &options.python_path)?);
        let Some(metadata) = bootstrap::inline_metadata(code) else {
            return self.exec(&bootstrap::shared(&dir)?, options).await;
        };
        let boot = Script::take(&self.env, (None, &self.scripts), wait, &options.cancel).await?;
        if let Some(folder) = boot.outside_folder()
            && !options.read_only.iter().any(|p| p == folder)
        {
            options.read_only.push(folder.to_path_buf());
        }
        let outcome = match boot
            .write(bootstrap::with_metadata(&metadata).into_bytes())
            .await
            .and_then(|()| boot.host_path())
        {
            Ok(started) => self.exec(&started, options).await,
            Err(err) => Err(err),
        };
        boot.finish().await;
        outcome
    }

    async fn exec(&self, file: &Path, options: CodeOptions) -> Result<ShellResult, ServiceError> {
        let command = self
            .command
            .replace(PYTHON, self.python.command())
            .replace("{file}", &crate::shell::quote(&file.to_string_lossy()));
        let exec = ExecOptions {
            timeout: options.timeout,
            cancel: Some(options.cancel),
            env: options.env,
            pass_fds: options.pass_fds,
            read_only: options.read_only,
            output_lines: options.output_lines,
            ..ExecOptions::default()
        };
        self.env.exec(&command, exec).await.map_err(|err| {
            if err.message().starts_with("the command was cancelled") {
                ServiceError::new(err.kind(), CANCELLED)
            } else {
                err
            }
        })
    }
}

/// How long a run that sets no timeout waits for a run slot or for a named file another run
/// holds: the sandbox's default timeout, unless it was changed.
const WAIT_WITHOUT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// What a cancelled run reports, whichever backend ran it.
pub const CANCELLED: &str = "the run was cancelled; it and every process it started were killed";

impl CodeExecutor for LocalExecutor {
    fn execute<'a>(
        &'a self,
        code: &'a str,
        options: CodeOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(self.run(code, options))
    }
}

impl std::fmt::Debug for LocalExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalExecutor")
            .field("env", &self.env.describe())
            .field("command", &self.command)
            .field("python", &self.python)
            .field("slots", &self.slots.as_ref().map(RunSlots::size))
            .finish()
    }
}
