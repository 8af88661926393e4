//! Definitions: what a tool is before any session exists.
//!
//! A definition is a `'static` value — [`ToolMeta`] (name, description, annotations, timeout,
//! the application state it needs), the declared capabilities, the parameter schema and a
//! body — that holds no live reference, so it sits in a `static` and is shared by every
//! session. `#[tool]` writes a [`ToolDefinition`] from an `async fn`; [`RawToolDefinition`]
//! takes a hand-written JSON Schema; both are a [`Definition`] once their types are erased,
//! which is what registries hold and binding takes. [`ToolDefinition`]'s documentation shows a
//! tool written by hand, which is what `#[tool]` writes.

mod annotations;
mod arg;
mod erased;
mod meta;
mod name;
mod output;
mod raw;
pub(crate) mod schema;
pub(crate) mod typed;
pub(crate) mod validate;

pub use annotations::ToolAnnotations;
// What `#[tool]`'s generated code reads arguments with (and what the error for a type that
// cannot be an argument names): reached through `__private`, kept out of the documentation.
#[doc(hidden)]
pub use arg::{
    Arg, ArgDefault, ArgDeserialize, ArgReader, ArgSchema, ArgSchemaFns, default_arg,
    deserialize_arg,
};
pub use erased::Definition;
pub use meta::ToolMeta;
pub(crate) use name::name_problem;
pub use name::{MAX_TOOL_NAME_LEN, is_valid_tool_name};
pub use output::OutputSchema;
#[doc(hidden)]
pub use output::{OutputType, output_schema_of};
pub use raw::{RawHandler, RawToolDefinition};
pub use schema::Schema;
pub use typed::{Handler, ToolDefinition};
pub use validate::ArgsCheck;
