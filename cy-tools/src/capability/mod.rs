//! Capabilities: which per-session context fields a tool may touch.
//!
//! Each [`ToolContext`](crate::ToolContext) field is one capability. A tool declares its set
//! once, and the declaration is the only way a set grants anything:
//!
//! * at the type level it is a [`Caps`] type, one `bool` per capability, and [`Ctx`] offers
//!   the accessor for a field only where the set's flag for it is `true` (the [`grants`]
//!   traits, implemented here for `Caps` and sealed, so no other type can claim a grant);
//! * at run time it is that type's [`CapabilitySet::CAPABILITIES`], so binding refuses a
//!   session that does not provide them.
//!
//! `#[tool(capabilities(...))]` writes the type; a hand-written definition uses
//! [`capability_set!`](crate::capability::capability_set).
//!
//! Every capability is written out once, in `capability_table!` (below): the enum, its names, the
//! grant traits, [`Caps`], the context's fields and setters and [`Ctx`]'s accessors are all
//! generated from it. (The `#[tool]` macro crate keeps its own list of the names; a test checks
//! that it agrees.)

pub(crate) mod ctx;
mod set;

// At the root: `Ctx`.
pub(crate) use ctx::Ctx;
pub use set::Capabilities;

/// The table of capabilities, handed to `$generator`: for each, its `Capability` variant, its
/// name (the `ToolContext` field, the `Ctx` accessor and the word in `capabilities(...)`), what
/// the context holds (`identity`, always there, or a `service` trait object it may lack, with
/// the `ToolContext` method that sets it), its documentation, and the message a tool that
/// touches it undeclared gets.
macro_rules! capability_table {
    ($generator:ident) => {
        $generator! {
            Env env service(Sandbox, with_env)
                "The session's sandbox view (`ctx.env()`)."
                "this function uses `ctx.env()` but does not declare the `env` capability";
            ExecuteCode execute_code service(CodeExecutor, with_executor)
                "The session's code executor (`ctx.execute_code()`)."
                "this function uses `ctx.execute_code()` but does not declare the `execute_code` capability";
            Session session identity(SessionIdentity)
                "The session's identity: id, tenant, lineage, depth (`ctx.session()`)."
                "this function uses `ctx.session()` but does not declare the `session` capability";
            Factory factory service(ChildSessionFactory, with_factory)
                "The child-session factory (`ctx.factory()`)."
                "this function uses `ctx.factory()` but does not declare the `factory` capability";
            Log log service(ExecutionLog, with_log)
                "The session's execution log (`ctx.log()`)."
                "this function uses `ctx.log()` but does not declare the `log` capability";
            Coordinator coordinator service(Coordinator, with_coordinator)
                "Cross-session signalling (`ctx.coordinator()`)."
                "this function uses `ctx.coordinator()` but does not declare the `coordinator` capability";
            Chat chat service(Chat, with_chat)
                "The chat the session talks to people through (`ctx.chat()`)."
                "this function uses `ctx.chat()` but does not declare the `chat` capability";
        }
    };
}
pub(crate) use capability_table;

/// The enum, its names, the sealed grant traits and `Caps` with its impls.
macro_rules! define_capabilities {
    ($($variant:ident $name:ident $kind:ident($($held:tt)*) $doc:literal $missing:literal;)*) => {
        /// One per-session context field a tool may be granted.
        ///
        /// ```
        /// use cy_tools::capability::Capability;
        /// assert_eq!(Capability::ExecuteCode.name(), "execute_code");
        /// assert_eq!(Capability::from_name("chat"), Some(Capability::Chat));
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Capability {
            $( #[doc = $doc] $variant, )*
        }

        impl Capability {
            /// Every capability, in declaration order.
            pub const ALL: &'static [Capability] = &[$(Capability::$variant),*];

            /// The name used in `#[tool(capabilities(...))]`, in specs and in messages.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Capability::$variant => stringify!($name), )*
                }
            }
        }

        /// The grants a [`Caps`] type makes: one trait per capability, implemented for the
        /// `Caps` types whose flag for it is `true`, and sealed, so no other type can make a
        /// grant by hand. Not written by users: a missing grant's error names what to declare.
        #[doc(hidden)]
        pub mod grants {
            $(
                #[doc = concat!("Proof that a capability set grants `", stringify!($name), "`.")]
                #[diagnostic::on_unimplemented(
                    message = $missing,
                    label = "not declared by this function",
                    note = "declare it in the attribute: `#[tool(capabilities(...))]` (or `#[resource(...)]`, `#[prompt(...)]`), or with `capability_set!` for a hand-written definition"
                )]
                pub trait $variant: super::CapabilitySet {}
            )*
        }

        /// A capability set as a type: one flag per capability, in the order of
        /// [`Capability::ALL`]. `#[tool]` and [`capability_set!`](crate::capability::capability_set) write it;
        /// nothing else can make it grant what it does not declare.
        ///
        /// ```
        /// use cy_tools::capability::{Capability, capability_set, CapabilitySet};
        /// capability_set!(ReadCaps: env, session);
        /// assert!(ReadCaps::CAPABILITIES.contains(Capability::Session));
        /// ```
        ///
        /// Not written by users (`#[tool]` and `capability_set!` write it), so kept out of the
        /// documentation.
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        pub enum Caps<$(const $variant: bool),*> {}

        // Not shown in errors: the sealed trait's message says what to do instead.
        #[diagnostic::do_not_recommend]
        #[allow(non_upper_case_globals)]
        impl<$(const $variant: bool),*> sealed::Sealed for Caps<$({ $variant }),*> {}

        #[allow(non_upper_case_globals)]
        impl<$(const $variant: bool),*> CapabilitySet for Caps<$({ $variant }),*> {
            const CAPABILITIES: Capabilities =
                Capabilities::NONE $(.with_if(Capability::$variant, $variant))*;
        }

        /// The set that grants nothing: a tool that touches no context field.
        #[doc(hidden)]
        pub type NoCapabilities = Caps<$({ capability_flag!($variant, false) }),*>;

        /// The set that grants everything; only for the recovery code `#[tool]` emits on error.
        #[doc(hidden)]
        pub type AllCapabilities = Caps<$({ capability_flag!($variant, true) }),*>;

        grant_impls!([] [$($variant)*]);
    };
}

