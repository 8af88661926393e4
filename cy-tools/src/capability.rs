//! Capabilities: which per-session context fields a tool may touch.
//!
//! Each of the seven [`ToolContext`](crate::ToolContext) fields is one capability. A tool
//! declares its set twice over, and the two can never disagree because one is derived from the
//! other:
//!
//! * at the type level, as a zero-sized type implementing [`Grants<cap::X>`](Grants) once per
//!   granted capability, so that [`Ctx`](crate::Ctx) only offers the accessors the tool declared;
//! * at run time, as the [`Capabilities`] constant of that type ([`CapabilitySet::CAPABILITIES`]),
//!   so that binding can refuse a session that does not provide them.
//!
//! Declare a set with [`capability_set!`](crate::capability_set) (the `#[tool]` attribute does
//! it for you).

use std::fmt;

/// One per-session context field a tool may be granted.
///
/// ```
/// use cy_tools::Capability;
/// assert_eq!(Capability::ExecuteCode.name(), "execute_code");
/// assert_eq!(Capability::from_name("chat"), Some(Capability::Chat));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// The session's sandbox view (`ctx.env()`).
    Env,
    /// The session's code executor (`ctx.execute_code()`).
    ExecuteCode,
    /// The session's identity: id, tenant, lineage, depth (`ctx.session()`).
    Session,
    /// The child-session factory (`ctx.factory()`).
    Factory,
    /// The execution log (`ctx.store()`).
    Store,
    /// Cross-session signaling (`ctx.coordinator()`).
    Coordinator,
    /// The chat the session talks to people through (`ctx.chat()`).
    Chat,
}

impl Capability {
    /// Every capability, in declaration order.
    pub const ALL: [Capability; 7] = [
        Capability::Env,
        Capability::ExecuteCode,
        Capability::Session,
        Capability::Factory,
        Capability::Store,
        Capability::Coordinator,
        Capability::Chat,
    ];

    /// The name used in `#[tool(capabilities(...))]`, in specs and in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Capability::Env => "env",
            Capability::ExecuteCode => "execute_code",
            Capability::Session => "session",
            Capability::Factory => "factory",
            Capability::Store => "store",
            Capability::Coordinator => "coordinator",
            Capability::Chat => "chat",
        }
    }

    /// Parses a name as written in `#[tool(capabilities(...))]`.
    pub fn from_name(name: &str) -> Option<Capability> {
        Capability::ALL.into_iter().find(|c| c.name() == name)
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Capability`] values, usable in `const` context.
///
/// ```
/// use cy_tools::{Capabilities, Capability};
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
    pub const ALL: Capabilities = Capabilities(0b111_1111);

    /// This set plus `cap`.
    #[must_use]
    pub const fn with(self, cap: Capability) -> Capabilities {
        Capabilities(self.0 | cap.bit())
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
            .into_iter()
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

/// Type-level capability markers, one per [`Capability`].
pub mod cap {
    use super::Capability;

    /// A type-level capability. Sealed: the seven markers of this module are all there is.
    pub trait Marker: sealed::Sealed + 'static {
        /// The run-time value of this marker.
        const CAPABILITY: Capability;
    }

    mod sealed {
        pub trait Sealed {}
    }

    macro_rules! markers {
        ($($(#[$doc:meta])* $name:ident => $cap:ident,)*) => {$(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub enum $name {}
            impl sealed::Sealed for $name {}
            impl Marker for $name {
                const CAPABILITY: Capability = Capability::$cap;
            }
        )*};
    }

    markers! {
        /// Marker for [`Capability::Env`].
        Env => Env,
        /// Marker for [`Capability::ExecuteCode`].
        ExecuteCode => ExecuteCode,
        /// Marker for [`Capability::Session`].
        Session => Session,
        /// Marker for [`Capability::Factory`].
        Factory => Factory,
        /// Marker for [`Capability::Store`].
        Store => Store,
        /// Marker for [`Capability::Coordinator`].
        Coordinator => Coordinator,
        /// Marker for [`Capability::Chat`].
        Chat => Chat,
    }
}

/// A type that stands for one tool's declared capability set.
///
/// Implemented by [`capability_set!`](crate::capability_set) and by `#[tool]`; the run-time set
/// is this constant, so the type-level grants and the data binding checks come from one place.
pub trait CapabilitySet: Send + Sync + 'static {
    /// The declared capabilities.
    const CAPABILITIES: Capabilities;
}

/// Proof, checked by the compiler, that a capability set grants capability `C`.
///
/// [`Ctx`](crate::Ctx) offers the accessor for a context field only where its set implements
/// `Grants` for that field's marker, so a tool body that touches an undeclared field does not
/// compile.
#[diagnostic::on_unimplemented(
    message = "tool capability `{C}` is not granted to this tool",
    label = "this needs the `{C}` capability, which the tool did not declare",
    note = "add it to the tool's declared set: `#[tool(capabilities(...))]`, or `capability_set!` for a hand-written definition"
)]
pub trait Grants<C: cap::Marker>: CapabilitySet {}

