//! A timer that is always pending, so the timer every request starts does not wake the
//! runtime.
//!
//! Tokio's time driver parks its thread until the earliest timer is due. A timer registered
//! earlier than that, or any timer while none is registered, wakes the parked thread (an
//! eventfd write, an `epoll_wait` return, a lock) just so it can park again with the new
//! deadline. hyper starts a header timer for each request and drops it once the head is read,
//! so between requests none is left, and every request woke the driver: with `cy-tools mcp
//! --http` at one client, 16.6 system calls per call, 10.7 with a standing timer (strace
//! counts, BENCHMARKS.md). A standing timer always due sooner than any header timer keeps
//! those from waking anybody; it costs one wake-up of its own per period.

use std::pin::Pin;
use std::time::Duration;

use tokio::time::{Instant, Sleep, sleep};

/// The shortest period: a tiny header timeout (a test's) must not make the timer spin.
const MIN_PERIOD: Duration = Duration::from_millis(10);

/// A timer re-armed each time it fires, for a `select!` beside the accept loop's work.
pub(crate) struct StandingTimer {
    sleep: Pin<Box<Sleep>>,
    period: Duration,
}

impl StandingTimer {
    /// A timer due within half of `sooner_than` (at least [`MIN_PERIOD`]), and every half
    /// after, so it is always due before a timer of `sooner_than` started at any time.
    pub(crate) fn new(sooner_than: Duration) -> Self {
        let period = (sooner_than / 2).max(MIN_PERIOD);
        StandingTimer {
            sleep: Box::pin(sleep(period)),
            period,
        }
    }

    /// Waits until the timer fires, then arms it again, one period on.
    pub(crate) async fn fired(&mut self) {
        self.sleep.as_mut().await;
        let next = Instant::now() + self.period;
        self.sleep.as_mut().reset(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fires_every_half_of_the_timeout_and_again() {
        let start = Instant::now();
        let mut timer = StandingTimer::new(Duration::from_millis(60));
        timer.fired().await;
        assert!(start.elapsed() >= Duration::from_millis(30));
        timer.fired().await;
        assert!(start.elapsed() >= Duration::from_millis(60));
    }

    #[tokio::test]
    async fn it_is_pending_until_its_period_has_passed() {
        let mut timer = StandingTimer::new(Duration::from_secs(20));
        tokio::select! {
            biased;
            () = timer.fired() => panic!("the timer fired before its period"),
            () = sleep(Duration::from_millis(10)) => {}
        }
    }

    #[tokio::test]
    async fn a_tiny_timeout_does_not_make_it_spin() {
        let start = Instant::now();
        let mut timer = StandingTimer::new(Duration::from_nanos(1));
        timer.fired().await;
        timer.fired().await;
        assert!(start.elapsed() >= 2 * MIN_PERIOD);
    }
}
