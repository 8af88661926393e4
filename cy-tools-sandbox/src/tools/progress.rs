//! Progress of the tools that wait: a count read on a timer while the work runs.

use std::future::Future;
use std::pin::pin;
use std::time::{Duration, Instant};

use cy_tools::CallInfo;
use cy_tools::services::ProgressCounter;

use super::text::plural;

/// How often a waiting tool looks at its count. The runtime rate-limits what reaches a listener
/// anyway; this only bounds the work of looking.
const TICK: Duration = Duration::from_millis(200);

/// What a waiting tool reports.
pub(crate) enum Measure<'a> {
    /// A count a backend raises (lines of output, files searched), with how to say it:
    /// `3 lines of output so far`.
    Count(&'a ProgressCounter, fn(u64) -> String),
    /// Seconds waited, with what is awaited: `` `p1` to exit ``.
    Waiting(&'a str),
}

/// Runs `work`, reporting `measure` through `call` until it ends. Without a listener it is
/// `work` alone: no timer, no count read.
pub(crate) async fn reporting<F: Future>(
    call: &CallInfo<'_>,
    measure: Measure<'_>,
    work: F,
) -> F::Output {
    if !call.wants_progress() {
        return work.await;
    }
    let started = Instant::now();
    let mut work = pin!(work);
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let report = |measure: &Measure<'_>| match measure {
        Measure::Count(counter, say) => {
            let n = counter.get();
            if n > 0 {
                call.progress(n as f64, None, || say(n));
            }
        }
        Measure::Waiting(what) => {
            let waited = started.elapsed().as_secs_f64();
            call.progress(waited, None, || {
                format!("waiting for {what} ({waited:.1}s)")
            });
        }
    };
    loop {
        tokio::select! {
            biased;
            out = &mut work => {
                // The final count, so even work done between two ticks is reported once (the
                // call has not answered yet; the runtime drops it if the last was too recent).
                if let Measure::Count(..) = measure {
                    report(&measure);
                }
                return out;
            }
            _ = ticks.tick() => report(&measure),
        }
    }
}

/// `3 lines of output so far`.
pub(crate) fn output_lines(n: u64) -> String {
    format!("{} of output so far", plural(n, "line", "lines"))
}

/// `3 files searched`.
pub(crate) fn files_searched(n: u64) -> String {
    format!("{} searched", plural(n, "file", "files"))
}
