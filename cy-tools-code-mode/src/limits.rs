//! Limits on what one execution's code may ask of the session.

use std::time::Duration;

/// Limits on the calls one execution makes through the SDK channel.
///
/// ```
/// use cy_tools_code_mode::CodeModeLimits;
/// let limits = CodeModeLimits { max_calls: 10, ..CodeModeLimits::default() };
/// assert!(!limits.allow_nesting);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeModeLimits {
    /// Calls allowed per execution (listing the tools is not counted).
    pub max_calls: usize,
    /// Largest request line and largest result, in bytes.
    pub max_payload_bytes: usize,
    /// How long one call (approval included) may take.
    pub call_timeout: Duration,
    /// Whether the code may call `execute_code` itself.
    pub allow_nesting: bool,
}

impl Default for CodeModeLimits {
    fn default() -> Self {
        CodeModeLimits {
            max_calls: 1_000_000,
            max_payload_bytes: 8 * 1024 * 1024,
            call_timeout: Duration::from_secs(120),
            allow_nesting: false,
        }
    }
}