/// `$value`, whatever `$variant` is (a `$( )*` repetition needs one of its variables).
macro_rules! capability_flag {
    ($variant:ident, $value:literal) => {
        $value
    };
}

/// For each capability in turn, the impl of its grant trait for every `Caps` with its flag
/// `true`: the capabilities before it and after it stay generic.
macro_rules! grant_impls {
    ([$($before:ident)*] []) => {};
    ([$($before:ident)*] [$variant:ident $($after:ident)*]) => {
        // Not shown in errors: the message of the missing grant says all there is to say.
        #[diagnostic::do_not_recommend]
        #[allow(non_upper_case_globals)]
        impl<$(const $before: bool,)* $(const $after: bool,)*> grants::$variant
            for Caps<$({ $before },)* true $(, { $after })*>
        {
        }
        grant_impls!([$($before)* $variant] [$($after)*]);
    };
}

capability_table!(define_capabilities);

impl Capability {
    /// Parses a name as written in `#[tool(capabilities(...))]`.
    pub fn from_name(name: &str) -> Option<Capability> {
        Capability::ALL.iter().copied().find(|c| c.name() == name)
    }

    pub(crate) const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a capability set: capability sets cannot be written by hand",
        label = "not a capability set",
        note = "declare the capabilities with `#[tool(capabilities(...))]` or `capability_set!`, which write a `cy_tools::capability::Caps` type"
    )]
    pub trait Sealed {}
}

/// A type that stands for one tool's declared capability set: a [`Caps`] type, and nothing
/// else (the trait is sealed).
pub trait CapabilitySet: sealed::Sealed + Send + Sync + 'static {
    /// The declared capabilities.
    const CAPABILITIES: Capabilities;
}

/// Not public API: `capability::capability_set!` is its name. Exported at the root only
/// because `macro_rules!` macros are.
#[doc(hidden)]
#[macro_export]
macro_rules! __capability_set {
    ($(#[$meta:meta])* $vis:vis $name:ident : $($cap:ident),* $(,)?) => {
        $crate::__private::capability_set!(
            $crate, $(#[$meta])* $vis $name : $($cap),*
        );
    };
}

/// Declares a capability-set type for a hand-written definition: a type alias of the type
/// that grants exactly the named capabilities (`env`, `execute_code`, `session`,
/// `factory`, `log`, `coordinator`, `chat`).
///
/// ```
/// use cy_tools::capability::{Capability, capability_set, CapabilitySet};
///
/// capability_set!(
///     /// What the file readers may touch.
///     pub ReadCaps: env, session
/// );
/// assert!(ReadCaps::CAPABILITIES.contains(Capability::Env));
/// assert!(!ReadCaps::CAPABILITIES.contains(Capability::Chat));
/// ```
#[doc(inline)]
pub use crate::__capability_set as capability_set;

/// The one missing-capability check: `declared` against what `context` provides, as binding
/// and [`Ctx::new`] make it.
pub(crate) fn check_provided(
    tool: &str,
    declared: Capabilities,
    context: &crate::binding::ToolContext,
) -> Result<(), crate::binding::BindError> {
    let missing = declared.difference(context.provides());
    if missing.is_empty() {
        return Ok(());
    }
    Err(crate::binding::BindError::MissingCapabilities {
        tool: tool.to_string(),
        missing,
        session: context.session().session_id.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_sets_agree() {
        for cap in Capability::ALL {
            assert_eq!(Capability::from_name(cap.name()), Some(*cap));
        }
        assert_eq!(Capability::from_name("network"), None);
        assert_eq!(NoCapabilities::CAPABILITIES, Capabilities::NONE);
        assert_eq!(AllCapabilities::CAPABILITIES, Capabilities::ALL);
        assert_eq!(Capabilities::ALL.iter().count(), Capability::ALL.len());
    }

    #[test]
    fn the_macro_crate_knows_the_same_capabilities_in_the_same_order() {
        // `#[tool]` and `capability_set!` write `Caps` flags in the macro crate's order.
        let table: Vec<&str> = Capability::ALL.iter().map(|c| c.name()).collect();
        let macros: &[&str] = cy_tools_macros::capability_names!();
        assert_eq!(macros, table);
    }
}
