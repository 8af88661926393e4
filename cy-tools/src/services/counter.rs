//! `ProgressCounter`: a count a backend raises as it works and a tool reads to report progress.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A shared count (lines written, files searched) that a backend raises while it works and the
/// tool that started the work reads, to report progress ([`CallInfo::progress`](crate::CallInfo::progress)).
/// Clones share the count; two counters are equal when they are the same count.
///
/// ```
/// use cy_tools::services::ProgressCounter;
/// let counter = ProgressCounter::default();
/// let backend = counter.clone();
/// backend.add(3);
/// assert_eq!(counter.get(), 3);
/// assert_eq!(counter, backend);
/// assert_ne!(counter, ProgressCounter::default());
/// ```
#[derive(Clone, Debug, Default)]
pub struct ProgressCounter(Arc<AtomicU64>);

impl ProgressCounter {
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// The count now.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl PartialEq for ProgressCounter {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ProgressCounter {}
