//! `Ctx`: the narrowed view of a session's context that a tool body receives.

use std::marker::PhantomData;

use super::{CapabilitySet, NoCapabilities, capability_table, grants};
use crate::binding::{BindError, SessionIdentity, ToolContext};
use crate::services::{
    Chat, ChildSessionFactory, CodeExecutor, Coordinator, ExecutionLog, Sandbox,
};

/// The part of a session's [`ToolContext`] that one tool may touch.
///
/// `Caps` is the tool's declared capability set. The accessor for a field exists only where
/// `Caps` grants that field's capability (the [`grants`](crate::capability::grants) traits), so touching an
/// undeclared field is a compile error:
///
/// ```compile_fail
/// use cy_tools::{Ctx, capability::capability_set};
/// capability_set!(OnlyEnv: env);
/// fn body(ctx: Ctx<'_, OnlyEnv>) {
///     let _ = ctx.chat(); // error: this function uses `ctx.chat()` but does not declare the `chat` capability
/// }
/// ```
///
/// A `Ctx` is made from a context that provides every declared capability, so each accessor
/// always has a value. To test a tool body directly, build one with [`Ctx::new`]:
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::{Ctx, SessionIdentity, ToolContext, capability::capability_set, memory::MemorySandbox};
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
        // The set has no tool name of its own: the message names it by what it declares.
        let declared = Caps::CAPABILITIES;
        Self::for_tool(&format!("Ctx<{declared}>"), context)
    }

    /// [`new`](Self::new) for the tool called `tool`, which the error names.
    pub(crate) fn for_tool(tool: &str, context: &'a ToolContext) -> Result<Self, BindError> {
        super::check_provided(tool, Caps::CAPABILITIES, context)?;
        Ok(Ctx {
            context,
            _caps: PhantomData,
        })
    }
}

impl<'a, Caps: CapabilitySet> Ctx<'a, Caps> {
    /// The context this view narrows.
    pub(crate) fn context(&self) -> &'a ToolContext {
        self.context
    }

    /// A view of `context`, which the caller knows provides every capability of `Caps`: a
    /// clone of a context a `Ctx<Caps>` was made from, or a [`BoundContext`](crate::binding::BoundContext)
    /// binding checked against the definition declaring `Caps`.
    pub(crate) fn assume_checked(context: &'a ToolContext) -> Self {
        Ctx {
            context,
            _caps: PhantomData,
        }
    }
}

/// The accessor for a capability of each kind: an identity is always there, a service is
/// there because `Ctx::new` checked it.
macro_rules! accessor {
    ($variant:ident $name:ident identity($ty:ident) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(&self) -> &'a $ty
        where
            Caps: grants::$variant,
        {
            &self.context.fields.$name
        }
    };
    ($variant:ident $name:ident service($ty:ident, $setter:ident) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(&self) -> &'a dyn $ty
        where
            Caps: grants::$variant,
        {
            match &self.context.fields.$name {
                Some(service) => &**service,
                // `Ctx` is only ever made from a context that provides every declared capability.
                None => unreachable!(concat!(
                    "context checked to provide `",
                    stringify!($name),
                    "`"
                )),
            }
        }
    };
}

macro_rules! define_accessors {
    ($($variant:ident $name:ident $kind:ident($($held:tt)*) $doc:literal $missing:literal;)*) => {
        impl<'a, Caps: CapabilitySet> Ctx<'a, Caps> {
            $( accessor!($variant $name $kind($($held)*) $doc); )*
        }
    };
}

capability_table!(define_accessors);

impl<'a, Caps: CapabilitySet> Ctx<'a, Caps> {
    /// The application object of type `T`, when the session has one.
    ///
    /// A `#[tool]` function takes it as a `State<'_, T>` parameter instead, and then binding
    /// guarantees it is there; a hand-written definition declares it with
    /// [`needs_state`](crate::definition::ToolDefinition::needs_state) for the same guarantee.
    pub fn state<T: 'static>(&self) -> Option<&'a T> {
        self.context.state.get::<T>()
    }
}

impl<Caps: CapabilitySet> std::fmt::Debug for Ctx<'_, Caps> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("capabilities", &Caps::CAPABILITIES.to_string())
            .finish()
    }
}
