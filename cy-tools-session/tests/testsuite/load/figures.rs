//! The figures a run prints: latency per kind of call, and the machine's load.

use std::collections::BTreeMap;
use std::time::Duration;

use super::workload::Kind;

/// Latency samples by kind.
#[derive(Default)]
pub struct Samples {
    pub by_kind: BTreeMap<Kind, Vec<Duration>>,
}

impl Samples {
    pub fn add(&mut self, kind: Kind, took: Duration) {
        self.by_kind.entry(kind).or_default().push(took);
    }

    pub fn merge(&mut self, other: Samples) {
        for (kind, mut samples) in other.by_kind {
            self.by_kind.entry(kind).or_default().append(&mut samples);
        }
    }

    pub fn all(&self) -> Vec<Duration> {
        self.by_kind.values().flatten().copied().collect()
    }
}

/// `count  p50  p99  max` in milliseconds, by nearest rank.
pub fn summary(samples: &[Duration]) -> String {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let rank = |p: f64| -> Duration {
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        let n = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[n - 1]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "{:>7} {:>10.2} {:>10.2} {:>10.2}",
        sorted.len(),
        ms(rank(0.50)),
        ms(rank(0.99)),
        ms(sorted.last().copied().unwrap_or_default())
    )
}

/// The machine's load averages (1, 5, 15 min).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