/// The empty capability set: a tool that touches no context field.
#[derive(Clone, Copy, Debug)]
pub enum NoCapabilities {}

impl CapabilitySet for NoCapabilities {
    const CAPABILITIES: Capabilities = Capabilities::NONE;
}

/// Declares a capability-set type for a hand-written definition.
///
/// Capability names are the field names: `env`, `execute_code`, `session`, `factory`, `store`,
/// `coordinator`, `chat`.
///
/// ```
/// use cy_tools::{capability_set, Capability, CapabilitySet};
///
/// capability_set!(
///     /// What the file readers may touch.
///     pub ReadCaps: env, session
/// );
/// assert!(ReadCaps::CAPABILITIES.contains(Capability::Env));
/// assert!(!ReadCaps::CAPABILITIES.contains(Capability::Chat));
/// ```
#[macro_export]
macro_rules! capability_set {
    ($(#[$meta:meta])* $vis:vis $name:ident : $($cap:ident),* $(,)?) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        $vis enum $name {}
        impl $crate::CapabilitySet for $name {
            const CAPABILITIES: $crate::Capabilities =
                $crate::Capabilities::NONE $(.with($crate::__capability_value!($cap)))*;
        }
        $( impl $crate::Grants<$crate::__capability_marker!($cap)> for $name {} )*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __capability_value {
    (env) => {
        $crate::Capability::Env
    };
    (execute_code) => {
        $crate::Capability::ExecuteCode
    };
    (session) => {
        $crate::Capability::Session
    };
    (factory) => {
        $crate::Capability::Factory
    };
    (store) => {
        $crate::Capability::Store
    };
    (coordinator) => {
        $crate::Capability::Coordinator
    };
    (chat) => {
        $crate::Capability::Chat
    };
    ($other:ident) => {
        ::core::compile_error!(::core::concat!(
            "unknown capability `",
            ::core::stringify!($other),
            "`: valid ones are env, execute_code, session, factory, store, coordinator, chat"
        ))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __capability_marker {
    (env) => {
        $crate::cap::Env
    };
    (execute_code) => {
        $crate::cap::ExecuteCode
    };
    (session) => {
        $crate::cap::Session
    };
    (factory) => {
        $crate::cap::Factory
    };
    (store) => {
        $crate::cap::Store
    };
    (coordinator) => {
        $crate::cap::Coordinator
    };
    (chat) => {
        $crate::cap::Chat
    };
    ($other:ident) => {
        $crate::cap::Env
    };
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
        assert_eq!(Capabilities::ALL.iter().count(), 7);
    }

    #[test]
    fn names_round_trip() {
        for cap in Capability::ALL {
            assert_eq!(Capability::from_name(cap.name()), Some(cap));
        }
        assert_eq!(Capability::from_name("network"), None);
    }
}
