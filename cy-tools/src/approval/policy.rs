//! `ApprovalPolicy`: which calls a person must approve.

use serde::{Deserialize, Serialize};

use crate::definition::ToolAnnotations;

/// Which calls need a person's approval before they run. The same setting for every host: the
/// command line's `--approve`, a session spec's `approve`, the library's
/// [`Approval`](super::Approval).
///
/// ```
/// use cy_tools::approval::ApprovalPolicy;
/// use cy_tools::definition::ToolAnnotations;
///
/// let policy: ApprovalPolicy = "destructive".parse().unwrap();
/// assert!(policy.needs(ToolAnnotations::DEFAULT)); // MCP's default: destructive
/// assert!(!policy.needs(ToolAnnotations::DEFAULT.read_only()));
/// assert!(!policy.needs(ToolAnnotations::DEFAULT.destructive(false)));
/// assert!(ApprovalPolicy::All.needs(ToolAnnotations::DEFAULT.read_only()));
/// assert_eq!(ApprovalPolicy::default(), ApprovalPolicy::None);
/// assert!("some".parse::<ApprovalPolicy>().unwrap_err().contains("`destructive`"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalPolicy {
    /// No call asks (the default, and what a spec without the field gets).
    #[default]
    None,
    /// Calls of tools that may destroy or overwrite data: not read-only and not declared
    /// `destructive = false`.
    Destructive,
    /// Every call.
    All,
}

impl ApprovalPolicy {
    /// Whether a call of a tool with these annotations needs approval.
    pub fn needs(self, annotations: ToolAnnotations) -> bool {
        match self {
            ApprovalPolicy::None => false,
            ApprovalPolicy::Destructive => !annotations.read_only && annotations.destructive,
            ApprovalPolicy::All => true,
        }
    }

    /// Whether no call asks ([`ApprovalPolicy::None`]).
    pub fn is_none(&self) -> bool {
        *self == ApprovalPolicy::None
    }

    /// The name used on the command line and in specs.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::None => "none",
            ApprovalPolicy::Destructive => "destructive",
            ApprovalPolicy::All => "all",
        }
    }
}

impl std::fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ApprovalPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(ApprovalPolicy::None),
            "destructive" => Ok(ApprovalPolicy::Destructive),
            "all" => Ok(ApprovalPolicy::All),
            other => Err(format!(
                "unknown approval policy `{other}`; use `destructive` (ask before tools that may destroy data), `all` (ask before every call) or `none`"
            )),
        }
    }
}
