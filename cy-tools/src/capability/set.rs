//! [`Capabilities`]: a set of capabilities as a value, what binding compares.

use std::fmt;

use super::Capability;

/// A set of [`Capability`] values, usable in `const` context.
///
/// ```
/// use cy_tools::capability::{Capabilities, Capability};
/// const READER: Capabilities = Capabilities::NONE.with(Capability::Env);
/// assert!(READER.contains(Capability::Env));
/// assert!(!READER.contains(Capability::Chat));
/// assert_eq!(READER.to_string(), "env");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Capabilities(u8);

impl Capabilities {
    /// The empty set.
    pub const NONE: Capabilities = Capabilities(0);

    /// The set with every capability.
    pub const ALL: Capabilities = {
        let mut set = Capabilities::NONE;
        let mut i = 0;
        while i < Capability::ALL.len() {
            set = set.with(Capability::ALL[i]);
            i += 1;
        }
        set
    };

    /// This set plus `cap`.
    #[must_use]
    pub const fn with(self, cap: Capability) -> Capabilities {
        Capabilities(self.0 | cap.bit())
    }

    /// This set plus `cap` when `granted`: how a declared capability set's flags become its
    /// set.
    #[must_use]
    pub const fn with_if(self, cap: Capability, granted: bool) -> Capabilities {
        if granted { self.with(cap) } else { self }
    }

    /// Whether `cap` is in the set.
    pub const fn contains(self, cap: Capability) -> bool {
        self.0 & cap.bit() != 0
    }

    /// Whether every capability of `other` is in this set.
    pub const fn contains_all(self, other: Capabilities) -> bool {
        self.0 & other.0 == other.0
    }

    /// The capabilities of this set that are not in `other`.
    #[must_use]
    pub const fn difference(self, other: Capabilities) -> Capabilities {
        Capabilities(self.0 & !other.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = Capability> {
        Capability::ALL
            .iter()
            .copied()
            .filter(move |c| self.contains(*c))
    }
}

impl FromIterator<Capability> for Capabilities {
    fn from_iter<I: IntoIterator<Item = Capability>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Capabilities::NONE, Capabilities::with)
    }
}

impl fmt::Display for Capabilities {
    /// Comma-separated names, `none` for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, cap) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(cap.name())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let set: Capabilities = [Capability::Chat, Capability::Env].into_iter().collect();
        assert_eq!(set.to_string(), "env, chat");
        assert_eq!(Capabilities::NONE.to_string(), "none");
        let missing = set.difference(Capabilities::NONE.with(Capability::Env));
        assert_eq!(missing.iter().collect::<Vec<_>>(), vec![Capability::Chat]);
        assert!(Capabilities::ALL.contains_all(set));
        assert!(!set.contains_all(Capabilities::ALL));
        assert_eq!(Capabilities::ALL.iter().count(), Capability::ALL.len());
        assert_eq!(
            Capabilities::NONE.with_if(Capability::Env, false),
            Capabilities::NONE
        );
    }
}
