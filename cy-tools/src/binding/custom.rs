//! What one binding of a tool says differently from its definition.
//!
//! Rare (code mode's own description of `execute_code`, a host's timeout for one session), so
//! it is kept behind one pointer: every other session's tools stay small, and binding writes
//! nothing for it.

use std::sync::Arc;
use std::time::Duration;

/// A binding's own settings; a field left `None` is the definition's.
#[derive(Clone, Default, PartialEq)]
pub(super) struct Custom {
    /// The timeout each call runs under (`Some(None)`: no limit), when not the definition's.
    pub(super) timeout: Option<Option<Duration>>,
    /// What the tool does, for the model, when the session says more than the definition.
    pub(super) description: Option<Arc<str>>,
}

impl Custom {
    /// `custom` changed by `change`; `None` when nothing is left that differs from the
    /// definition.
    pub(super) fn changed(
        custom: Option<&Arc<Custom>>,
        change: impl FnOnce(&mut Custom),
    ) -> Option<Arc<Custom>> {
        let mut next = custom.map(|c| Custom::clone(c)).unwrap_or_default();
        change(&mut next);
        (next != Custom::default()).then(|| Arc::new(next))
    }
}
