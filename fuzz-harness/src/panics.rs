//! Counting panics, so an oracle can tell a caught panic from an error result by something an
//! input cannot write.
//!
//! `BoundTool::execute` turns a panic in a tool into an error result; the words it uses can be
//! in any tool's output when an input carries them. A panic hook cannot be faked by an input:
//! [`install`] adds one that counts every panic and then runs the hook that was there before
//! (under libFuzzer, its hook, which aborts, so the fuzzer still reports the panic).

use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Adds the counting hook, once per process.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
    });
}

/// How many panics the process has had since [`install`].
pub fn count() -> usize {
    PANICS.load(Ordering::SeqCst)
}
