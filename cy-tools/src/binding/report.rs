//! `BuildReport`: which requested tools a build left out, and why.

use std::fmt;

use super::error::BindError;
use super::toolset::Toolset;

/// Why one requested name was left out of a toolset.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeftOut {
    /// Nothing is registered under the name in this process.
    Unknown,
    /// The tool is registered but cannot be bound to this context.
    Unavailable(BindError),
}

/// What [`ToolRegistry::try_build`](crate::ToolRegistry::try_build) returns when a requested
/// name could not be bound: the tools that were, and each name that was not with its reason.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The tools that were bound, in the requested order.
    pub tools: Toolset,
    /// Each requested name left out, with why, in the requested order.
    pub left_out: Vec<(String, LeftOut)>,
    /// The names registered in the registry, sorted, for the message.
    pub(crate) registered: Vec<String>,
}

impl BuildReport {
    /// The names left out, in the requested order.
    pub fn left_out_names(&self) -> Vec<&str> {
        self.left_out
            .iter()
            .map(|(name, _)| name.as_str())
            .collect()
    }
}

impl fmt::Display for BuildReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of the requested tools could not be bound:",
            self.left_out.len()
        )?;
        for (name, why) in &self.left_out {
            match why {
                LeftOut::Unknown if self.registered.is_empty() => write!(
                    f,
                    "\n- `{name}`: no tool is registered under this name, and none is registered at all \
                     (link the crate that defines it, as in `use cy_tools_builtin as _;`)"
                )?,
                LeftOut::Unknown => write!(
                    f,
                    "\n- `{name}`: no tool is registered under this name; registered tools are {}",
                    self.registered
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )?,
                LeftOut::Unavailable(err) => write!(f, "\n- `{name}`: {err}")?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for BuildReport {}
