//! `Ctx`: the narrowed view of a session's context that a tool body receives.

use std::marker::PhantomData;

use crate::capability::{CapabilitySet, Grants, NoCapabilities, cap};
use crate::{
    BindError, Chat, CodeExecutor, Coordinator, ExecutionLog, Sandbox, SessionFactory,
    SessionIdentity, ToolContext,
};

/// The part of a session's [`ToolContext`] that one tool may touch.
///
/// `Caps` is the tool's declared capability set. The accessor for a field exists only where
/// `Caps` [`Grants`] that field's capability, so touching an undeclared field is a compile error:
///
/// ```compile_fail
/// use cy_tools::{capability_set, Ctx};
/// capability_set!(OnlyEnv: env);
/// fn body(ctx: Ctx<'_, OnlyEnv>) {
///     let _ = ctx.chat(); // error: tool capability `Chat` is not granted to this tool
/// }
/// ```
///
/// A `Ctx` is made from a context that provides every declared capability, so each accessor
/// always has a value. To test a tool body directly, build one with [`Ctx::new`]:
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::{capability_set, memory::MemorySandbox, Ctx, SessionIdentity, ToolContext};
///
/// capability_set!(OnlyEnv: env);
/// let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
///     .with_env(Arc::new(MemorySandbox::new()));
/// let ctx = Ctx::<OnlyEnv>::new(&context).unwrap();
/// assert_eq!(ctx.env().describe(), "memory:/");
/// ```
pub struct Ctx<'a, Caps: CapabilitySet = NoCapabilities> {
    context: &'a ToolContext,
    _caps: PhantomData<fn() -> Caps>,
}

impl<Caps: CapabilitySet> Clone for Ctx<'_, Caps> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Caps: CapabilitySet> Copy for Ctx<'_, Caps> {}

impl<'a, Caps: CapabilitySet> Ctx<'a, Caps> {
    /// Narrows `context` to `Caps`.
    ///
    /// # Errors
    /// [`BindError::MissingCapabilities`] when the context lacks a capability `Caps` declares.
    pub fn new(context: &'a ToolContext) -> Result<Self, BindError> {
        let missing = Caps::CAPABILITIES.difference(context.provides());
        if !missing.is_empty() {
            return Err(BindError::MissingCapabilities {
                tool: std::any::type_name::<Caps>().to_string(),
                missing,
                session: context.session.session_id.clone(),
            });
        }
        Ok(Ctx {
            context,
            _caps: PhantomData,
        })
    }
}

// Every accessor asserts, at compile time, that the runtime set agrees with the `Grants` impl
// it relies on: a hand-written `impl Grants<X>` without the matching declaration cannot compile,
// so the check binding makes (on `CAPABILITIES`) always covers what the body may touch.
macro_rules! accessor {
    ($(#[$doc:meta])* $name:ident, $marker:ident, $field:ident, $ty:ty) => {
        $(#[$doc])*
        pub fn $name(&self) -> &'a $ty
        where
            Caps: Grants<cap::$marker>,
        {
            const {
                assert!(
                    Caps::CAPABILITIES.contains(<cap::$marker as cap::Marker>::CAPABILITY),
                    "a `Grants` impl without the matching capability in `CapabilitySet::CAPABILITIES`"
                )
            };
            match &self.context.$field {
                Some(service) => &**service,
                // `Ctx` is only ever made from a context that provides every declared capability.
                None => unreachable!(concat!("context checked to provide `", stringify!($field), "`")),
            }
        }
    };
}

impl<'a, Caps: CapabilitySet> Ctx<'a, Caps> {
    accessor!(
        /// The session's sandbox view.
        env, Env, env, dyn Sandbox
    );
    accessor!(
        /// The session's code executor.
        execute_code, ExecuteCode, execute_code, dyn CodeExecutor
    );
    accessor!(
        /// The child-session factory.
        factory, Factory, factory, dyn SessionFactory
    );
    accessor!(
        /// The execution log.
        store, Store, store, dyn ExecutionLog
    );
    accessor!(
        /// The cross-session coordinator.
        coordinator, Coordinator, coordinator, dyn Coordinator
    );
    accessor!(
        /// The chat.
        chat, Chat, chat, dyn Chat
    );

    /// The session's identity.
    pub fn session(&self) -> &'a SessionIdentity
    where
        Caps: Grants<cap::Session>,
    {
        const {
            assert!(
                Caps::CAPABILITIES.contains(crate::Capability::Session),
                "a `Grants` impl without the matching capability in `CapabilitySet::CAPABILITIES`"
            )
        };
        &self.context.session
    }
}

impl<Caps: CapabilitySet> std::fmt::Debug for Ctx<'_, Caps> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("capabilities", &Caps::CAPABILITIES.to_string())
            .finish()
    }
}
