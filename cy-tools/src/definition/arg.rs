//! What a `#[tool]` function's argument types must be, said in the user's words when they are
//! not.
//!
//! `#[tool]` generates, for each argument, a small type implementing [`ArgReader`] for the
//! argument's type, and holds the argument in the parameter struct as an [`Arg`] of that
//! reader. The struct's derived `Deserialize` and `JsonSchema` need nothing of the argument's
//! type, so the one place that does is the reader's impl, which the macro spans on the
//! argument: a type that lacks a derive gets one error, on that argument, naming the derive to
//! add ([`ArgDeserialize`], [`ArgSchema`]).

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{DeserializeOwned, Deserializer};

/// A type a tool argument can be read into: implemented for every `serde::de::DeserializeOwned`
/// type. Exists so the error for a type that is not says what to do.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `serde::Deserialize`",
    label = "the model's JSON cannot be read into `{Self}`",
    note = "add `#[derive(serde::Deserialize)]` to `{Self}` (or use an owned type that implements it: `String`, not `&str`)"
)]
pub trait ArgDeserialize: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ArgDeserialize for T {}

/// A type a tool argument can be described by: implemented for every `schemars::JsonSchema`
/// type. Exists so the error for a type that is not says what to do.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `schemars::JsonSchema`",
    label = "the model cannot be shown a schema for `{Self}`",
    note = "add `#[derive(schemars::JsonSchema)]` to `{Self}`, beside its `serde::Deserialize`"
)]
pub trait ArgSchema: JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> ArgSchema for T {}

/// A type `#[arg(default)]` can fill: implemented for every `Default` type. Exists so the error
/// for a type that is not says what to do, on the `default` that asked for it.
#[diagnostic::on_unimplemented(
    message = "`#[arg(default)]` needs a default value, and `{Self}` does not implement `Default`",
    label = "no `Default` for `{Self}`",
    note = "derive or implement `Default` for `{Self}`, or give the value: `#[arg(default = ...)]`"
)]
pub trait ArgDefault: Default {}

#[diagnostic::do_not_recommend]
impl<T: Default> ArgDefault for T {}

/// The value `#[arg(default)]` gives an argument the model left out.
pub fn default_arg<T: ArgDefault>() -> T {
    T::default()
}

/// Reads `T` from `deserializer`; the one place a `#[tool]` argument needs `T: Deserialize`.
///
/// # Errors
/// The deserializer's error.
pub fn deserialize_arg<'de, T: ArgDeserialize, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    T::deserialize(deserializer)
}

/// How an argument type describes itself: its `JsonSchema` functions, taken once, so the one
/// place a `#[tool]` argument needs `T: JsonSchema` is [`ArgSchemaFns::of`].
#[derive(Clone, Copy)]
pub struct ArgSchemaFns {
    inline: fn() -> bool,
    name: fn() -> Cow<'static, str>,
    id: fn() -> Cow<'static, str>,
    schema: fn(&mut SchemaGenerator) -> Schema,
    non_optional: fn(&mut SchemaGenerator) -> Schema,
    is_option: fn() -> bool,
}

impl ArgSchemaFns {
    /// The functions of `T`.
    pub const fn of<T: ArgSchema>() -> ArgSchemaFns {
        ArgSchemaFns {
            inline: T::inline_schema,
            name: T::schema_name,
            id: T::schema_id,
            schema: T::json_schema,
            non_optional: T::_schemars_private_non_optional_json_schema,
            is_option: T::_schemars_private_is_option,
        }
    }
}

/// One argument's reader, which `#[tool]` generates beside the function: the argument's type
/// and how to read and describe it.
pub trait ArgReader: 'static {
    /// The argument's type.
    type Value;

    /// Reads the argument (through [`deserialize_arg`]).
    ///
    /// # Errors
    /// The deserializer's error.
    fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self::Value, D::Error>;

    /// Describes the argument ([`ArgSchemaFns::of`]).
    const SCHEMA: ArgSchemaFns;
}

/// One argument of a `#[tool]` function, as the generated parameter struct holds it: read and
/// described exactly as its reader's type (transparent).
///
/// ```
/// use cy_tools::definition::{Arg, ArgReader, ArgSchemaFns, deserialize_arg};
///
/// enum Count {}
/// impl ArgReader for Count {
///     type Value = u32;
///     fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
///         deserialize_arg::<u32, D>(d)
///     }
///     const SCHEMA: ArgSchemaFns = ArgSchemaFns::of::<u32>();
/// }
///
/// let arg: Arg<Count> = serde_json::from_str("7").unwrap();
/// assert_eq!(arg.0, 7);
/// assert_eq!(schemars::schema_for!(Arg<Count>), schemars::schema_for!(u32));
/// ```
pub struct Arg<R: ArgReader>(pub R::Value, PhantomData<R>);

impl<R: ArgReader> Arg<R> {
    /// Wraps a value (a `#[arg(default = ...)]` default).
    pub fn new(value: R::Value) -> Self {
        Arg(value, PhantomData)
    }
}

impl<R: ArgReader> Default for Arg<R>
where
    R::Value: Default,
{
    fn default() -> Self {
        Arg::new(R::Value::default())
    }
}

impl<'de, R: ArgReader> serde::Deserialize<'de> for Arg<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        R::deserialize(deserializer).map(Arg::new)
    }
}

/// So a `#[arg(default = ...)]` value shows in the schema (schemars writes a field's default
/// only for a type it can serialize).
impl<R: ArgReader> serde::Serialize for Arg<R>
where
    R::Value: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<R: ArgReader> JsonSchema for Arg<R> {
    fn inline_schema() -> bool {
        (R::SCHEMA.inline)()
    }

    fn schema_name() -> Cow<'static, str> {
        (R::SCHEMA.name)()
    }

    fn schema_id() -> Cow<'static, str> {
        (R::SCHEMA.id)()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        (R::SCHEMA.schema)(generator)
    }

    // Delegated too, so an `Option` argument stays optional and its schema stays as schemars
    // writes it for the bare type.
    fn _schemars_private_non_optional_json_schema(generator: &mut SchemaGenerator) -> Schema {
        (R::SCHEMA.non_optional)(generator)
    }

    fn _schemars_private_is_option() -> bool {
        (R::SCHEMA.is_option)()
    }
}
