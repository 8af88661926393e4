//! `State`: a tool parameter that receives an application object by type.

use std::fmt;
use std::ops::Deref;

use crate::call::ToolResult;
use crate::capability::{CapabilitySet, Ctx};

/// A tool parameter that receives the application object of type `T`: write
/// `db: State<'_, Db>` in a `#[tool]` function, and binding leaves the tool out of any session
/// without a `Db`. It dereferences to `&T`.
///
/// ```
/// use cy_tools::prelude::*;
///
/// struct Greeting(String);
///
/// /// Greets someone the application's way.
/// #[tool(register = false)]
/// async fn greet(greeting: State<'_, Greeting>, /** Who. */ name: String) -> String {
///     format!("{}, {name}!", greeting.0)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
///     .with_state(Greeting("Hello".into()));
/// let tool = cy_tools::binding::bind_tool(&GREET, context).unwrap();
/// let result = tool.execute(ToolCall::new("c1", serde_json::json!({"name": "Ada"})), &CancellationToken::new()).await;
/// assert_eq!(result.text_content(), "Hello, Ada!");
/// # });
/// ```
pub struct State<'a, T: ?Sized>(&'a T);

impl<'a, T: ?Sized> State<'a, T> {
    /// Wraps a reference (to call a `#[tool]` function directly, in a test).
    pub fn new(value: &'a T) -> Self {
        State(value)
    }

    /// The reference, with the context's lifetime.
    pub fn get(self) -> &'a T {
        self.0
    }
}

impl<'a, T: 'static> State<'a, T> {
    /// What `#[tool]` passes for a `State<'_, T>` parameter. Binding checked that the session
    /// holds a `T`, so the error (an error result, never a panic) is only reached when a
    /// definition's handler is called on a context it was not bound to.
    ///
    /// # Errors
    /// The error result for the model when the context holds no `T`.
    #[doc(hidden)]
    pub fn from_ctx<C: CapabilitySet>(ctx: &Ctx<'a, C>, tool: &str) -> Result<Self, ToolResult> {
        ctx.state::<T>().map(State).ok_or_else(|| {
            ToolResult::error(format!(
                "`{tool}` needs application state `{}`, which this session does not hold; this is a bug in the host application, not in your arguments",
                std::any::type_name::<T>()
            ))
        })
    }
}

impl<T: ?Sized> Clone for State<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for State<'_, T> {}

impl<T: ?Sized> Deref for State<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.0).finish()
    }
}
