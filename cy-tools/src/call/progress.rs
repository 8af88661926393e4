//! Progress a call reports while it runs, and the gate every host's listener sits behind.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One progress report of a running call: how far it is, out of how much when known, and a
/// line for a person.
///
/// ```
/// use cy_tools::call::Progress;
/// use cy_tools::binding::bind_tool;
/// let p = Progress { done: 3.0, total: Some(10.0), message: Some("3 files searched".into()) };
/// assert_eq!(p.to_string(), "3/10 3 files searched");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Work done so far; every report of a call has a larger value than the one before.
    pub done: f64,
    /// The whole, when the tool knows it.
    pub total: Option<f64>,
    /// What is going on, for a person.
    pub message: Option<String>,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.done)?;
        if let Some(total) = self.total {
            write!(f, "/{total}")?;
        }
        if let Some(message) = &self.message {
            write!(f, " {message}")?;
        }
        Ok(())
    }
}

/// Where a host receives the progress of one call: an MCP server turns it into
/// `notifications/progress`, the command line into a line on stderr, an application into
/// whatever it likes. Any `Fn(Progress)` is one.
///
/// `report` is called on the tool's task, so it must not block: hand the report over (a
/// channel, an atomic) and return. The runtime calls it only with increasing values, at most
/// once per [`PROGRESS_INTERVAL`] (and once more as the call ends, with the last report held
/// back), and never after the call has answered.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::{Arc, Mutex};
/// use cy_tools::prelude::*;
/// use cy_tools::call::Progress;
/// use cy_tools::binding::bind_tool;
///
/// /// Counts to three.
/// #[tool(register = false)]
/// async fn count(call: CallInfo<'_>) -> String {
///     for n in 1..=3 {
///         call.progress(f64::from(n), Some(3.0), || format!("{n} of 3"));
///         tokio::time::sleep(std::time::Duration::from_millis(120)).await;
///     }
///     "done".into()
/// }
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// let tool = bind_tool(&COUNT, ToolContext::new(SessionIdentity::root("s", "t"))).unwrap();
/// let call = ToolCall::new("c1", serde_json::json!({}))
///     .with_progress(Arc::new(move |p: Progress| sink.lock().unwrap().push(p.done)));
/// assert_eq!(tool.execute(call, &CancellationToken::new()).await.text_content(), "done");
/// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
/// # });
/// ```
pub trait ProgressSink: Send + Sync {
    /// Receives one report.
    fn report(&self, progress: Progress);
}

impl<F: Fn(Progress) + Send + Sync> ProgressSink for F {
    fn report(&self, progress: Progress) {
        self(progress);
    }
}

/// The least time between two reports of one call that reach its listener, so a tool may
/// report on every file or line without flooding a client: a report that comes sooner is
/// held back, and passed on when the call ends unless a later one replaced it first.
///
/// 50 ms: a tool that reports at a steady 20 per second or slower has every report delivered
/// (the MCP conformance suite's tool reports 0, 50 and 100 at 50 ms intervals; at 100 ms the
/// middle one was replaced before it could be sent), and a client gets at most 20 a second.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// The most bytes of one progress report's message: a longer one is cut (at a character
/// boundary) and ends in `...`. A progress line is a status, not a channel for output.
pub const PROGRESS_MESSAGE_BYTES: usize = 1024;

/// The one place a call's reports pass: increasing values only, rate-limited, the last one
/// held back delivered as the call ends, closed when the call answers. The sink is called
/// under the lock, so once `close` returns nothing more is delivered.
pub(crate) struct ProgressGate {
    sink: Arc<dyn ProgressSink>,
    state: Mutex<GateState>,
}

struct GateState {
    last: Option<f64>,
    at: Option<Instant>,
    /// The latest report that came too soon after the one before, not delivered yet.
    held: Option<Progress>,
    closed: bool,
}

impl ProgressGate {
    pub(crate) fn new(sink: Arc<dyn ProgressSink>) -> Self {
        ProgressGate {
            sink,
            state: Mutex::new(GateState {
                last: None,
                at: None,
                held: None,
                closed: false,
            }),
        }
    }

    pub(crate) fn report(&self, done: f64, total: Option<f64>, message: impl FnOnce() -> String) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.closed || !done.is_finite() || state.last.is_some_and(|last| done <= last) {
            return;
        }
        let now = Instant::now();
        let mut message = message();
        if message.len() > PROGRESS_MESSAGE_BYTES {
            let kept = message.floor_char_boundary(PROGRESS_MESSAGE_BYTES);
            message.truncate(kept);
            message.push_str("...");
        }
        let progress = Progress {
            done,
            total: total.filter(|t| t.is_finite()),
            message: (!message.is_empty()).then_some(message),
        };
        state.last = Some(done);
        if state
            .at
            .is_some_and(|at| now.duration_since(at) < PROGRESS_INTERVAL)
        {
            // Replaces any report held before it: this one carries the news.
            state.held = Some(progress);
            return;
        }
        state.at = Some(now);
        state.held = None;
        self.sink.report(progress);
    }

    /// Delivers the report held back, if any (the call's last word on how far it got), then
    /// lets nothing more through.
    pub(crate) fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = state.held.take()
            && !state.closed
        {
            self.sink.report(held);
        }
        state.closed = true;
    }
}

impl std::fmt::Debug for ProgressGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressGate")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a gate delivered: each report's value and message.
    type Seen = Arc<Mutex<Vec<(f64, Option<String>)>>>;

    fn recording() -> (ProgressGate, Seen) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let gate = ProgressGate::new(Arc::new(move |p: Progress| {
            sink.lock().unwrap().push((p.done, p.message));
        }));
        (gate, seen)
    }

    #[test]
    fn only_increasing_values_pass_the_last_held_one_at_close_and_none_after() {
        let (gate, seen) = recording();
        gate.report(2.0, None, || "two".into());
        gate.report(1.0, None, || {
            unreachable!("a smaller value is not even formatted")
        });
        gate.report(3.0, None, String::new); // too soon: held
        std::thread::sleep(PROGRESS_INTERVAL);
        gate.report(f64::NAN, None, String::new);
        gate.report(4.0, None, String::new); // replaces 3, sent
        gate.report(5.0, None, || "five".into()); // too soon: held
        gate.close(); // delivers 5
        std::thread::sleep(PROGRESS_INTERVAL);
        gate.report(6.0, None, || unreachable!("closed"));
        gate.close();
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (2.0, Some("two".to_string())),
                (4.0, None),
                (5.0, Some("five".to_string()))
            ]
        );
    }

    #[test]
    fn a_long_message_is_cut_to_its_bound() {
        let (gate, seen) = recording();
        gate.report(1.0, None, || "é".repeat(2000));
        let got = seen.lock().unwrap()[0].1.clone().unwrap();
        assert!(got.ends_with("..."));
        assert!(
            got.len() <= super::PROGRESS_MESSAGE_BYTES + 3,
            "{}",
            got.len()
        );
        assert!(got.trim_end_matches("...").chars().all(|c| c == 'é'));
    }

    #[test]
    fn reports_one_interval_apart_all_pass() {
        let (gate, seen) = recording();
        for done in [0.0, 50.0, 100.0] {
            gate.report(done, Some(100.0), String::new);
            std::thread::sleep(PROGRESS_INTERVAL);
        }
        gate.close();
        let seen: Vec<f64> = seen.lock().unwrap().iter().map(|s| s.0).collect();
        assert_eq!(seen, [0.0, 50.0, 100.0]);
    }
}
