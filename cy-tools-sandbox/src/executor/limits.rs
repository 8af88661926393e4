//! `RunLimits`: the name code runs' limits had before commands and runs shared one type.

/// What code runs are held to: the same [`ExecLimits`](crate::ExecLimits) as every command,
/// those of the sandbox the code runs in.
#[deprecated(
    since = "0.1.0",
    note = "code runs and commands share one limits type: set `ExecLimits` on the sandbox (`LocalSandbox::with_limits`)"
)]
pub type RunLimits = crate::ExecLimits;
