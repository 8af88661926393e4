//! `--cpu-seconds`, `--memory-mb`, `--max-processes`, `--isolation` and `--read-only`: what each
//! command and code run of a session may use and reach (see [`ResourceLimits`] and
//! [`Isolation`]).

use std::path::PathBuf;
use std::time::Duration;

use cy_tools::services::ResourceLimits;

use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::Isolation;

/// The resource-limit options `call`, `mcp` and `control-server` share.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct LimitArgs {
    /// CPU seconds each process of a command or code run may use, or `none` [default: 600]
    #[arg(long, value_name = "SECONDS|none", value_parser = parse_limit)]
    cpu_seconds: Option<Limit>,
    /// MiB of data (heap) each process may hold, or `none` [default: 4096]
    #[arg(long, value_name = "MIB|none", value_parser = parse_limit)]
    memory_mb: Option<Limit>,
    /// Processes and threads a command or code run may have at once, or `none` [default: 512]
    #[arg(long, value_name = "COUNT|none", value_parser = parse_limit)]
    max_processes: Option<Limit>,
    /// How commands and code runs are confined: `strict` (the workspace and a private temporary
    /// folder, no network), `network` (strict plus internet sockets) or `none` (unconfined)
    #[arg(long, value_name = "LEVEL", default_value = "strict")]
    isolation: Isolation,
    /// A folder or file commands may also read and run programs from (repeatable), besides the
    /// system's and their interpreters'
    #[arg(long, value_name = "PATH")]
    read_only: Vec<PathBuf>,
}

/// One limit as given: a positive number, or `none` for unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Unlimited,
    At(u64),
}

fn parse_limit(text: &str) -> Result<Limit, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Limit::Unlimited);
    }
    match text.parse::<u64>() {
        Ok(0) => {
            Err("0 would stop everything; give a positive number, or `none` for no limit".into())
        }
        Ok(n) => Ok(Limit::At(n)),
        Err(_) => Err(format!(
            "`{text}` is not a whole number; give a positive number, or `none` for no limit"
        )),
    }
}

impl LimitArgs {
    /// The sandbox limits these options give.
    pub(super) fn exec_limits(&self) -> ExecLimits {
        ExecLimits {
            resources: self.resources(),
            isolation: self.isolation,
            read_only: self.read_only.clone(),
            ..ExecLimits::default()
        }
    }

    /// The defaults, with each option given replacing its field.
    pub(super) fn resources(&self) -> ResourceLimits {
        let defaults = ResourceLimits::default();
        ResourceLimits {
            cpu_time: pick(self.cpu_seconds, defaults.cpu_time, Duration::from_secs),
            memory: pick(self.memory_mb, defaults.memory, |mib| {
                mib.saturating_mul(1 << 20)
            }),
            processes: pick(self.max_processes, defaults.processes, |n| {
                u32::try_from(n).unwrap_or(u32::MAX)
            }),
        }
    }
}

/// `default` when the option was not given, else what it says.
fn pick<T>(given: Option<Limit>, default: Option<T>, value: impl Fn(u64) -> T) -> Option<T> {
    match given {
        None => default,
        Some(Limit::Unlimited) => None,
        Some(Limit::At(n)) => Some(value(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_none_and_mistakes() {
        assert_eq!(parse_limit("7"), Ok(Limit::At(7)));
        assert_eq!(parse_limit("None"), Ok(Limit::Unlimited));
        assert_eq!(
            parse_limit("0").unwrap_err(),
            "0 would stop everything; give a positive number, or `none` for no limit"
        );
        assert_eq!(
            parse_limit("1.5").unwrap_err(),
            "`1.5` is not a whole number; give a positive number, or `none` for no limit"
        );
    }

    #[test]
    fn options_replace_their_default_only() {
        let args = LimitArgs {
            cpu_seconds: Some(Limit::At(7)),
            memory_mb: Some(Limit::Unlimited),
            max_processes: None,
            isolation: Isolation::Network,
            read_only: vec![PathBuf::from("/opt/tools")],
        };
        let limits = args.exec_limits();
        assert_eq!(limits.isolation, Isolation::Network);
        assert_eq!(limits.read_only, [PathBuf::from("/opt/tools")]);
        assert_eq!(
            args.resources(),
            ResourceLimits {
                cpu_time: Some(Duration::from_secs(7)),
                memory: None,
                processes: ResourceLimits::default().processes,
            }
        );
    }
}
