//! Latencies to percentiles.

use std::time::Duration;

/// The `q`-quantile (0 to 1) of `sorted`, in microseconds.
pub fn quantile_us(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[at].as_secs_f64() * 1e6
}
