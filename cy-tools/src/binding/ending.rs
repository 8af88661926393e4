//! How a call that did not end with its body's own answer is answered: cancelled, timed out,
//! or panicked. Each answer names what happened and what the model can do next.

use std::time::Duration;

use crate::call::ToolResult;

/// The answer to a call cancelled before it finished.
pub(crate) fn cancelled(name: &str) -> ToolResult {
    ToolResult::error(format!(
        "the call to `{name}` was cancelled before it finished and was stopped; call it again if the result is still needed"
    ))
}

/// The answer to a call stopped at its timeout.
pub(super) fn timed_out(name: &str, after: Duration) -> ToolResult {
    ToolResult::error(format!(
        "`{name}` timed out after {} and was stopped; retry with a smaller task or split the work into several calls",
        format_duration(after)
    ))
}

/// The answer to a call whose body panicked: a bug in the tool, not in the arguments.
pub(super) fn panicked(name: &str, panic: &(dyn std::any::Any + Send)) -> ToolResult {
    let why = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    ToolResult::error(format!(
        "`{name}` failed with an internal error ({why}); this is a bug in the tool, not in your arguments: try another way to reach your goal"
    ))
}

/// `250ms`, `2s`, `1.5s`: short and exact enough for a model.
pub(crate) fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", (ms as f64) / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::format_duration;
    use std::time::Duration;

    #[test]
    fn durations_read_well() {
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }
}
